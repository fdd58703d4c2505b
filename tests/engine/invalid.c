/* Engine tests, group invalid (test-engine invalid): invalid formats,
 * parameters and frames, refused with an error. */
#include "engine-common.h"

/* A 16-bit gray component, to be spoiled. */
static ClfComponent
gray16 (void)
{
  /* *INDENT-OFF* */
  return (ClfComponent) {
  .plane = 0,.offset = 0,.pstride = 2,.width = 8,.height = 8,.depth = 16,
        .role = CLF_COMPONENT_SHARPENED};
  /* *INDENT-ON* */
}

/* Component descriptions the kernels cannot take, refused by the check
 * and by clf_plan_new with CLF_ERROR_INVALID. */
static void
check_invalid_formats (void)
{
  struct
  {
    const char *what;
    ClfFrameFormat f;
  } cases[] = {
    {"5 containers a pixel", clf_ref_byte_plane (8, 8, 5, 1, 1)},
    {"depth 0", {1, 1, {gray16 ()}}},
    {"depth 17", {1, 1, {gray16 ()}}},
    {"depth + shift 17", {1, 1, {gray16 ()}}},
    {"a 2-byte sample at an odd offset", {1, 1, {gray16 ()}}},
    {"a 2-byte sample past its pixel", {1, 1, {gray16 ()}}},
    {"RGB16's bit fields in one word", {1, 3, {gray16 (), gray16 (),
                gray16 ()}}},
    {"a plane with no component", {2, 1, {gray16 ()}}},
    {"one pixel, two depths", {1, 2, {gray16 (), gray16 ()}}},
    {"a component in no plane", {1, 1, {gray16 ()}}},
    {"planes of one row count apart", {1, 2, {gray16 (), gray16 ()}}},
    {"no component", {1, 0}},
  };
  cases[1].f.components[0].depth = 0;
  cases[2].f.components[0].depth = 17;
  cases[3].f.components[0].shift = 7;
  cases[3].f.components[0].depth = 10;
  cases[4].f.components[0].offset = 1;
  cases[4].f.components[0].pstride = 4;
  cases[5].f.components[0].offset = 2;
  for (int c = 0; c < 3; c++) {
    cases[6].f.components[c].depth = c == 1 ? 6 : 5;
    cases[6].f.components[c].shift = c == 0 ? 11 : c == 1 ? 5 : 0;
  }
  cases[8].f.components[1].offset = 2;
  cases[8].f.components[1].pstride = 4;
  cases[8].f.components[0].pstride = 4;
  cases[8].f.components[1].depth = 10;
  cases[9].f.components[0].plane = 1;
  cases[10].f.components[1].offset = 2;
  cases[10].f.components[1].pstride = 4;
  cases[10].f.components[0].pstride = 4;
  cases[10].f.components[1].height = 4;
  for (size_t c = 0; c < N_OF (cases); c++) {
    GError *err = NULL;
    ClfPlan *plan;
    CHECK (!clf_frame_format_check (&cases[c].f, &err)
        && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID),
        "%s: accepted by the check", cases[c].what);
    g_clear_error (&err);
    CHECK (!(plan = clf_plan_new (engine, &cases[c].f, &err))
        && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID), "%s: planned",
        cases[c].what);
    clf_plan_free (plan);
    g_clear_error (&err);
  }
  /* The same layouts put right are taken. */
  ClfFrameFormat good = { 1, 2, {gray16 (), gray16 ()} };
  good.components[0].pstride = good.components[1].pstride = 4;
  good.components[1].offset = 2;
  GError *err = NULL;
  CHECK (clf_frame_format_check (&good, &err), "two 16-bit samples a pixel: "
      "%s", message_of (err));
  g_clear_error (&err);
}

void
test_invalid (void)
{
  GError *err = NULL;
  check_invalid_formats ();
  ClfFrameFormat bad = one_plane (0, 8, 1, 1, 1);
  CHECK (!clf_plan_new (engine, &bad, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID),
      "width 0 accepted");
  g_clear_error (&err);

  /* 1 GiB of GRAY8 (the size of RGBA 16384x16384): too large for the
   * blurs' sums (4 GiB), not for laplace where the device holds such a
   * buffer.  (One byte a pixel: the program the other cases use, which
   * matters under valgrind.) */
  cl_ulong max_alloc = 0;
  clGetDeviceInfo (clf_engine_device (engine), CL_DEVICE_MAX_MEM_ALLOC_SIZE,
      sizeof max_alloc, &max_alloc, NULL);
  ClfFrameFormat huge = one_plane (32768, 32768, 1, 1, 1);
  ClfPlan *big = clf_plan_new (engine, &huge, &err);
  if (max_alloc >= (cl_ulong) 32768 * 32768) {
    CHECK (big, "GRAY8 32768x32768 refused for laplace too: %s",
        message_of (err));
    CHECK (big && clf_plan_supports (big, CLF_MODE_LAPLACE, &err),
        "laplace refused: %s", message_of (err));
    CHECK (big && !clf_plan_supports (big, CLF_MODE_SLIDING, &err)
        && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID)
        && strstr (err->message, "too large to blur")
        && strstr (err->message, "laplace works"),
        "the blur's refusal: %s", message_of (err));
  } else {
    CHECK (!big && strstr (err->message, "allows at most"), "a %llu-byte "
        "frame on a device that allocates %llu: %s",
        (unsigned long long) 32768 * 32768,
        (unsigned long long) max_alloc, message_of (err));
  }
  g_clear_error (&err);
  clf_plan_free (big);

  ClfFrameFormat f = one_plane (8, 8, 1, 1, 1);
  ClfPlan *plan = clf_plan_new (engine, &f, &err);
  CHECK (plan, "8x8 plan: %s", message_of (err));
  g_clear_error (&err);
  ClfHostFrame in, out;
  test_frame_init (&in, &f, true);
  test_frame_init (&out, &f, false);
  ClfParams params = { CLF_MODE_SLIDING, CLF_MAX_RADIUS + 1,
    CLF_BORDER_CLAMP
  };
  ClfFrameStats stats;
  CHECK (!clf_plan_process_host (plan, &params, &in, &out, &stats, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID), "radius 1024");
  g_clear_error (&err);
  params.radius = 1;
  in.stride[0] = 7;
  CHECK (!clf_plan_process_host (plan, &params, &in, &out, &stats, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME), "short stride");
  g_clear_error (&err);
  /* A host plane whose last row would run past the memory it was given,
   * and strides whose products would wrap: refused before any copy. */
  in.stride[0] = out.stride[0];
  in.size[0] = in.stride[0] * 7 + 7;
  CHECK (!clf_plan_process_host (plan, &params, &in, &out, &stats, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME), "short host plane");
  g_clear_error (&err);
  in.size[0] = SIZE_MAX;
  in.stride[0] = (SIZE_MAX / 7) + 1;
  CHECK (!clf_plan_process_host (plan, &params, &in, &out, &stats, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME), "wrapping stride");
  g_clear_error (&err);
  in.stride[0] = (size_t) -64;
  CHECK (!clf_plan_process_host (plan, &params, &in, &out, &stats, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME), "negative stride");
  g_clear_error (&err);
  test_frame_clear (&in);
  test_frame_clear (&out);
  clf_plan_free (plan);
}
