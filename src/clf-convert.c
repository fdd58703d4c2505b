/* Colour conversion on the device: a conversion's matrix and checks, how
 * kernels/convert.cl sees the components of its input and output, and its
 * launch.  docs/conversion.md defines the arithmetic. */
#include "clf-plan-private.h"

#include <math.h>
#include <string.h>

/* Y, U, V or R, G, B; then alpha. */
#define COLOURS 3
#define ALPHA 3

/* log2 of the subsampling that gives a component of `size` samples in a
 * frame `full` wide (or high): the smallest that does; -1 for none. */
static int
subsampling (uint32_t full, uint32_t size)
{
  for (int s = 0; s <= 3; s++)
    if (((full + (1u << s) - 1) >> s) == size)
      return s;
  return -1;
}

/* Why `format` cannot be a conversion's YUV side (`yuv`) or RGB side, or
 * NULL: 3 colour components of one depth (8 bits for RGB, 8 to 16 for
 * YUV), chroma halved at most on each axis (`halved`: on both), alpha or
 * none, at most 4 planes. */
static const char *
refused_side (const ClfFrameFormat * format, bool yuv, bool halved)
{
  if (format->n_planes > 4 || format->n_components < COLOURS
      || format->n_components > 4)
    return "not 3 or 4 components in at most 4 planes";
  const ClfComponent *first = &format->components[0];
  for (uint32_t c = 0; c < format->n_components; c++) {
    const ClfComponent *k = &format->components[c];
    int xs = subsampling (first->width, k->width);
    int ys = subsampling (first->height, k->height);
    bool chroma = yuv && (c == 1 || c == 2);
    if (xs < 0 || ys < 0 || xs > (chroma ? 1 : 0) || ys > (chroma ? 1 : 0)
        || (chroma && halved && (k->width != (first->width + 1) / 2
                || k->height != (first->height + 1) / 2)))
      return "components of sizes a conversion does not take";
    if (k->pstride > 255)
      return "pixels too wide";
    if (c < COLOURS && k->depth != first->depth)
      return "colours of different depths";
    if (k->depth < 8 || (!yuv && k->depth != 8))
      return "samples of a depth a conversion does not take";
  }
  return NULL;
}

/* Whether an output plane holds pixels of one layout (its padding is then
 * known). */
static bool
one_layout_a_plane (const ClfFrameFormat * format)
{
  for (uint32_t c = 0; c < format->n_components; c++)
    for (uint32_t d = 0; d < c; d++)
      if (format->components[c].plane == format->components[d].plane
          && format->components[c].pstride != format->components[d].pstride
          && format->components[c].width == format->components[d].width)
        return false;
  return true;
}

/* Why the engine does not convert `in` into `out`, or NULL: YUV to RGB,
 * or RGB to 4:2:0 YUV. */
static const char *
refused (const ClfFrameFormat * in, ClfConvertDirection direction,
    const ClfFrameFormat * out)
{
  bool to_rgb = direction == CLF_CONVERT_YUV_TO_RGB;
  const char *why;
  if ((unsigned) direction > CLF_CONVERT_RGB_TO_YUV)
    return "it names no direction";
  if ((why = refused_side (in, to_rgb, false)))
    return g_intern_string (why);
  if ((why = refused_side (out, !to_rgb, !to_rgb)))
    return g_intern_string (why);
  if (in->components[0].width != out->components[0].width
      || in->components[0].height != out->components[0].height)
    return "its input and output frames differ in size";
  if (!one_layout_a_plane (out))
    return "its output has a plane of two pixel layouts";
  return NULL;
}

bool
clf_conversion_check (const ClfFrameFormat * in,
    const ClfConversion * conversion, GError ** error)
{
  if (!clf_frame_format_check (in, error)
      || !clf_frame_format_check (&conversion->format, error))
    return false;
  const char *why = refused (in, conversion->direction, &conversion->format);
  if (why || (unsigned) conversion->chroma_up > CLF_CHROMA_UP_FILTERED) {
    clf_set_error (error, CLF_ERROR_INVALID, "no colour conversion between "
        "these formats: %s", why ? why : "an unknown chroma rule");
    return false;
  }
  return true;
}

