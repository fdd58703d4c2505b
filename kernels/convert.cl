/* Colour conversion of a frame into another format (docs/conversion.md):
 * convert_pixels, one work-item a pixel.
 *
 * Built with, for each component c (0-2: Y, U, V or R, G, B; 3: alpha) of
 * the input (IN<c>) and the output (OUT<c>), its geometry as
 * (plane,offset,pstride,xsub,ysub,depth,shift,bytes,swap) (bytes 0: the
 * format has no such component); OUT_PAD<p>, the bytes of a pixel of
 * output plane p that no component holds (bit b: byte b), written 0xff,
 * and OUT_PSTRIDE<p>, the bytes of its pixels; DIRECTION (0: YUV to RGB);
 * WIDE (inputs deeper than 8 bits: the 16-bit arithmetic); CHROMA_UP
 * (0: nearest, 1: filtered), H_COSITED and V_COSITED. */

#ifdef WANT_convert_pixels

#define PLANE_OF(p, o, s, xs, ys, d, sh, b, sw) p
#define OFFSET_OF(p, o, s, xs, ys, d, sh, b, sw) o
#define PSTRIDE_OF(p, o, s, xs, ys, d, sh, b, sw) s
#define XSUB_OF(p, o, s, xs, ys, d, sh, b, sw) xs
#define YSUB_OF(p, o, s, xs, ys, d, sh, b, sw) ys
#define DEPTH_OF(p, o, s, xs, ys, d, sh, b, sw) d
#define SHIFT_OF(p, o, s, xs, ys, d, sh, b, sw) sh
#define BYTES_OF(p, o, s, xs, ys, d, sh, b, sw) b
#define SWAP_OF(p, o, s, xs, ys, d, sh, b, sw) sw
#define GEOMETRY(field, spec) field spec

/* The planes, each a buffer, the byte its first row starts at and its
 * stride. */
#define PLANE_PARAMS(dir, q) \
  __global q uchar *dir##0, int dir##_off0, int dir##_stride0, \
  __global q uchar *dir##1, int dir##_off1, int dir##_stride1, \
  __global q uchar *dir##2, int dir##_off2, int dir##_stride2, \
  __global q uchar *dir##3, int dir##_off3, int dir##_stride3

