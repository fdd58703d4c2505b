/* Engine tests, group frames (test-engine frames): frames in device buffers
 * and wrapped host memory, frames in flight, builds started early. */
#include "engine-common.h"

/* ---- frames in device buffers and wrapped host memory ---------------- */

/* Host memory wrapped in device buffers: no copy where the device shares
 * host memory and the pointer is aligned; refused otherwise. */
static void
check_wrapped_host (const ClfFrameFormat * format, const ClfParams * params)
{
  GError *err = NULL;
  ClfPlan *plan = plan_for ("wrapped", format);
  if (!plan)
    return;

  ClfHostFrame in, want;
  BlobPair h;
  test_frame_init (&in, format, true);
  test_frame_init (&want, format, false);
  clf_ref_filter_frame (params, format, &in, &want);
  host_blobs_init (&h, format, &in, true, &err);
  CHECK (!err, "wrap: %s", message_of (err));
  g_clear_error (&err);
  CHECK (!h.src_mem == !clf_engine_host_unified (engine), "an aligned "
      "pointer was %swrapped on a device that is %shost-unified",
      h.src_mem ? "" : "not ", clf_engine_host_unified (engine) ? "" : "not ");
  if (h.src_mem && h.dst_mem) {
    ClfFrame from = frame_of (&h.src, h.src_mem);
    ClfFrame to = frame_of (&h.dst, h.dst_mem);
    process_and_check (plan, params, format, &from, &to, 0, "wrapped host");
    /* The result is in the host memory itself, nothing read back. */
    check_blob (format, &h.dst, &want, "wrapped host");
  }

  /* One byte past the aligned storage. */
  cl_mem unaligned = clf_engine_wrap_host (engine, h.src.bytes + 1, 4096,
      &err);
  CHECK (!unaligned && !err, "an unaligned pointer was wrapped");
  g_clear_error (&err);
  if (unaligned)
    clReleaseMemObject (unaligned);

  blob_pair_clear (&h);
  test_frame_clear (&in);
  test_frame_clear (&want);
  clf_plan_free (plan);
}

/* A plane that does not fit its device buffer is refused. */
static void
check_plane_outside_buffer (void)
{
  GError *err = NULL;
  ClfFrameFormat f = one_plane (16, 4, 1, 1, 1);
  ClfPlan *plan = clf_plan_new (engine, &f, &err);
  ClfHostFrame in;
  test_frame_init (&in, &f, true);
  Blob b;
  blob_init (&b, &f, &in, NULL);
  cl_mem mem = device_copy (&b);
  ClfFrame frame = frame_of (&b, mem);
  frame.offset[0] = b.size - 16;        /* the last row would run off */
  ClfParams params = { CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP };
  ClfFrameStats stats;
  CHECK (plan && !clf_plan_process (plan, &params, &frame, &frame, &stats,
          &err) && g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME),
      "a plane beyond its buffer was accepted");
  g_clear_error (&err);
  if (mem)
    clReleaseMemObject (mem);
  free (b.bytes);
  test_frame_clear (&in);
  clf_plan_free (plan);
}

/* Plane `plane` of `b`'s frame one byte off its 2-byte samples: at an odd
 * offset, or with an odd stride. */
static Blob
misplaced (const Blob * b, uint32_t plane, bool odd_stride)
{
  Blob m = *b;                  /* the same bytes */
  m.frame.offset[plane] += odd_stride ? 0 : 1;
  m.frame.stride[plane] += odd_stride ? 1 : 0;
  return m;
}

/* 2-byte samples in a device buffer must lie on their alignment: an odd
 * offset or stride of a plane (the last, so the planes before it could
 * have been filtered), in the source or the destination buffer, is refused
 * for that reason before anything is enqueued: the destination keeps its
 * bytes.  Host planes may lie anywhere: the same odd places in host memory
 * are filtered. */