/* ---- the matrix: videoconvert's, step by step (docs/conversion.md) ---- */

typedef double Matrix[4][4];

/* m = t m */
static void
multiply (Matrix m, const Matrix t)
{
  Matrix r;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      r[i][j] = 0;
      for (int k = 0; k < 4; k++)
        r[i][j] += t[i][k] * m[k][j];
    }
  memcpy (m, r, sizeof r);
}

static void
scale (Matrix m, double a, double b, double c)
{
  const Matrix t = { {a, 0, 0, 0}, {0, b, 0, 0}, {0, 0, c, 0}, {0, 0, 0, 1} };
  multiply (m, t);
}

static void
offset (Matrix m, double a, double b, double c)
{
  const Matrix t = { {1, 0, 0, a}, {0, 1, 0, b}, {0, 0, 1, c}, {0, 0, 0, 1} };
  multiply (m, t);
}

/* 1 / x as GStreamer takes it: in single precision. */
static double
reciprocal (double x)
{
  return (double) (1.0f / (float) x);
}

/* The rows of the RGB to YCbCr matrix. */
static void
to_ycbcr (double kr, double kb, Matrix k)
{
  double kg = 1.0 - kr - kb, u = 1 / (2 * (1 - kb)), v = 1 / (2 * (1 - kr));
  const Matrix rows = {
    {kr, kg, kb, 0},
    {-u * kr, -u * kg, u * (1 - kb), 0},
    {v * (1 - kr), -v * kg, -v * kb, 0},
    {0, 0, 0, 1},
  };
  memcpy (k, rows, sizeof rows);
}

/* A range's offsets and spans at depth d: YUV's limited or full, or
 * RGB's (full, no offset). */
static void
range_of (bool yuv, bool full, int d, double offsets[3], double spans[3])
{
  double max = (1 << d) - 1;
  offsets[0] = yuv && !full ? 1 << (d - 4) : 0;
  offsets[1] = offsets[2] = yuv ? 1 << (d - 1) : 0;
  spans[0] = yuv && !full ? 219 << (d - 8) : max;
  spans[1] = spans[2] = yuv && !full ? 224 << (d - 8) : max;
}

bool
clf_conversion_init (ClfConversion * conversion,
    ClfConvertDirection direction, const ClfFrameFormat * in,
    const ClfFrameFormat * out, double kr, double kb, bool full_range,
    GError ** error)
{
  memset (conversion, 0, sizeof *conversion);
  conversion->direction = direction;
  conversion->format = *out;
  conversion->chroma_up = CLF_CHROMA_UP_FILTERED;
  if (!clf_conversion_check (in, conversion, error))
    return false;

  /* The depths the arithmetic works at: 8 bits, or 16 for deeper. */
  bool to_rgb = direction == CLF_CONVERT_YUV_TO_RGB;
  int din = in->components[0].depth > 8 ? 16 : 8;
  int dout = out->components[0].depth > 8 ? 16 : 8;
  double kg = 1.0 - kr - kb;
  double in_off[3], in_span[3], out_off[3], out_span[3];
  Matrix colours = {
    {1, 0, 2 * (1 - kr), 0},
    {1, -2 * kb * (1 - kb) / kg, -2 * kr * (1 - kr) / kg, 0},
    {1, 2 * (1 - kb), 0, 0},
    {0, 0, 0, 1},
  };
  Matrix m = { {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1} };

  if (!to_rgb)
    to_ycbcr (kr, kb, colours);
  range_of (to_rgb, full_range, din, in_off, in_span);
  range_of (!to_rgb, full_range, dout, out_off, out_span);
  if (din < dout) {
    double s = reciprocal (1 << (dout - din));
    scale (m, s, s, s);
  }
  offset (m, -in_off[0], -in_off[1], -in_off[2]);
  scale (m, reciprocal (in_span[0]), reciprocal (in_span[1]),
      reciprocal (in_span[2]));
  multiply (m, colours);
  scale (m, out_span[0], out_span[1], out_span[2]);
  offset (m, out_off[0], out_off[1], out_off[2]);
  if (din > dout) {
    double s = 1 << (din - dout);
    scale (m, s, s, s);
  }
  scale (m, 256, 256, 256);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      conversion->matrix[i][j] = (int32_t) rint (m[i][j]);
  return true;
}

