/* Colour conversion of a frame into another format (docs/conversion.md):
 * convert_pixels, a work-item a few pixels of a row (ITEM_PIXELS), or a
 * chroma sample.
 *
 * Built with, for each component c (0-2: Y, U, V or R, G, B; 3: alpha) of
 * the input (IN<c>) and the output (OUT<c>), its geometry as
 * (plane,offset,pstride,xsub,ysub,depth,shift,bytes,swap) (bytes 0: the
 * format has no such component); OUT_PAD<p>, the bytes of a pixel of
 * output plane p that no component holds (bit b: byte b), written 0xff,
 * and OUT_PSTRIDE<p>, the bytes of its pixels; DIRECTION (0: YUV to RGB);
 * WIDE (inputs deeper than 8 bits: the 16-bit arithmetic); CHROMA_UP
 * (0: nearest, 1: filtered), H_COSITED and V_COSITED; RUNS (CPUs' vector
 * runs) and ITEM_PIXELS; SHARPEN (bit c: input colour c is sharpened as
 * mode=laplace sharpens, in the same pass, its border rule the kernel's
 * `border`).  With CONVERT_LUMA (and no WANT_convert_pixels) the file
 * gives blur-tiles-gpu.cl convert_luma_quad: pixels from luma a filter has
 * just computed (see there). */

#if defined(WANT_convert_pixels) || defined(CONVERT_LUMA)

#if DIRECTION == 0 && ITEM_PIXELS != (RUNS ? 16 : 4)
#error "ITEM_PIXELS: runs of 16 pixels (RUNS), else 4"
#endif
#if ITEM_ROWS != (RUNS ? 2 : 1)
#error "ITEM_ROWS: 2 with RUNS, else 1"
#endif

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

/* mode=laplace, fused (SHARPEN): a full-resolution component's value at
 * (x, y) as laplace.cl gives it, 9 times the sample less its 8
 * neighbours (the border rule's), within its depth. */
#define SHARPENS(c) ((SHARPEN >> (c)) & 1)

#define DEFINE_SHARPENED(spec)                                            \
int sharpened_##spec(PLANE_PARAMS (in, const), int x, int y, int width,    \
    int height, int border)                                                \
{                                                                          \
  const int l = border_index (x - 1, width, border);                       \
  const int r = border_index (x + 1, width, border);                       \
  const int u = border_index (y - 1, height, border);                      \
  const int d = border_index (y + 1, height, border);                      \
  const uint ring = LOAD_AT (spec, l, u) + LOAD_AT (spec, x, u)            \
      + LOAD_AT (spec, r, u) + LOAD_AT (spec, l, y) + LOAD_AT (spec, r, y)  \
      + LOAD_AT (spec, l, d) + LOAD_AT (spec, x, d) + LOAD_AT (spec, r, d); \
  return clamp (9 * (int) LOAD_AT (spec, x, y) - (int) ring, 0,            \
      (1 << GEOMETRY (DEPTH_OF, spec)) - 1);                               \
}

/* The value of input colour c (component `spec`) at (x, y), sharpened
 * where SHARPEN says. */
#define VALUE_AT(c, spec, x, y)                                           \
  (SHARPENS (c) ? sharpened_##spec (PLANE_ARGS_IN, x, y, width, height,    \
      border) : (int) LOAD_AT (spec, x, y))

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

#define PLANE_ARGS_OUT out0, out_off0, out_stride0, out1, out_off1,       \
  out_stride1, out2, out_off2, out_stride2, out3, out_off3, out_stride3

DEFINE_CHROMA(IN1)
DEFINE_CHROMA(IN2)
DEFINE_SHARPENED(IN0)
DEFINE_SHARPENED(IN1)
DEFINE_SHARPENED(IN2)

/* videoconvert's 8-bit arithmetic: a sample's offset from 128 as a 16-bit
 * word of its byte twice, times p / 65536, rounded down. */
int times8(int v, int p)
{
  int b = (v - 128) & 255;
  int w = b * 257;
  return floor_shr16 ((w >= 32768 ? w - 65536 : w) * p);
}

/* Whether the output's pixels are 3 or 4 bytes of one plane. */
#define PIXEL_BYTES (GEOMETRY (BYTES_OF, OUT0) == 1                        \
    && GEOMETRY (BYTES_OF, OUT1) == 1 && GEOMETRY (BYTES_OF, OUT2) == 1     \
    && GEOMETRY (BYTES_OF, OUT3) <= 1 && OUT_PSTRIDE1 == 0                  \
    && (OUT_PSTRIDE0 == 3 || OUT_PSTRIDE0 == 4))

