/* convolve_rank1_tiles and convolve_rank1_tiles_wide, on GPUs, for a
 * kernel k = u v^T: the kernel KERNEL_NAME with sums of type ACC (int,
 * long for the _wide one), built once for each (kernels/meson.build's
 * kernel_variants).  The tile of convolve_tiles (stage_tile); its side
 * rows filtered by v along the group's CONV_GROUP columns into `rows`,
 * then each pixel's column of them by u.  The partial sums are bounded by
 * max * sum |v| <= max * sum |k|. */

__kernel __attribute__((reqd_work_group_size(CONV_GROUP, CONV_GROUP, 1)))
void KERNEL_NAME(CONVOLVE_ARGS)
{
  __local ushort tile[CONV_SIDE_MAX * CONV_SIDE_MAX * BPP];
  __local ACC rows[CONV_SIDE_MAX * CONV_GROUP * BPP];
  const int side = CONV_GROUP + 2 * radius;
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x = get_global_id(0), y = get_global_id(1);
  stage_tile(tile, src, src_off, src_stride, x - lx - radius,
      y - ly - radius, side, width, height, border);
  barrier(CLK_LOCAL_MEM_FENCE);
  const int k_side = 2 * radius + 1;
  __constant const int *u = coeffs, *v = coeffs + k_side;
  const int item = ly * CONV_GROUP + lx;
  for (int t = item; t < side * CONV_GROUP; t += CONV_GROUP * CONV_GROUP) {
    __local const ushort *line =
        tile + ((t / CONV_GROUP) * side + t % CONV_GROUP) * BPP;
    for (int c = 0; c < BPP; c++) {
      ACC s = 0;
      if (FILTERED(c))
        for (int j = 0; j < k_side; j++)
          s += (ACC) v[j] * (ACC) line[j * BPP + c];
      rows[t * BPP + c] = s;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (x >= width || y >= height)
    return;
  ACC sum[BPP];
  for (int c = 0; c < BPP; c++) {
    sum[c] = 0;
    if (FILTERED(c))
      for (int i = 0; i < k_side; i++)
        sum[c] += (ACC) u[i] * rows[((ly + i) * CONV_GROUP + lx) * BPP + c];
  }
  const Divide d = divide_of(rounding, abs_divisor, mul, shift, negative,
      bias);
  uint values[BPP];
  for (int c = 0; c < BPP; c++)
    values[c] = FILTERED(c) ? PASTE(VALUE_, ACC)(sum[c]) : 0;
  store_convolved(DST_ROW(y) + x * BPP, KEEP_ROW(y) + x * BPP, values);
}
