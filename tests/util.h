/* Helpers shared by the test and benchmark programs, plain C: medians,
 * removing a directory tree, comparing frames byte by byte, the reads of a naive box blur and random
 * convolution kernels.  The oracle is reference.h; the gst-check
 * programs' own helpers are check/framecheck.h. */
#pragma once

#include "clf.h"

#include <stddef.h>
#include <stdint.h>

/* For qsort: orders doubles ascending. */
int clf_test_compare_doubles (const void *a, const void *b);

/* The median of the n values at v (sorted in place, so v[0] is then the
 * least): the middle one, or the mean of the middle two; n > 0. */
double clf_test_median (double *v, size_t n);

/* Removes `path` and, for a directory, everything under it (links are
 * removed, not followed). */
void clf_test_remove_tree (const char *path);

/* Where a frame differs from the one wanted: a byte of a row (`padding`
 * false) or of the padding beyond it, which must still hold the canary. */
typedef struct
{
  uint32_t plane, y;
  size_t x;
  uint8_t got, want;
  bool padding;
} ClfTestDifference;

/* Reads every plane of `got` to its stride: each byte of a row against
 * `want`'s, each byte beyond the row against `canary`.  true, with the
 * first byte that differs in `d`, where one does. */
bool clf_test_first_difference (const ClfFrameFormat * format,
    const ClfHostFrame * got, const ClfHostFrame * want, uint8_t canary,
    ClfTestDifference * d);

/* The samples a naive box blur of `radius` reads over every component of
 * `format`: (2r+1)^2 a sample. */
double clf_test_box_reads (const ClfFrameFormat * format, uint32_t radius);

/* The kinds of kernels the convolve tests draw: small coefficients (int
 * sums, divisor their sum), a rank-1 kernel u v^T (the GPUs' two passes),
 * coefficients, divisor and bias anywhere in 32 bits (long sums), a
 * negative sum, a sum of 0 (divisor 1) with a bias, a rank-1 kernel
 * of large entries (two passes with long sums), and a sparse kernel (most
 * coefficients zero, as the motion-blur preset: the taps skip them). */
enum {
  KERNEL_SMALL, KERNEL_RANK1, KERNEL_HUGE, KERNEL_NEGATIVE, KERNEL_ZERO_SUM,
  KERNEL_HUGE_RANK1, KERNEL_SPARSE, N_KERNEL_KINDS
};

extern const char *const kernel_kind_names[N_KERNEL_KINDS];

/* A random value in [lo, hi], from the caller's generator. */
typedef int64_t (*ClfTestRandomIn) (int64_t lo, int64_t hi);

/* A random kernel of `size` x `size` of the kind (KERNEL_*), its values
 * drawn from `random_in`. */
ClfKernel random_kernel (uint32_t size, int kind, ClfTestRandomIn random_in);
