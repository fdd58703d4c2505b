/* mode=gaussian and mode=unsharp (docs/gaussian.md): a separable integer
 * kernel g of 2R + 1 weights summing to W, in two passes.
 *
 *   gauss_rows     H = floor((256 * sum_j g[j] in[x + j] + floor(W / 2)) / W)
 *                  per sample of each row, into `line` (a uint a sample)
 *   gauss_columns  G = floor((sum_i g[i] H[y + i] + 128 W) / (256 W)) per
 *                  sample; unsharp then writes in + amount (in - G), past
 *                  the threshold, rounded and clamped
 *
 * g is either taps (n_taps = 2R + 1 <= 49, weights summing to 256, given
 * from the centre out in `taps` and `taps2`) or the composite of three boxes of odd
 * widths w1, w2, w3 (W = w1 w2 w3), whose sums cost the same at every
 * width: the comb of the boxes' 8 corners (a tap at each sum of a subset of
 * the widths, sign (-1)^size), then three running sums.  Each work-item
 * walks a run of `seg` samples along its line; before the run's first
 * output it walks the 2R positions before it, reading positions ahead of
 * its support as 0, so every sum it keeps is the exact sum of a finite
 * window (no state from other runs, any size of run).
 *
 * Values are PIX(long): a pixel's samples, each lane on its own; copied
 * samples (alpha) ride along and are never stored.  Every product and sum
 * stays below 2^53 (H < 2^24, W < 2^27). */

#define GAUSS_ARGS                                                        \
  __global const uchar *src, uint src_off, uint src_stride,               \
  __global uchar *dst, uint dst_off, uint dst_stride, int keep_dst,       \
  __global uint *line, int width, int height, int border, int seg,        \
  int16 taps, int16 taps2, int n_taps, int w1, int w2, int w3,            \
  long weight,                                                            \
  int unsharp, int amount, int threshold

#define PIX_LONG(v) CONVERT_PIX(long)(v)

/* The weights from the centre out: t[k] = g[R + k] = g[R - k]. */
#define UNPACK_TAPS(t)                                                    \
  int t[32];                                                              \
  vstore16(taps, 0, t);                                                   \
  vstore16(taps2, 1, t)

/* One step of the boxes' comb and running sums at position p of a run
 * that starts reading at `first`: VALUE(q) reads position q. */
#define COMB_STEP(VALUE, p, first, s1, s2, s3)                            \
  do {                                                                    \
    PIX(long) d_ = AT(VALUE, p, first) - AT(VALUE, (p) - w1, first)       \
        - AT(VALUE, (p) - w2, first) - AT(VALUE, (p) - w3, first)         \
        + AT(VALUE, (p) - w1 - w2, first)                                 \
        + AT(VALUE, (p) - w1 - w3, first)                                 \
        + AT(VALUE, (p) - w2 - w3, first)                                 \
        - AT(VALUE, (p) - w1 - w2 - w3, first);                           \
    s1 += d_;                                                             \
    s2 += s1;                                                             \
    s3 += s2;                                                             \
  } while (0)
#define AT(VALUE, q, first) ((q) >= (first) ? VALUE(q) : (PIX(long)) 0)

#ifdef WANT_gauss_rows
/* A run of samples along row y from x0: H of each, into `line`. */
__kernel void gauss_rows(GAUSS_ARGS)
{
  const int y = get_global_id(0), x0 = get_global_id(1) * seg;
  if (y >= height || x0 >= width)
    return;
  const int x1 = min(x0 + seg, width);
  __global const S *row = SRC_ROW(y);
  __global uint *out = line + (size_t) y * width * BPP;
#define ROW_VALUE(q) \
  PIX_LONG(PIXEL_VALUES(row + border_index(q, width, border) * BPP))

  if (n_taps) {
    UNPACK_TAPS(t);
    const int r = n_taps / 2;
    for (int x = x0; x < x1; x++) {
      PIX(long) sum = t[0] * ROW_VALUE(x);
      for (int k = 1; k <= r; k++)
        sum += t[k] * (ROW_VALUE(x - k) + ROW_VALUE(x + k));
      /* W = 256: H is the sum itself. */
      STORE_PIX(CONVERT_PIX(uint)(sum), x, out);
    }
    return;
  }
  const int r = (w1 + w2 + w3 - 3) / 2, first = x0 - r;
  PIX(long) s1 = 0, s2 = 0, s3 = 0;
  for (int p = first; p < x1 + r; p++) {
    COMB_STEP(ROW_VALUE, p, first, s1, s2, s3);
    if (p >= x0 + r)
      STORE_PIX(CONVERT_PIX(uint)((256 * s3 + weight / 2) / weight),
          p - r, out);
  }
#undef ROW_VALUE
}
#endif

#ifdef WANT_gauss_columns
/* G of a pixel's lanes from the column sum, then unsharp's step, and the
 * pixel's containers, its copied samples from `keep`. */
void store_gauss(__global S *out, __global const S *keep,
    __global const S *in, PIX(long) sum, long weight, int unsharp,
    int amount, int threshold)
{
  PIX(long) v = (sum + 128 * weight) / (256 * weight);
  if (unsharp) {
    const PIX(long) orig = PIX_LONG(PIXEL_VALUES(in));
    const PIX(long) d = orig - v, q = amount * d;
    /* q / 256 rounded half away from zero (?: takes lanes as select). */
    const PIX(long) step = q >= 0 ? (q + 128) >> 8 : -((128 - q) >> 8);
    v = d > threshold || d < -threshold ?
        clamp(orig + step, (long) 0, (long) VALUE_MAX) : orig;
  }
  const PIX(uint) kept = CONVERT_PIX(uint)(LOAD_PIX(0, keep));
  STORE_PIX(CONVERT_PIX(S)((CONTAINER_OF(CONVERT_PIX(uint)(v))
              & FILTERED_LANES) | (kept & ~FILTERED_LANES)), 0, out);
}

/* A run of pixels down column x from y0: the output of each. */
__kernel void gauss_columns(GAUSS_ARGS)
{
  const int x = get_global_id(0), y0 = get_global_id(1) * seg;
  if (x >= width || y0 >= height)
    return;
  const int y1 = min(y0 + seg, height);
  __global const uint *column = line + x * BPP;
  const int pitch = width * BPP;
#define COLUMN_VALUE(q) \
  PIX_LONG(LOAD_PIX(0, column + border_index(q, height, border) * pitch))
#define STORE(y, sum) \
  store_gauss(DST_ROW(y) + x * BPP, KEEP_ROW(y) + x * BPP, \
      SRC_ROW(y) + x * BPP, sum, weight, unsharp, amount, threshold)

  if (n_taps) {
    UNPACK_TAPS(t);
    const int r = n_taps / 2;
    for (int y = y0; y < y1; y++) {
      PIX(long) sum = t[0] * COLUMN_VALUE(y);
      for (int k = 1; k <= r; k++)
        sum += t[k] * (COLUMN_VALUE(y - k) + COLUMN_VALUE(y + k));
      STORE(y, sum);
    }
    return;
  }
  const int r = (w1 + w2 + w3 - 3) / 2, first = y0 - r;
  PIX(long) s1 = 0, s2 = 0, s3 = 0;
  for (int p = first; p < y1 + r; p++) {
    COMB_STEP(COLUMN_VALUE, p, first, s1, s2, s3);
    if (p >= y0 + r)
      STORE(p - r, s3);
  }
#undef STORE
#undef COLUMN_VALUE
}
#endif
