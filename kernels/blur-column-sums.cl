/* column_sums and narrow_column_sums (blur-sliding-gpu.cl): a work-item
 * per 4 samples of a row (the last of a row: 1 to 4) and segment of `seg`
 * rows; one access for the 4 where the plane's rows and the rows of sums
 * are aligned to them.  Takes OUT (the sums' type: uint, or ushort for the
 * narrow ones) and the slides SLIDE_4, SLIDE_ALIGNED_4 and SLIDE_1. */
__kernel void KERNEL_NAME (PLANE_ARGS)
{
  const int b = get_global_id (0) * 4, y0 = get_global_id (1) * seg;
  const int y1 = min (y0 + seg, height), row_units = width * BPP;
  __global OUT *out = (__global OUT *) sums;
  if (b >= row_units)
    return;
  if (b + 4 > row_units) {
    for (int i = b; i < row_units; i++)
      SLIDE_1 (src + src_off, src_stride, out + i, row_units, i, y0, y1,
          height, radius, border);
    return;
  }
  if ((src_off | src_stride) % (4 * SAMPLE_BYTES) == 0
      && row_units % 4 == 0)
    SLIDE_ALIGNED_4 (src + src_off, src_stride, out + b, row_units, b,
        y0, y1, height, radius, border);
  else
    SLIDE_4 (src + src_off, src_stride, out + b, row_units, b, y0, y1,
        height, radius, border);
}
