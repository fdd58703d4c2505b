/* GStreamer
 * The element suite (element.c): zero copy in common pipelines and chains
 * of filters, foreign buffers, the application's context, and a long run
 * whose memory stays bounded.
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

/* ---- zero copy ------------------------------------------------------- */

/* Frames and copies reported by each clfilter in a pipeline. */
typedef struct
{
  const gchar *name;
  guint frames;
  guint copies;
} FilterCount;

static void
count_message (GstMessage * msg, FilterCount * counts, guint n)
{
  guint copies = 0;

  if (!gst_message_has_name (msg, "clfilter-stats"))
    return;
  fail_unless (gst_structure_get_uint (gst_message_get_structure (msg),
          "copies", &copies));
  for (guint i = 0; i < n; i++)
    if (g_str_equal (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), counts[i].name)) {
      counts[i].frames++;
      counts[i].copies += copies;
    }
}

static void
count_stats (GstBus * bus, FilterCount * counts, guint n)
{
  GstMessage *msg;

  while ((msg = pop_stats (bus))) {
    count_message (msg, counts, n);
    gst_message_unref (msg);
  }
}

/* Plays a pipeline to EOS, counting what each named filter reports. */
static void
play_pipeline_and_count (GstElement * pipeline, FilterCount * counts, guint n)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gboolean eos = FALSE;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while (!eos) {
    GstMessage *msg = gst_bus_timed_pop (bus, GST_CLOCK_TIME_NONE);
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "%s: error",
        GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)));
    eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
    count_message (msg, counts, n);
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
}

static void
play_and_count (const gchar * description, FilterCount * counts, guint n)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);

  fail_unless (pipeline != NULL, "%s: %s", description,
      error ? error->message : "?");
  play_pipeline_and_count (pipeline, counts, n);
  gst_object_unref (pipeline);
}

/* The pipelines: the source writes into clfilter's pool, the
 * output comes from one, and two filters in a row pass OpenCL memory. */
GST_START_TEST (test_no_copies_in_common_pipelines)
{
  FilterCount one[] = { {"f"} };
  FilterCount two[] = { {"a"}, {"b"} };
  FilterCount forced[] = { {"f"} };

  play_and_count ("videotestsrc num-buffers=20 ! video/x-raw,format=RGBA,"
      "width=1280,height=720 ! clfilter name=f mode=sliding ! fakesink",
      one, 1);
  fail_unless_equals_int (one[0].frames, 20);
  fail_unless_equals_int (one[0].copies, 0);

  play_and_count ("videotestsrc num-buffers=20 ! video/x-raw,format=NV12,"
      "width=1280,height=720 ! clfilter name=a mode=sliding ! "
      "clfilter name=b mode=laplace ! fakesink", two, 2);
  for (guint i = 0; i < 2; i++) {
    fail_unless_equals_int (two[i].frames, 20);
    fail_unless_equals_int (two[i].copies, 0);
  }

  /* The count is real: the copying path reports its two copies. */
  play_and_count ("videotestsrc num-buffers=5 ! video/x-raw,format=RGBA,"
      "width=320,height=240 ! clfilter name=f zero-copy=false ! fakesink",
      forced, 1);
  fail_unless_equals_int (forced[0].frames, 5);
  fail_unless_equals_int (forced[0].copies, 10);
}

GST_END_TEST;

static ClfEngine *
context_engine (GstElement * element)
{
  GstContext *context = gst_element_get_context (element,
      "gst.clfilter.engine");
  ClfEngine *engine;

  fail_unless (context != NULL, "%s has no engine context",
      GST_OBJECT_NAME (element));
  engine = g_value_get_boxed (gst_structure_get_value
      (gst_context_get_structure (context), "engine"));
  gst_context_unref (context);
  return engine;
}

/* Two filters in a row share one engine, hand each other OpenCL memory,
 * and give the reference's bytes for both steps. */
