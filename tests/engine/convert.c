/* Engine tests of the conversion on the device (docs/conversion.md): YUV
 * filtered, then written as RGB, against the reference, on device frames
 * at odd offsets with odd strides (rows of 4-byte pixels that start
 * unaligned, which the kernels store byte by byte) and on host frames
 * (staged: rows aligned, stored as words); widths around the CPU
 * kernels' runs of 16 pixels. */
#include "engine-common.h"

/* A format of 8-bit components: each {plane, offset, pixel stride, width
 * halved, height halved}; a fourth one is alpha. */
typedef struct
{
  const char *name;
  ClfChromaUp chroma_up;        /* videoconvert's: nearest for I420 */
  uint32_t n_planes, n_components;
  uint32_t spec[4][5];
} Layout;

static ClfFrameFormat
format_of (const Layout * l, bool yuv, uint32_t w, uint32_t h)
{
  ClfFrameFormat f = { 0 };
  f.n_planes = l->n_planes;
  f.n_components = l->n_components;
  for (uint32_t c = 0; c < l->n_components; c++) {
    const uint32_t *k = l->spec[c];
    ClfComponentRole role = c == 3 ? CLF_COMPONENT_COPIED :
        c == 0 || !yuv ? SHARP : BLUR;
    f.components[c] = component (k[0], k[1], k[2], k[3] ? (w + 1) / 2 : w,
        k[4] ? (h + 1) / 2 : h, 8, 0, false, role);
  }
  return f;
}

/* `in` filtered with `params`, then converted into `out`, from and to
 * device buffers (odd offsets and strides) and host memory. */
static void
check_conversion (const Layout * in_layout, const Layout * out_layout,
    uint32_t w, uint32_t h, const ClfParams * params)
{
  ClfFrameFormat in = format_of (in_layout, true, w, h);
  ClfFrameFormat out = format_of (out_layout, false, w, h);
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
    {"i420", CLF_CHROMA_UP_NEAREST, 3, 3,
        {{0, 0, 1, 0, 0}, {1, 0, 1, 1, 1}, {2, 0, 1, 1, 1}}},
    {"nv12", CLF_CHROMA_UP_FILTERED, 2, 3,
        {{0, 0, 1, 0, 0}, {1, 0, 2, 1, 1}, {1, 1, 2, 1, 1}}},
    {"y42b", CLF_CHROMA_UP_FILTERED, 3, 3,
        {{0, 0, 1, 0, 0}, {1, 0, 1, 1, 0}, {2, 0, 1, 1, 0}}},
    /* Packed 4:2:2: Y every 2 bytes, U and V every 4. */
    {"yuy2", CLF_CHROMA_UP_FILTERED, 1, 3,
        {{0, 0, 2, 0, 0}, {0, 1, 4, 1, 0}, {0, 3, 4, 1, 0}}},
    {"ayuv", CLF_CHROMA_UP_FILTERED, 1, 4,
        {{0, 1, 4, 0, 0}, {0, 2, 4, 0, 0}, {0, 3, 4, 0, 0}, {0, 0, 4, 0, 0}}},
  };
  static const Layout rgbs[] = {
    {"bgrx", 0, 1, 3, {{0, 2, 4, 0, 0}, {0, 1, 4, 0, 0}, {0, 0, 4, 0, 0}}},
    {"argb", 0, 1, 4, {{0, 1, 4, 0, 0}, {0, 2, 4, 0, 0}, {0, 3, 4, 0, 0},
            {0, 0, 4, 0, 0}}},
    {"rgb", 0, 1, 3, {{0, 0, 3, 0, 0}, {0, 1, 3, 0, 0}, {0, 2, 3, 0, 0}}},
  };
  static const uint32_t frame_sizes[][2] = {
    {1, 1}, {7, 1}, {13, 11}, {16, 3}, {17, 5}, {35, 9}, {64, 4},
  };
  const ClfParams filters[] = {
    {.mode = CLF_MODE_SLIDING,.radius = 0},
    {.mode = CLF_MODE_LAPLACE,.border = CLF_BORDER_MIRROR},
    {.mode = CLF_MODE_SLIDING,.radius = 2},
    {.mode = CLF_MODE_LAPLACE,.border = CLF_BORDER_CLAMP},
    {.mode = CLF_MODE_SLIDING,.radius = 3,.border = CLF_BORDER_MIRROR},
  };
  size_t n = 0;
  for (size_t i = 0; i < N_OF (yuv); i++)
    for (size_t o = 0; o < N_OF (rgbs); o++)
      for (size_t s = 0; s < N_OF (frame_sizes); s++, n++)
        check_conversion (&yuv[i], &rgbs[o], frame_sizes[s][0],
            frame_sizes[s][1], &filters[n % N_OF (filters)]);
}