static void
check_odd_sample_placement (void)
{
  const char *names[16];
  ClfFrameFormat f[16];
  format_families (16, 4, names, f);
  /* i420-10: one program of 10-bit samples (memcheck runs this group). */
  const ClfFrameFormat *format = &f[1];
  const uint32_t last = format->n_planes - 1;
  GError *err = NULL;
  ClfPlan *plan = plan_for (names[1], format);
  ClfHostFrame in;
  test_frame_init (&in, format, true);
  BlobPair b;
  device_blobs_init (&b, format, &in);
  ClfParams params = { CLF_MODE_SLIDING, 1, CLF_BORDER_CLAMP };
  ClfFrameStats stats;
  for (int in_dst = 0; plan && b.src_mem && b.dst_mem && in_dst < 2; in_dst++)
    for (int odd_stride = 0; odd_stride < 2; odd_stride++) {
      char what[120];
      snprintf (what, sizeof what, "10-bit samples at an odd %s of the %s",
          odd_stride ? "stride" : "offset", in_dst ? "destination" : "source");
      Blob src = in_dst ? b.src : misplaced (&b.src, last, odd_stride);
      Blob dst = in_dst ? misplaced (&b.dst, last, odd_stride) : b.dst;
      ClfFrame from = frame_of (&src, b.src_mem);
      ClfFrame to = frame_of (&dst, b.dst_mem);
      CHECK (!clf_plan_process (plan, &params, &from, &to, &stats, &err)
          && g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME)
          && strstr (err->message,
              "multiples of 2"), "%s in a device buffer: %s", what,
          err ? err->message : "accepted");
      g_clear_error (&err);
      Blob got;
      blob_like (&got, &b.dst);
      read_back (b.dst_mem, &got);
      CHECK (!memcmp (got.bytes, b.dst.bytes, got.size), "%s: the refused "
          "frame wrote its destination", what);
      free (got.bytes);

      /* In host memory: filtered from and to those places. */
      Blob host = misplaced (&b.src, last, odd_stride), out;
      ClfHostFrame view = blob_planes (&host), want;
      test_frame_init (&want, format, false);
      clf_ref_filter_frame (&params, format, &view, &want);
      blob_like (&out, &host);
      from = frame_of (&host, NULL);
      to = frame_of (&out, NULL);
      strcat (what, " in host memory");
      process_and_check (plan, &params, format, &from, &to, 2, what);
      check_blob (format, &out, &want, what);
      free (out.bytes);
      test_frame_clear (&want);
    }
  blob_pair_clear (&b);
  test_frame_clear (&in);
  clf_plan_free (plan);
}

static cl_int
event_state (cl_event event)
{
  cl_int state = CL_COMPLETE;
  if (event)
    clGetEventInfo (event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state,
        &state, NULL);
  return state;
}

/* Frames in flight: two frames enqueued behind a user event held open
 * here, the second before the first is finished, run only once it
 * completes; finished in the other order, each has its statistics and the
 * reference's bytes. */
static void
check_frames_in_flight (void)
{
  const ClfFrameFormat format = one_plane (61, 37, 4, 7, 7);
  const ClfParams params[2] = {
    {CLF_MODE_SLIDING, 3, CLF_BORDER_MIRROR},
    {CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP},
  };
  ClfPlan *plan = plan_for ("rgba", &format);
  ClfHostFrame in, want[2];
  BlobPair b[2];
  ClfInFlight *frames[2] = { NULL, NULL };
  GError *err = NULL;
  cl_int status;
  cl_event gate = clCreateUserEvent (clf_engine_context (engine), &status);

  CHECK (status == CL_SUCCESS, "clCreateUserEvent: %s",
      clf_cl_status_name (status));
  test_frame_init (&in, &format, true);
  for (int f = 0; f < 2; f++) {
    test_frame_init (&want[f], &format, false);
    clf_ref_filter_frame (&params[f], &format, &in, &want[f]);
    device_blobs_init (&b[f], &format, &in);
  }
  for (int f = 0; plan && status == CL_SUCCESS && f < 2; f++) {
    ClfFrame from = frame_of (&b[f].src, b[f].src_mem);
    ClfFrame to = frame_of (&b[f].dst, b[f].dst_mem);
    frames[f] = clf_plan_enqueue (plan, &params[f], &from, &to, &gate, 1, &err);
    CHECK (frames[f] != NULL, "clf_plan_enqueue: %s", message_of (err));
    g_clear_error (&err);
  }
  if (frames[0] && frames[1]) {
    nanosleep (&(struct timespec) { 0, 50 * 1000 * 1000 }, NULL);
    for (int f = 0; f < 2; f++)
      CHECK (event_state (clf_in_flight_event (frames[f])) != CL_COMPLETE,
          "frame %d ran before the event it waits for", f);
    clSetUserEventStatus (gate, CL_COMPLETE);
  }
  for (int f = 2; f-- > 0;) {
    ClfFrameStats stats;
    if (!frames[f])
      continue;
    cl_event done = clf_in_flight_event (frames[f]);
    clRetainEvent (done);
    CHECK (clf_plan_finish (plan, frames[f], &stats, &err)
        && stats.kernel_ns > 0 && stats.copies == 0, "clf_plan_finish: %s",
        message_of (err));
    g_clear_error (&err);
    CHECK (event_state (done) == CL_COMPLETE, "frame %d's event did not "
        "complete with it", f);
    clReleaseEvent (done);
    Blob got;
    blob_like (&got, &b[f].dst);
    read_back (b[f].dst_mem, &got);
    check_blob (&format, &got, &want[f], f ? "rgba laplace in flight" :
        "rgba sliding in flight");
    free (got.bytes);
  }
  if (status == CL_SUCCESS)
    clReleaseEvent (gate);
  for (int f = 0; f < 2; f++) {
    blob_pair_clear (&b[f]);
    test_frame_clear (&want[f]);
  }
  test_frame_clear (&in);
  clf_plan_free (plan);
}

