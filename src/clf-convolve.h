/* mode=convolve (clf-convolve.c): a kernel's checks, its divisor, its
 * arithmetic's width, its rank-1 factors, and its passes over a view.
 * On the plan layer (clf-plan-private.h). */
#pragma once

#include "clf-plan-private.h"

/* What the kernels need of a ClfKernel for samples of one depth on one
 * family of kernels: the coefficients as the device reads them (u then v
 * for a rank-1 kernel k = u v^T on GPUs, else k in rows, k in rows as
 * floats, then the taps: where and k[i][j] of each coefficient that is
 * not zero, where = i * side + j for the GPUs' tiles (in rows), i *
 * CLF_CONV_TAP_ROW + j for the CPUs' strips (by coefficient), then each
 * column's span of rows from its first coefficient that is not zero to
 * its last, and 1 / |d| as a float; see convolve.cl), and the
 * division q = sign(S) sign(d) floor((|S| +
 * half) / |d|) with half = floor(|d| / 2).
 *
 * Sums are exact in 32 bits where max * sum |k| + half < 2^31 (max: the
 * largest value of `depth` bits): the kernels then take int sums and
 * divide by a multiply and a shift, (n * mul) >> shift == n / |d| for
 * every n < 2^31 (mul = ceil(2^shift / |d|), shift = 31 + ceil(log2
 * |d|): mul < 2^32, as |d| > 2^(shift - 32), so n * mul < 2^63 and the
 * kernels multiply in 32-bit halves).  Otherwise (`wide`) they take long sums (|S| <=
 * 65535 * 225 * 2^31 < 2^55) and a 64-bit division.  Where floats hold
 * every step exactly, the GPUs' float tiles sum and divide in floats
 * (`float_sums`), and the CPUs' strips divide by a truncated float
 * product (`float_quotients`). */
typedef struct {
  uint32_t size;                /* K */
  uint32_t radius;              /* K / 2 */
  bool rank1;                   /* two passes of u and v */
  bool wide;
  bool float_sums;              /* sums and quotients exact in floats */
  bool float_quotients;         /* the strips' truncated quotients exact */
  cl_int coeffs[(4 * CLF_MAX_KERNEL_SIZE + 2) * CLF_MAX_KERNEL_SIZE + 1];
  uint32_t n_coeffs;
  cl_int n_taps;
  cl_ulong abs_divisor;         /* |d|: up to 225 * 2^31 */
  cl_ulong half;                /* floor(|d| / 2) */
  cl_ulong mul;                 /* narrow sums only */
  cl_int shift;
  cl_int negative;              /* d < 0 */
  cl_long bias;
} ClfConvolveSetup;

/* d as the contract resolves it: the divisor, else the coefficients' sum,
 * else 1.  Never 0; 64 bits, since a sum of 225 coefficients may not fit
 * 32. */
int64_t clf_convolve_divisor (const ClfKernel * kernel);

/* Whether k = u v^T exactly in integers, and then u and v (K each). */
bool clf_convolve_rank1 (const ClfKernel * kernel, int32_t * u, int32_t * v);

/* The setup of a checked kernel for values of `depth` bits, for the
 * CPUs' kernels or the GPUs'. */
void clf_convolve_setup (const ClfKernel * kernel, uint32_t depth,
    bool cpu_kernels, ClfConvolveSetup * setup);

/* The plan's convolve state: the coefficients' buffers (its kernel's and
 * neutral chroma's), replaced when the kernel changes (no rebuild). */
typedef struct ClfConvolve ClfConvolve;

void clf_convolve_free (ClfConvolve * convolve);

/* Convolves view p of a plane from src into dst (see enqueue_view_filter
 * in clf-plan.c), with the kernels of `set`; with `fill`, writes the mid
 * value of p's depth instead (CLF_CHROMA_NEUTRAL). */
bool clf_convolve_enqueue (ClfPlan * plan, const KernelSet * set,
    const ClfView * p, const ClfParams * params, bool fill, cl_mem src,
    const Placement * in, cl_mem dst, const Placement * out,
    bool keep_from_dst, GError ** error);
