/* 3x3 Laplace sharpen: out = clamp(9 * centre - (sum of the 8 neighbours),
 * 0, 255), neighbours under the border rule.  The radius does not apply. */

__kernel void laplace_3x3(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  __global const uchar *in = src + src_off;
  __global const uchar *up = in + border_index(y - 1, height, border) * src_stride;
  __global const uchar *mid = in + y * src_stride;
  __global const uchar *down = in + border_index(y + 1, height, border) * src_stride;
  const int xl = border_index(x - 1, width, border) * BPP;
  const int xc = x * BPP;
  const int xr = border_index(x + 1, width, border) * BPP;
  __global uchar *out = dst + dst_off + y * dst_stride + xc;

  for (int c = 0; c < BPP; c++) {
    if (FILTERED(c)) {
      int ring = up[xl + c] + up[xc + c] + up[xr + c]
          + mid[xl + c] + mid[xr + c]
          + down[xl + c] + down[xc + c] + down[xr + c];
      out[c] = (uchar) clamp(9 * mid[xc + c] - ring, 0, 255);
    } else {
      out[c] = mid[xc + c];
    }
  }
}
