/* The oracle of colour conversion (docs/conversion.md): YUV to RGB and
 * RGB to 4:2:0 YUV in plain loops, sample by sample. */
#include "reference.h"

#include <stdlib.h>

/* Where sample (x, y) of component c of `frame` starts. */
static uint8_t *
sample_at (const ClfComponent * c, const ClfHostFrame * frame, uint32_t x,
    uint32_t y)
{
  return frame->data[c->plane] + frame->stride[c->plane] * y
      + (size_t) c->pstride * x + c->offset;
}

static uint32_t
read_value (const ClfComponent * c, const ClfHostFrame * frame, uint32_t x,
    uint32_t y)
{
  return clf_ref_read_value (c, sample_at (c, frame, x, y));
}

static void
write_value (const ClfComponent * c, const ClfHostFrame * frame, uint32_t x,
    uint32_t y, uint32_t value)
{
  clf_ref_write_value (c, sample_at (c, frame, x, y), value);
}

/* A value as the arithmetic takes it: 8 bits as they are, deeper ones as
 * 16 bits, their top bits repeated below. */
static int
widen (uint32_t v, uint32_t depth)
{
  if (depth <= 8)
    return (int) v;
  return (int) ((v << (16 - depth)) | (v >> (2 * depth - 16)));
}

static int
clampi (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* Chroma sample (cx, cy) of component c, widened; indices clamped. */
static int
chroma_sample (const ClfComponent * c, const ClfHostFrame * frame, int cx,
    int cy)
{
  cx = clampi (cx, 0, (int) c->width - 1);
  cy = clampi (cy, 0, (int) c->height - 1);
  return widen (read_value (c, frame, (uint32_t) cx, (uint32_t) cy), c->depth);
}

/* Chroma row `cy` of c at pixel column x: halved columns filtered. */
static int
chroma_along_row (const ClfConversion * conv, const ClfComponent * c,
    const ClfHostFrame * frame, bool halved, int x, int cy)
{
  if (!halved)
    return chroma_sample (c, frame, x, cy);
  int n = x / 2;
  if (conv->chroma_up == CLF_CHROMA_UP_NEAREST)
    return chroma_sample (c, frame, n, cy);
  if (conv->h_cosited) {
    if (x % 2 == 0)
      return chroma_sample (c, frame, n, cy);
    return (chroma_sample (c, frame, n, cy)
        + chroma_sample (c, frame, n + 1, cy) + 1) >> 1;
  }
  int far = x % 2 ? n + 1 : n - 1;
  return (3 * chroma_sample (c, frame, n, cy)
      + chroma_sample (c, frame, far, cy) + 2) >> 2;
}

/* Chroma component c at pixel (x, y) of a frame w x h. */
static int
chroma_at (const ClfConversion * conv, const ClfComponent * c,
    const ClfHostFrame * frame, uint32_t w, uint32_t h, int x, int y)
{
  bool halved_x = c->width < w, halved_y = c->height < h;
  if (!halved_y)
    return chroma_along_row (conv, c, frame, halved_x, x, y);
  int n = y / 2;
  int near = chroma_along_row (conv, c, frame, halved_x, x, n);
  if (conv->chroma_up == CLF_CHROMA_UP_NEAREST || conv->v_cosited)
    return near;
  int far = chroma_along_row (conv, c, frame, halved_x, x,
      y % 2 ? n + 1 : n - 1);
  return (3 * near + far + 2) >> 2;
}

/* videoconvert's 8-bit product: (v - 128) as the 16-bit word of its byte
 * twice, times p / 65536, rounded down. */
static int
times8 (int v, int32_t p)
{
  int b = (v - 128) & 255;
  int w = b * 257;
  int64_t product = (int64_t) (w >= 32768 ? w - 65536 : w) * p;
  /* Division rounding down, for negative products too. */
  return (int) (product >= 0 ? product / 65536 : -((-product + 65535) / 65536));
}

static int
row16 (const int32_t m[4], int y, int u, int v)
{
  int64_t s = (int64_t) m[0] * y + (int64_t) m[1] * u + (int64_t) m[2] * v
      + m[3];
  return s < 0 ? 0 : s / 256 > 65535 ? 65535 : (int) (s / 256);
}

/* ---- RGB to 4:2:0 YUV ---- */

/* Y, U or V (`row` 0, 1, 2) of RGB pixel (x, y), clamped to the frame:
 * 8 bits, or with `wide` 16 from RGB * 257. */
static int
yuv_value (const ClfFrameFormat * in, const ClfConversion * conv,
    const ClfHostFrame * src, bool wide, int row, int x, int y)
{
  const ClfComponent *r = &in->components[0];
  x = clampi (x, 0, (int) r->width - 1);
  y = clampi (y, 0, (int) r->height - 1);
  int64_t t = conv->matrix[row][3];
  for (int c = 0; c < 3; c++)
    t += (int64_t) conv->matrix[row][c] * (wide ? 257 : 1)
        * read_value (&in->components[c], src, (uint32_t) x, (uint32_t) y);
  int64_t v = t < 0 ? 0 : t / 256;
  return (int) (v > (wide ? 65535 : 255) ? (wide ? 65535 : 255) : v);
}

/* U or V at column x of chroma row j: rows 2j and 2j + 1 averaged, or row
 * 2j where chroma sits on even rows. */
static int
chroma_column (const ClfFrameFormat * in, const ClfConversion * conv,
    const ClfHostFrame * src, bool wide, int row, int x, int j)
{
  int h = (int) in->components[0].height;
  int a = yuv_value (in, conv, src, wide, row, x, 2 * j);
  if (conv->v_cosited)
    return a;
  int b = yuv_value (in, conv, src, wide, row, x, 2 * j + 1 < h ?
      2 * j + 1 : h - 1);
  return (a + b + 1) >> 1;
}

/* U or V of chroma sample (i, j). */
static int
chroma_sample_of (const ClfFrameFormat * in, const ClfConversion * conv,
    const ClfHostFrame * src, bool wide, int row, int i, int j)
{
  int w = (int) in->components[0].width, x = 2 * i;
  int c = chroma_column (in, conv, src, wide, row, x, j);
  if (!conv->h_cosited) {
    if (x + 1 >= w)
      return c;
    return (c + chroma_column (in, conv, src, wide, row, x + 1, j) + 1) >> 1;
  }
  if (w == 1)
    return c;
  if (x == 0)
    return (3 * c + chroma_column (in, conv, src, wide, row, 1, j) + 2) >> 2;
  int before = chroma_column (in, conv, src, wide, row, x - 1, j);
  if (x < w - 2)
    return (before + 2 * c + chroma_column (in, conv, src, wide, row, x + 1,
            j) + 2) >> 2;
  return (before + 3 * c + 2) >> 2;
}

/* A value of the 16-bit arithmetic at `depth` bits, rounded to nearest. */
static uint32_t
to_depth (int v, bool wide, uint32_t depth)
{
  if (!wide || depth == 16)
    return (uint32_t) v;
  int r = v + (1 << (15 - depth));
  return (uint32_t) ((r > 65535 ? 65535 : r) >> (16 - depth));
}

static void
convert_to_yuv (const ClfFrameFormat * in, const ClfConversion * conv,
    const ClfHostFrame * src, const ClfHostFrame * dst)
{
  const ClfFrameFormat *out = &conv->format;
  bool wide = out->components[0].depth > 8;
  uint32_t depth = out->components[0].depth;

  for (uint32_t y = 0; y < out->components[0].height; y++)
    for (uint32_t x = 0; x < out->components[0].width; x++)
      write_value (&out->components[0], dst, x, y, to_depth (yuv_value (in,
                  conv, src, wide, 0, (int) x, (int) y), wide, depth));
  for (int c = 1; c <= 2; c++)
    for (uint32_t j = 0; j < out->components[c].height; j++)
      for (uint32_t i = 0; i < out->components[c].width; i++)
        write_value (&out->components[c], dst, i, j,
            to_depth (chroma_sample_of (in, conv, src, wide, c, (int) i,
                    (int) j), wide, depth));
}

void
clf_ref_convert_frame (const ClfFrameFormat * in, const ClfConversion * conv,
    const ClfHostFrame * src, const ClfHostFrame * dst)
{
  if (conv->direction == CLF_CONVERT_RGB_TO_YUV) {
    convert_to_yuv (in, conv, src, dst);
    return;
  }

  const ClfFrameFormat *out = &conv->format;
  const ClfComponent *luma = &in->components[0];
  uint32_t w = luma->width, h = luma->height;
  bool wide = luma->depth > 8;

  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) {
      int yv = widen (read_value (luma, src, x, y), luma->depth);
      int u = chroma_at (conv, &in->components[1], src, w, h, (int) x,
          (int) y);
      int v = chroma_at (conv, &in->components[2], src, w, h, (int) x,
          (int) y);
      int rgb[3];
      if (wide) {
        for (int i = 0; i < 3; i++)
          rgb[i] = row16 (conv->matrix[i], yv, u, v) >> 8;
      } else {
        const int32_t (*m)[4] = conv->matrix;
        int l = times8 (yv, m[0][0]);
        rgb[0] = clampi (l + times8 (v, m[0][2]), -128, 127) + 128;
        rgb[1] = clampi (l + times8 (u, m[1][1]) + times8 (v, m[1][2]),
            -128, 127) + 128;
        rgb[2] = clampi (l + times8 (u, m[2][1]), -128, 127) + 128;
      }
      for (int i = 0; i < 3; i++)
        write_value (&out->components[i], dst, x, y, (uint32_t) rgb[i]);
      if (out->n_components > 3) {
        uint32_t a = 255;
        if (in->n_components > 3)
          a = (uint32_t) widen (read_value (&in->components[3], src, x, y),
              in->components[3].depth) >> (wide ? 8 : 0);
        write_value (&out->components[3], dst, x, y, a);
      }
    }
  /* Bytes of an output pixel that no component holds: 0xff. */
  for (uint32_t p = 0; p < out->n_planes; p++) {
    uint32_t pstride = 0, held = 0, rows = 0, width = 0;
    for (uint32_t c = 0; c < out->n_components; c++) {
      const ClfComponent *k = &out->components[c];
      if (k->plane != p)
        continue;
      pstride = k->pstride;
      rows = k->height;
      width = k->width;
      held |= (k->depth + k->shift <= 8 ? 1u : 3u) << k->offset;
    }
    for (uint32_t y = 0; y < rows; y++)
      for (uint32_t x = 0; x < width; x++)
        for (uint32_t b = 0; b < pstride; b++)
          if (!(held >> b & 1))
            dst->data[p][dst->stride[p] * y + (size_t) pstride * x + b] = 0xff;
  }
}
