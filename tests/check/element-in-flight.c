/* GStreamer
 * The element suite (element.c): frames in flight (frames-in-flight), in a
 * harness and in pipelines, lowered, automatic, through flushing seeks and
 * passthrough.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <unistd.h>
#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/controller.h>
#include <gst/video/video.h>

#include <gst/clfilter/gstclfiltermeta.h>
#include "element.h"
#include "framecheck.h"
#include "gstclformat.h"
#include "gstclmemory.h"

/* The next frame out, waiting up to `seconds` (gst_harness_pull waits a
 * minute); NULL if none came. */
static GstBuffer *
pull_within (GstHarness * h, guint seconds)
{
  gint64 deadline = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;
  GstBuffer *out;

  while (!(out = gst_harness_try_pull (h))
      && g_get_monotonic_time () < deadline)
    g_usleep (1000);
  return out;
}

/* Checks the frame `pulled` as it leaves: in order, with its own statistics
 * and the reference's bytes. */
static void
check_frame_out (const FormatCase * fc, const GstVideoInfo * info,
    const ClfParams * params, GstBuffer ** in, guint pulled, GstBuffer * out)
{
  GstClFilterMeta *meta = gst_buffer_get_cl_filter_meta (out);

  fail_unless (meta != NULL && meta->frame == pulled);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in[pulled]));
  check_output (fc, info, params, "in flight", in[pulled], out);
  gst_buffer_unref (out);
}

/* Upstream answers the LATENCY query with 0 to 0. */
static GstPadProbeReturn
bound_upstream_latency (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    gst_query_set_latency (query, TRUE, 0, 0);
  return GST_PAD_PROBE_OK;
}

/* The element's latency over an upstream of 0 to 0: no minimum (a frame
 * waits only for the device), `max` for what it can hold. */
static void
check_flight_latency (GstHarness * h, GstClockTime max)
{
  GstPad *sink = gst_element_get_static_pad (h->element, "sink");
  GstQuery *query = gst_query_new_latency ();
  GstClockTime min_got, max_got;
  gulong probe = gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_QUERY_UPSTREAM
      | GST_PAD_PROBE_TYPE_PULL, bound_upstream_latency, NULL, NULL);

  fail_unless (gst_pad_peer_query (h->sinkpad, query));
  gst_query_parse_latency (query, NULL, &min_got, &max_got);
  fail_unless_equals_uint64 (min_got, 0);
  fail_unless_equals_uint64 (max_got, max);
  gst_pad_remove_probe (sink, probe);
  gst_query_unref (query);
  gst_object_unref (sink);
}

/* frames-in-flight=3: frames leave in order, each with its own statistics and
 * the reference's bytes, as soon as the device is done with them (a lone
 * frame leaves with no other coming in: it waited for two more before the
 * output thread), and a push returns once at most two frames are held;
 * EOS pushes the frames still in flight before it; the LATENCY query adds
 * the two frames the element can hold to the maximum only (it added them
 * to the minimum too, when frames waited for later ones); a flush drops
 * the frames in flight, also one the device has not finished. */