/* ---- the program and its launch ---- */

bool
clf_conversion_sharpens (const ClfFrameFormat * in)
{
  const ClfComponent *first = &in->components[0];
  for (uint32_t c = 0; c < in->n_components; c++) {
    const ClfComponent *k = &in->components[c];
    if (k->role == CLF_COMPONENT_SHARPENED && (c >= COLOURS
            || k->width != first->width || k->height != first->height))
      return false;
  }
  return true;
}

static void
convert_sample (const ClfFrameFormat * format, uint32_t c,
    bool little_endian, ClfConvertSample * sample)
{
  memset (sample, 0, sizeof *sample);
  if (c >= format->n_components)
    return;
  const ClfComponent *first = &format->components[0];
  const ClfComponent *k = &format->components[c];
  uint32_t bytes = k->depth + k->shift <= 8 ? 1 : 2;
  sample->plane = (uint8_t) k->plane;
  sample->offset = (uint8_t) k->offset;
  sample->pstride = (uint8_t) k->pstride;
  sample->xsub = (uint8_t) subsampling (first->width, k->width);
  sample->ysub = (uint8_t) subsampling (first->height, k->height);
  sample->depth = (uint8_t) k->depth;
  sample->shift = (uint8_t) k->shift;
  sample->bytes = (uint8_t) bytes;
  sample->swap = bytes == 2 && k->big_endian == little_endian;
}

void
clf_convert_layout (const ClfFrameFormat * in,
    const ClfConversion * conversion, bool little_endian, bool cpu_kernels,
    bool sharpen, ClfConvertLayout * layout)
{
  const ClfFrameFormat *out = &conversion->format;

  memset (layout, 0, sizeof *layout);
  layout->direction = conversion->direction;
  /* The 16-bit arithmetic: for YUV deeper than 8 bits, in or out. */
  layout->wide = (conversion->direction == CLF_CONVERT_YUV_TO_RGB ?
      in->components[0].depth : out->components[0].depth) > 8;
  layout->chroma_up = conversion->chroma_up;
  layout->h_cosited = conversion->h_cosited;
  layout->v_cosited = conversion->v_cosited;
  for (uint32_t c = 0; c < 4; c++) {
    convert_sample (in, c, little_endian, &layout->in[c]);
    convert_sample (out, c, little_endian, &layout->out[c]);
  }
  /* The colours laplace sharpens: luma, or R, G and B. */
  for (uint32_t c = 0; sharpen && c < COLOURS; c++)
    if (in->components[c].role == CLF_COMPONENT_SHARPENED)
      layout->sharpen |= (uint8_t) (1u << c);
  for (uint32_t c = 0; c < out->n_components; c++) {
    const ClfComponent *k = &out->components[c];
    uint32_t bytes = k->depth + k->shift <= 8 ? 1 : 2;
    layout->out_pstride[k->plane] = (uint8_t) k->pstride;
    layout->out_pad[k->plane] |= (uint8_t) (((1u << bytes) - 1) << k->offset);
  }
  /* Held bytes into the bytes held by none. */
  for (uint32_t p = 0; p < 4; p++)
    layout->out_pad[p] = (uint8_t) (((1u << layout->out_pstride[p]) - 1)
        & ~layout->out_pad[p]);
  /* Runs on CPUs, whose work-items are not lanes of their own: on GPUs
   * each work-item's 4 pixels lie next to its neighbours'. */
  layout->runs = cpu_kernels && !layout->wide && out->n_planes == 1
      && conversion->direction == CLF_CONVERT_YUV_TO_RGB;
  for (uint32_t c = 0; c < 4; c++)
    layout->runs &= layout->in[c].bytes <= 1 && layout->out[c].bytes <= 1;
}

