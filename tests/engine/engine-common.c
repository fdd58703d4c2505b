/* Shared by the engine tests (engine-common.h). */
#include "engine-common.h"

int failures;
uint64_t rng_state;
/* The quick tier: which combinations of the matrices run (see sampled). */
bool quick_tier;
size_t sample_offset;
ClfEngine *engine;
bool device_is_cpu;

const char *
message_of (const GError * err)
{
  return err ? err->message : "(no error)";
}

uint64_t
next_random (void)
{
  /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ull;
}

void
test_frame_init (ClfHostFrame * t, const ClfFrameFormat * format, bool random)
{
  memset (t, 0, sizeof *t);
  for (uint32_t i = 0; i < format->n_planes; i++) {
    size_t row = clf_frame_format_row_bytes (format, i);
    uint32_t rows = clf_frame_format_rows (format, i);
    size_t size;
    t->stride[i] = row + next_random () % 19;
    size = t->stride[i] * rows;
    t->data[i] = malloc (size);
    t->size[i] = size;
    memset (t->data[i], CANARY, size);
    for (uint32_t y = 0; random && y < rows; y++)
      for (size_t x = 0; x < row; x++)
        t->data[i][y * t->stride[i] + x] = (uint8_t) (next_random () >> 56);
  }
}

void
colour_layouts (uint32_t w, uint32_t h, const char *names[N_COLOUR_LAYOUTS],
    ClfFrameFormat formats[N_COLOUR_LAYOUTS])
{
  static const char *const layout_names[N_COLOUR_LAYOUTS] = { "gray", "rgb",
    "rgbx", "xrgb", "r-b"
  };
  static const uint32_t bpp[] = { 1, 3, 4, 4, 3 };
  static const uint8_t masks[] = { 0x1, 0x7, 0x7, 0xE, 0x5 };
  for (int l = 0; l < N_COLOUR_LAYOUTS; l++) {
    names[l] = layout_names[l];
    formats[l] = one_plane (w, h, bpp[l], masks[l], masks[l]);
  }
}

void
extreme_formats (const char *names[N_EXTREME_FORMATS],
    ClfFrameFormat formats[N_EXTREME_FORMATS])
{
  const char *family_names[16];
  ClfFrameFormat families[16];
  format_families (23, 19, family_names, families);
  names[0] = "rgba";
  formats[0] = one_plane (23, 19, 4, 0x7, 0x7);
  names[1] = family_names[0];   /* gray16 */
  formats[1] = families[0];
  names[2] = family_names[3];   /* gray16-be */
  formats[2] = families[3];
}

void
extreme_frame_init (ClfHostFrame * in, const ClfFrameFormat * format,
    bool checker)
{
  test_frame_init (in, format, false);
  for (uint32_t i = 0; i < format->n_planes; i++)
    for (uint32_t y = 0; y < clf_frame_format_rows (format, i); y++)
      for (size_t x = 0; x < clf_frame_format_row_bytes (format, i); x++)
        in->data[i][y * in->stride[i] + x] =
            checker && (x / 2 + y) % 2 ? 0 : 0xff;
}

void
test_frame_clear (ClfHostFrame * t)
{
  for (int i = 0; i < CLF_MAX_PLANES; i++)
    free (t->data[i]);
}

bool
frames_equal (const ClfFrameFormat * format, const ClfHostFrame * got,
    const ClfHostFrame * want, const char *what)
{
  ClfTestDifference d;

  if (!clf_test_first_difference (format, got, want, CANARY, &d))
    return true;
  CHECK (false, "%s: plane %u, row %u, byte %zu%s: got %u, want %u", what,
      d.plane, d.y, d.x, d.padding ? " (padding)" : "", d.got, d.want);
  return false;
}

void
describe (char *buf, size_t size, const char *layout,
    const ClfFrameFormat * format, const ClfParams * params)
{
  if (params->mode == CLF_MODE_CONVOLVE)
    snprintf (buf, size, "%s %ux%u mode=convolve border=%s kernel %ux%u "
        "divisor=%d bias=%d", layout, format->components[0].width,
        format->components[0].height, clf_border_name (params->border),
        params->kernel.size, params->kernel.size, params->kernel.divisor,
        params->kernel.bias);
  else
    snprintf (buf, size, "%s %ux%u mode=%s border=%s radius=%u", layout,
        format->components[0].width, format->components[0].height,
        clf_mode_name (params->mode), clf_border_name (params->border),
        params->radius);
}

