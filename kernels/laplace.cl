/* 3x3 Laplace sharpen: out = clamp(9 * centre - (sum of the 8 neighbours),
 * 0, 255), neighbours under the border rule.  The radius does not apply.
 *
 * Two shapes of the same arithmetic, picked per device class by the host:
 * laplace_pixels, a pixel per work-item, for GPUs (whose vload16 from an
 * unaligned byte address becomes sixteen byte loads), and laplace_runs for
 * CPUs.  In laplace_runs a work-item takes RUN bytes of `seg` consecutive rows.  Each row's bytes
 * are loaded once per work-item, as the left, centre and right neighbour
 * vectors, and serve three output rows; the arithmetic is 16-bit.  (Three
 * overlapping loads, which hit the cache, measured 3-4 times faster on PoCL
 * than two loads and shuffle2.)  Runs that touch a left or right edge, or
 * would read past the row (never into padding), take the byte-by-byte
 * path. */

#define RUN 16

typedef struct {
  short16 left, centre, right;
} Taps;

/* Bytes b..b+15 of a row and their neighbours BPP bytes to either side. */
Taps row_taps(__global const uchar *row, int b)
{
  Taps t;
  t.left = convert_short16(vload16(0, row + b - BPP));
  t.centre = convert_short16(vload16(0, row + b));
  t.right = convert_short16(vload16(0, row + b + BPP));
  return t;
}

short16 taps_sum(Taps t)
{
  return t.left + t.centre + t.right;
}

/* Lanes whose byte is filtered (-1) or copied (0), for a run at byte b. */
char16 filtered_lanes(int b)
{
  const int16 channel = ((int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
      13, 14, 15) + b) % BPP;
  return convert_char16((((int16)(MASK) >> channel) & 1) * -1);
}

/* One output byte (pixel x, channel c) with every read under the border
 * rule: the edge and tail path. */
uchar laplace_byte(__global const uchar *up, __global const uchar *mid,
    __global const uchar *down, int x, int c, int width, int border)
{
  const int xl = border_index(x - 1, width, border) * BPP + c;
  const int xc = x * BPP + c;
  const int xr = border_index(x + 1, width, border) * BPP + c;
  if (!FILTERED(c))
    return mid[xc];
  const int ring = up[xl] + up[xc] + up[xr] + mid[xl] + mid[xr]
      + down[xl] + down[xc] + down[xr];
  return (uchar) clamp(9 * mid[xc] - ring, 0, 255);
}

__kernel void laplace_pixels(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height)
    return;
  __global const uchar *in = src + src_off;
  __global const uchar *up = in + border_index(y - 1, height, border) * src_stride;
  __global const uchar *mid = in + y * src_stride;
  __global const uchar *down = in + border_index(y + 1, height, border) * src_stride;
  __global uchar *out = dst + dst_off + y * dst_stride + x * BPP;

  for (int c = 0; c < BPP; c++)
    out[c] = laplace_byte(up, mid, down, x, c, width, border);
}

__kernel void laplace_runs(PLANE_ARGS)
{
  const int b = get_global_id(0) * RUN;
  const int y0 = get_global_id(1) * seg;
  const int y1 = min(y0 + seg, height);
  const int row_bytes = width * BPP;
  __global const uchar *in = src + src_off;
  __global uchar *out = dst + dst_off;
  const bool vector = b >= BPP && b + BPP + 16 <= row_bytes;

  if (!vector) {
    const int end = min(b + RUN, row_bytes);
    for (int y = y0; y < y1; y++) {
      __global const uchar *up = in + border_index(y - 1, height, border) * src_stride;
      __global const uchar *mid = in + y * src_stride;
      __global const uchar *down = in + border_index(y + 1, height, border) * src_stride;
      for (int i = b; i < end; i++)
        out[y * dst_stride + i] = laplace_byte(up, mid, down, i / BPP, i % BPP,
            width, border);
    }
    return;
  }

  Taps above = row_taps(in + border_index(y0 - 1, height, border) * src_stride, b);
  Taps here = row_taps(in + y0 * src_stride, b);
  const char16 keep = filtered_lanes(b);
  for (int y = y0; y < y1; y++) {
    const Taps below = row_taps(in + border_index(y + 1, height, border) * src_stride, b);
    const short16 ring = taps_sum(above) + here.left + here.right + taps_sum(below);
    const uchar16 sharp = convert_uchar16_sat((short16)(9) * here.centre - ring);
    const uchar16 centre = convert_uchar16(here.centre);
    vstore16(select(centre, sharp, keep), 0, out + y * dst_stride + b);
    above = here;
    here = below;
  }
}