bool
clf_plan_set_conversion_args (ClfPlan * plan, cl_kernel kernel,
    cl_uint first, cl_mem const *src, const Placement * in,
    cl_mem const *dst, const Placement * out, GError ** error)
{
  const ClfConversion *conversion = plan->conversion;
  cl_int places[2][4][2];
  cl_int16 matrix;
  ClfKernelArg args[2 * 4 * 3 + 1];
  unsigned n = 0;

  for (unsigned side = 0; side < 2; side++) {
    const FrameShape *shape = side ? &plan->out : &plan->in;
    cl_mem const *mem = side ? dst : src;
    const Placement *at = side ? out : in;
    for (uint32_t p = 0; p < 4; p++) {
      /* A plane the format lacks is its first one (never read). */
      uint32_t i = p < shape->n_planes ? p : 0;
      places[side][p][0] = (cl_int) at[i].offset;
      places[side][p][1] = (cl_int) at[i].stride;
      /* *INDENT-OFF* */
      args[n++] = (ClfKernelArg) { sizeof (cl_mem), &mem[i] };
      args[n++] = (ClfKernelArg) { sizeof (cl_int), &places[side][p][0] };
      args[n++] = (ClfKernelArg) { sizeof (cl_int), &places[side][p][1] };
      /* *INDENT-ON* */
    }
  }
  memset (&matrix, 0, sizeof matrix);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      matrix.s[i * 4 + j] = conversion->matrix[i][j];
  /* *INDENT-OFF* */
  args[n++] = (ClfKernelArg) { sizeof matrix, &matrix };
  /* *INDENT-ON* */
  return clf_set_kernel_args_from (kernel, first, args, n, error);
}

bool
clf_plan_enqueue_conversion (ClfPlan * plan, const KernelSet * set,
    const ClfParams * params, cl_mem const *src, const Placement * in,
    cl_mem const *dst, const Placement * out, GError ** error)
{
  const ClfConversion *conversion = plan->conversion;
  const ClfComponent *first = &conversion->format.components[0];
  cl_int width = (cl_int) first->width, height = (cl_int) first->height;
  cl_int border = (cl_int) params->border;
  /* *INDENT-OFF* */
  const ClfKernelArg args[] = {
    { sizeof width, &width }, { sizeof height, &height },
    { sizeof border, &border },
  };
  /* *INDENT-ON* */

  cl_kernel kernel = set->kernels[K_CONVERT_PIXELS];
  const size_t local[2] = { CLF_CONVERT_GROUP, 1 };
  /* A work-item a few pixels of a row, or (to YUV) a chroma sample. */
  const ClfComponent *chroma = &conversion->format.components[1];
  bool to_yuv = conversion->direction == CLF_CONVERT_RGB_TO_YUV;
  uint32_t per_item = clf_convert_item_pixels (&set->spec.convert);
  uint32_t rows = clf_convert_item_rows (&set->spec.convert);
  size_t items = to_yuv ? chroma->width :
      (first->width + per_item - 1) / per_item;
  const size_t global[2] = {
    (items + CLF_CONVERT_GROUP - 1) / CLF_CONVERT_GROUP * CLF_CONVERT_GROUP,
    to_yuv ? chroma->height : (first->height + rows - 1) / rows
  };
  return clf_plan_set_conversion_args (plan, kernel, 0, src, in, dst, out,
      error)
      && clf_set_kernel_args_from (kernel, CLF_CONVERSION_ARGS, args,
      G_N_ELEMENTS (args), error)
      && clf_plan_enqueue_kernel (plan, kernel, K_CONVERT_PIXELS, global,
      local, 0, error);
}