/* What a pixel's chroma adds to each colour, which pixels sharing their
 * chroma share: at 8 bits h(V, m2), h(U, m5) + h(V, m6), h(U, m9); in the
 * 16-bit arithmetic each row's U, V and constant terms. */
int3 chroma_terms(int u, int v, int16 m)
{
  if (WIDE)
    return (int3) (m.s1 * u + m.s2 * v + m.s3, m.s5 * u + m.s6 * v + m.s7,
        m.s9 * u + m.sa * v + m.sb);
  return (int3) (times8 (v, m.s2), times8 (u, m.s5) + times8 (v, m.s6),
      times8 (u, m.s9));
}

/* A pixel's three colours and alpha at the output's 8 bits, from its
 * chroma's terms `t`, its widened luma `y` and its alpha; in the 16-bit
 * arithmetic each row over (Y, U, V, 1), / 256 rounded down, within
 * 0..65535. */
int4 colours_from(int3 t, int y, int alpha, int16 m)
{
  int4 c;
  if (WIDE) {
    const int3 s = (int3) (m.s0, m.s4, m.s8) * y + t;
    const int3 v = select (min (s >> 8, 65535), (int3) 0, s < 0);
    c.xyz = v >> 8;
  } else {
    const int l = times8 (y, m.s0);
    c.xyz = clamp ((int3) l + t, -128, 127) + 128;
  }
  c.w = alpha;
  return c;
}

/* Pixel (x, y)'s alpha, at the output's 8 bits: 255 where the input has
 * none. */
int alpha_at(PLANE_PARAMS (in, const), int x, int y)
{
  if (!GEOMETRY (BYTES_OF, IN3))
    return 255;
  return widened (LOAD_AT (IN3, x, y), GEOMETRY (DEPTH_OF, IN3))
      >> (WIDE ? 8 : 0);
}

/* Pixel (x, y)'s three colours and alpha (255 where the input has
 * none), at the output's 8 bits, its luma value `luma`. */
int4 colours_with_luma(PLANE_PARAMS (in, const), int x, int y, uint luma,
    int width, int height, int16 matrix)
{
  return colours_from (chroma_terms (CHROMA (IN1, x, y, width, height),
          CHROMA (IN2, x, y, width, height), matrix),
      widened (luma, DEPTH_C), alpha_at (PLANE_ARGS_IN, x, y), matrix);
}

/* The same, its luma the input's (sharpened where SHARPEN says). */
int4 colours_at(PLANE_PARAMS (in, const), int x, int y, int width,
    int height, int border, int16 matrix)
{
  return colours_with_luma (PLANE_ARGS_IN, x, y, (uint) VALUE_AT (0, IN0, x,
          y), width, height, matrix);
}

/* Chroma component `spec` at the 4 pixels from x0 on (even, within the
 * frame), row y: chroma_at_<spec>'s values, from each sample once. */
#define DEFINE_CHROMA_QUAD(spec)                                          \
int4 chroma_quad_row_##spec(PLANE_PARAMS (in, const), int x0, int cy,      \
    int cw)                                                                \
{                                                                          \
  if (!GEOMETRY (XSUB_OF, spec))                                           \
    return (int4) (widened (LOAD_AT (spec, x0, cy), DEPTH_C),              \
        widened (LOAD_AT (spec, x0 + 1, cy), DEPTH_C),                     \
        widened (LOAD_AT (spec, x0 + 2, cy), DEPTH_C),                     \
        widened (LOAD_AT (spec, x0 + 3, cy), DEPTH_C));                    \
  const int n = x0 >> 1;                                                   \
  const int b = widened (LOAD_AT (spec, n, cy), DEPTH_C);                  \
  const int c = widened (LOAD_AT (spec, n + 1, cy), DEPTH_C);              \
  if (CHROMA_UP == 0)                                                      \
    return (int4) (b, b, c, c);                                            \
  const int a = widened (LOAD_AT (spec, max (n - 1, 0), cy), DEPTH_C);     \
  const int d = widened (LOAD_AT (spec, min (n + 2, cw - 1), cy), DEPTH_C); \
  return (int4) (chroma_along (b, a, 0), chroma_along (b, c, 1),           \
      chroma_along (c, b, 0), chroma_along (c, d, 1));                     \
}                                                                          \
int4 chroma_quad_##spec(PLANE_PARAMS (in, const), int x0, int y,           \
    int width, int height)                                                 \
{                                                                          \
  const int xs = GEOMETRY (XSUB_OF, spec), ys = GEOMETRY (YSUB_OF, spec);  \
  const int cw = (width + xs) >> xs, ch = (height + ys) >> ys;             \
  const int near = y >> ys;                                                \
  int4 a = chroma_quad_row_##spec (PLANE_ARGS_IN, x0, near, cw);           \
  if (CHROMA_UP == 0 || ys == 0 || V_COSITED)                              \
    return a;                                                              \
  int4 b = chroma_quad_row_##spec (PLANE_ARGS_IN, x0,                      \
      clamp (near + ((y & 1) ? 1 : -1), 0, ch - 1), cw);                   \
  return (3 * a + b + 2) >> 2;                                             \
}