GST_START_TEST (test_frames_in_flight)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  const FormatCase *fc = format_case ("RGBA");
  ClfParams params = { CLF_MODE_SLIDING, 2, CLF_BORDER_MIRROR };
  GstBuffer *in[6], *gated, *out;
  ChainGate g = { NULL, 0, CL_COMPLETE };
  GstVideoInfo info;
  GstEvent *event;
  GThread *timer;
  guint pulled = 0;
  cl_int status;

  g_object_set (h->element, "frames-in-flight", 3, "mode", params.mode,
      "radius", params.radius, "border", params.border, NULL);
  set_caps (h, "RGBA", 45, 29, &info);
  check_flight_latency (h, 2 * GST_SECOND / 30);
  /* Made first: the harness's allocation query (serialized) would finish
   * the frames in flight. */
  for (guint i = 0; i < G_N_ELEMENTS (in); i++) {
    in[i] = input_buffer (h, fc, &info, i % 2 ? INPUT_FROM_POOL :
        INPUT_UNALIGNED);
    GST_BUFFER_PTS (in[i]) = i * GST_SECOND / 30;
  }
  gated = input_buffer (h, fc, &info, INPUT_FROM_POOL);

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[0])),
      GST_FLOW_OK);
  out = pull_within (h, 10);
  fail_unless (out != NULL, "a lone frame waited for later ones");
  check_frame_out (fc, &info, &params, in, pulled++, out);
  for (guint i = 1; i < G_N_ELEMENTS (in); i++) {
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
    while ((out = gst_harness_try_pull (h)))
      check_frame_out (fc, &info, &params, in, pulled++, out);
    fail_unless (pulled + 2 >= i + 1, "%u frames held after a push",
        i + 1 - pulled);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while (pulled < G_N_ELEMENTS (in))
    check_frame_out (fc, &info, &params, in, pulled++, gst_harness_pull (h));
  /* EOS follows the frames (the harness's sticky events come first). */
  while ((event = gst_harness_try_pull_event (h))
      && GST_EVENT_TYPE (event) != GST_EVENT_EOS)
    gst_event_unref (event);
  fail_unless (event != NULL, "no EOS after the frames");
  gst_event_unref (event);
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless_equals_uint64 (frames_filtered (h), G_N_ELEMENTS (in));
  for (guint i = 0; i < G_N_ELEMENTS (in); i++) {
    GstMessage *msg = pop_stats (bus);
    guint64 frame = 99;
    fail_unless (msg != NULL);
    fail_unless (gst_structure_get_uint64 (gst_message_get_structure (msg),
            "frame", &frame) && frame == i, "message %u says frame %"
        G_GUINT64_FORMAT, i, frame);
    gst_message_unref (msg);
  }

  /* A flush drops the frames in flight: nothing leaves after it.  The
   * gated frame's kernel waits for a user event opened a second later,
   * so it is still on the device when the flush comes. */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_harness_set_src_caps (h, gst_caps_from_string ("video/x-raw,"
          "format=RGBA,width=45,height=29,framerate=30/1"));
  g.gate = clCreateUserEvent (clf_engine_context (gst_cl_memory_get_engine
          (gst_buffer_peek_memory (gated, 0))), &status);
  fail_unless_equals_int (status, CL_SUCCESS);
  gst_cl_memory_device_done (gst_buffer_peek_memory (gated, 0),
      GST_MAP_WRITE, g.gate);
  timer = g_thread_new ("gate", open_gate_later, &g);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (gated)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  g_thread_join (timer);
  fail_unless (pull_within (h, 1) == NULL, "a flushed frame left");
  fail_unless_equals_uint64 (frames_filtered (h), G_N_ELEMENTS (in));

  clReleaseEvent (g.gate);
  gst_buffer_unref (gated);
  for (guint i = 0; i < G_N_ELEMENTS (in); i++)
    gst_buffer_unref (in[i]);
  harness_free (h, bus);
}

GST_END_TEST;

/* frames-in-flight left at 0 (auto) is 3 on a device with memory of its
 * own, as the LATENCY query's maximum shows, and 1 (no latency) where the
 * device works in host memory; frames leave exact either way. */
