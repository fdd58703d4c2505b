/* convolve_strips, convolve_strips_float and convolve_strips_wide, on
 * CPUs (convolve.cl's strips section says how): the kernel KERNEL_NAME
 * with sums of type ACC, divided as DIVISION says (VALUE_<DIVISION>,
 * QUOTIENTS_<DIVISION>), VECTORS runs of 16 samples at a time: int sums,
 * the multiply and shift, 8 runs; int sums, truncated float products
 * (_float), 8 runs; long sums, a division (_wide), 4 runs.  Built once for
 * each (kernels/meson.build's kernel_variants), with its own function for
 * a pixel, KERNEL_NAME_pixel. */

/* The pixel x of row `out` by its taps, under the border rule along the
 * row (rows: the K source rows). */
void PASTE(KERNEL_NAME, _pixel)(__global S *out, __global const S *keep,
    __global const S *const *rows, int x, int radius, int width,
    int border, __constant const int *taps, int n_taps, Divide d,
    float inv)
{
  PIX(ACC) pixel = 0;
  for (int t = 0; t < n_taps; t++) {
    const int where = taps[2 * t];
    __global const S *px = rows[(uint) where / CONV_TAP_ROW] + BPP
        * border_index(x + (uint) where % CONV_TAP_ROW - radius, width,
            border);
    pixel += (ACC) taps[2 * t + 1] * CONVERT_PIX(ACC)(PIXEL_VALUES(px));
  }
  ACC sum[BPP];
  STORE_PIX(pixel, 0, sum);
  uint values[BPP];
  for (int c = 0; c < BPP; c++)
    values[c] = FILTERED(c) ? PASTE(VALUE_, DIVISION)(sum[c]) : 0;
  store_convolved(out + x * BPP, keep + x * BPP, values);
}

__kernel void KERNEL_NAME(CONVOLVE_ARGS)
{
  const int k_side = 2 * radius + 1;
  __constant const int *taps = coeffs + 2 * k_side * k_side;
  const float inv = as_float(taps[max(2 * n_taps, 1) + 2 * k_side]);
  const Divide d = divide_of(rounding, abs_divisor, mul, shift, negative,
      bias);
  const int first = get_global_id(0) * seg;
  const int end = min(first + seg, height);
  const int x0 = min((int) get_global_id(1) * columns, width);
  const int x1 = min(x0 + columns, width);
  const int inner_first = min(radius, width);
  const int inner_end = max(inner_first, width - radius);
  const int b_first = max(inner_first, x0) * BPP;
  const int b_end = max(b_first, min(inner_end, x1) * BPP);
  __global const S *rows[2 * CONV_MAX_RADIUS + 1];
  __global const S *lines[(2 * CONV_MAX_RADIUS + 1)
      * (2 * CONV_MAX_RADIUS + 1)];
  for (int y = first; y < end; y++) {
    /* The K rows the windows of row y read. */
    for (int i = 0; i < k_side; i++)
      rows[i] = SRC_ROW(border_index(y + i - radius, height, border));
    for (int t = 0; t < n_taps; t++)
      lines[t] = rows[taps[2 * t] / CONV_TAP_ROW]
          + (taps[2 * t] % CONV_TAP_ROW - radius) * BPP;
    __global S *out = DST_ROW(y);
    __global const S *keep = KEEP_ROW(y);
    for (int x = x0; x < min(inner_first, x1); x++)
      PASTE(KERNEL_NAME, _pixel)(out, keep, rows, x, radius, width, border,
          taps, n_taps, d, inv);
    int b = b_first;
    for (; b + 16 * VECTORS <= b_end; b += 16 * VECTORS) {
      PASTE(ACC, 16) sum[VECTORS];
#pragma unroll
      for (int v = 0; v < VECTORS; v++)
        sum[v] = 0;
      for (int t = 0; t < n_taps;) {
        const ACC k = taps[2 * t + 1];
        PASTE(ACC, 16) run[VECTORS];
#pragma unroll
        for (int v = 0; v < VECTORS; v++)
          run[v] = 0;
        do {
          __global const S *line = lines[t] + b;
#pragma unroll
          for (int v = 0; v < VECTORS; v++)
            run[v] += STRIP_VALUES(ACC, line + 16 * v);
        } while (++t < n_taps && taps[2 * t + 1] == k);
#pragma unroll
        for (int v = 0; v < VECTORS; v++)
          sum[v] += k * run[v];
      }
#pragma unroll
      for (int v = 0; v < VECTORS; v++)
        store_strip16(out, keep, b + 16 * v,
            PASTE(QUOTIENTS_, DIVISION)(sum[v]));
    }
    /* The last run of 16 overlaps the one before rather than leave its
     * samples to the pixels' path. */
    for (; b < b_end && b_end - b_first >= 16; b += 16) {
      b = min(b, b_end - 16);
      PASTE(ACC, 16) sum = 0;
      for (int t = 0; t < n_taps; t++)
        sum += (ACC) taps[2 * t + 1] * STRIP_VALUES(ACC, lines[t] + b);
      store_strip16(out, keep, b, PASTE(QUOTIENTS_, DIVISION)(sum));
    }
    for (int x = b / BPP; x < x1; x++)
      PASTE(KERNEL_NAME, _pixel)(out, keep, rows, x, radius, width, border,
          taps, n_taps, d, inv);
  }
}