DEFINE_CHROMA_QUAD(IN1)
DEFINE_CHROMA_QUAD(IN2)

/* The luma of the 4 pixels from x0 on (within the frame), row y: with
 * SHARPEN, from the 3 x 6 samples around them. */
int4 luma_quad(PLANE_PARAMS (in, const), int x0, int y, int width,
    int height, int border)
{
  if (!SHARPENS (0))
    return (int4) (LOAD_AT (IN0, x0, y), LOAD_AT (IN0, x0 + 1, y),
        LOAD_AT (IN0, x0 + 2, y), LOAD_AT (IN0, x0 + 3, y));
  const int rows[3] = { border_index (y - 1, height, border), y,
    border_index (y + 1, height, border)
  };
  int column[6], ring[6], centre[4];
  for (int k = 0; k < 6; k++) {
    column[k] = border_index (x0 - 1 + k, width, border);
    ring[k] = 0;
  }
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 6; k++) {
      int v = (int) LOAD_AT (IN0, column[k], rows[r]);
      ring[k] += v;
      if (r == 1 && k >= 1 && k <= 4)
        centre[k - 1] = v;
    }
  int4 t = (int4) (ring[0] + ring[1] + ring[2], ring[1] + ring[2] + ring[3],
      ring[2] + ring[3] + ring[4], ring[3] + ring[4] + ring[5]);
  int4 c = (int4) (centre[0], centre[1], centre[2], centre[3]);
  return clamp (10 * c - t, 0, (1 << DEPTH_C) - 1);
}

/* What byte k of a pixel of the output's one plane (PIXEL_BYTES) holds:
 * colour r, g or b, alpha a, or `pad` where no component lies; for
 * scalars and vectors alike. */
#define PIXEL_BYTE(k, r, g, b, a, pad)                                    \
  ((k) == GEOMETRY (OFFSET_OF, OUT0) ? (r) :                               \
   (k) == GEOMETRY (OFFSET_OF, OUT1) ? (g) :                               \
   (k) == GEOMETRY (OFFSET_OF, OUT2) ? (b) :                               \
   GEOMETRY (BYTES_OF, OUT3) && (k) == GEOMETRY (OFFSET_OF, OUT3) ? (a) :  \
   (pad))

/* The shift that puts byte k of a 4-byte pixel at byte k of its word in
 * memory. */
#ifdef __ENDIAN_LITTLE__
#define WORD_SHIFT(k) (8 * (k))
#else
#define WORD_SHIFT(k) (8 * (3 - (k)))
#endif

uint byte_of_pixel(int4 c, int k)
{
  return (uint) PIXEL_BYTE (k, c.x, c.y, c.z, c.w, 0xff);
}

/* A pixel of 4 bytes as one word. */
uint pixel_word(int4 c)
{
  uint w = 0;
  for (int k = 0; k < 4; k++)
    w |= byte_of_pixel (c, k) << WORD_SHIFT (k);
  return w;
}

/* Pixel (x, y) of colours c, stored. */
void store_colours(PLANE_PARAMS (out, ), int x, int y, int4 c)
{
  if (PIXEL_BYTES) {
    /* Bytes in one plane: the pixel stored whole. */
    uchar4 px = (uchar4) (byte_of_pixel (c, 0), byte_of_pixel (c, 1),
        byte_of_pixel (c, 2), byte_of_pixel (c, 3));
    __global uchar *at = out0 + out_off0 + y * out_stride0 + x * OUT_PSTRIDE0;
    if (OUT_PSTRIDE0 == 4)
      vstore4 (px, 0, at);
    else
      vstore3 (px.xyz, 0, at);
    return;
  }
  STORE (OUT0, x, y, (uint) c.x);
  STORE (OUT1, x, y, (uint) c.y);
  STORE (OUT2, x, y, (uint) c.z);
  if (GEOMETRY (BYTES_OF, OUT3))
    STORE (OUT3, x, y, (uint) c.w);
  FILL_PAD (0, x, y)
  FILL_PAD (1, x, y)
  FILL_PAD (2, x, y)
  FILL_PAD (3, x, y)
}