int skipped_box_cases;
/* The naive box cases a CPU device runs: those within this many reads. */
double cpu_box_budget = CPU_BOX_READ_BUDGET;

ClfPlan *
plan_for (const char *layout, const ClfFrameFormat * format)
{
  GError *err = NULL;
  ClfPlan *plan = clf_plan_new (engine, format, &err);
  CHECK (plan, "clf_plan_new (%s): %s", layout, message_of (err));
  g_clear_error (&err);
  return plan;
}

bool
run_and_compare (ClfPlan * plan, const ClfParams * params,
    const ClfFrameFormat * format, const char *what, const ClfHostFrame * in,
    ClfHostFrame * out, const ClfHostFrame * want)
{
  GError *err = NULL;
  ClfFrameStats stats;
  test_frame_init (out, format, false);
  bool ok = clf_plan_process_host (plan, params, in, out,
      &stats, &err);
  CHECK (ok, "%s: %s", what, message_of (err));
  g_clear_error (&err);
  if (!ok)
    return false;
  CHECK (stats.copies == 2, "%s: %u copies", what, stats.copies);
  CHECK (stats.kernel_ns > 0, "%s: no kernel time", what);
  return frames_equal (format, out, want, what);
}

void
check_against_reference (ClfPlan * plan, const ClfParams * params,
    const ClfFrameFormat * format, const char *what, const ClfHostFrame * in)
{
  ClfHostFrame want, out;
  test_frame_init (&want, format, false);
  clf_ref_filter_frame (params, format, in, &want);
  if (run_and_compare (plan, params, format, what, in, &out, &want))
    test_frame_clear (&out);
  test_frame_clear (&want);
}

void
check_format_at_radius (const char *layout, const ClfFrameFormat * format,
    uint32_t radius)
{
  ClfPlan *plan = plan_for (layout, format);
  if (!plan)
    return;

  ClfHostFrame in;
  test_frame_init (&in, format, true);
  for (ClfBorder border = CLF_BORDER_CLAMP; border <= CLF_BORDER_MIRROR;
      border++) {
    ClfParams blur = { CLF_MODE_SEPARABLE, radius, border };
    ClfParams sharpen = { CLF_MODE_LAPLACE, radius, border };
    ClfHostFrame want_blur, want_sharpen, first_blur, out;
    test_frame_init (&want_blur, format, false);
    test_frame_init (&want_sharpen, format, false);
    clf_ref_filter_frame (&blur, format, &in, &want_blur);
    clf_ref_filter_frame (&sharpen, format, &in, &want_sharpen);
    bool have_first_blur = false;

    for (ClfMode mode = CLF_MODE_BOX; mode <= CLF_MODE_LAPLACE; mode++) {
      ClfParams params = { mode, radius, border };
      bool is_blur = mode != CLF_MODE_LAPLACE;
      char what[160];
      describe (what, sizeof what, layout, format, &params);
      if (mode == CLF_MODE_BOX && device_is_cpu
          && clf_test_box_reads (format, radius) > cpu_box_budget) {
        printf ("  skip %s: %.2g naive reads is too many for a CPU device\n",
            what, clf_test_box_reads (format, radius));
        skipped_box_cases++;
        continue;
      }
      bool ok = run_and_compare (plan, &params, format, what, &in, &out,
          is_blur ? &want_blur : &want_sharpen);
      if (ok && is_blur && have_first_blur)
        frames_equal (format, &out, &first_blur, what);
      if (ok && is_blur && !have_first_blur) {
        first_blur = out;
        have_first_blur = true;
      } else {
        test_frame_clear (&out);
      }
    }
    if (have_first_blur)
      test_frame_clear (&first_blur);
    test_frame_clear (&want_blur);
    test_frame_clear (&want_sharpen);
  }
  test_frame_clear (&in);
  clf_plan_free (plan);
}

bool
sampled (size_t sum, size_t every)
{
  return !quick_tier || (sum + sample_offset) % every == 0;
}

