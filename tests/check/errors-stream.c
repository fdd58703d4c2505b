/* GStreamer
 * gst-check tests of clfilter's errors mid-stream: an OpenCL call that
 * fails while frames flow gives an element error naming the call and the
 * CL error, posted before GST_FLOW_ERROR returns; no frame comes out
 * filtered wrong, and the element works again after a restart.  Part of
 * the `errors` suite (errors.c).
 */
#include "config.h"

#include "errors.h"
#include "gstclmemory.h"

/* An OpenCL call that fails mid-stream, how frames reach it, whether
 * zero copy is off (frames copied in and out by the engine), and whether
 * the call is made only where the device shares host memory (a wrap of
 * each frame's host planes: a discrete device stages them in buffers made
 * once).  The ways in and out (gst/cl/gstcldeviceframe.c): a wrap of host
 * memory, and the engine's copies to and from host memory. */
static const struct
{
  const gchar *fault;
  InputKind input;
  gboolean copied;
  gboolean wraps_host;
} stream_faults[] = {
  {"clEnqueueNDRangeKernel:20", INPUT_FROM_POOL},
  {"clWaitForEvents:3", INPUT_FROM_POOL},
  {"clGetEventProfilingInfo:30", INPUT_FROM_POOL},
  {"clSetKernelArg:200", INPUT_PADDED},
  {"clEnqueueWriteBufferRect:5", INPUT_UNALIGNED},
  {"clCreateBuffer:8", INPUT_PADDED, FALSE, TRUE},
  {"clEnqueueReadBufferRect:5", INPUT_PADDED, TRUE},
};

/* The next frame out within 10 s, or NULL once an error was posted (in
 * `*error`, popped). */
static GstBuffer *
pull_or_error (GstHarness * h, GstBus * bus, GstMessage ** error)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  GstBuffer *out;

  while (!(out = gst_harness_try_pull (h)) && !*error
      && g_get_monotonic_time () < deadline) {
    *error = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (!*error)
      g_usleep (1000);
  }
  return out;
}

/* Pushes `in` (taken), frame `n` of a run with `fault` set and
 * `in_flight` frames in flight: what comes out is exact (counted in
 * `*out_frames`, unless NULL), else the push fails or an error is posted
 * (`*posted`, popped); returns the push's flow. */
static GstFlowReturn
push_exact_or_failing (GstHarness * h, GstBus * bus, const FormatCase * fc,
    const GstVideoInfo * info, const ClfParams * params, GstBuffer * in,
    const gchar * fault, guint n, guint in_flight, GstMessage ** posted,
    guint * out_frames)
{
  GstFlowReturn ret = gst_harness_push (h, gst_buffer_ref (in));
  GstBuffer *out = NULL;

  if (ret == GST_FLOW_OK)
    out = pull_or_error (h, bus, posted);
  fail_unless (ret != GST_FLOW_OK || out || *posted, "%s: frame %u neither "
      "came out nor failed", fault, n);
  if (out) {
    gchar *what = g_strdup_printf ("%s, frame %u of frames-in-flight=%u",
        fault, n, in_flight);

    check_output (fc, info, params, what, in, out);
    if (out_frames)
      (*out_frames)++;
    g_free (what);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (in);
  return ret;
}

/* After a failed frame: nothing is left to pull, and the error (`posted`,
 * popped while the frames went in, else the first on `bus`) is a resource
 * error naming `call` and the CL error.  Returns its debug string. */
static gchar *
expect_call_error (GstHarness * h, GstBus * bus, GstMessage * posted,
    const gchar * fault, const gchar * call)
{
  GError *error = NULL;
  gchar *debug = NULL;

  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  if (posted)
    gst_bus_post (bus, posted);
  pop_error (bus, &error, &debug);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_FAILED), "%s", error->message);
  fail_unless (strstr (error->message, call) != NULL
      && strstr (error->message, "CL_OUT_OF_RESOURCES") != NULL,
      "%s: the error does not name the call and the CL error: %s", fault,
      error->message);
  g_error_free (error);
  return debug;
}

/* Stopped and started again (the fault gone), it filters a frame of
 * `kind` exactly, at the caps of `info`. */
static void
restart_and_check (GstHarness * h, const FormatCase * fc,
    GstVideoInfo * info, const ClfParams * params, InputKind kind)
{
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  gst_harness_play (h);
  fail_unless (gst_harness_push_event (h,
          gst_event_new_stream_start ("restarted")));
  set_caps (h, fc->name, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), info);
  push_and_check (h, fc, info, params, kind);
}

/* A bus sync handler that takes its time over errors, as an application's
 * may: the message reaches the bus's queue only after it returns. */