/* Pixel (x, y), written. */
void convert_pixel(PLANE_PARAMS (in, const), PLANE_PARAMS (out, ), int x,
    int y, int width, int height, int border, int16 matrix)
{
  store_colours (PLANE_ARGS_OUT, x, y, colours_at (PLANE_ARGS_IN, x, y,
          width, height, border, matrix));
}

/* Where the 4 pixels from x0 on (even), row y, are stored as one vector
 * of words: 4-byte pixels of one plane, the 4 in the frame, the row's
 * words aligned; else NULL. */
__global uint *quad_words_at(PLANE_PARAMS (out, ), int x0, int y, int width)
{
  __global uchar *at = out0 + out_off0 + y * out_stride0 + x0 * OUT_PSTRIDE0;
  const bool words = PIXEL_BYTES;
  if (words && OUT_PSTRIDE0 == 4 && x0 + 4 <= width
      && ((size_t) at & 3) == 0)
    return (__global uint *) at;
  return NULL;
}

/* The words of the 4 pixels from x0 on (even, within the frame), row y,
 * whose luma is l. */
uint4 quad_words(PLANE_PARAMS (in, const), int x0, int y, int4 l, int width,
    int height, int16 matrix)
{
  const int4 u = chroma_quad_IN1 (PLANE_ARGS_IN, x0, y, width, height);
  const int4 v = chroma_quad_IN2 (PLANE_ARGS_IN, x0, y, width, height);
  /* Pixels in pairs on one chroma sample share its terms. */
  const bool pairs = CHROMA_UP == 0 && GEOMETRY (XSUB_OF, IN1)
      && GEOMETRY (XSUB_OF, IN2);
  const int3 t0 = chroma_terms (u.x, v.x, matrix);
  const int3 t2 = chroma_terms (u.z, v.z, matrix);
  const int3 t1 = pairs ? t0 : chroma_terms (u.y, v.y, matrix);
  const int3 t3 = pairs ? t2 : chroma_terms (u.w, v.w, matrix);
  uint4 w;
  w.x = pixel_word (colours_from (t0, widened ((uint) l.x, DEPTH_C),
          alpha_at (PLANE_ARGS_IN, x0, y), matrix));
  w.y = pixel_word (colours_from (t1, widened ((uint) l.y, DEPTH_C),
          alpha_at (PLANE_ARGS_IN, x0 + 1, y), matrix));
  w.z = pixel_word (colours_from (t2, widened ((uint) l.z, DEPTH_C),
          alpha_at (PLANE_ARGS_IN, x0 + 2, y), matrix));
  w.w = pixel_word (colours_from (t3, widened ((uint) l.w, DEPTH_C),
          alpha_at (PLANE_ARGS_IN, x0 + 3, y), matrix));
  return w;
}

/* The ITEM_PIXELS (4) pixels from x0 on, row y (GPUs): 4-byte pixels
 * stored as one vector of words where the row allows; a work-item of
 * one pixel left the GPU launching work-items rather than storing. */
void convert_quad(PLANE_PARAMS (in, const), PLANE_PARAMS (out, ), int x0,
    int y, int width, int height, int border, int16 matrix)
{
  __global uint *words = quad_words_at (PLANE_ARGS_OUT, x0, y, width);
  if (words) {
    vstore4 (quad_words (PLANE_ARGS_IN, x0, y, luma_quad (PLANE_ARGS_IN, x0,
                y, width, height, border), width, height, matrix), 0,
        words);
    return;
  }
  for (int x = x0; x < min (x0 + 4, width); x++)
    convert_pixel (PLANE_ARGS_IN, PLANE_ARGS_OUT, x, y, width, height,
        border, matrix);
}

/* Runs of 16 pixels of a row, for 8-bit samples in and out (RUNS): each
 * component's samples of the run loaded as a vector, the arithmetic done
 * on vectors, the output pixels stored as whole vectors.  The same
 * arithmetic as convert_pixel, lane by lane. */
#if RUNS

/* 16 (or 8) samples of `spec` from sample (sx, sy) on, as vector loads
 * of whole pixels where they lie 1, 2 or 4 bytes apart. */
#define LOAD_RUN16(spec, sx, sy)                                          \
  gather16 (SAMPLE_AT (in, spec, sx, sy), GEOMETRY (PSTRIDE_OF, spec),     \
      GEOMETRY (OFFSET_OF, spec))
#define LOAD_RUN8(spec, sx, sy)                                           \
  gather8 (SAMPLE_AT (in, spec, sx, sy), GEOMETRY (PSTRIDE_OF, spec),      \
      GEOMETRY (OFFSET_OF, spec))

