/* convolve_tiles and convolve_tiles_wide, on GPUs: the kernel KERNEL_NAME
 * with sums of type ACC (int, long for the _wide one), built once for each
 * (kernels/meson.build's kernel_variants).  A work-group of CONV_GROUP x
 * CONV_GROUP work-items, one a pixel, stages its tile (stage_tile), then
 * each work-item sums its pixel's products from there: by its taps where
 * at most half the coefficients are not zero, else by every coefficient
 * (k in rows). */

__kernel __attribute__((reqd_work_group_size(CONV_GROUP, CONV_GROUP, 1)))
void KERNEL_NAME(CONVOLVE_ARGS)
{
  __local ushort tile[CONV_SIDE_MAX * CONV_SIDE_MAX * BPP];
  const int side = CONV_GROUP + 2 * radius;
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x = get_global_id(0), y = get_global_id(1);
  stage_tile(tile, src, src_off, src_stride, x - lx - radius,
      y - ly - radius, side, width, height, border);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (x >= width || y >= height)
    return;
  const int k_side = 2 * radius + 1;
  __local const ushort *at = tile + (ly * side + lx) * BPP;
  __constant const int *taps = coeffs + 2 * k_side * k_side;
  ACC sum[BPP];
  for (int c = 0; c < BPP; c++)
    sum[c] = 0;
  if (2 * n_taps <= k_side * k_side)
    for (int t = 0; t < n_taps; t++) {
      __local const ushort *px = at + taps[2 * t] * BPP;
      const ACC k = taps[2 * t + 1];
      for (int c = 0; c < BPP; c++)
        if (FILTERED(c))
          sum[c] += k * (ACC) px[c];
    }
  else
    for (int i = 0; i < k_side; i++) {
      __local const ushort *line = at + i * side * BPP;
      for (int j = 0; j < k_side; j++) {
        const ACC k = coeffs[i * k_side + j];
        for (int c = 0; c < BPP; c++)
          if (FILTERED(c))
            sum[c] += k * (ACC) line[j * BPP + c];
      }
    }
  const Divide d = divide_of(rounding, abs_divisor, mul, shift, negative,
      bias);
  uint values[BPP];
  for (int c = 0; c < BPP; c++)
    values[c] = FILTERED(c) ? PASTE(VALUE_, ACC)(sum[c]) : 0;
  store_convolved(DST_ROW(y) + x * BPP, KEEP_ROW(y) + x * BPP, values);
}
