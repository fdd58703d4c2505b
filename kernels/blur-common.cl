/* Box blur, three ways, identical bytes: out = (S + N/2) / N, where S is the
 * exact sum of the (2r+1)x(2r+1) window under the border rule.
 *
 *  box_2d                      naive: each pixel reads all (2r+1)^2 samples
 *  rows_direct, cols_direct    separable: a row pass into `sums`, then columns
 *                              (GPUs, RGBA-like layouts: separable_tiles in
 *                              one pass at small radii; CPUs:
 *                              separable_strips)
 *  sliding                     running sums: the cost per pixel does not grow
 *                              with the radius (GPUs: sliding_tiles in one
 *                              pass at small radii; else, 8-bit samples up
 *                              to r = 127, narrow_column_sums then
 *                              narrow_row_means; else column_sums then
 *                              row_means_scan; CPUs: sliding_strips)
 *
 * A file holds a family of kernels for one kind of device (the tiles and
 * the strips each hold the sliding and the separable kernel, which share
 * most of their code), using only common.cl and this file (what more than
 * one of them uses).  They are built in this order:
 *   blur-naive.cl          box_2d, any device
 *   blur-separable-gpu.cl  rows_direct, cols_direct
 *   blur-sliding-gpu.cl    row_means_scan, narrow_row_means, and the
 *                          column slides of
 *   blur-column-sums.cl    column_sums and narrow_column_sums (one body)
 *   blur-tiles-gpu.cl      sliding_tiles, separable_tiles
 *   blur-strips-cpu.cl     separable_strips, sliding_strips
 * How fast each way is at each radius: docs/performance/.
 */

/* A row of sums as whole pixels: one aligned vector load where BPP is 2
 * or 4 (rows of sums start on such a boundary). */
#if BPP == 2 || BPP == 4
#define LOAD_SUMS(i, p) (((__global const PIX(SUM) *) (p))[i])
#define STORE_SUMS(v, i, p) (((__global PIX(SUM) *) (p))[i] = (v))
#define LOAD_COLUMN_SUMS(i, p) \
  CONVERT_PIX(SUM)(((__global const PIX(uint) *) (p))[i])
#else
#define LOAD_SUMS(i, p) LOAD_PIX(i, p)
#define STORE_SUMS(v, i, p) STORE_PIX(v, i, p)
#define LOAD_COLUMN_SUMS(i, p) CONVERT_PIX(SUM)(LOAD_PIX(i, p))
#endif

/* P(j), the sum of pixels 0 .. j-1 of a row of prefix sums p (p[x] holds
 * P(x + 1)), for 0 <= j <= width. */
PIX(SUM) prefix(__global const SUM *p, int j)
{
  return j == 0 ? (PIX(SUM)) 0 : LOAD_SUMS(j - 1, p);
}

/* P(j) for any j, as if the row went on under the border rule (P(j) < 0
 * for j < 0 counts the samples left of 0 negatively).  Clamp repeats the
 * edge pixels; mirror repeats a period 0, 1, .., w-1, w-2, .., 1 whose
 * running sum is known from P. */
PIX(SUM) extended_prefix(__global const SUM *p, int j, int width,
    int border)
{
  if (j >= 0 && j <= width)
    return prefix(p, j);
  const PIX(SUM) total = prefix(p, width), first = prefix(p, 1);
  const PIX(SUM) last = total - prefix(p, width - 1);
  if (border == BORDER_CLAMP)
    return j < 0 ? (SUM) j * first : total + (SUM) (j - width) * last;
  if (width == 1)
    return (SUM) j * total;
  const int period = 2 * (width - 1);
  int q = j / period, m = j % period;
  if (m < 0) {
    m += period;
    q--;
  }
  const PIX(SUM) rest = m <= width ? prefix(p, m) :
      total + prefix(p, width - 1) - prefix(p, 2 * width - 1 - m);
  return (SUM) q * (2 * total - first - last) + rest;
}

/* The window sum of pixel x from a row's prefix sums p, any radius. */
PIX(SUM) window_of_prefix(__global const SUM *p, int x, int radius,
    int width, int border)
{
  return extended_prefix(p, x + radius + 1, width, border)
      - extended_prefix(p, x - radius, width, border);
}

/* The means of 16 window sums, from the exact product (see Mean). */
uint16 exact_means(SUMN(16) sum, Mean m)
{
  return convert_uint16(MEAN_OF(convert_ulong16(sum + m.rounding), m,
          ulong16));
}

/* Samples b .. b + 15 of a row: the means of window sums `sum` where
 * filtered, else `kept`. */
SN(16) run_mean_samples(SN(16) kept, SUMN(16) sum, int b, Mean m)
{
  const uint16 mean = exact_means(sum, m);
  return select(kept, PASTE(convert_, SN(16))(CONTAINER_OF(mean)),
      filtered_lanes(b));
}