GST_START_TEST (test_chained_filters)
{
  const FormatCase *fc = format_case ("NV12");
  const ClfParams blur = { CLF_MODE_SLIDING, 3, CLF_BORDER_MIRROR };
  const ClfParams sharpen = { CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP };
  GstHarness *h = gst_harness_new_parse ("clfilter name=a mode=sliding "
      "radius=3 border=mirror ! clfilter name=b mode=laplace");
  GstElement *a = gst_bin_get_by_name (GST_BIN (h->element), "a");
  GstElement *b = gst_bin_get_by_name (GST_BIN (h->element), "b");
  GstBus *bus = gst_bus_new ();
  FilterCount counts[] = { {"a"}, {"b"} };
  GstVideoInfo info;

  gst_element_set_bus (h->element, bus);
  set_caps (h, "NV12", 37, 23, &info);
  for (guint i = 0; i < 3; i++) {
    GstBuffer *in = input_buffer (h, fc, &info, INPUT_FROM_POOL);
    GstBuffer *out;

    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (gst_memory_is_type (gst_buffer_peek_memory (out, 0),
            GST_CL_MEMORY_TYPE));
    check_two_steps (fc, &info, &blur, &sharpen, "chained", in, out);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  /* Frames in flight (as on a discrete GPU) report when they finish, on
   * the output thread: EOS finishes every frame in flight before it
   * passes. */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  count_stats (bus, counts, 2);
  for (guint i = 0; i < 2; i++) {
    fail_unless_equals_int (counts[i].frames, 3);
    fail_unless_equals_int (counts[i].copies, 0);
  }
  fail_unless (context_engine (a) == context_engine (b),
      "the filters do not share one engine");

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Notes whether the first filter's kernel, the last writer of the frame
 * arriving here, had run, then lets it run. */
static GstPadProbeReturn
note_writer_state (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ChainGate *g = data;
  GstMemory *mem = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info),
      0);
  cl_event wait[GST_CL_MEMORY_MAX_WAIT];
  guint n;

  fail_unless (gst_is_cl_memory (mem));
  fail_unless (gst_cl_memory_device_wait_list (mem, GST_MAP_READ, wait, &n,
          NULL));
  fail_unless_equals_int (n, 1);
  fail_unless_equals_int (clGetEventInfo (wait[0],
          CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof g->writer_state,
          &g->writer_state, NULL), CL_SUCCESS);
  clReleaseEvent (wait[0]);
  open_gate (g);
  return GST_PAD_PROBE_OK;
}

/* Two clfilters in a row: the first passes its frame on once the device
 * finished it, and the second reads the finished bytes.  The first's
 * kernel waits for a user event that the second's sink pad opens, or a
 * timer a second later: when the frame arrives there, its kernel has
 * run, so the timer opened it. */
GST_START_TEST (test_chain_finished_frame)
{
  const FormatCase *fc = format_case ("RGBA");
  const ClfParams sharpen = { CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP };
  GstHarness *h = gst_harness_new_parse ("clfilter name=a mode=laplace "
      "border=clamp ! clfilter name=b mode=laplace border=clamp");
  GstElement *b = gst_bin_get_by_name (GST_BIN (h->element), "b");
  GstPad *sink = gst_element_get_static_pad (b, "sink");
  ChainGate g = { NULL, 0, CL_COMPLETE };
  GstBuffer *in, *out;
  GstVideoInfo info;
  GstMemory *mem;
  GThread *timer;
  cl_int status;

  set_caps (h, "RGBA", 37, 23, &info);
  in = input_buffer (h, fc, &info, INPUT_FROM_POOL);
  mem = gst_buffer_peek_memory (in, 0);
  g.gate = clCreateUserEvent (clf_engine_context (gst_cl_memory_get_engine
          (mem)), &status);
  fail_unless_equals_int (status, CL_SUCCESS);
  gst_cl_memory_device_done (mem, GST_MAP_WRITE, g.gate);
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, note_writer_state, &g,
      NULL);
  timer = g_thread_new ("gate", open_gate_later, &g);

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (g.writer_state == CL_COMPLETE, "the first clfilter passed "
      "its frame on before the device finished it");
  check_two_steps (fc, &info, &sharpen, &sharpen, "chained", in, out);

  g_thread_join (timer);
  clReleaseEvent (g.gate);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_object_unref (sink);
  gst_object_unref (b);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Pushes one frame of `kind` and returns the copies reported for it. */
static guint
copies_for (GstHarness * h, GstBus * bus, const GstVideoInfo * info,
    InputKind kind)
{
  const ClfParams params = { CLF_MODE_SLIDING, 2, CLF_BORDER_CLAMP };
  GstBuffer *in = input_buffer (h, format_case ("RGBA"), info, kind);
  GstBuffer *out;
  GstMessage *msg;
  guint copies = 99;

  g_object_set (h->element, "mode", params.mode, "radius", params.radius, NULL);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  check_output (format_case ("RGBA"), info, &params, input_names[kind], in,
      out);
  msg = pop_stats (bus);
  fail_unless (msg != NULL);
  fail_unless (gst_structure_get_uint (gst_message_get_structure (msg),
          "copies", &copies));
  /* The output comes from clfilter's pool: nothing is downloaded. */
  fail_unless_equals_uint64 (stats_uint64 (msg, "download-ns"), 0);
  gst_message_unref (msg);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  return copies;
}