/* Byte `k` (below 4) of each of 4 pixels of 4 bytes. */
uchar4 byte_of4(uchar16 v, int k)
{
  return k == 0 ? v.s048c : k == 1 ? v.s159d : k == 2 ? v.s26ae : v.s37bf;
}

/* The 8 samples from p on, `pstride` bytes apart, p lying `offset` bytes
 * into its pixel. */
uchar8 samples8(__global const uchar *p, int pstride, int offset)
{
  __global const uchar *px = p - offset % pstride;
  if (pstride == 1)
    return vload8 (0, p);
  if (pstride == 2) {
    uchar16 a = vload16 (0, px);
    return offset % 2 ? a.odd : a.even;
  }
  if (pstride == 4) {
    uchar16 a = vload16 (0, px), b = vload16 (1, px);
    return (uchar8) (byte_of4 (a, offset % 4), byte_of4 (b, offset % 4));
  }
  uchar t[8];
  for (int i = 0; i < 8; i++)
    t[i] = p[i * pstride];
  return vload8 (0, t);
}

uchar16 samples16(__global const uchar *p, int pstride, int offset)
{
  return (uchar16) (samples8 (p, pstride, offset),
      samples8 (p + 8 * pstride, pstride, offset));
}

int16 gather16(__global const uchar *p, int pstride, int offset)
{
  return convert_int16 (samples16 (p, pstride, offset));
}

/* 16 luma samples from (sx, sy) on, as shorts. */
#define SHORT_RUN16(sx, sy)                                               \
  convert_short16 (samples16 (SAMPLE_AT (in, IN0, sx, sy),                 \
          GEOMETRY (PSTRIDE_OF, IN0), GEOMETRY (OFFSET_OF, IN0)))

int8 gather8(__global const uchar *p, int pstride, int offset)
{
  return convert_int8 (samples8 (p, pstride, offset));
}

/* Chroma row `cy` of a halved component at the run's 16 pixels, from its
 * 8 samples c from n0 on and their neighbours before (cl) and after
 * (cr). */
int16 chroma_run_along(int8 c, int cl, int cr)
{
  if (CHROMA_UP == 0)
    return (int16) (c.s0, c.s0, c.s1, c.s1, c.s2, c.s2, c.s3, c.s3, c.s4,
        c.s4, c.s5, c.s5, c.s6, c.s6, c.s7, c.s7);
  int8 before = (int8) (cl, c.s0123, c.s456);
  int8 after = (int8) (c.s1234, c.s567, cr);
  int8 even = H_COSITED ? c : (3 * c + before + 2) >> 2;
  int8 odd = H_COSITED ? (c + after + 1) >> 1 : (3 * c + after + 2) >> 2;
  return (int16) (even.s0, odd.s0, even.s1, odd.s1, even.s2, odd.s2, even.s3,
      odd.s3, even.s4, odd.s4, even.s5, odd.s5, even.s6, odd.s6, even.s7,
      odd.s7);
}

#define DEFINE_CHROMA_RUN(spec)                                           \
int16 chroma_row_##spec(PLANE_PARAMS (in, const), int x0, int cy,          \
    int width)                                                             \
{                                                                          \
  const int xs = GEOMETRY (XSUB_OF, spec);                                 \
  if (xs == 0)                                                             \
    return LOAD_RUN16 (spec, x0, cy);                                      \
  const int cw = (width + 1) >> 1, n0 = x0 >> 1;                           \
  return chroma_run_along (LOAD_RUN8 (spec, n0, cy),                       \
      LOAD_AT (spec, max (n0 - 1, 0), cy),                                 \
      LOAD_AT (spec, min (n0 + 8, cw - 1), cy));                           \
}                                                                          \
int16 chroma_run_##spec(PLANE_PARAMS (in, const), int x0, int y,           \
    int width, int height)                                                 \
{                                                                          \
  const int ys = GEOMETRY (YSUB_OF, spec);                                 \
  const int ch = (height + ys) >> ys;                                      \
  int near = y >> ys;                                                      \
  int16 a = chroma_row_##spec (PLANE_ARGS_IN, x0, near, width);            \
  if (ys == 0 || CHROMA_UP == 0 || V_COSITED)                              \
    return a;                                                              \
  int far = clamp (near + ((y & 1) ? 1 : -1), 0, ch - 1);                  \
  int16 b = chroma_row_##spec (PLANE_ARGS_IN, x0, far, width);             \
  return (3 * a + b + 2) >> 2;                                             \
}

DEFINE_CHROMA_RUN(IN1)
DEFINE_CHROMA_RUN(IN2)

