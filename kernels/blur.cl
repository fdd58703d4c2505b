/* Box blur, three ways, identical bytes: out = (S + N/2) / N, where S is the
 * exact sum of the (2r+1)x(2r+1) window under the border rule.
 *
 *  box_2d                      naive: each pixel reads all (2r+1)^2 samples
 *  rows_direct, cols_direct    separable: a row pass into `sums`, then columns
 *  rows_sliding, cols_sliding  running sums: the cost per pixel does not grow
 *                              with the radius
 */

__kernel void box_2d(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  __global const uchar *in = src + src_off;
  uint sum[BPP];
  clear_sum(sum);

  Walk wy = walk_from(y - radius, height, border);
  for (int dy = -radius; dy <= radius; dy++, wy = walk_next(wy))
    add_window_uchar(sum, in + walk_index(wy) * src_stride, BPP, x - radius,
        width, radius, border);
  store_mean(dst + dst_off + y * dst_stride + x * BPP,
      in + y * src_stride + x * BPP, sum,
      mean_for(radius, mean_mul, mean_shift));
}

/* The horizontal window sum of one pixel, into `sums`. */
__kernel void rows_direct(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  uint sum[BPP];
  clear_sum(sum);

  add_window_uchar(sum, src + src_off + y * src_stride, BPP, x - radius,
      width, radius, border);
  store_sums(sums + (y * width + x) * BPP, sum);
}

/* The vertical sum of one pixel's row sums, then the mean. */
__kernel void cols_direct(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  uint sum[BPP];
  clear_sum(sum);

  add_window_uint(sum, sums + x * BPP, width * BPP, y - radius, height,
      radius, border);
  store_mean(dst + dst_off + y * dst_stride + x * BPP,
      src + src_off + y * src_stride + x * BPP, sum,
      mean_for(radius, mean_mul, mean_shift));
}

/* Row sums of `seg` consecutive pixels of one row: the first window in
 * full, then one slide per pixel. */
__kernel void rows_sliding(PLANE_ARGS)
{
  const int x0 = get_global_id(0) * seg, y = get_global_id(1);
  const int x1 = min(x0 + seg, width);
  __global const uchar *row = src + src_off + y * src_stride;
  uint sum[BPP];
  clear_sum(sum);

  add_window_uchar(sum, row, BPP, x0 - radius, width, radius, border);
  Walk enter = walk_from(x0 + radius + 1, width, border);
  Walk leave = walk_from(x0 - radius, width, border);
  __global uint *out = sums + (y * width + x0) * BPP;
  for (int x = x0; x < x1; x++, out += BPP) {
    store_sums(out, sum);
    slide_uchar(sum, row + walk_index(enter) * BPP,
        row + walk_index(leave) * BPP);
    enter = walk_next(enter);
    leave = walk_next(leave);
  }
}

/* Column sums of `seg` consecutive rows of one pixel column, the same way,
 * then the mean.  Neighbouring work-items take neighbouring columns, so each
 * row step reads one contiguous run of `sums`. */
__kernel void cols_sliding(PLANE_ARGS)
{
  const int x = get_global_id(0), y0 = get_global_id(1) * seg;
  const int y1 = min(y0 + seg, height);
  const int pitch = width * BPP;
  __global const uint *col = sums + x * BPP;
  const Mean mean = mean_for(radius, mean_mul, mean_shift);
  uint sum[BPP];
  clear_sum(sum);

  add_window_uint(sum, col, pitch, y0 - radius, height, radius, border);
  Walk enter = walk_from(y0 + radius + 1, height, border);
  Walk leave = walk_from(y0 - radius, height, border);
  for (int y = y0; y < y1; y++) {
    store_mean(dst + dst_off + y * dst_stride + x * BPP,
        src + src_off + y * src_stride + x * BPP, sum, mean);
    slide_uint(sum, col + walk_index(enter) * pitch,
        col + walk_index(leave) * pitch);
    enter = walk_next(enter);
    leave = walk_next(leave);
  }
}