ClfFrameFormat
byte_planes (uint32_t n, const uint32_t planes[][5])
{
  ClfFrameFormat f = { 0 };
  for (uint32_t i = 0; i < n; i++)
    clf_ref_add_byte_plane (&f, planes[i][0], planes[i][1], planes[i][2],
        (uint8_t) planes[i][3], (uint8_t) planes[i][4]);
  return f;
}

ClfComponent
component (uint32_t plane, uint32_t offset, uint32_t pstride, uint32_t w,
    uint32_t h, uint32_t depth, uint32_t shift, bool big_endian,
    ClfComponentRole role)
{
  return (ClfComponent) {
  plane, offset, pstride, w, h, depth, shift, big_endian, role};
}

size_t
format_families (uint32_t w, uint32_t h, const char **names, ClfFrameFormat * f)
{
  const uint32_t cw = (w + 1) / 2, ch = (h + 1) / 2;
  const ClfFrameFormat families[] = {
    {1, 1, {component (0, 0, 2, w, h, 16, 0, false, SHARP)}},
    {3, 3, {component (0, 0, 2, w, h, 10, 0, false, SHARP),
                component (1, 0, 2, cw, ch, 10, 0, false, BLUR),
            component (2, 0, 2, cw, ch, 10, 0, false, BLUR)}},
    {2, 3, {component (0, 0, 2, w, h, 10, 6, false, SHARP),
                component (1, 0, 4, cw, ch, 10, 6, false, BLUR),
            component (1, 2, 4, cw, ch, 10, 6, false, BLUR)}},
    {1, 1, {component (0, 0, 2, w, h, 16, 0, true, SHARP)}},
    {1, 1, {component (0, 0, 2, w, h, 12, 4, true, SHARP)}},
    {1, 4, {component (0, 0, 8, w, h, 16, 0, true, SHARP),
                component (0, 2, 8, w, h, 16, 0, true, SHARP),
                component (0, 4, 8, w, h, 16, 0, true, SHARP),
            component (0, 6, 8, w, h, 16, 0, true, ALPHA)}},
    {1, 3, {component (0, 0, 2, w, h, 8, 0, false, SHARP),
                component (0, 1, 4, cw, h, 8, 0, false, BLUR),
            component (0, 3, 4, cw, h, 8, 0, false, BLUR)}},
    {1, 3, {component (0, 1, 2, w, h, 8, 0, false, SHARP),
                component (0, 0, 4, cw, h, 8, 0, false, BLUR),
            component (0, 2, 4, cw, h, 8, 0, false, BLUR)}},
    {1, 3, {component (0, 0, 2, w, h, 8, 0, false, SHARP),
                component (0, 3, 4, cw, h, 8, 0, false, BLUR),
            component (0, 1, 4, cw, h, 8, 0, false, BLUR)}},
    {1, 3, {component (0, 0, 4, w, h, 10, 6, false, SHARP),
                component (0, 2, 8, cw, h, 10, 6, false, BLUR),
            component (0, 6, 8, cw, h, 10, 6, false, BLUR)}},
    {1, 4, {component (0, 1, 4, w, h, 8, 0, false, SHARP),
                component (0, 2, 4, w, h, 8, 0, false, BLUR),
                component (0, 3, 4, w, h, 8, 0, false, BLUR),
            component (0, 0, 4, w, h, 8, 0, false, ALPHA)}},
    {4, 4, {component (0, 0, 1, w, h, 8, 0, false, SHARP),
                component (1, 0, 1, cw, ch, 8, 0, false, BLUR),
                component (2, 0, 1, cw, ch, 8, 0, false, BLUR),
            component (3, 0, 1, w, h, 8, 0, false, ALPHA)}},
  };
  static const char *const family_names[] = { "gray16", "i420-10",
    "p010", "gray16-be", "gray12-be", "rgba64-be", "yuy2", "uyvy", "yvyu",
    "y210", "ayuv", "a420"
  };
  G_STATIC_ASSERT (N_OF (families) == N_OF (family_names));
  for (size_t i = 0; i < N_OF (families); i++) {
    names[i] = family_names[i];
    f[i] = families[i];
  }
  return N_OF (families);
}