/* times8 on 16 lanes: (v - 128)'s byte twice as a 16-bit word, times p,
 * the high 16 bits (ORC's mulhsw).  Written as the 32-bit product >> 16,
 * which compilers make one 16-bit multiply-high instruction (PoCL does
 * not, for mul_hi by a value known only at run time); >> of a negative
 * int rounds down with every OpenCL compiler (Clang's arithmetic shift). */
short16 times8_run(int16 v, int p)
{
  ushort16 b = convert_ushort16 ((v - 128) & 255);
  int16 w = convert_int16 (as_short16 (b * (ushort) 257));
  return convert_short16 ((w * p) >> 16);
}

/* The luma of the run's 16 pixels from x0 on, rows y0 and y0 + 1 (the
 * second where `two`): with SHARPEN, as vectors from the rows around
 * them, the samples left and right of the run shifted in from its own
 * where it touches a row's end. */
void luma_runs(PLANE_PARAMS (in, const), int x0, int y0, bool two,
    int width, int height, int border, int16 *first, int16 *second)
{
  if (!SHARPENS (0)) {
    *first = LOAD_RUN16 (IN0, x0, y0);
    if (two)
      *second = LOAD_RUN16 (IN0, x0, y0 + 1);
    return;
  }
  const int before = border_index (x0 - 1, width, border);
  const int after = border_index (x0 + 16, width, border);
  /* Each row's samples and their neighbours' sums, in 16 bits (10 * 255
   * and a 3 x 3 sum fit); the rows y0 - 1 to y0 + 2, which the border
   * rule finds in the frame even where y0 + 1 is not. */
  short16 centre[4], three[4];
#pragma unroll
  for (int r = 0; r < 4; r++) {
    const int row = border_index (y0 - 1 + r, height, border);
    const short16 c = SHORT_RUN16 (x0, row);
    const short16 left = x0 >= 1 ? SHORT_RUN16 (x0 - 1, row)
        : (short16) ((short) LOAD_AT (IN0, before, row), c.s0123,
        c.s4567, c.s89ab, c.scde);
    const short16 right = x0 + 17 <= width ? SHORT_RUN16 (x0 + 1, row)
        : (short16) (c.s1234, c.s5678, c.s9abc, c.sdef,
        (short) LOAD_AT (IN0, after, row));
    centre[r] = c;
    three[r] = left + c + right;
  }
  *first = convert_int16 (convert_uchar16_sat ((short16) 10 * centre[1]
          - (three[0] + three[1] + three[2])));
  *second = convert_int16 (convert_uchar16_sat ((short16) 10 * centre[2]
          - (three[1] + three[2] + three[3])));
}

/* What the chroma of a run's pixels adds to each colour (chroma_terms on
 * 16 lanes). */
typedef struct {
  short16 r, g, b;
} RunTerms;

RunTerms run_terms(PLANE_PARAMS (in, const), int x0, int y, int width,
    int height, int16 matrix)
{
  const int16 u = chroma_run_IN1 (PLANE_ARGS_IN, x0, y, width, height);
  const int16 v = chroma_run_IN2 (PLANE_ARGS_IN, x0, y, width, height);
  RunTerms t;
  t.r = times8_run (v, (short) matrix.s2);
  t.g = times8_run (u, (short) matrix.s5) + times8_run (v, (short) matrix.s6);
  t.b = times8_run (u, (short) matrix.s9);
  return t;
}

/* The run of 16 pixels from x0 on, row y, from its luma and its chroma's
 * terms, stored. */
