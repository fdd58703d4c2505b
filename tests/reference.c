#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
clf_ref_border (int i, int n, ClfBorder border)
{
  if (border == CLF_BORDER_CLAMP)
    return i < 0 ? 0 : i >= n ? n - 1 : i;
  if (n == 1)
    return 0;
  /* Reflect about the edge samples until inside: -1 -> 1, n -> n-2. */
  while (i < 0 || i >= n)
    i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

static bool
is_filtered (const ClfParams * params, const ClfComponent * c)
{
  if (c->role == CLF_COMPONENT_COPIED)
    return false;
  return (params->mode != CLF_MODE_LAPLACE && params->mode != CLF_MODE_UNSHARP)
      || c->role == CLF_COMPONENT_SHARPENED;
}

/* A component's samples in one frame. */
typedef struct
{
  const ClfComponent *c;
  uint8_t *plane;
  size_t stride;
} Samples;

static Samples
samples_of (const ClfComponent * c, const ClfHostFrame * frame)
{
  return (Samples) {
  c, frame->data[c->plane], frame->stride[c->plane]};
}

static uint8_t *
container (const Samples * s, int x, int y)
{
  return s->plane + s->stride * (size_t) y + s->c->pstride * (size_t) x
      + s->c->offset;
}

static bool
two_bytes (const ClfComponent * c)
{
  return c->depth + c->shift > 8;
}

uint32_t
clf_ref_read_value (const ClfComponent * c, const uint8_t * p)
{
  uint32_t bits = !two_bytes (c) ? p[0] :
      c->big_endian ? (uint32_t) p[0] << 8 | p[1] : p[0] | (uint32_t) p[1] << 8;
  return (bits >> c->shift) & ((1u << c->depth) - 1);
}

void
clf_ref_write_value (const ClfComponent * c, uint8_t * p, uint32_t value)
{
  uint32_t bits = value << c->shift;
  if (!two_bytes (c)) {
    p[0] = (uint8_t) bits;
  } else if (c->big_endian) {
    p[0] = (uint8_t) (bits >> 8);
    p[1] = (uint8_t) bits;
  } else {
    p[0] = (uint8_t) bits;
    p[1] = (uint8_t) (bits >> 8);
  }
}

/* The value of sample (x, y), read under the border rule. */
static uint32_t
value_at (const Samples * s, int x, int y, ClfBorder border)
{
  const ClfComponent *c = s->c;
  return clf_ref_read_value (c, container (s, clf_ref_border (x,
              (int) c->width, border), clf_ref_border (y, (int) c->height,
              border)));
}

static void
store_value (const Samples * s, int x, int y, uint32_t value)
{
  clf_ref_write_value (s->c, container (s, x, y), value);
}

static uint32_t
mean (uint64_t sum, uint32_t radius)
{
  uint64_t n = (2 * (uint64_t) radius + 1) * (2 * (uint64_t) radius + 1);
  return (uint32_t) ((sum + n / 2) / n);
}

/* The sums of the 2r+1 values around each of a line's n positions under
 * the border rule: the line extended by r samples either side, as the
 * border rule reads them, and differences of its running sums. */
static void
window_sums (const uint64_t * line, int n, int r, ClfBorder border,
    uint64_t * sums)
{
  uint64_t *running = malloc (((size_t) n + 2 * r + 1) * sizeof *running);

  running[0] = 0;
  for (int i = 0; i < n + 2 * r; i++)
    running[i + 1] = running[i] + line[clf_ref_border (i - r, n, border)];
  for (int x = 0; x < n; x++)
    sums[x] = running[x + 2 * r + 1] - running[x];
  free (running);
}

/* Adds `sign` times row `y` (under the border rule) of `row_sums` to
 * `sums`. */
static void
add_row (uint64_t * sums, const uint64_t * row_sums, int y, int w, int h,
    ClfBorder border, int sign)
{
  const uint64_t *row = row_sums + (size_t) clf_ref_border (y, h, border) * w;
  for (int x = 0; x < w; x++)
    sums[x] += sign > 0 ? row[x] : -row[x];
}

/* The window is a product of a row range and a column range, and the
 * border rule applies to each axis on its own, so S = the window sum, down
 * the column, of each row's horizontal window sums: the rows r above and
 * below summed for the first row, then each row's window from the last by
 * the row that enters and the one that leaves (row by row, so that a
 * frame's sums are read in the order they lie). */
static void
blur_component (const ClfParams * params, const Samples * in,
    const Samples * out)
{
  const int w = (int) in->c->width, h = (int) in->c->height;
  const int r = (int) params->radius;
  const ClfBorder border = params->border;
  uint64_t *row_sums = malloc ((size_t) w * h * sizeof *row_sums);
  uint64_t *line = malloc ((size_t) w * sizeof *line);
  uint64_t *sums = calloc ((size_t) w, sizeof *sums);

  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++)
      line[x] = value_at (in, x, y, border);
    window_sums (line, w, r, border, row_sums + (size_t) y * w);
  }
  for (int j = -r; j <= r; j++)
    add_row (sums, row_sums, j, w, h, border, 1);
  for (int y = 0; y < h; y++) {
    if (y > 0) {
      add_row (sums, row_sums, y + r, w, h, border, 1);
      add_row (sums, row_sums, y - 1 - r, w, h, border, -1);
    }
    for (int x = 0; x < w; x++)
      store_value (out, x, y, mean (sums[x], params->radius));
  }
  free (sums);
  free (line);
  free (row_sums);
}