/* One plan, frame after frame with other parameters and other buffers
 * (their own offsets and strides): each frame must give the reference's
 * bytes, whatever the frame before set (kernels keep their arguments
 * between launches, and the plan sets only those that changed).  I420's
 * three planes share one kernel set, so its arguments also change within
 * a frame. */
static void
check_changing_frames (void)
{
  const ClfParams params[] = {
    {CLF_MODE_SLIDING, 2, CLF_BORDER_MIRROR},
    {CLF_MODE_SLIDING, 5, CLF_BORDER_MIRROR},
    {CLF_MODE_SLIDING, 5, CLF_BORDER_CLAMP},
    {CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP},
    {CLF_MODE_SEPARABLE, 1, CLF_BORDER_CLAMP},
    {CLF_MODE_SLIDING, 2, CLF_BORDER_MIRROR},
    {CLF_MODE_BOX, 3, CLF_BORDER_MIRROR},
    {CLF_MODE_SLIDING, 0, CLF_BORDER_CLAMP},
    {CLF_MODE_LAPLACE, 0, CLF_BORDER_MIRROR},
  };
  /* *INDENT-OFF* */
  const ClfFrameFormat i420 = byte_planes (3, (const uint32_t[][5]) {
        {29, 17, 1, 1, 1}, {15, 9, 1, 1, 0}, {15, 9, 1, 1, 0}});
  /* *INDENT-ON* */
  ClfPlan *plan = plan_for ("i420", &i420);
  BlobPair b[3];
  ClfHostFrame in[3];

  for (int k = 0; k < 3; k++) {
    test_frame_init (&in[k], &i420, true);
    device_blobs_init (&b[k], &i420, &in[k]);
  }
  for (size_t f = 0; plan && f < N_OF (params); f++) {
    /* Each frame's source and destination come from other pairs. */
    const BlobPair *from = &b[f % 3], *to = &b[(f + 1) % 3];
    ClfHostFrame want;
    char what[96];
    test_frame_init (&want, &i420, false);
    clf_ref_filter_frame (&params[f], &i420, &in[f % 3], &want);
    ClfFrame src = frame_of (&from->src, from->src_mem);
    ClfFrame dst = frame_of (&to->dst, to->dst_mem);
    snprintf (what, sizeof what, "frame %zu of changing frames (%s r=%u)", f,
        clf_mode_name (params[f].mode), params[f].radius);
    process_and_check (plan, &params[f], &i420, &src, &dst, 0, what);
    Blob got;
    blob_like (&got, &to->dst);
    read_back (to->dst_mem, &got);
    check_blob (&i420, &got, &want, what);
    free (got.bytes);
    test_frame_clear (&want);
  }
  for (int k = 0; k < 3; k++) {
    blob_pair_clear (&b[k]);
    test_frame_clear (&in[k]);
  }
  clf_plan_free (plan);
}

/* The threads of this process, and how many of them are an engine's
 * builds (named "clf-build" by the thread itself, once it runs). */
static unsigned
count_threads (unsigned *builds)
{
  unsigned n = 0;
  *builds = 0;
  DIR *d = opendir ("/proc/self/task");
  for (struct dirent * de; d && (de = readdir (d));) {
    char path[300], name[32] = "";
    if (de->d_name[0] == '.')
      continue;
    n++;
    snprintf (path, sizeof path, "/proc/self/task/%s/comm", de->d_name);
    FILE *f = fopen (path, "r");
    if (f && fgets (name, sizeof name, f)
        && strncmp (name, "clf-build", 9) == 0)
      (*builds)++;
    if (f)
      fclose (f);
  }
  if (d)
    closedir (d);
  return n;
}

/* Longer than a build from the cache takes under valgrind. */
#define BUILDS_END_S 600

/* Waits until the builds started since the process had `threads`
 * threads have ended: no thread named as a build, and no more threads
 * than then (a build's thread is named only once it runs). */
static bool
wait_builds_ended (unsigned threads)
{
  unsigned builds = 0;
  for (int i = 0; i < BUILDS_END_S * 100; i++) {
    if (count_threads (&builds) <= threads && builds == 0)
      return true;
    g_usleep (10 * 1000);
  }
  return false;
}