void store_run(PLANE_PARAMS (in, const), PLANE_PARAMS (out, ), int x0,
    int y, int16 yv, RunTerms t, int16 matrix)
{
  /* 16-bit sums wrap as ORC's do (they never reach past 16 bits). */
  short16 l = times8_run (yv, (short) matrix.s0);
  short16 lo = (short16) -128, hi = (short16) 127;
  int16 c[4];
  c[0] = convert_int16 (clamp (l + t.r, lo, hi) + (short) 128);
  c[1] = convert_int16 (clamp (l + t.g, lo, hi) + (short) 128);
  c[2] = convert_int16 (clamp (l + t.b, lo, hi) + (short) 128);
  c[3] = (int16) 255;
  if (GEOMETRY (BYTES_OF, IN3) && GEOMETRY (BYTES_OF, OUT3))
    c[3] = LOAD_RUN16 (IN3, x0, y);
  __global uchar *row = out0 + out_off0 + y * out_stride0
      + x0 * OUT_PSTRIDE0;
  if (OUT_PSTRIDE0 == 4) {
    /* Pad bytes (x) are 0xff, as alpha where there is none. */
    uint16 w = (uint16) 0;
    for (int k = 0; k < 4; k++)
      w |= as_uint16 (PIXEL_BYTE (k, c[0], c[1], c[2], c[3], c[3]))
          << WORD_SHIFT (k);
    /* As words where the row allows (CPU drivers store bytes one by
     * one). */
    if (((size_t) row & 3) == 0) {
      vstore16 (w, 0, (__global uint *) row);
    } else {
      vstore16 (as_uchar16 (w.s0123), 0, row);
      vstore16 (as_uchar16 (w.s4567), 1, row);
      vstore16 (as_uchar16 (w.s89ab), 2, row);
      vstore16 (as_uchar16 (w.scdef), 3, row);
    }
    return;
  }
  /* Other pixels (RGB, BGR): byte by byte. */
  uchar lanes[4][16];
  for (int k = 0; k < 4; k++)
    vstore16 (convert_uchar16 (c[k]), 0, lanes[k]);
  for (int i = 0; i < 16; i++)
    for (int b = 0; b < OUT_PSTRIDE0; b++)
      row[i * OUT_PSTRIDE0 + b] = PIXEL_BYTE (b, lanes[0][i], lanes[1][i],
          lanes[2][i], lanes[3][i], 0xff);
}

/* Rows y0 and y0 + 1 (y0 even) share their chroma: halved down the
 * columns and taken from the nearest row. */
#define ROWS_SHARE_CHROMA (GEOMETRY (YSUB_OF, IN1) && GEOMETRY (YSUB_OF, IN2) \
    && (CHROMA_UP == 0 || V_COSITED))

/* The 16 pixels of the run from x0 on, rows y0 (even) and, where it
 * lies in the frame, y0 + 1: the rows share the luma rows a sharpened
 * run reads and, where they share their chroma, its arithmetic. */
void convert_runs(PLANE_PARAMS (in, const), PLANE_PARAMS (out, ), int x0,
    int y0, int width, int height, int border, int16 matrix)
{
  const bool two = y0 + 1 < height;
  int16 first, second;
  luma_runs (PLANE_ARGS_IN, x0, y0, two, width, height, border, &first,
      &second);
  const RunTerms t = run_terms (PLANE_ARGS_IN, x0, y0, width, height, matrix);
  store_run (PLANE_ARGS_IN, PLANE_ARGS_OUT, x0, y0, first, t, matrix);
  if (two)
    store_run (PLANE_ARGS_IN, PLANE_ARGS_OUT, x0, y0 + 1, second,
        ROWS_SHARE_CHROMA ? t : run_terms (PLANE_ARGS_IN, x0, y0 + 1, width,
            height, matrix), matrix);
}

#endif

#ifdef CONVERT_LUMA
/* Pixels x0 .. x0 + n - 1 (x0 even, n <= 4) of row y, their luma values
 * l (a filter's, at the input's depth), the other components from the
 * input: as convert_quad's where the row allows, else one by one. */
void convert_luma_quad(PLANE_PARAMS (in, const), PLANE_PARAMS (out, ),
    int x0, int y, int n, uint4 l, int width, int height, int16 matrix)
{
  __global uint *words = n == 4 ? quad_words_at (PLANE_ARGS_OUT, x0, y,
      width) : NULL;
  if (words) {
    vstore4 (quad_words (PLANE_ARGS_IN, x0, y, convert_int4 (l), width,
            height, matrix), 0, words);
    return;
  }
  uint v[4];
  vstore4 (l, 0, v);
  for (int k = 0; k < n; k++)
    store_colours (PLANE_ARGS_OUT, x0 + k, y, colours_with_luma
        (PLANE_ARGS_IN, x0 + k, y, v[k], width, height, matrix));
}
#endif

/* ---- RGB to 4:2:0 YUV (DIRECTION 1): a work-item a chroma sample ---- */
#if DIRECTION == 1