void
blob_init (Blob * b, const ClfFrameFormat * format, const ClfHostFrame * from,
    uint8_t * storage)
{
  size_t offset = 3;
  memset (b, 0, sizeof *b);
  for (uint32_t i = 0; i < format->n_planes; i++) {
    /* Odd offsets and strides, but whole samples of 2 bytes. */
    size_t align = clf_frame_format_sample_bytes (format, i);
    offset = (offset + align - 1) / align * align;
    b->frame.offset[i] = offset;
    b->frame.stride[i] = clf_frame_format_row_bytes (format, i)
        + (1 + next_random () % 9) * align;
    offset += b->frame.stride[i] * clf_frame_format_rows (format, i) + 5;
  }
  b->size = offset;
  b->bytes = storage ? storage : malloc (b->size);
  memset (b->bytes, CANARY, b->size);
  for (uint32_t i = 0; from && i < format->n_planes; i++)
    for (uint32_t y = 0; y < clf_frame_format_rows (format, i); y++)
      memcpy (b->bytes + b->frame.offset[i] + y * b->frame.stride[i],
          from->data[i] + y * from->stride[i],
          clf_frame_format_row_bytes (format, i));
}

void
blob_like (Blob * b, const Blob * like)
{
  *b = *like;
  b->bytes = malloc (b->size);
  memset (b->bytes, CANARY, b->size);
}

ClfHostFrame
blob_planes (const Blob * b)
{
  ClfHostFrame h = { {0} };
  for (uint32_t i = 0; i < CLF_MAX_PLANES; i++) {
    h.data[i] = b->bytes + b->frame.offset[i];
    h.stride[i] = b->frame.stride[i];
    h.size[i] = b->size - b->frame.offset[i];
  }
  return h;
}

void
check_blob_gaps (const ClfFrameFormat * format, const Blob * b,
    const char *what)
{
  size_t at = 0;
  for (uint32_t i = 0; i <= format->n_planes; i++) {
    size_t end = i < format->n_planes ? b->frame.offset[i] : b->size;
    for (; at < end; at++)
      if (b->bytes[at] != CANARY) {
        CHECK (false, "%s: byte %zu between planes changed", what, at);
        return;
      }
    if (i < format->n_planes)
      at = end + b->frame.stride[i] * clf_frame_format_rows (format, i);
  }
}

cl_mem
device_copy (const Blob * b)
{
  cl_int status;
  cl_mem mem = clCreateBuffer (clf_engine_context (engine),
      CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b->size, b->bytes, &status);
  CHECK (status == CL_SUCCESS, "clCreateBuffer: %s",
      clf_cl_status_name (status));
  return mem;
}

void
read_back (cl_mem mem, Blob * b)
{
  cl_int status = clEnqueueReadBuffer (clf_engine_queue (engine), mem,
      CL_TRUE, 0, b->size, b->bytes, 0, NULL, NULL);
  CHECK (status == CL_SUCCESS, "clEnqueueReadBuffer: %s",
      clf_cl_status_name (status));
}

ClfFrame
frame_of (const Blob * b, cl_mem mem)
{
  ClfFrame f = b->frame;
  for (uint32_t i = 0; i < CLF_MAX_PLANES; i++) {
    f.mem[i] = mem;
    f.data[i] = mem ? NULL : b->bytes + b->frame.offset[i];
    f.size[i] = mem ? 0 : b->size - b->frame.offset[i];
  }
  return f;
}

void
process_and_check (ClfPlan * plan, const ClfParams * params,
    const ClfFrameFormat * format, const ClfFrame * src, const ClfFrame * dst,
    uint32_t copies, const char *what)
{
  GError *err = NULL;
  ClfFrameStats stats;
  bool ok = clf_plan_process (plan, params, src, dst, &stats, &err);
  CHECK (ok, "%s: %s", what, message_of (err));
  CHECK (!ok || stats.copies == copies, "%s: %u copies, want %u", what,
      stats.copies, copies);
  g_clear_error (&err);
}

void
check_blob (const ClfFrameFormat * format, const Blob * got,
    const ClfHostFrame * want, const char *what)
{
  ClfHostFrame planes = blob_planes (got);
  frames_equal (format, &planes, want, what);
  check_blob_gaps (format, got, what);
}

void
device_blobs_init (BlobPair * b, const ClfFrameFormat * format,
    const ClfHostFrame * in)
{
  blob_init (&b->src, format, in, NULL);
  blob_init (&b->dst, format, NULL, NULL);
  b->src_mem = device_copy (&b->src);
  b->dst_mem = device_copy (&b->dst);
}

