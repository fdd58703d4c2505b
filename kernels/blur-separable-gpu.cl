/* The separable blur on GPUs in two passes: the row sums of each pixel
 * into `sums`, then the column sums of those and the mean.  (RGBA-like
 * layouts take separable_tiles at small radii, in blur-tiles-gpu.cl.) */

/* The horizontal window sum of one pixel, into `sums`. */
#ifdef WANT_rows_direct
__kernel void rows_direct(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height)
    return;
  SUM sum[BPP];
  clear_sum(sum);

  add_window_S(sum, SRC_ROW(y), BPP, x - radius, width, radius, border);
  store_sums((__global uint *) sums + (y * width + x) * BPP, sum);
}
#endif

/* The vertical sum of one pixel's row sums, then the mean. */
#ifdef WANT_cols_direct
__kernel void cols_direct(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height)
    return;
  SUM sum[BPP];
  clear_sum(sum);

  add_window_uint(sum, (__global const uint *) sums + x * BPP, width * BPP,
      y - radius, height, radius, border);
  store_mean(DST_ROW(y) + x * BPP, KEEP_ROW(y) + x * BPP, sum,
      mean_for(radius, mean_mul, mean_shift));
}
#endif