int dot3(int3 a, int3 b)
{
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

/* Pixel (x, y) of the RGB input (clamped to the frame) as full-resolution
 * Y, U, V: 8 bits, or with WIDE 16 (RGB widened as v * 257). */
int3 yuv_at(PLANE_PARAMS (in, const), int x, int y, int width, int height,
    int border, int16 m)
{
  x = clamp (x, 0, width - 1);
  y = clamp (y, 0, height - 1);
  int3 rgb = (int3) (VALUE_AT (0, IN0, x, y), VALUE_AT (1, IN1, x, y),
      VALUE_AT (2, IN2, x, y)) * (WIDE ? 257 : 1);
  int3 t = (int3) (dot3 (m.s012, rgb) + m.s3, dot3 (m.s456, rgb) + m.s7,
      dot3 (m.s89a, rgb) + m.sb);
  /* Rounded down, within the depth (negative sums are 0 either way). */
  return clamp (select (t >> 8, (int3) 0, t < 0), 0, WIDE ? 65535 : 255);
}

/* U and V of column x, rows 2j and 2j + 1 averaged (row 2j where chroma
 * sits on even rows). */
int2 chroma_column(PLANE_PARAMS (in, const), int x, int j, int width,
    int height, int border, int16 m)
{
  int3 a = yuv_at (PLANE_ARGS_IN, x, 2 * j, width, height, border, m);
  if (V_COSITED)
    return a.yz;
  int3 b = yuv_at (PLANE_ARGS_IN, x, min (2 * j + 1, height - 1), width,
      height, border, m);
  return (a.yz + b.yz + 1) >> 1;
}

/* A value of the 16-bit arithmetic at the output's depth, rounded. */
uint at_depth(int v)
{
#if WIDE
  const int d = GEOMETRY (DEPTH_OF, OUT0);
  if (d == 16)
    return (uint) v;
  return (uint) (min (v + (1 << (15 - d)), 65535) >> (16 - d));
#else
  return (uint) v;
#endif
}

void convert_block(PLANE_PARAMS (in, const), PLANE_PARAMS (out, ), int i,
    int j, int width, int height, int border, int16 m)
{
  for (int dy = 0; dy < 2; dy++)
    for (int dx = 0; dx < 2; dx++) {
      int x = 2 * i + dx, y = 2 * j + dy;
      if (x < width && y < height)
        STORE (OUT0, x, y, at_depth (yuv_at (PLANE_ARGS_IN, x, y, width,
                    height, border, m).x));
    }
  int x = 2 * i;
  int2 c = chroma_column (PLANE_ARGS_IN, x, j, width, height, border, m);
  int2 uv;
  if (!H_COSITED) {
    uv = x + 1 < width ? (c + chroma_column (PLANE_ARGS_IN, x + 1, j, width,
            height, border, m) + 1) >> 1 : c;
  } else if (width == 1) {
    uv = c;
  } else if (x == 0) {
    uv = (3 * c + chroma_column (PLANE_ARGS_IN, 1, j, width, height, border,
            m) + 2) >> 2;
  } else {
    int2 before = chroma_column (PLANE_ARGS_IN, x - 1, j, width, height,
        border, m);
    uv = x < width - 2 ? (before + 2 * c + chroma_column (PLANE_ARGS_IN,
            x + 1, j, width, height, border, m) + 2) >> 2
        : (before + 3 * c + 2) >> 2;
  }
  STORE (OUT1, i, j, at_depth (uv.x));
  STORE (OUT2, i, j, at_depth (uv.y));
}

#endif

#ifdef WANT_convert_pixels
/* Work-groups of CONVERT_GROUP work-items along a row (a fixed size lets
 * CPU drivers run a group's work-items as vector lanes); each work-item
 * converts ITEM_PIXELS pixels of a row: with RUNS a run of 16 (the
 * frame's last, short one pixel by pixel), else 4; to YUV, a work-item is
 * a chroma sample (2 x 2 pixels). */
__kernel __attribute__((reqd_work_group_size(CONVERT_GROUP, 1, 1)))
void convert_pixels(PLANE_PARAMS (in, const), PLANE_PARAMS (out, ),
    int16 matrix, int width, int height, int border)
{
  const int x = get_global_id(0), y = get_global_id(1);
#if DIRECTION == 1
  if (x < (width + 1) / 2)
    convert_block (PLANE_ARGS_IN, PLANE_ARGS_OUT, x, y, width, height,
        border, matrix);
#elif RUNS
  const int x0 = x * ITEM_PIXELS, y0 = y * ITEM_ROWS;
  if (x0 + ITEM_PIXELS <= width) {
    convert_runs (PLANE_ARGS_IN, PLANE_ARGS_OUT, x0, y0, width, height,
        border, matrix);
  } else {
    for (int yi = y0; yi < min (y0 + ITEM_ROWS, height); yi++)
      for (int xi = x0; xi < width; xi++)
        convert_pixel (PLANE_ARGS_IN, PLANE_ARGS_OUT, xi, yi, width, height,
            border, matrix);
  }
#else
  convert_quad (PLANE_ARGS_IN, PLANE_ARGS_OUT, x * ITEM_PIXELS, y, width,
      height, border, matrix);
#endif
}

#endif

#endif
