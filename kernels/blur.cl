/* Box blur, three ways, identical bytes: out = (S + N/2) / N, where S is the
 * exact sum of the (2r+1)x(2r+1) window under the border rule.
 *
 *  box_2d                    naive: each pixel reads all (2r+1)^2 samples
 *  rows_direct, cols_direct  separable: a row pass into `sums`, then columns
 *  rows_sliding, cols_sliding  running sums: a cost per pixel that does not
 *                            grow with the radius
 */

__kernel void box_2d(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  __global const uchar *in = src + src_off;
  uint sum[BPP];
  for (int c = 0; c < BPP; c++)
    sum[c] = 0;

  Walk wy = walk_from(y - radius, height, border);
  for (int dy = -radius; dy <= radius; dy++, wy = walk_next(wy)) {
    __global const uchar *row = in + walk_index(wy) * src_stride;
    Walk wx = walk_from(x - radius, width, border);
    for (int dx = -radius; dx <= radius; dx++, wx = walk_next(wx)) {
      __global const uchar *px = row + walk_index(wx) * BPP;
      for (int c = 0; c < BPP; c++)
        if (FILTERED(c))
          sum[c] += px[c];
    }
  }
  store_mean(dst + dst_off + y * dst_stride + x * BPP,
      in + y * src_stride + x * BPP, sum, window_area(radius));
}

/* Horizontal window sums of one pixel into `sums`. */
__kernel void rows_direct(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  __global const uchar *row = src + src_off + y * src_stride;
  uint sum[BPP];
  for (int c = 0; c < BPP; c++)
    sum[c] = 0;

  Walk wx = walk_from(x - radius, width, border);
  for (int dx = -radius; dx <= radius; dx++, wx = walk_next(wx)) {
    __global const uchar *px = row + walk_index(wx) * BPP;
    for (int c = 0; c < BPP; c++)
      if (FILTERED(c))
        sum[c] += px[c];
  }
  __global uint *out = sums + (y * width + x) * BPP;
  for (int c = 0; c < BPP; c++)
    if (FILTERED(c))
      out[c] = sum[c];
}

/* Vertical sums of the row sums of one pixel, then the mean. */
__kernel void cols_direct(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  __global const uint *col = sums + x * BPP;
  uint sum[BPP];
  for (int c = 0; c < BPP; c++)
    sum[c] = 0;

  Walk wy = walk_from(y - radius, height, border);
  for (int dy = -radius; dy <= radius; dy++, wy = walk_next(wy)) {
    __global const uint *s = col + walk_index(wy) * width * BPP;
    for (int c = 0; c < BPP; c++)
      if (FILTERED(c))
        sum[c] += s[c];
  }
  store_mean(dst + dst_off + y * dst_stride + x * BPP,
      src + src_off + y * src_stride + x * BPP, sum, window_area(radius));
}

/* Row sums of `seg` consecutive pixels of one row: the first window is summed
 * in full, then each step adds the sample entering on the right and takes
 * away the one leaving on the left.  Unsigned arithmetic is exact here: a
 * sample is only taken away after it was added. */
__kernel void rows_sliding(PLANE_ARGS)
{
  const int x0 = get_global_id(0) * seg, y = get_global_id(1);
  const int x1 = min(x0 + seg, width);
  __global const uchar *row = src + src_off + y * src_stride;
  uint sum[BPP];
  for (int c = 0; c < BPP; c++)
    sum[c] = 0;

  Walk w = walk_from(x0 - radius, width, border);
  for (int dx = -radius; dx <= radius; dx++, w = walk_next(w)) {
    __global const uchar *px = row + walk_index(w) * BPP;
    for (int c = 0; c < BPP; c++)
      if (FILTERED(c))
        sum[c] += px[c];
  }

  Walk enter = walk_from(x0 + radius + 1, width, border);
  Walk leave = walk_from(x0 - radius, width, border);
  __global uint *out = sums + (y * width + x0) * BPP;
  for (int x = x0; x < x1; x++, out += BPP) {
    for (int c = 0; c < BPP; c++)
      if (FILTERED(c))
        out[c] = sum[c];
    __global const uchar *in_px = row + walk_index(enter) * BPP;
    __global const uchar *out_px = row + walk_index(leave) * BPP;
    for (int c = 0; c < BPP; c++)
      if (FILTERED(c))
        sum[c] += in_px[c] - out_px[c];
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
  const uint area = window_area(radius);
  uint sum[BPP];
  for (int c = 0; c < BPP; c++)
    sum[c] = 0;

  Walk w = walk_from(y0 - radius, height, border);
  for (int dy = -radius; dy <= radius; dy++, w = walk_next(w)) {
    __global const uint *s = col + walk_index(w) * pitch;
    for (int c = 0; c < BPP; c++)
      if (FILTERED(c))
        sum[c] += s[c];
  }

  Walk enter = walk_from(y0 + radius + 1, height, border);
  Walk leave = walk_from(y0 - radius, height, border);
  for (int y = y0; y < y1; y++) {
    store_mean(dst + dst_off + y * dst_stride + x * BPP,
        src + src_off + y * src_stride + x * BPP, sum, area);
    __global const uint *s_in = col + walk_index(enter) * pitch;
    __global const uint *s_out = col + walk_index(leave) * pitch;
    for (int c = 0; c < BPP; c++)
      if (FILTERED(c))
        sum[c] += s_in[c] - s_out[c];
    enter = walk_next(enter);
    leave = walk_next(leave);
  }
}