static void
laplace_component (const ClfParams * params, const Samples * in,
    const Samples * out)
{
  const int64_t max = (1 << in->c->depth) - 1;
  for (int y = 0; y < (int) in->c->height; y++)
    for (int x = 0; x < (int) in->c->width; x++) {
      int64_t ring = 0;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
          if (dx || dy)
            ring += value_at (in, x + dx, y + dy, params->border);
      int64_t v = 9 * (int64_t) value_at (in, x, y, params->border) - ring;
      store_value (out, x, y, (uint32_t) (v < 0 ? 0 : v > max ? max : v));
    }
}

/* mode=convolve by its definition (the contract, as OpenCV's
 * filter2D): every product summed in 64 bits, d resolved, S / d rounded
 * half away from zero, the bias added and the value clamped. */
static void
convolve_component (const ClfParams * params, const Samples * in,
    const Samples * out)
{
  const ClfKernel *k = &params->kernel;
  const int n = (int) k->size, r = n / 2;
  const int64_t max = (INT64_C (1) << in->c->depth) - 1;
  int64_t d = k->divisor;
  if (d == 0) {
    for (int i = 0; i < n * n; i++)
      d += k->coeffs[i];
    if (d == 0)
      d = 1;
  }
  const uint64_t abs_d = d < 0 ? -(uint64_t) d : (uint64_t) d;
  for (int y = 0; y < (int) in->c->height; y++)
    for (int x = 0; x < (int) in->c->width; x++) {
      int64_t s = 0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          s += (int64_t) k->coeffs[i * n + j]
              * value_at (in, x + j - r, y + i - r, params->border);
      uint64_t abs_s = s < 0 ? -(uint64_t) s : (uint64_t) s;
      int64_t q = (int64_t) ((abs_s + abs_d / 2) / abs_d);
      if ((s < 0) != (d < 0))
        q = -q;
      int64_t v = q + k->bias;
      store_value (out, x, y, (uint32_t) (v < 0 ? 0 : v > max ? max : v));
    }
}

/* Every sample of a component set to `value`. */
static void
fill_component (const Samples * out, uint32_t value)
{
  for (uint32_t y = 0; y < out->c->height; y++)
    for (uint32_t x = 0; x < out->c->width; x++)
      store_value (out, (int) x, (int) y, value);
}

