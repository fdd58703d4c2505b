/* The naive box blur, any device: each pixel reads all (2r+1)^2 samples
 * of its window (blur-common.cl tells the blur's arithmetic). */

#ifdef WANT_box_2d
__kernel void box_2d(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height)
    return;
  SUM sum[BPP];
  clear_sum(sum);

  Walk wy = walk_from(y - radius, height, border);
  for (int dy = -radius; dy <= radius; dy++, wy = walk_next(wy))
    add_window_S(sum, SRC_ROW(walk_index(wy)), BPP, x - radius, width,
        radius, border);
  store_mean(DST_ROW(y) + x * BPP, KEEP_ROW(y) + x * BPP, sum,
      mean_for(radius, mean_mul, mean_shift));
}
#endif
