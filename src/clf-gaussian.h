/* mode=gaussian and mode=unsharp (clf-gaussian.c): the blur's integer
 * kernel for a sigma, and its two passes over a view
 * (kernels/gaussian.cl).  On the plan layer (clf-plan-private.h). */
#pragma once

#include "clf-plan-private.h"

/* Sigma up to this takes a kernel of true Gaussian taps, at most
 * CLF_GAUSS_MAX_TAPS of them; above it, three boxes, which come within
 * 40 dB of the Gaussian only from about there on (docs/gaussian.md). */
#define CLF_GAUSS_TAPS_MAX_SIGMA 8.0

/* The separable kernel g of a sigma (docs/gaussian.md): 2R + 1 weights
 * summing to W, either taps (OpenCV's 8-bit Gaussian weights, W = 256)
 * or the composite of three boxes of odd widths (W = w1 w2 w3). */
typedef struct {
  uint32_t n_taps;              /* 2R + 1 taps; 0: boxes */
  int32_t taps[CLF_GAUSS_MAX_TAPS];
  uint32_t widths[3];           /* boxes */
  uint32_t radius;              /* R */
  uint64_t weight;              /* W */
} ClfGaussKernel;

void clf_gauss_kernel (double sigma, ClfGaussKernel * g);

/* The most pixels a kernel spans (its taps, or its boxes' widths added
 * up, the widest at CLF_MAX_SIGMA): the scratch the CPUs' rows passes
 * take (clf_view_sums_bytes). */
uint32_t clf_gauss_max_span (void);

/* Whether `params` (gaussian or unsharp) leave every value as it is: a
 * kernel of one tap. */
bool clf_gauss_identity (const ClfParams * params);

/* Checks sigma, amount and threshold: false with CLF_ERROR_INVALID. */
bool clf_gauss_check (const ClfParams * params, GError ** error);

/* Blurs view p of a plane from src into dst (unsharp: sharpens), with
 * the kernels of `set`, through the plan's sums. */
bool clf_gaussian_enqueue (ClfPlan * plan, const KernelSet * set,
    const ClfView * p, const ClfParams * params, cl_mem src,
    const Placement * in, cl_mem dst, const Placement * out,
    bool keep_from_dst, GError ** error);