static void
copy_planes (const ClfFrameFormat * format, const ClfHostFrame * src,
    const ClfHostFrame * dst)
{
  for (uint32_t i = 0; i < format->n_planes; i++)
    for (uint32_t y = 0; y < clf_frame_format_rows (format, i); y++)
      memcpy (dst->data[i] + y * dst->stride[i],
          src->data[i] + y * src->stride[i],
          clf_frame_format_row_bytes (format, i));
}

/* mode=gaussian's kernel g as docs/gaussian.md defines it, every weight
 * written out: its 2R + 1 weights into a new array, R and their sum W. */
static int64_t *
gauss_weights (double sigma, int *radius, int64_t * weight)
{
  int64_t *g;
  if (sigma <= 8.0) {
    /* OpenCV's 8-bit taps. */
    int n = (int) lrint (6 * sigma + 1) | 1, r = n / 2;
    /* In OpenCV's order of operations, for the same doubles. */
    double *k = malloc ((size_t) n * sizeof *k), half = 0, err = 0;
    g = calloc ((size_t) n, sizeof *g);
    for (int i = 0; i < r; i++) {
      double twice = 2.0 * (i - r);
      k[i] = exp (twice * twice * (-0.125 / (sigma * sigma)));
      half += k[i];
    }
    const double scale = 1 / (half * 2 + 1);
    int64_t outer = 0;
    for (int i = 0; i < r; i++) {
      double want = k[i] * scale * 256 + err;
      g[i] = g[n - 1 - i] = lrint (want);
      err = want - (double) g[i];
      outer += 2 * g[i];
    }
    g[r] = 256 - outer;
    free (k);
    *radius = r;
    *weight = 256;
    return g;
  }
  /* Three boxes (Kovesi), convolved into one kernel. */
  int wl = (int) floor (sqrt (4 * sigma * sigma + 1));
  wl -= wl % 2 == 0;
  long m = lround ((12 * sigma * sigma - 3.0 * wl * wl - 12.0 * wl - 9)
      / (-4.0 * wl - 4));
  m = m < 0 ? 0 : m > 3 ? 3 : m;
  int n = 1;
  g = calloc (1, sizeof *g);
  g[0] = 1;
  for (int b = 0; b < 3; b++) {
    int w = b < m ? wl : wl + 2;
    int64_t *next = calloc ((size_t) (n + w - 1), sizeof *next);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < w; j++)
        next[i + j] += g[i];
    free (g);
    g = next;
    n += w - 1;
  }
  *radius = n / 2;
  *weight = 0;
  for (int i = 0; i < n; i++)
    *weight += g[i];
  return g;
}

/* The Gaussian of every sample: rows into H (8 more bits), then columns;
 * unsharp's step on top where it sharpens. */
static void
gauss_component (const ClfParams * params, const Samples * in,
    const Samples * out)
{
  const int w = (int) in->c->width, h = (int) in->c->height;
  int r;
  int64_t weight;
  int64_t *g = gauss_weights (params->sigma, &r, &weight);
  int64_t *rows = malloc ((size_t) w * h * sizeof *rows);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int64_t sum = 0;
      for (int j = -r; j <= r; j++)
        sum += g[j + r] * value_at (in, x + j, y, params->border);
      rows[(size_t) y * w + x] = (256 * sum + weight / 2) / weight;
    }
  const int64_t amount = lround (params->amount * 256);
  const int64_t max = (INT64_C (1) << in->c->depth) - 1;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int64_t sum = 0;
      for (int i = -r; i <= r; i++)
        sum += g[i + r] * rows[(size_t) clf_ref_border (y + i, h,
                params->border) * w + x];
      int64_t v = (sum + 128 * weight) / (256 * weight);
      if (params->mode == CLF_MODE_UNSHARP) {
        int64_t orig = value_at (in, x, y, params->border), d = orig - v;
        int64_t q = amount * d;
        int64_t step = q >= 0 ? (q + 128) / 256 : -((-q + 128) / 256);
        v = llabs (d) <= (int64_t) params->threshold ? orig :
            orig + step < 0 ? 0 : orig + step > max ? max : orig + step;
      }
      store_value (out, x, y, (uint32_t) v);
    }
  free (rows);
  free (g);
}