static GstBusSyncReply
slow_error_handler (GstBus * bus, GstMessage * message, gpointer data)
{
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR)
    g_usleep (200 * 1000);
  return GST_BUS_PASS;
}

/* The Nth call fails: the frames before it come out exact, the one that
 * makes it gives an element error naming the call and the CL error, and
 * GST_FLOW_ERROR (with frames-in-flight 1 at its own push, with 3 at the
 * next: the frame fails on the element's threads), never before the
 * error is on the bus, however long the bus takes to accept it; the
 * element stops cleanly and works when started again.  Each fault with 1,
 * then with 3. */
GST_START_TEST (test_opencl_error_mid_stream)
{
  const guint n_faults = G_N_ELEMENTS (stream_faults);
  const guint in_flight = (guint) __i__ < n_faults ? 1 : 3;
  const gchar *fault = stream_faults[(guint) __i__ % n_faults].fault;
  const InputKind input = stream_faults[(guint) __i__ % n_faults].input;
  const gboolean copied = stream_faults[(guint) __i__ % n_faults].copied;
  const gboolean wraps_host =
      stream_faults[(guint) __i__ % n_faults].wraps_host;
  const FormatCase *fc = format_case ("I420");
  ClfParams params = { CLF_MODE_SEPARABLE, 3, CLF_BORDER_CLAMP };
  gchar **call = g_strsplit (fault, ":", 2);
  GstFlowReturn ret = GST_FLOW_OK;
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h;
  GstMessage *posted = NULL;
  guint frames = 0;

  if (wraps_host && !device_shares_host_memory ()) {
    g_print ("%s: a discrete device makes no such call mid-stream\n", fault);
    g_strfreev (call);
    return;
  }
  g_setenv ("CLF_TEST_FAIL_CALL", fault, TRUE);
  h = harness_with_bus (!copied, &bus);
  gst_bus_set_sync_handler (bus, slow_error_handler, NULL, NULL);
  g_object_set (h->element, "mode", params.mode, "radius", params.radius,
      "frames-in-flight", in_flight, NULL);
  set_caps (h, "I420", 33, 17, &info);
  for (; frames < 20 && ret == GST_FLOW_OK; frames++)
    ret = push_exact_or_failing (h, bus, fc, &info, &params,
        input_buffer (h, fc, &info, input), fault, frames, in_flight,
        &posted, NULL);
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  fail_unless (frames > 1, "%s: the first frame failed", fault);
  g_free (expect_call_error (h, bus, posted, fault, call[0]));

  /* Stopped and started again (the fault gone), it filters again. */
  g_unsetenv ("CLF_TEST_FAIL_CALL");
  restart_and_check (h, fc, &info, &params, input);

  g_strfreev (call);
  harness_free (h, bus);
}

GST_END_TEST;

/* Frames pushed back to back with 3 in flight, and the 3rd
 * clWaitForEvents failing on the element's output thread while the bus
 * takes its time over the error: the push that returns GST_FLOW_ERROR
 * (the failed frame's own or a later one) comes back only once the error
 * is on the bus; the frames in flight behind the failed one do not come
 * out after it, nor does a later push succeed. */
GST_START_TEST (test_flow_error_after_posting)
{
  const gchar *fault = "clWaitForEvents:3";
  const FormatCase *fc = format_case ("I420");
  ClfParams params = { CLF_MODE_SEPARABLE, 3, CLF_BORDER_CLAMP };
  GstFlowReturn ret = GST_FLOW_OK;
  GstBuffer *in[20], *out;
  guint pushed = 0, n_out = 0;
  GstMessage *posted;
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h;

  g_setenv ("CLF_TEST_FAIL_CALL", fault, TRUE);
  h = harness_with_bus (TRUE, &bus);
  gst_bus_set_sync_handler (bus, slow_error_handler, NULL, NULL);
  g_object_set (h->element, "mode", params.mode, "radius", params.radius,
      "frames-in-flight", 3, NULL);
  set_caps (h, "I420", 33, 17, &info);
  for (; pushed < G_N_ELEMENTS (in) && ret == GST_FLOW_OK; pushed++) {
    in[pushed] = input_buffer (h, fc, &info, INPUT_PADDED);
    ret = gst_harness_push (h, gst_buffer_ref (in[pushed]));
  }
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  posted = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (posted != NULL, "GST_FLOW_ERROR came back before the error "
      "was on the bus");

  /* EOS ends the frames in flight: those before the failed one came out,
   * in order, and no other. */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((out = gst_harness_try_pull (h))) {
    gchar *what = g_strdup_printf ("%s, frame %u", fault, n_out);

    check_output (fc, &info, &params, what, in[n_out], out);
    gst_buffer_unref (out);
    g_free (what);
    n_out++;
  }
  fail_unless (n_out < pushed, "%u frames came out of %u pushed, one of "
      "them failed", n_out, pushed);
  g_free (expect_call_error (h, bus, posted, fault, "clWaitForEvents"));
  for (guint i = 0; i < pushed; i++)
    gst_buffer_unref (in[i]);
  g_unsetenv ("CLF_TEST_FAIL_CALL");
  harness_free (h, bus);
}