/* Buffers that are not ours: wrapped in place where the device shares
 * host memory and the data is aligned, else copied exactly once. */
GST_START_TEST (test_foreign_buffers)
{
  for (guint discrete = 0; discrete < 2; discrete++) {
    GstHarness *h;
    GstBus *bus = gst_bus_new ();
    GstVideoInfo info;
    gboolean unified;

    /* Test switch: the copying path of a device without shared memory. */
    if (discrete)
      g_setenv ("CLF_TEST_HOST_UNIFIED", "0", TRUE);
    unified = device_shares_host_memory ();
    h = gst_harness_new ("clfilter");
    gst_element_set_bus (h->element, bus);
    set_caps (h, "RGBA", 64, 48, &info);

    fail_unless_equals_int (copies_for (h, bus, &info, INPUT_FROM_POOL), 0);
    fail_unless_equals_int (copies_for (h, bus, &info, INPUT_UNALIGNED), 1);
    fail_unless_equals_int (copies_for (h, bus, &info, INPUT_PADDED),
        unified ? 0 : 1);
    fail_if (discrete && unified);

    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
    g_unsetenv ("CLF_TEST_HOST_UNIFIED");
  }
}

GST_END_TEST;

static GstBusSyncReply
answer_need_context (GstBus * bus, GstMessage * msg, gpointer context)
{
  const gchar *type;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT
      && gst_message_parse_context_type (msg, &type)
      && g_str_equal (type, "gst.clfilter.engine"))
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), context);
  return GST_BUS_PASS;
}

/* An application shares one engine between pipelines: by setting the
 * context on the element, or by answering need-context. */
GST_START_TEST (test_application_context)
{
  const gchar *launch = "videotestsrc num-buffers=3 ! video/x-raw,"
      "width=64,height=48 ! clfilter name=f ! fakesink";
  GstElement *first = gst_parse_launch (launch, NULL);
  GstElement *f = gst_bin_get_by_name (GST_BIN (first), "f");
  GstContext *context;
  ClfEngine *engine;

  fail_unless (gst_element_set_state (first, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (first, NULL, NULL,
          GST_CLOCK_TIME_NONE) == GST_STATE_CHANGE_SUCCESS);
  engine = context_engine (f);
  context = gst_element_get_context (f, "gst.clfilter.engine");

  for (guint how = 0; how < 2; how++) {
    GstElement *second = gst_parse_launch (launch, NULL);
    GstElement *g = gst_bin_get_by_name (GST_BIN (second), "f");
    GstBus *bus = gst_element_get_bus (second);
    GstMessage *msg;

    if (how == 0)
      gst_element_set_context (g, context);
    else
      gst_bus_set_sync_handler (bus, answer_need_context,
          gst_context_ref (context), (GDestroyNotify) gst_context_unref);
    fail_unless (gst_element_set_state (second, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
    gst_message_unref (msg);
    fail_unless (context_engine (g) == engine, "%s: not the application's "
        "engine", how == 0 ? "set_context" : "need-context");
    gst_element_set_state (second, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (g);
    gst_object_unref (second);
  }

  gst_context_unref (context);
  gst_element_set_state (first, GST_STATE_NULL);
  gst_object_unref (f);
  gst_object_unref (first);
}

GST_END_TEST;

/* The engine as gst-launch-1.0 and the debug log print a context: by its
 * structure's serialization, which names the engine's device. */
static void
check_context_prints (GstContext * context, const gchar * device_name)
{
  const GstStructure *s = gst_context_get_structure (context);
  GValue text = G_VALUE_INIT;
  WarningLog log;
  gchar *printed, *engine;

  warning_log_start (&log);
  printed = gst_structure_to_string (s);
  engine = gst_value_serialize (gst_structure_get_value (s, "engine"));
  fail_unless (log.count == 0, "printing the context warned:\n%s",
      log.text->str);
  warning_log_stop (&log);

  GST_INFO ("context: %s", printed);
  fail_if (strstr (printed, "NULL") != NULL, "printed %s", printed);
  fail_unless (engine != NULL, "the engine cannot be printed: %s", printed);
  /* The engine's string, unquoted, names the device. */
  g_value_init (&text, G_TYPE_STRING);
  fail_unless (gst_value_deserialize (&text, engine));
  fail_unless (strstr (g_value_get_string (&text), device_name) != NULL,
      "the engine prints as %s, not naming %s", engine, device_name);
  g_value_unset (&text);
  g_free (engine);
  g_free (printed);
}

/* The context an element announces and keeps prints without a warning and
 * says which device the engine runs on. */
GST_START_TEST (test_context_prints_device)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=16,height=16 ! clfilter name=f ! "
      "fakesink", NULL);
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstContext *context;
  GstMessage *msg;
  gchar *device_name = NULL;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipeline, NULL, NULL,
          GST_CLOCK_TIME_NONE) == GST_STATE_CHANGE_SUCCESS);
  g_object_get (f, "device-name", &device_name, NULL);
  fail_unless (device_name && *device_name);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_HAVE_CONTEXT);
  fail_unless (msg != NULL, "no have-context message");
  gst_message_parse_have_context (msg, &context);
  check_context_prints (context, device_name);
  gst_context_unref (context);
  gst_message_unref (msg);

  context = gst_element_get_context (f, "gst.clfilter.engine");
  fail_unless (context != NULL);
  check_context_prints (context, device_name);
  gst_context_unref (context);

  g_free (device_name);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (f);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Counts memories a pad has not carried before. */
