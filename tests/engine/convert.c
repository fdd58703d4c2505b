/* Engine tests of the conversion on the device (docs/conversion.md): YUV
 * filtered, then written as RGB, against the reference, on device frames
 * at odd offsets with odd strides (rows of 4-byte pixels that start
 * unaligned, which the kernels store byte by byte) and on host frames
 * (staged: rows aligned, stored as words); widths around the CPU
 * kernels' runs of 16 pixels. */
#include "engine-common.h"

typedef struct
{
  const char *name;
  ClfChromaUp chroma_up;        /* videoconvert's: nearest for I420 */
  ClfFrameFormat (*make) (uint32_t w, uint32_t h);
} Layout;

static ClfFrameFormat
i420 (uint32_t w, uint32_t h)
{
  const uint32_t cw = (w + 1) / 2, ch = (h + 1) / 2;
  return (ClfFrameFormat) {
  3, 3, {component (0, 0, 1, w, h, 8, 0, false, SHARP),
          component (1, 0, 1, cw, ch, 8, 0, false, BLUR),
          component (2, 0, 1, cw, ch, 8, 0, false, BLUR)}};
}

static ClfFrameFormat
nv12 (uint32_t w, uint32_t h)
{
  const uint32_t cw = (w + 1) / 2, ch = (h + 1) / 2;
  return (ClfFrameFormat) {
  2, 3, {component (0, 0, 1, w, h, 8, 0, false, SHARP),
          component (1, 0, 2, cw, ch, 8, 0, false, BLUR),
          component (1, 1, 2, cw, ch, 8, 0, false, BLUR)}};
}

/* Packed 4:2:2: Y every 2 bytes, U and V every 4. */
static ClfFrameFormat
yuy2 (uint32_t w, uint32_t h)
{
  const uint32_t cw = (w + 1) / 2;
  return (ClfFrameFormat) {
  1, 3, {component (0, 0, 2, w, h, 8, 0, false, SHARP),
          component (0, 1, 4, cw, h, 8, 0, false, BLUR),
          component (0, 3, 4, cw, h, 8, 0, false, BLUR)}};
}

/* 4:4:4 with alpha first in each pixel (AYUV). */
static ClfFrameFormat
ayuv (uint32_t w, uint32_t h)
{
  return (ClfFrameFormat) {
  1, 4, {component (0, 1, 4, w, h, 8, 0, false, SHARP),
          component (0, 2, 4, w, h, 8, 0, false, BLUR),
          component (0, 3, 4, w, h, 8, 0, false, BLUR),
          component (0, 0, 4, w, h, 8, 0, false, CLF_COMPONENT_COPIED)}};
}

static ClfFrameFormat
bgrx (uint32_t w, uint32_t h)
{
  return (ClfFrameFormat) {
  1, 3, {component (0, 2, 4, w, h, 8, 0, false, SHARP),
          component (0, 1, 4, w, h, 8, 0, false, SHARP),
          component (0, 0, 4, w, h, 8, 0, false, SHARP)}};
}

static ClfFrameFormat
argb (uint32_t w, uint32_t h)
{
  return (ClfFrameFormat) {
  1, 4, {component (0, 1, 4, w, h, 8, 0, false, SHARP),
          component (0, 2, 4, w, h, 8, 0, false, SHARP),
          component (0, 3, 4, w, h, 8, 0, false, SHARP),
          component (0, 0, 4, w, h, 8, 0, false, CLF_COMPONENT_COPIED)}};
}

static ClfFrameFormat
rgb (uint32_t w, uint32_t h)
{
  return (ClfFrameFormat) {
  1, 3, {component (0, 0, 3, w, h, 8, 0, false, SHARP),
          component (0, 1, 3, w, h, 8, 0, false, SHARP),
          component (0, 2, 3, w, h, 8, 0, false, SHARP)}};
}

/* `in` filtered with `params`, then converted into `out`, from and to
 * device buffers (odd offsets and strides) and host memory. */