GST_END_TEST;

/* Memory as on a discrete GPU (a staging buffer beside the device's):
 * upstream writes each frame into clfilter's pool, and the upload of the
 * 3rd frame at its unmap (libgstcl-1.0's 3rd clEnqueueWriteBuffer) fails;
 * with `+`, the retry before the kernels too.  Each frame comes out filtered
 * from exactly what upstream wrote, or fails with an error naming the call
 * and the CL error: never filtered from the device's stale bytes (it was,
 * silently, when the failed upload was only logged). */
static const struct
{
  const gchar *fault;
  gboolean retry_fails;
} upload_faults[] = {
  {"clEnqueueWriteBuffer:3", FALSE},
  {"clEnqueueWriteBuffer:3+", TRUE},
};

GST_START_TEST (test_staged_upload_fails)
{
  const guint n_faults = G_N_ELEMENTS (upload_faults);
  const guint in_flight = (guint) __i__ < n_faults ? 1 : 3;
  const gchar *fault = upload_faults[(guint) __i__ % n_faults].fault;
  const gboolean retry_fails = upload_faults[(guint) __i__ % n_faults]
      .retry_fails;
  const FormatCase *fc = format_case ("I420");
  ClfParams params = { CLF_MODE_SEPARABLE, 3, CLF_BORDER_MIRROR };
  GstFlowReturn ret = GST_FLOW_OK;
  GstMessage *posted = NULL;
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h;
  gchar *debug;
  guint frames = 0, out_frames = 0;

  g_setenv ("CLF_TEST_HOST_UNIFIED", "0", TRUE);
  h = harness_with_bus (TRUE, &bus);
  g_object_set (h->element, "mode", params.mode, "radius", params.radius,
      "border", params.border, "frames-in-flight", in_flight, NULL);
  set_caps (h, "I420", 35, 19, &info);
  g_setenv ("CLF_TEST_FAIL_CALLER", "libgstcl-1.0", TRUE);
  g_setenv ("CLF_TEST_FAIL_CALL", fault, TRUE);
  for (; frames < 6 && ret == GST_FLOW_OK && !posted; frames++) {
    GstBuffer *in = input_buffer (h, fc, &info, INPUT_FROM_POOL);

    fail_if (clf_engine_host_unified (gst_cl_memory_get_engine
            (gst_buffer_peek_memory (in, 0))), "the memory is not staged");
    ret = push_exact_or_failing (h, bus, fc, &info, &params, in, fault,
        frames, in_flight, &posted, &out_frames);
  }
  g_unsetenv ("CLF_TEST_FAIL_CALL");
  g_unsetenv ("CLF_TEST_FAIL_CALLER");
  if (!retry_fails) {
    fail_unless_equals_int (out_frames, 6);
    fail_if (posted, "%s: an error after a retry that worked", fault);
    expect_no_more_errors (bus);
  } else {
    /* Frames 1 and 2 are exact; the 3rd fails, by now or at the next
     * push. */
    fail_unless_equals_int (out_frames, 2);
    if (!posted)
      fail_unless_equals_int (ret == GST_FLOW_OK ? gst_harness_push (h,
              input_buffer (h, fc, &info, INPUT_FROM_POOL)) : ret,
          GST_FLOW_ERROR);
    debug = expect_call_error (h, bus, posted, fault, "clEnqueueWriteBuffer");
    fail_unless (debug && strstr (debug, "frames-in-flight") != NULL,
        "%s: the error does not say what to do: %s", fault, debug);
    g_free (debug);
  }

  /* Stopped and started again (the fault gone), it filters again. */
  restart_and_check (h, fc, &info, &params, INPUT_FROM_POOL);
  harness_free (h, bus);
  g_unsetenv ("CLF_TEST_HOST_UNIFIED");
}

GST_END_TEST;

void
errors_stream_add_tests (TCase * tc)
{
  tcase_add_loop_test (tc, test_opencl_error_mid_stream, 0,
      2 * G_N_ELEMENTS (stream_faults));
  /* Repeated: the failing frame and the next push race. */
  tcase_add_loop_test (tc, test_flow_error_after_posting, 0, 6);
  tcase_add_loop_test (tc, test_staged_upload_fails, 0,
      2 * G_N_ELEMENTS (upload_faults));
}