typedef void (*BlurFunc) (const ClfParams * params, const Samples * in,
    const Samples * out);

/* Copies the planes' rows, then filters each component the mode filters,
 * blurring with `blur`. */
static void
filter_components (const ClfParams * params, const ClfFrameFormat * format,
    const ClfHostFrame * src, const ClfHostFrame * dst, BlurFunc blur)
{
  copy_planes (format, src, dst);
  for (uint32_t i = 0; i < format->n_components; i++) {
    const ClfComponent *c = &format->components[i];
    Samples in = samples_of (c, src), out = samples_of (c, dst);
    if (!is_filtered (params, c))
      continue;
    if (params->mode == CLF_MODE_LAPLACE)
      laplace_component (params, &in, &out);
    else if (params->mode == CLF_MODE_CONVOLVE
        && params->kernel.chroma == CLF_CHROMA_NEUTRAL
        && c->role == CLF_COMPONENT_BLURRED)
      fill_component (&out, UINT32_C (1) << (c->depth - 1));
    else if (params->mode == CLF_MODE_CONVOLVE)
      convolve_component (params, &in, &out);
    else if (params->mode == CLF_MODE_GAUSSIAN
        || params->mode == CLF_MODE_UNSHARP)
      gauss_component (params, &in, &out);
    else
      blur (params, &in, &out);
  }
}

void
clf_ref_filter_frame (const ClfParams * params, const ClfFrameFormat * format,
    const ClfHostFrame * src, const ClfHostFrame * dst)
{
  filter_components (params, format, src, dst, blur_component);
}

/* Every window summed sample by sample. */
static void
blur_component_by_definition (const ClfParams * params, const Samples * in,
    const Samples * out)
{
  const int r = (int) params->radius;
  for (int y = 0; y < (int) in->c->height; y++)
    for (int x = 0; x < (int) in->c->width; x++) {
      uint64_t sum = 0;
      for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++)
          sum += value_at (in, x + dx, y + dy, params->border);
      store_value (out, x, y, mean (sum, params->radius));
    }
}

void
clf_ref_blur_by_definition (const ClfParams * params,
    const ClfFrameFormat * format, const ClfHostFrame * src,
    const ClfHostFrame * dst)
{
  ClfParams blur = *params;
  if (blur.mode == CLF_MODE_LAPLACE)
    blur.mode = CLF_MODE_BOX;
  filter_components (&blur, format, src, dst, blur_component_by_definition);
}

void
clf_ref_add_byte_plane (ClfFrameFormat * format, uint32_t w, uint32_t h,
    uint32_t bpp, uint8_t blur, uint8_t laplace)
{
  if (laplace & ~blur)
    abort ();
  for (uint32_t c = 0; c < bpp; c++) {
    ClfComponentRole role = !(blur >> c & 1) ? CLF_COMPONENT_COPIED :
        (laplace >> c & 1) ? CLF_COMPONENT_SHARPENED : CLF_COMPONENT_BLURRED;

    /* *INDENT-OFF* */
    format->components[format->n_components++] = (ClfComponent) {
      .plane = format->n_planes, .offset = c, .pstride = bpp, .width = w,
      .height = h, .depth = 8, .role = role};
    /* *INDENT-ON* */
  }
  format->n_planes++;
}

ClfFrameFormat
clf_ref_byte_plane (uint32_t w, uint32_t h, uint32_t bpp, uint8_t blur,
    uint8_t laplace)
{
  ClfFrameFormat f = { 0 };
  clf_ref_add_byte_plane (&f, w, h, bpp, blur, laplace);
  return f;
}
