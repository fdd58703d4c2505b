/* Engine tests, group faults (test-engine faults): injected faults (the
 * test layer: tests/layer/). */
#include "engine-common.h"

/* ---- injected faults (the test layer: tests/layer/) ------------------- */

/* An I420 frame (set by test_faults). */
static ClfFrameFormat fault_format;

/* One frame from host memory to host memory (uploads, kernels, downloads,
 * a wait, the profiling), or between buffers wrapping host memory (map
 * and unmap); checked against `want` when it succeeds. */
static bool
fault_frame (ClfPlan * plan, const ClfParams * params, Blob * src,
    Blob * dst, cl_mem src_mem, cl_mem dst_mem, const ClfHostFrame * want,
    GError ** err, const char *what)
{
  ClfFrameStats stats;
  memset (dst->bytes, CANARY, dst->size);
  ClfFrame from = frame_of (src, src_mem), to = frame_of (dst, dst_mem);
  if (!clf_plan_process (plan, params, &from, &to, &stats, err))
    return false;
  check_blob (&fault_format, dst, want, what);
  return true;
}

/* The Nth call of `call` fails: the frame that makes it reports the call
 * and CL_OUT_OF_RESOURCES, the frames before it are exact, and so is the
 * next frame once the fault is gone (nothing left half-done). */
static void
check_fault (const char *call, unsigned nth, bool wrapped)
{
  char spec[96], what[160];
  snprintf (spec, sizeof spec, "%s:%u", call, nth);
  snprintf (what, sizeof what, "fault %s (%s frames)", spec,
      wrapped ? "wrapped" : "host");
  /* A radius past the GPUs' one-pass tiles, so that both kernel families
   * make a buffer of sums (the third clCreateBuffer of a frame). */
  ClfParams params = { CLF_MODE_SLIDING, CLF_TILES_MAX_RADIUS + 1,
    CLF_BORDER_MIRROR
  };
  ClfHostFrame in, want;
  test_frame_init (&in, &fault_format, true);
  test_frame_init (&want, &fault_format, false);
  clf_ref_filter_frame (&params, &fault_format, &in, &want);
  GError *err = NULL;
  BlobPair h;
  host_blobs_init (&h, &fault_format, &in, wrapped, &err);
  CHECK (!err, "%s: wrap: %s", what, message_of (err));
  g_clear_error (&err);
  ClfPlan *plan = plan_for (what, &fault_format);

  fail_call (spec);
  unsigned frame = 0;
  bool failed = false;
  for (; plan && frame < 8 && !failed; frame++)
    failed = !fault_frame (plan, &params, &h.src, &h.dst, h.src_mem,
        h.dst_mem, &want, &err, what);
  fail_call (NULL);

  CHECK (failed, "%s: no frame failed in %u", what, frame);
  if (failed) {
    CHECK (g_error_matches (err, CLF_ERROR, CLF_ERROR_OPENCL)
        && clf_error_get_cl_status (err) == CL_OUT_OF_RESOURCES
        && strstr (err->message, call)
        && strstr (err->message, "CL_OUT_OF_RESOURCES"),
        "%s: frame %u failed with \"%s\"", what, frame, message_of (err));
    g_clear_error (&err);
    CHECK (fault_frame (plan, &params, &h.src, &h.dst, h.src_mem,
            h.dst_mem, &want, &err, what), "%s: the frame after the fault "
        "failed: %s", what, message_of (err));
  }
  g_clear_error (&err);
  clf_plan_free (plan);
  blob_pair_clear (&h);
  test_frame_clear (&in);
  test_frame_clear (&want);
}

/* Source that does not compile: the plan's kernels are refused with the
 * build log, nothing goes into the binary cache, and the next plan
 * builds. */
static void
check_bad_source (void)
{
  static const char injected[] = "#error clfilter-injected-build-error\n";
  const ClfParams params = { CLF_MODE_SLIDING, 2, CLF_BORDER_CLAMP };
  GError *err = NULL;
  ClfEngine *fresh = clf_engine_new ("auto", &err);
  CHECK (fresh, "clf_engine_new: %s", message_of (err));
  if (!fresh)
    return;
  setenv ("CLF_TEST_BAD_SOURCE", injected, 1);
  ClfPlan *plan = clf_plan_new (fresh, &fault_format, &err);
  CHECK (plan, "the plan before its kernels: %s", message_of (err));
  bool built = plan && clf_plan_prepare (plan, &params, &err);
  unsetenv ("CLF_TEST_BAD_SOURCE");
  CHECK (!built && g_error_matches (err, CLF_ERROR, CLF_ERROR_BUILD)
      && clf_error_get_detail (err)
      && strstr (clf_error_get_detail (err), "clfilter-injected-build-error"),
      "bad source: %s / log: %s", built ? "built" : message_of (err),
      clf_error_get_detail (err) ? clf_error_get_detail (err) : "(none)");
  ClfCacheStats stats;
  clf_engine_cache_stats (fresh, &stats);
  CHECK (stats.stores == 0, "bad source: %u binaries cached", stats.stores);
  clf_plan_free (plan);
  g_clear_error (&err);

  plan = clf_plan_new (fresh, &fault_format, &err);
  CHECK (plan && clf_plan_prepare (plan, &params, &err), "the plan after "
      "the bad source: %s", message_of (err));
  g_clear_error (&err);
  clf_plan_free (plan);
  clf_engine_unref (fresh);
}

void
test_faults (void)
{
  static const char *const host_calls[] = {
    "clCreateBuffer", "clEnqueueWriteBufferRect", "clSetKernelArg",
    "clEnqueueNDRangeKernel", "clEnqueueReadBufferRect", "clWaitForEvents",
    "clGetEventProfilingInfo",
  };
  static const char *const wrapped_calls[] = {
    "clGetMemObjectInfo", "clEnqueueMapBuffer", "clEnqueueUnmapMemObject",
  };
  static const unsigned nths[] = { 1, 2, 3 };
  /* The faults come from the test layer: without it, nothing would
   * fail and every check below would say so. */
  const char *layers = getenv ("OPENCL_LAYERS");
  CHECK (layers && strstr (layers, "clf-test-layer"), "faults: the test "
      "layer is not loaded (OPENCL_LAYERS=%s); meson test sets it",
      layers ? layers : "");
  if (!layers || !strstr (layers, "clf-test-layer"))
    return;
  /* *INDENT-OFF* */
  fault_format = byte_planes (3, (const uint32_t[][5]) {{13, 11, 1, 1, 1},
      {7, 6, 1, 1, 0}, {7, 6, 1, 1, 0}});
  /* *INDENT-ON* */
  for (size_t n = 0; n < N_OF (nths); n++) {
    for (size_t c = 0; c < N_OF (host_calls); c++)
      check_fault (host_calls[c], nths[n], false);
    /* Only a device that shares host memory wraps it. */
    for (size_t c = 0; c < N_OF (wrapped_calls)
        && clf_engine_host_unified (engine); c++)
      check_fault (wrapped_calls[c], nths[n], true);
  }
  /* A fault after four good frames: one wait per frame. */
  check_fault ("clWaitForEvents", 5, false);
  check_bad_source ();
}