/* Waits until the engine's cache stats count `n` programs loaded or
 * stored, into `stats`. */
static bool
wait_programs_built (ClfEngine * e, unsigned n, ClfCacheStats * stats)
{
  for (int i = 0; i < BUILDS_END_S * 100; i++) {
    clf_engine_cache_stats (e, stats);
    if (stats->loads + stats->stores >= n)
      return true;
    g_usleep (10 * 1000);
  }
  return false;
}

/* Builds started with nobody waiting (clf_plan_start_builds): they end
 * by themselves and the engine keeps them, so that a plan's prepare takes
 * them without building again; and an engine let go while they run is
 * freed by the last of them (valgrind and LeakSanitizer see that every
 * thread is joined or let go, and every program released). */
static void
check_started_builds (void)
{
  /* *INDENT-OFF* */
  const ClfFrameFormat nv12 = byte_planes (2, (const uint32_t[][5]) {
        {97, 61, 1, 1, 1}, {49, 31, 2, 3, 0}});
  /* *INDENT-ON* */
  const ClfParams params = { CLF_MODE_SLIDING, 2, CLF_BORDER_MIRROR };
  const ClfParams invalid = { CLF_MODE_SLIDING, CLF_MAX_RADIUS + 1 };
  ClfCacheStats built, prepared;
  GError *err = NULL;

  ClfEngine *e = clf_engine_new ("auto", &err);
  ClfPlan *plan = e ? clf_plan_new (e, &nv12, &err) : NULL;
  CHECK (plan, "started builds: no plan: %s", message_of (err));
  if (!plan) {
    g_clear_error (&err);
    clf_engine_unref (e);
    return;
  }
  CHECK (!clf_plan_start_builds (plan, &invalid, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID),
      "started builds: radius %u taken", invalid.radius);
  g_clear_error (&err);
  CHECK (clf_plan_start_builds (plan, &params, &err), "started builds: %s",
      message_of (err));
  clf_plan_free (plan);
  CHECK (wait_programs_built (e, 2, &built), "started builds: not built "
      "after %d s", BUILDS_END_S);
  /* NV12: a program for luma, one for the interleaved chroma. */
  CHECK (built.loads + built.stores == 2, "started builds: %u loaded and %u "
      "stored, want 2 in all", built.loads, built.stores);
  plan = clf_plan_new (e, &nv12, &err);
  CHECK (plan && clf_plan_prepare (plan, &params, &err), "the prepare after "
      "the started builds: %s", message_of (err));
  g_clear_error (&err);
  clf_engine_cache_stats (e, &prepared);
  CHECK (prepared.loads == built.loads && prepared.stores == built.stores,
      "the prepare built again what was started");
  clf_plan_free (plan);
  clf_engine_unref (e);

  e = clf_engine_new ("auto", &err);
  plan = e ? clf_plan_new (e, &nv12, &err) : NULL;
  unsigned builds, threads = count_threads (&builds);
  CHECK (plan && clf_plan_start_builds (plan, &params, &err), "builds of "
      "an engine let go: %s", message_of (err));
  g_clear_error (&err);
  clf_plan_free (plan);
  clf_engine_unref (e);
  CHECK (wait_builds_ended (threads), "builds of an engine let go: still "
      "running after %d s", BUILDS_END_S);
}

void
test_frames (void)
{
  const ClfParams params[] = {
    {CLF_MODE_SLIDING, 2, CLF_BORDER_MIRROR},
    {CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP},
  };
  /* *INDENT-OFF* */
  const ClfFrameFormat i420 = byte_planes (3, (const uint32_t[][5]) {
        {13, 11, 1, 1, 1}, {7, 6, 1, 1, 0}, {7, 6, 1, 1, 0}});
  /* *INDENT-ON* */
  /* *INDENT-OFF* */
  const ClfFrameFormat nv12 = byte_planes (2, (const uint32_t[][5]) {
        {97, 61, 1, 1, 1}, {49, 31, 2, 3, 0}});
  /* *INDENT-ON* */
  const ClfFrameFormat rgb = one_plane (7, 1, 3, 7, 7);
  const ClfFrameFormat tiny = one_plane (1, 1, 4, 7, 7);
  for (size_t p = 0; p < N_OF (params); p++) {
    check_frame_pairings ("i420", &i420, &params[p]);
    check_frame_pairings ("nv12", &nv12, &params[p]);
    check_frame_pairings ("rgb", &rgb, &params[p]);
    check_frame_pairings ("rgba", &tiny, &params[p]);
    check_wrapped_host (&nv12, &params[p]);
  }
  check_plane_outside_buffer ();
  check_odd_sample_placement ();
  check_frames_in_flight ();
  check_changing_frames ();
  check_started_builds ();
}