static GstPadProbeReturn
count_new_memories_at (GstPad * pad, GstPadProbeInfo * info, gpointer counter)
{
  count_new_memories (GST_PAD_PROBE_INFO_BUFFER (info), counter);
  return GST_PAD_PROBE_OK;
}

static gsize
resident_bytes (void)
{
  gchar *statm = NULL;
  gsize pages = 0;

  if (g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL))
    pages = g_ascii_strtoull (strchr (statm, ' ') + 1, NULL, 10);
  g_free (statm);
  return pages * (gsize) sysconf (_SC_PAGESIZE);
}

typedef struct
{
  guint frames;
  gsize resident_at_500;
} RunState;

static GstPadProbeReturn
sample_resident (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  RunState *state = data;
  if (++state->frames == 500)
    state->resident_at_500 = resident_bytes ();
  return GST_PAD_PROBE_OK;
}

/* 5,000 frames: the pools stop allocating after the first few frames and
 * resident memory stays flat. */
GST_START_TEST (test_long_run_bounded)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=5000 ! "
      "video/x-raw,format=RGBA,width=320,height=240 ! clfilter name=f "
      "mode=laplace stats-interval=50 ! fakesink", NULL);
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  GstPad *sink = gst_element_get_static_pad (f, "sink");
  GstPad *src = gst_element_get_static_pad (f, "src");
  FilterCount counts[] = { {"f"}
  };
  guint new_in = 0, new_out = 0;
  RunState state = { 0 };
  gsize resident_end;

  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, count_new_memories_at,
      &new_in, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, count_new_memories_at,
      &new_out, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, sample_resident, &state,
      NULL);
  play_pipeline_and_count (pipeline, counts, 1);
  resident_end = resident_bytes ();

  fail_unless_equals_int (state.frames, 5000);
  fail_unless_equals_int (counts[0].frames, 100);
  fail_unless_equals_int (counts[0].copies, 0);
  fail_unless (new_in <= 8 && new_out <= 8, "the pools made %u input and "
      "%u output memories for 5000 frames", new_in, new_out);
  fail_unless (resident_end < state.resident_at_500 + 8 * 1024 * 1024,
      "resident memory grew from %" G_GSIZE_FORMAT " to %" G_GSIZE_FORMAT
      " bytes", state.resident_at_500, resident_end);
  g_print ("5000 frames: %u input and %u output memories; resident %"
      G_GSIZE_FORMAT " KiB at frame 500, %" G_GSIZE_FORMAT " KiB at the "
      "end\n", new_in, new_out, state.resident_at_500 / 1024,
      resident_end / 1024);

  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (f);
  gst_object_unref (pipeline);
}

GST_END_TEST;

void
element_zero_copy_add_tests (TCase * zero_copy, TCase * discrete)
{
  TCase *cases[] = { zero_copy, discrete };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    tcase_add_test (cases[i], test_no_copies_in_common_pipelines);
    tcase_add_test (cases[i], test_chained_filters);
    tcase_add_test (cases[i], test_chain_finished_frame);
  }
  tcase_add_test (zero_copy, test_foreign_buffers);
  tcase_add_test (zero_copy, test_application_context);
  tcase_add_test (zero_copy, test_context_prints_device);
  tcase_add_test (zero_copy, test_long_run_bounded);
}