GST_START_TEST (test_frames_in_flight_auto)
{
  GstHarness *h = gst_harness_new ("clfilter");
  const FormatCase *fc = format_case ("NV12");
  ClfParams params = { CLF_MODE_SLIDING, 1, CLF_BORDER_CLAMP };
  GstVideoInfo info;
  guint limit = 99;

  g_object_get (h->element, "frames-in-flight", &limit, NULL);
  fail_unless_equals_int (limit, 0);
  g_object_set (h->element, "mode", params.mode, "radius", params.radius, NULL);
  set_caps (h, "NV12", 33, 17, &info);
  check_flight_latency (h, device_shares_host_memory ()? 0 :
      2 * GST_SECOND / 30);
  for (guint i = 0; i < 4; i++)
    push_and_check (h, fc, &info, &params, INPUT_FROM_POOL);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The first EOS or error of `pipeline`'s bus within 30 s, else NULL. */
static GstMessage *
eos_or_error_within (GstElement * pipeline)
{
  return gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      30 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
}

/* frames-in-flight=3 in pipelines, where the output thread pushes: a sink
 * that takes five buffers and then answers EOS stops the endless source
 * (the answer reaches it through the streaming thread: it played on for
 * ever without); a stop while the sink holds a frame for preroll, or while
 * frames flow, does not hang; a stream plays to its EOS with every frame
 * out. */
GST_START_TEST (test_frames_in_flight_pipeline)
{
  static const gchar *const sinks[] = {
    "fakesink num-buffers=5", "fakesink sync=true", "fakesink sync=false"
  };

  for (guint i = 0; i < G_N_ELEMENTS (sinks); i++) {
    gchar *desc = g_strdup_printf ("videotestsrc pattern=snow%s ! "
        "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1 ! "
        "clfilter name=f mode=sliding radius=3 frames-in-flight=3 ! %s",
        i == 2 ? " num-buffers=17" : "", sinks[i]);
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstElement *f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
    GstMessage *msg = NULL;
    guint64 frames = 0;

    fail_unless (pipeline != NULL, "%s", desc);
    if (i == 1) {
      /* Down from PAUSED with a frame held for preroll, then from
       * PLAYING while frames flow. */
      fail_unless_equals_int (gst_element_set_state (pipeline,
              GST_STATE_PAUSED), GST_STATE_CHANGE_ASYNC);
      fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
              30 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
      fail_unless_equals_int (gst_element_set_state (pipeline,
              GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
      fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
          != GST_STATE_CHANGE_FAILURE);
      g_usleep (G_USEC_PER_SEC / 5);
    } else {
      fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
          != GST_STATE_CHANGE_FAILURE);
      msg = eos_or_error_within (pipeline);
      fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
          "%s did not end", desc);
      gst_message_unref (msg);
    }
    fail_unless_equals_int (gst_element_set_state (pipeline,
            GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    g_object_get (f, "frames", &frames, NULL);
    if (i == 2) {
      fail_unless_equals_uint64 (frames, 17);
    } else {
      fail_unless (frames >= 5, "%s: %" G_GUINT64_FORMAT " frames", desc,
          frames);
    }
    gst_object_unref (f);
    gst_object_unref (pipeline);
    g_free (desc);
  }
}

GST_END_TEST;

/* The frames a filter's source pad passes on once a seek returned: each
 * must lie in the segment sought. */
typedef struct
{
  GMutex lock;
  GstClockTime start, stop;     /* start GST_CLOCK_TIME_NONE: anything goes */
  guint passed, stale;
  GstClockTime first_stale;
} FlushWatch;

static GstPadProbeReturn
watch_after_flush (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  FlushWatch *w = data;
  GstClockTime pts = GST_BUFFER_PTS (GST_PAD_PROBE_INFO_BUFFER (info));

  g_mutex_lock (&w->lock);
  w->passed++;
  if (GST_CLOCK_TIME_IS_VALID (w->start) && (pts < w->start
          || pts >= w->stop) && w->stale++ == 0)
    w->first_stale = pts;
  g_mutex_unlock (&w->lock);
  return GST_PAD_PROBE_OK;
}

/* frames-in-flight=3 under flushing seeks while frames flow (the sink
 * waiting on the clock): nothing hangs (the streaming thread waiting for
 * room and the output thread pushing both stop at the flush), once a
 * seek returned no frame of the segment before comes out, and the last
 * segment plays to EOS.  While a seek runs, anything goes: frames of the
 * new segment may pass before the seek returns to the test.  (That the frames in flight are dropped, not
 * counted, test_frames_in_flight checks.) */
GST_START_TEST (test_frames_in_flight_flushing_seeks)
{
  static const GstClockTime starts[] = { 5 * GST_SECOND, GST_SECOND, 0 };
  GstElement *pipeline = gst_parse_launch ("videotestsrc pattern=snow ! "
      "video/x-raw,format=NV12,width=45,height=29,framerate=30/1 ! "
      "clfilter name=f mode=sliding radius=3 frames-in-flight=3 ! "
      "fakesink sync=true", NULL);
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  GstPad *src = gst_element_get_static_pad (f, "src");
  FlushWatch w = {.start = GST_CLOCK_TIME_NONE };
  GstMessage *msg;

  g_mutex_init (&w.lock);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, watch_after_flush, &w,
      NULL);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
          30 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  for (guint i = 0; i < G_N_ELEMENTS (starts); i++) {
    g_usleep (G_USEC_PER_SEC / 5);
    g_mutex_lock (&w.lock);
    w.start = GST_CLOCK_TIME_NONE;
    g_mutex_unlock (&w.lock);
    fail_unless (gst_element_seek (pipeline, 1.0, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
            starts[i], GST_SEEK_TYPE_SET, starts[i] + GST_SECOND / 2));
    drop_stale_eos (pipeline);
    g_mutex_lock (&w.lock);
    w.start = starts[i];
    w.stop = starts[i] + GST_SECOND / 2;
    g_mutex_unlock (&w.lock);
  }
  msg = eos_or_error_within (pipeline);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (w.passed >= 15, "%u frames passed", w.passed);
  fail_unless (w.stale == 0, "%u frames outside their segment passed, the "
      "first at %" GST_TIME_FORMAT, w.stale, GST_TIME_ARGS (w.first_stale));

  g_mutex_clear (&w.lock);
  gst_object_unref (src);
  gst_object_unref (f);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Pushes `in` with the radius set to `radius` before it. */
static void
push_with_radius (GstHarness * h, GstBuffer * in, guint radius)
{
  g_object_set (h->element, "radius", radius, NULL);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
}

/* The next frame out is frame `n`, a sliding blur of `radius` (passed
 * through when 0) of `in`, and so says the next message. */
static void
check_next_out (GstHarness * h, GstBus * bus, const GstVideoInfo * info,
    GstBuffer * in, guint n, guint radius)
{
  const ClfParams params = { CLF_MODE_SLIDING, radius, CLF_BORDER_CLAMP };
  GstBuffer *out = pull_within (h, 10);
  GstMessage *msg = pop_stats (bus);
  gboolean passthrough = radius > 0;
  guint64 frame = 99;

  fail_unless (out != NULL, "frame %u did not leave", n);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in));
  check_output (format_case ("RGBA"), info, &params, "passthrough in flight",
      in, out);
  fail_unless (msg != NULL);
  fail_unless (gst_structure_get (gst_message_get_structure (msg), "frame",
          G_TYPE_UINT64, &frame, "passthrough", G_TYPE_BOOLEAN, &passthrough,
          NULL));
  fail_unless (frame == n && passthrough == (radius == 0), "message %u says "
      "frame %" G_GUINT64_FORMAT ", passthrough %d", n, frame, passthrough);
  gst_message_unref (msg);
  gst_buffer_unref (out);
}