/* The address of sample (x, y) of a component. */
#define SAMPLE_AT(dir, spec, x, y)                                        \
  (GEOMETRY (PLANE_OF, spec) == 0 ? dir##0 + dir##_off0                    \
      + (y) * dir##_stride0 :                                             \
   GEOMETRY (PLANE_OF, spec) == 1 ? dir##1 + dir##_off1                    \
      + (y) * dir##_stride1 :                                             \
   GEOMETRY (PLANE_OF, spec) == 2 ? dir##2 + dir##_off2                    \
      + (y) * dir##_stride2 :                                             \
   dir##3 + dir##_off3 + (y) * dir##_stride3)                              \
  + (x) * GEOMETRY (PSTRIDE_OF, spec) + GEOMETRY (OFFSET_OF, spec)

uint load_value(__global const uchar *p, int bytes, int swap, int shift,
    int depth)
{
  uint v = bytes == 1 ? p[0] : swap ? ((uint) p[0] << 8) | p[1]
      : p[0] | ((uint) p[1] << 8);
  return (v >> shift) & ((1u << depth) - 1);
}

void store_value(__global uchar *p, uint value, int bytes, int swap,
    int shift)
{
  uint v = value << shift;
  if (bytes == 1) {
    p[0] = (uchar) v;
  } else if (swap) {
    p[0] = (uchar) (v >> 8);
    p[1] = (uchar) v;
  } else {
    p[0] = (uchar) v;
    p[1] = (uchar) (v >> 8);
  }
}

#define STORE(spec, x, y, value)                                          \
  store_value (SAMPLE_AT (out, spec, x, y), value,                         \
      GEOMETRY (BYTES_OF, spec), GEOMETRY (SWAP_OF, spec),                 \
      GEOMETRY (SHIFT_OF, spec))

/* Fills the bytes of pixel (x, y) of output plane p that no component
 * holds. */
#define FILL_PAD(p, x, y)                                                 \
  if (OUT_PAD##p) {                                                        \
    __global uchar *px = out##p + out_off##p + (y) * out_stride##p         \
        + (x) * OUT_PSTRIDE##p;                                            \
    for (int b = 0; b < 8; b++)                                            \
      if ((OUT_PAD##p >> b) & 1)                                           \
        px[b] = 0xff;                                                      \
  }

/* x >> 16 and x >> 8 rounded down, for negative x too (OpenCL leaves a
 * negative value's >> to the device). */
int floor_shr16(int x)
{
  return ((x + (1 << 30)) >> 16) - (1 << 14);
}

/* A sample as the arithmetic takes it: 8 bits as they are; deeper ones
 * widened to 16 bits by repeating their top bits below them. */
int widened(uint v, int depth)
{
  if (!WIDE)
    return (int) v;
  return (int) ((v << (16 - depth)) | (v >> (2 * depth - 16)));
}

/* Chroma component `spec` (its samples count cw x ch) at pixel (x, y) of
 * the full frame: along a row, the sample the pixel lies in (nearest), 3:1
 * of the two nearest samples (centred), or between two cosited ones; then
 * the same down a column (3:1, or the nearest row where cosited), on the
 * row's results. */
#define CHROMA_ROW(spec, cw, x, cy)                                       \
  chroma_along (widened (LOAD_AT (spec, (x) >> 1, cy), DEPTH_C),          \
      widened (LOAD_AT (spec, clamp (((x) >> 1) + (((x) & 1) ? 1 : -1),    \
                  0, (cw) - 1), cy), DEPTH_C), (x) & 1)

int chroma_along(int near, int far, int odd)
{
  if (!H_COSITED)
    return (3 * near + far + 2) >> 2;
  return odd ? (near + far + 1) >> 1 : near;
}

#define LOAD_AT(spec, sx, sy)                                             \
  load_value (SAMPLE_AT (in, spec, sx, sy), GEOMETRY (BYTES_OF, spec),     \
      GEOMETRY (SWAP_OF, spec), GEOMETRY (SHIFT_OF, spec),                 \
      GEOMETRY (DEPTH_OF, spec))

#define DEPTH_C GEOMETRY (DEPTH_OF, IN0)

/* Chroma component `spec` at pixel (x, y). */
#define CHROMA(spec, x, y, width, height)                                 \
  chroma_at_##spec (PLANE_ARGS_IN, x, y, width, height)

#define DEFINE_CHROMA(spec)                                               \
int chroma_at_##spec(PLANE_PARAMS (in, const), int x, int y, int width,    \
    int height)                                                            \
{                                                                          \
  const int xs = GEOMETRY (XSUB_OF, spec), ys = GEOMETRY (YSUB_OF, spec);  \
  const int cw = (width + xs) >> xs, ch = (height + ys) >> ys;             \
  if (CHROMA_UP == 0 || (xs == 0 && ys == 0))                              \
    return widened (LOAD_AT (spec, x >> xs, y >> ys), DEPTH_C);            \
  int near = y >> ys;                                                      \
  int far = ys ? clamp (near + ((y & 1) ? 1 : -1), 0, ch - 1) : near;      \
  int a = xs ? CHROMA_ROW (spec, cw, x, near)                              \
      : widened (LOAD_AT (spec, x, near), DEPTH_C);                        \
  if (ys == 0 || V_COSITED)                                                \
    return a;                                                              \
  int b = xs ? CHROMA_ROW (spec, cw, x, far)                               \
      : widened (LOAD_AT (spec, x, far), DEPTH_C);                         \
  return (3 * a + b + 2) >> 2;                                             \
}

#define PLANE_ARGS_IN in0, in_off0, in_stride0, in1, in_off1, in_stride1, \
  in2, in_off2, in_stride2, in3, in_off3, in_stride3

DEFINE_CHROMA(IN1)
DEFINE_CHROMA(IN2)

/* videoconvert's 8-bit arithmetic: a sample's offset from 128 as a 16-bit
 * word of its byte twice, times p / 65536, rounded down. */
int times8(int v, int p)
{
  int b = (v - 128) & 255;
  int w = b * 257;
  return floor_shr16 ((w >= 32768 ? w - 65536 : w) * p);
}

/* The 16-bit arithmetic: a row of the matrix over (Y, U, V, 1), / 256
 * rounded down, within 0..65535. */
int row16(int4 m, int y, int u, int v)
{
  int s = m.s0 * y + m.s1 * u + m.s2 * v + m.s3;
  return s < 0 ? 0 : min (s >> 8, 65535);
}

__kernel void convert_pixels(PLANE_PARAMS (in, const), PLANE_PARAMS (out, ),
    int width, int height, int16 matrix)
{
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height)
    return;
  int yv = widened (LOAD_AT (IN0, x, y), DEPTH_C);
  int u = CHROMA (IN1, x, y, width, height);
  int v = CHROMA (IN2, x, y, width, height);
  int r, g, b;
  if (WIDE) {
    r = row16 (matrix.s0123, yv, u, v) >> 8;
    g = row16 (matrix.s4567, yv, u, v) >> 8;
    b = row16 (matrix.s89ab, yv, u, v) >> 8;
  } else {
    int l = times8 (yv, matrix.s0);
    r = clamp (l + times8 (v, matrix.s2), -128, 127) + 128;
    g = clamp (l + times8 (u, matrix.s5) + times8 (v, matrix.s6), -128, 127)
        + 128;
    b = clamp (l + times8 (u, matrix.s9), -128, 127) + 128;
  }
  STORE (OUT0, x, y, (uint) r);
  STORE (OUT1, x, y, (uint) g);
  STORE (OUT2, x, y, (uint) b);
  if (GEOMETRY (BYTES_OF, OUT3)) {
    uint a = 255;
    if (GEOMETRY (BYTES_OF, IN3))
      a = (uint) widened (LOAD_AT (IN3, x, y), GEOMETRY (DEPTH_OF, IN3))
          >> (WIDE ? 8 : 0);
    STORE (OUT3, x, y, a);
  }
  FILL_PAD (0, x, y)
  FILL_PAD (1, x, y)
  FILL_PAD (2, x, y)
  FILL_PAD (3, x, y)
}

#endif