void
blob_pair_clear (BlobPair * b)
{
  if (b->src_mem)
    clReleaseMemObject (b->src_mem);
  if (b->dst_mem)
    clReleaseMemObject (b->dst_mem);
  free (b->src.bytes);
  free (b->dst.bytes);
}

void
check_frame_pairings (const char *layout, const ClfFrameFormat * format,
    const ClfParams * params)
{
  ClfPlan *plan = plan_for (layout, format);
  if (!plan)
    return;

  char what[200], pairing[160];
  ClfHostFrame in, want;
  BlobPair b;
  test_frame_init (&in, format, true);
  test_frame_init (&want, format, false);
  clf_ref_filter_frame (params, format, &in, &want);
  device_blobs_init (&b, format, &in);
  describe (pairing, sizeof pairing, layout, format, params);

  /* Each destination starts as canaries, so stale output cannot pass. */
  const struct
  {
    const char *name;
    bool from_device, to_device;
    uint32_t copies;
  } cases[] = {
    {"device->device", true, true, 0},
    {"device->host", true, false, 1},
    {"host->device", false, true, 1},
  };
  for (size_t c = 0; c < N_OF (cases) && b.src_mem; c++) {
    Blob out;
    blob_like (&out, &b.dst);
    cl_mem out_mem = cases[c].to_device ? device_copy (&out) : NULL;
    ClfFrame from = frame_of (&b.src, cases[c].from_device ? b.src_mem : NULL);
    ClfFrame to = frame_of (&out, out_mem);
    snprintf (what, sizeof what, "%s %s", pairing, cases[c].name);
    process_and_check (plan, params, format, &from, &to, cases[c].copies, what);
    if (out_mem) {
      read_back (out_mem, &out);
      clReleaseMemObject (out_mem);
    }
    check_blob (format, &out, &want, what);
    free (out.bytes);
  }

  /* Planes of one frame in different buffers: each plane its own. */
  if (format->n_planes > 1 && b.src_mem && b.dst_mem) {
    ClfFrame from = frame_of (&b.src, b.src_mem);
    ClfFrame to = frame_of (&b.dst, b.dst_mem);
    from.mem[1] = NULL;
    from.data[1] = b.src.bytes + b.src.frame.offset[1];
    from.size[1] = b.src.size - b.src.frame.offset[1];
    snprintf (what, sizeof what, "%s one plane from host", pairing);
    process_and_check (plan, params, format, &from, &to, 1, what);
    read_back (b.dst_mem, &b.dst);
    check_blob (format, &b.dst, &want, what);
  }

  blob_pair_clear (&b);
  test_frame_clear (&in);
  test_frame_clear (&want);
  clf_plan_free (plan);
}

void
host_blobs_init (BlobPair * h, const ClfFrameFormat * format,
    const ClfHostFrame * in, bool wrap, GError ** err)
{
  GError *dst_err = NULL;
  blob_init (&h->src, format, in, aligned_alloc (4096, 1 << 20));
  blob_init (&h->dst, format, NULL, aligned_alloc (4096, 1 << 20));
  h->src_mem = wrap ? clf_engine_wrap_host (engine, h->src.bytes,
      h->src.size, err) : NULL;
  h->dst_mem = wrap ? clf_engine_wrap_host (engine, h->dst.bytes,
      h->dst.size, &dst_err) : NULL;
  if (dst_err && err && !*err)
    g_propagate_error (err, dst_err);
  else
    g_clear_error (&dst_err);
  /* frame_of keeps these: the plan hands wrapped planes back. */
  for (uint32_t i = 0; i < CLF_MAX_PLANES; i++) {
    h->src.frame.wrapped[i] = h->src_mem != NULL;
    h->dst.frame.wrapped[i] = h->dst_mem != NULL;
  }
}

int64_t
random_in (int64_t lo, int64_t hi)
{
  return lo + (int64_t) (next_random () % (uint64_t) (hi - lo + 1));
}

void
fail_call (const char *spec)
{
  static unsigned tag;
  char tagged[128];
  if (!spec) {
    unsetenv ("CLF_TEST_FAIL_CALL");
    return;
  }
  snprintf (tagged, sizeof tagged, "%s@%u", spec, ++tag);
  setenv ("CLF_TEST_FAIL_CALL", tagged, 1);
}