/* frames-in-flight=3 with the radius going to 0 (passthrough) and back
 * between frames: every frame leaves in order, exact, and its message
 * comes in order, passthrough or not; a first frame passed through leaves
 * alone.  (That frame never left while no frame had started the output
 * thread, and a passed frame's message came before those of the frames
 * still in flight.) */
GST_START_TEST (test_frames_in_flight_passthrough)
{
  static const guint radii[] = { 0, 2, 2, 0, 0, 3, 1, 0 };
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  GstBuffer *in[G_N_ELEMENTS (radii)];
  GstVideoInfo info;

  g_object_set (h->element, "frames-in-flight", 3, "mode", CLF_MODE_SLIDING,
      "border", CLF_BORDER_CLAMP, NULL);
  set_caps (h, "RGBA", 37, 21, &info);
  /* Made first: the harness's allocation query would drain the frames. */
  for (guint i = 0; i < G_N_ELEMENTS (in); i++) {
    in[i] = input_buffer (h, format_case ("RGBA"), &info, INPUT_FROM_POOL);
    GST_BUFFER_PTS (in[i]) = i * GST_SECOND / 30;
  }
  push_with_radius (h, in[0], radii[0]);
  check_next_out (h, bus, &info, in[0], 0, radii[0]);
  for (guint i = 1; i < G_N_ELEMENTS (in); i++)
    push_with_radius (h, in[i], radii[i]);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (guint i = 1; i < G_N_ELEMENTS (in); i++)
    check_next_out (h, bus, &info, in[i], i, radii[i]);
  for (guint i = 0; i < G_N_ELEMENTS (in); i++)
    gst_buffer_unref (in[i]);
  harness_free (h, bus);
}

GST_END_TEST;

/* A blur, the Gaussian's taps and unsharp's boxes (two passes through
 * the plan's sums while other frames are on the device). */
static const FilterCase reused_cases[] = {
  {"RGBA", 333, 77, {CLF_MODE_SLIDING, 3, CLF_BORDER_CLAMP}},
  {"I420", 97, 43, {.mode = CLF_MODE_GAUSSIAN,.border = CLF_BORDER_MIRROR,
          .sigma = 2.5}},
  {"RGBA", 131, 59, {.mode = CLF_MODE_UNSHARP,.border = CLF_BORDER_CLAMP,
          .sigma = 13,.amount = 1.75,.threshold = 3}},
};