static void
check_conversion (const Layout * in_layout, const Layout * out_layout,
    uint32_t w, uint32_t h, const ClfParams * params)
{
  ClfFrameFormat in = in_layout->make (w, h), out = out_layout->make (w, h);
  ClfConversion conv;
  GError *err = NULL;
  char what[200];

  snprintf (what, sizeof what, "%s %ux%u %s r=%u to %s", in_layout->name, w,
      h, clf_mode_name (params->mode), params->radius, out_layout->name);
  bool ok = clf_conversion_init (&conv, CLF_CONVERT_YUV_TO_RGB, &in, &out,
      0.2126, 0.0722, false, &err);
  CHECK (ok, "%s: clf_conversion_init: %s", what, message_of (err));
  g_clear_error (&err);
  if (!ok)
    return;
  conv.chroma_up = in_layout->chroma_up;
  ClfPlan *plan = clf_plan_new_converting (engine, &in, &conv, NULL, &err);
  CHECK (plan, "%s: clf_plan_new_converting: %s", what, message_of (err));
  g_clear_error (&err);
  if (!plan)
    return;

  ClfHostFrame src, filtered, want;
  test_frame_init (&src, &in, true);
  test_frame_init (&filtered, &in, false);
  test_frame_init (&want, &out, false);
  clf_ref_filter_frame (params, &in, &src, &filtered);
  clf_ref_convert_frame (&in, &conv, &filtered, &want);

  Blob from, to;
  blob_init (&from, &in, &src, NULL);
  blob_init (&to, &out, NULL, NULL);
  for (int device = 1; device >= 0; device--) {
    cl_mem from_mem = device ? device_copy (&from) : NULL;
    cl_mem to_mem = device ? device_copy (&to) : NULL;
    ClfFrame f = frame_of (&from, from_mem), t = frame_of (&to, to_mem);
    char pairing[260];
    snprintf (pairing, sizeof pairing, "%s, %s", what,
        device ? "device buffers" : "host memory");
    process_and_check (plan, params, &in, &f, &t, device ? 0 : 2, pairing);
    if (to_mem)
      read_back (to_mem, &to);
    check_blob (&out, &to, &want, pairing);
    if (from_mem)
      clReleaseMemObject (from_mem);
    if (to_mem)
      clReleaseMemObject (to_mem);
    memset (to.bytes, CANARY, to.size);
  }
  free (from.bytes);
  free (to.bytes);
  test_frame_clear (&src);
  test_frame_clear (&filtered);
  test_frame_clear (&want);
  clf_plan_free (plan);
}

void
test_convert (void)
{
  static const Layout yuv[] = {
    {"i420", CLF_CHROMA_UP_NEAREST, i420},
    {"nv12", CLF_CHROMA_UP_FILTERED, nv12},
    {"yuy2", CLF_CHROMA_UP_FILTERED, yuy2},
    {"ayuv", CLF_CHROMA_UP_FILTERED, ayuv},
  };
  static const Layout rgbs[] = {
    {"bgrx", 0, bgrx}, {"argb", 0, argb}, {"rgb", 0, rgb},
  };
  static const uint32_t frame_sizes[][2] = {
    {1, 1}, {7, 1}, {13, 11}, {16, 3}, {17, 5}, {35, 9}, {64, 4},
  };
  const ClfParams filters[] = {
    {.mode = CLF_MODE_SLIDING, .radius = 0},
    {.mode = CLF_MODE_LAPLACE, .border = CLF_BORDER_MIRROR},
    {.mode = CLF_MODE_SLIDING, .radius = 2},
  };
  size_t n = 0;
  for (size_t i = 0; i < N_OF (yuv); i++)
    for (size_t o = 0; o < N_OF (rgbs); o++)
      for (size_t s = 0; s < N_OF (frame_sizes); s++, n++)
        check_conversion (&yuv[i], &rgbs[o], frame_sizes[s][0], frame_sizes[s][1],
            &filters[n % N_OF (filters)]);
}