/* frames-in-flight=3 hands frames to the element's device thread: an
 * input buffer given up at the push goes back to the pool only once its
 * frame is on the device, and is then written again for the next frame
 * (the CPU's write waits for the kernel that reads it).  Each output must
 * be the filter of the bytes its input had when it was pushed. */
GST_START_TEST (test_frames_in_flight_input_reused)
{
  const FilterCase *c = &reused_cases[__i__];
  const ClfParams *params = &c->params;
  GstHarness *h = gst_harness_new ("clfilter");
  const FormatCase *fc = format_case (c->format);
  GstBuffer *pushed[12], *out;
  GstVideoInfo info;
  guint pulled = 0;

  g_object_set (h->element, "frames-in-flight", 3, "mode", params->mode,
      "radius", params->radius, "border", params->border, "sigma",
      params->sigma, "amount", params->amount, "threshold",
      params->threshold, NULL);
  set_caps (h, c->format, c->width, c->height, &info);
  for (guint i = 0; i < G_N_ELEMENTS (pushed); i++) {
    GstBuffer *in = input_buffer (h, fc, &info, INPUT_FROM_POOL);

    /* The bytes as pushed, for the reference; the element gets the only
     * reference to the buffer. */
    pushed[i] = gst_buffer_copy_deep (in);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    while ((out = gst_harness_try_pull (h))) {
      check_output (fc, &info, params, "input reused", pushed[pulled], out);
      gst_buffer_unref (out);
      pulled++;
    }
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (; pulled < G_N_ELEMENTS (pushed); pulled++) {
    out = gst_harness_pull (h);
    check_output (fc, &info, params, "input reused", pushed[pulled], out);
    gst_buffer_unref (out);
  }
  for (guint i = 0; i < G_N_ELEMENTS (pushed); i++)
    gst_buffer_unref (pushed[i]);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* frames-in-flight lowered from 3 to 1 while frames may be handed to
 * the device thread (the frames after them go that way too, until none
 * is in flight): every frame leaves, in order and exact, and once the
 * limit is 1, all of them by the time each push returns. */
GST_START_TEST (test_frames_in_flight_lowered)
{
  GstHarness *h = gst_harness_new ("clfilter");
  const FormatCase *fc = format_case ("RGBA");
  ClfParams params = { CLF_MODE_LAPLACE, 0, CLF_BORDER_MIRROR };
  GstBuffer *in[5], *out;
  GstVideoInfo info;
  guint pulled = 0;

  g_object_set (h->element, "frames-in-flight", 3, "mode", params.mode,
      "border", params.border, NULL);
  set_caps (h, "RGBA", 29, 17, &info);
  /* Taken first: the pool's allocation query would drain the frames. */
  for (guint i = 0; i < G_N_ELEMENTS (in); i++)
    in[i] = input_buffer (h, fc, &info, INPUT_FROM_POOL);
  for (guint i = 0; i < G_N_ELEMENTS (in); i++) {
    if (i == 2)
      g_object_set (h->element, "frames-in-flight", 1, NULL);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
    while ((out = gst_harness_try_pull (h))) {
      check_output (fc, &info, &params, "limit lowered", in[pulled], out);
      gst_buffer_unref (out);
      pulled++;
    }
    if (i >= 2)
      fail_unless_equals_int (pulled, i + 1);
  }
  for (guint i = 0; i < G_N_ELEMENTS (in); i++)
    gst_buffer_unref (in[i]);
  gst_harness_teardown (h);
}

GST_END_TEST;

void
element_in_flight_add_tests (TCase * general, TCase * discrete)
{
  TCase *cases[] = { general, discrete };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    tcase_add_test (cases[i], test_frames_in_flight);
    tcase_add_loop_test (cases[i], test_frames_in_flight_input_reused, 0,
        G_N_ELEMENTS (reused_cases));
    tcase_add_test (cases[i], test_frames_in_flight_lowered);
    tcase_add_test (cases[i], test_frames_in_flight_pipeline);
    tcase_add_test (cases[i], test_frames_in_flight_auto);
    tcase_add_test (cases[i], test_frames_in_flight_flushing_seeks);
    tcase_add_test (cases[i], test_frames_in_flight_passthrough);
  }
}
