/* GStreamer
 * gst-check tests of clfilter against hostile or careless neighbours: a
 * video meta whose strides and offsets lie about the buffer, a downstream
 * pool whose buffers are smaller than their meta says, allocation queries
 * racing a stop, and a shared engine given to an element that never starts.
 * Each case must end in a clear error (or be harmless), never a read or
 * write outside a buffer (the sanitizer build runs these with ASan), a
 * crash or a leak.
 */
#include "config.h"

#include <CL/cl.h>

#include <gst/clfilter/gstclfiltermeta.h>
#include "framecheck.h"

#define GST_CL_CONTEXT_TYPE "gst.clfilter.engine"

/* Pushes `buf` and expects it refused with a STREAM error whose texts
 * mention `what`. */
static void
push_expect_stream_error (GstHarness * h, GstBus * bus, GstBuffer * buf,
    const gchar * what, const gchar * case_name)
{
  GError *error = NULL;
  gchar *debug = NULL, *all;

  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  pop_error (bus, &error, &debug);
  fail_unless (error->domain == GST_STREAM_ERROR, "%s: not a stream error: "
      "%s", case_name, error->message);
  all = g_strdup_printf ("%s %s", error->message, debug ? debug : "");
  fail_unless (strstr (all, what) != NULL, "%s: the error does not say "
      "'%s': %s", case_name, what, all);
  g_free (all);
  g_free (debug);
  g_error_free (error);
}

/* ---- video metas that lie about the input ------------------------------ */

typedef struct
{
  const gchar *name;
  const gchar *format;
  guint width, height;
  gboolean from_pool;           /* clfilter's own pool, else system memory */
  gsize size;                   /* system memory: the buffer's size, or 0
                                 * for the caps' */
  guint plane;                  /* the plane whose meta lies */
  gint stride;
  gsize offset;
  const gchar *says;            /* what the error must name */
} LyingMeta;

static const LyingMeta lying_metas[] = {
  /* The cases: GRAY8 64x4 in 256 bytes. */
  {"stride past the end", "GRAY8", 64, 4, FALSE, 256, 0, 4096, 0,
      "plane 0 offset 0 stride 4096"},
  {"offset past the end", "GRAY8", 64, 4, FALSE, 256, 0, 64, 200,
      "plane 0 offset 200 stride 64"},
  {"negative stride", "GRAY8", 64, 4, FALSE, 256, 0, -64, 192,
      "stride of -64 bytes"},
  {"negative stride, own pool", "GRAY8", 64, 4, TRUE, 0, 0, -64, 192,
      "stride of -64 bytes"},
  {"stride past the end, own pool", "GRAY8", 64, 4, TRUE, 0, 0, 4096, 0,
      "plane 0 offset 0 stride 4096"},
  {"stride shorter than a row", "GRAY8", 64, 4, FALSE, 256, 0, 32, 0,
      "stride of 32 bytes: it must hold a row"},
  {"zero stride", "RGBA", 16, 4, FALSE, 256, 0, 0, 0, "stride of 0 bytes"},
  /* A later plane past the end of an I420 13x11 buffer of the caps' size
   * (272 bytes: strides 16, 8, 8). */
  {"chroma plane past the end", "I420", 13, 11, FALSE, 0, 2, 8, 260,
      "plane 2 offset 260 stride 8"},
  {"chroma stride wraps", "I420", 13, 11, FALSE, 0, 1, G_MININT, 176,
      "stride of -2147483648 bytes"},
};

/* A buffer for `lie`'s caps whose meta lies about one plane. */
static GstBuffer *
lying_buffer (GstHarness * h, const LyingMeta * lie, const GstVideoInfo * info)
{
  GstBuffer *buf = lie->from_pool ?
      gst_harness_create_buffer (h, GST_VIDEO_INFO_SIZE (info)) :
      fill_random (system_buffer (lie->size ? lie->size :
          GST_VIDEO_INFO_SIZE (info), 0));
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  GstVideoInfo honest = *info;

  if (!meta)
    meta = gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), info->width, info->height,
        GST_VIDEO_INFO_N_PLANES (info), honest.offset, honest.stride);
  meta->stride[lie->plane] = lie->stride;
  meta->offset[lie->plane] = lie->offset;
  return buf;
}

/* Every lie is refused with a STREAM error before any byte is read or
 * written outside the buffer, whether the element wraps the memory in
 * place (zero-copy, and PoCL shares host memory) or copies it; the
 * element then takes honest frames. */
GST_START_TEST (test_lying_video_meta_refused)
{
  const LyingMeta *lie = &lying_metas[__i__ / 2];
  gboolean zero_copy = __i__ % 2 == 0;
  const FormatCase *fc = format_case (lie->format);
  ClfParams params = { CLF_MODE_SEPARABLE, 2, CLF_BORDER_CLAMP };
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = harness_with_bus (zero_copy, &bus);

  set_caps (h, lie->format, lie->width, lie->height, &info);
  push_expect_stream_error (h, bus, lying_buffer (h, lie, &info), lie->says,
      lie->name);

  /* Honest frames after a restart are filtered exactly. */
  gst_element_set_state (h->element, GST_STATE_NULL);
  gst_harness_play (h);
  set_caps (h, lie->format, lie->width, lie->height, &info);
  push_and_check (h, fc, &info, &params, INPUT_PADDED);
  push_and_check (h, fc, &info, &params, INPUT_UNALIGNED);
  harness_free (h, bus);
}

GST_END_TEST;

/* ---- a downstream pool whose buffers lie ------------------------------- */

/* Buffers of the configured size, each with a video meta whose first
 * stride is `stride`: a careless pool downstream. */
typedef struct
{
  GstBufferPool parent;
  gint stride;
} LyingPool;

typedef GstBufferPoolClass LyingPoolClass;

static GType lying_pool_get_type (void);
G_DEFINE_TYPE (LyingPool, lying_pool, GST_TYPE_BUFFER_POOL);

static GstFlowReturn
lying_pool_alloc (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  LyingPool *self = (LyingPool *) pool;
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps;
  guint size;
  GstVideoInfo info;
  GstFlowReturn ret;

  gst_buffer_pool_config_get_params (config, &caps, &size, NULL, NULL);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_structure_free (config);
  ret = GST_BUFFER_POOL_CLASS (lying_pool_parent_class)->alloc_buffer (pool,
      buffer, params);
  if (ret == GST_FLOW_OK) {
    info.stride[0] = self->stride;
    gst_buffer_add_video_meta_full (*buffer, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&info), info.width, info.height,
        GST_VIDEO_INFO_N_PLANES (&info), info.offset, info.stride);
  }
  return ret;
}

static void
lying_pool_class_init (LyingPoolClass * klass)
{
  klass->alloc_buffer = lying_pool_alloc;
}

static void
lying_pool_init (LyingPool * self)
{
}

/* Answers the allocation query at the harness's sink with `data`, a pool
 * (that the query then holds). */
static GstPadProbeReturn
offer_pool (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstBufferPool *pool = data;
  GstStructure *config;
  GstCaps *caps;
  GstVideoInfo vinfo;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_parse_allocation (query, &caps, NULL);
  fail_unless (gst_video_info_from_caps (&vinfo, caps));
  if (!gst_buffer_pool_is_active (pool)) {
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, vinfo.size, 0, 0);
    fail_unless (gst_buffer_pool_set_config (pool, config));
  }
  gst_query_add_allocation_pool (query, pool, vinfo.size, 0, 0);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return GST_PAD_PROBE_HANDLED;
}

/* With zero-copy=false the output comes from downstream's pool: one whose
 * buffers are smaller than their meta's stride says is refused with a
 * STREAM error instead of being written past its end. */
GST_START_TEST (test_lying_downstream_pool_refused)
{
  LyingPool *pool = g_object_new (lying_pool_get_type (), NULL);
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = harness_with_bus (FALSE, &bus);

  gst_object_ref_sink (pool);
  pool->stride = 4096;
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      offer_pool, gst_object_ref (pool), gst_object_unref);
  set_caps (h, "GRAY8", 64, 4, &info);
  push_expect_stream_error (h, bus, fill_random (system_buffer (256, 0)),
      "Invalid output buffer", "downstream pool");
  harness_free (h, bus);
  gst_object_unref (pool);
}

GST_END_TEST;

/* ---- allocation queries racing a stop ---------------------------------- */

typedef struct
{
  GstPad *pad;
  GstCaps *caps;
  gint stop;
  guint queries;
} Querier;

/* Asks clfilter's sink pad for an allocation, as upstream's streaming
 * thread does, as fast as it can. */
static gpointer
query_allocation_loop (gpointer data)
{
  Querier *q = data;

  while (!g_atomic_int_get (&q->stop)) {
    GstQuery *query = gst_query_new_allocation (q->caps, TRUE);

    gst_pad_query (q->pad, query);
    gst_query_unref (query);
    q->queries++;
  }
  return NULL;
}

#define RACE_CYCLES 1500
#define RACE_SECONDS 40

/* PLAYING -> READY over and over while allocation queries arrive from
 * another thread (upstream's streaming thread does not hold clfilter's
 * stream lock): the query must never find the engine half gone.  Before
 * the fix this crashed in clf_engine_ref (NULL) within a few hundred
 * cycles. */
GST_START_TEST (test_allocation_query_during_stop)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc is-live=true ! "
      "video/x-raw,format=GRAY8,width=16,height=16 ! clfilter name=f ! "
      "fakesink", NULL);
  GstElement *filter = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  Querier q = { gst_element_get_static_pad (filter, "sink"),
    gst_caps_from_string ("video/x-raw,format=GRAY8,width=16,height=16,"
        "framerate=30/1"), 0, 0
  };
  GThread *thread = g_thread_new ("querier", query_allocation_loop, &q);
  gint64 end = g_get_monotonic_time () + RACE_SECONDS * G_TIME_SPAN_SECOND;
  guint cycles = 0;

  while (cycles < RACE_CYCLES && g_get_monotonic_time () < end) {
    fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
    g_usleep (g_random_int_range (0, 3000));
    fail_unless_equals_int (gst_element_set_state (pipeline,
            GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
    cycles++;
  }
  g_atomic_int_set (&q.stop, 1);
  g_thread_join (thread);
  g_print ("%u PLAYING -> READY cycles, %u allocation queries\n", cycles,
      q.queries);

  /* GstBaseTransform (1.22) lends its last allocation query to
   * propose_allocation and puts it back afterwards, even when a stop
   * cleared it meanwhile; the next negotiation replaces it.  One more
   * cycle with frames, so that the leaks tracer sees clfilter's own
   * objects only. */
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  for (guint64 frames = 0; frames == 0; g_usleep (10000))
    g_object_get (filter, "frames", &frames, NULL);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_caps_unref (q.caps);
  gst_object_unref (q.pad);
  gst_object_unref (filter);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* ---- an engine given to an element that never starts ------------------ */

static cl_uint
context_refcount (cl_context context)
{
  cl_uint count = 0;

  fail_unless_equals_int (clGetContextInfo (context,
          CL_CONTEXT_REFERENCE_COUNT, sizeof count, &count, NULL), CL_SUCCESS);
  return count;
}

/* The engine a started clfilter shares (its GstContext), and that
 * engine's OpenCL context, retained by us. */
static GstContext *
started_engine_context (cl_context * cl)
{
  GstElement *element = gst_element_factory_make ("clfilter", NULL);
  GstContext *context;
  const GValue *value;

  fail_unless_equals_int (gst_element_set_state (element, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (element, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  context = gst_element_get_context (element, GST_CL_CONTEXT_TYPE);
  fail_unless (context != NULL);
  value = gst_structure_get_value (gst_context_get_structure (context),
      "engine");
  fail_unless (value != NULL);
  /* The plugin's boxed type (the test has its own copy of the code). */
  *cl = clf_engine_context (g_value_get_boxed (value));
  fail_unless_equals_int (clRetainContext (*cl), CL_SUCCESS);
  gst_element_set_state (element, GST_STATE_NULL);
  gst_object_unref (element);
  return context;
}

/* An application shares an engine with an element through a GstContext,
 * then drops the element without starting it: the element's reference is
 * released, so the engine (and its OpenCL context, about 1.4 MB on PoCL)
 * goes when the application lets go of it. */
GST_START_TEST (test_context_engine_released_at_finalize)
{
  cl_context cl;
  GstContext *context = started_engine_context (&cl);
  GstElement *element = gst_element_factory_make ("clfilter", NULL);

  gst_element_set_context (element, context);
  gst_object_unref (element);
  gst_context_unref (context);
  /* Ours is the last reference once the engine has released its own. */
  fail_unless_equals_int (context_refcount (cl), 1);
  clReleaseContext (cl);
}

GST_END_TEST;

/* ---- settings changed at the wrong time -------------------------------- */

/* The first warning on `bus`, whose message must hold `part`. */
static void
pop_warning (GstBus * bus, const gchar * part)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  GError *error = NULL;
  gchar *debug = NULL;

  fail_unless (msg != NULL, "no warning about %s was posted", part);
  gst_message_parse_warning (msg, &error, &debug);
  fail_unless (strstr (error->message, part) != NULL, "%s", error->message);
  g_error_free (error);
  g_free (debug);
  gst_message_unref (msg);
}

/* The `copies` of the next frame pushed from the harness's pool. */
static guint
copies_of_next_frame (GstHarness * h, const GstVideoInfo * info)
{
  GstBuffer *out;
  GstClFilterMeta *meta;
  guint copies;

  fail_unless_equals_int (gst_harness_push (h,
          fill_random (gst_harness_create_buffer (h,
                  GST_VIDEO_INFO_SIZE (info)))), GST_FLOW_OK);
  out = gst_harness_pull (h);
  meta = gst_buffer_get_cl_filter_meta (out);
  fail_unless (meta != NULL);
  copies = meta->copies;
  gst_buffer_unref (out);
  return copies;
}

/* device and zero-copy are read when the element starts: set while it
 * plays, they are kept for the next start and a warning says so; the
 * frames meanwhile go on as they were. */
GST_START_TEST (test_start_settings_changed_while_playing)
{
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  GError *error = NULL;
  gchar *debug = NULL, *device = NULL;
  GstMessage *msg;

  set_caps (h, "GRAY8", 32, 8, &info);
  fail_unless_equals_int (copies_of_next_frame (h, &info), 0);
  g_object_set (h->element, "zero-copy", FALSE, NULL);
  pop_warning (bus, "zero-copy");
  fail_unless_equals_int (copies_of_next_frame (h, &info), 0);
  g_object_set (h->element, "device", "no-such-device", NULL);
  pop_warning (bus, "device");
  g_object_get (h->element, "device", &device, NULL);
  fail_unless_equals_string (device, "no-such-device");
  fail_unless_equals_int (copies_of_next_frame (h, &info), 0);

  /* At the next start both apply: no such device. */
  gst_element_set_state (h->element, GST_STATE_NULL);
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  pop_error (bus, &error, &debug);
  fail_unless (strstr (error->message, "no-such-device") != NULL, "%s",
      error->message);
  /* And with a device, the copies. */
  gst_element_set_state (h->element, GST_STATE_NULL);
  g_object_set (h->element, "device", "auto", NULL);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_if (msg != NULL, "a warning for a change in NULL");
  gst_harness_play (h);
  set_caps (h, "GRAY8", 32, 8, &info);
  fail_unless_equals_int (copies_of_next_frame (h, &info), 2);

  g_error_free (error);
  g_free (debug);
  g_free (device);
  harness_free (h, bus);
}

GST_END_TEST;

/* ---- an application that never reads its bus --------------------------- */

#define UNREAD_FRAMES 6000

/* Pops every message on `bus`; counts clfilter-stats and warnings. */
static void
drain_bus (GstBus * bus, guint * stats, guint * warnings)
{
  GstMessage *msg;

  *stats = *warnings = 0;
  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING)
      (*warnings)++;
    else if (gst_message_has_name (msg, "clfilter-stats"))
      (*stats)++;
    gst_message_unref (msg);
  }
}

/* With the default stats-interval=1 a bus nobody reads would grow by a
 * message a frame without end (277 MB in 30 s of small frames): the
 * element holds its messages back once 4096 are unread, says so once,
 * and posts again when the bus has been read. */
GST_START_TEST (test_unread_bus_bounded)
{
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  guint stats, warnings;

  set_caps (h, "GRAY8", 4, 4, &info);
  for (guint i = 0; i < UNREAD_FRAMES; i++) {
    fail_unless_equals_int (gst_harness_push (h,
            gst_buffer_new_allocate (NULL, 16, NULL)), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  drain_bus (bus, &stats, &warnings);
  g_print ("%u frames to a bus nobody read: %u clfilter-stats, %u "
      "warnings\n", UNREAD_FRAMES, stats, warnings);
  fail_unless (stats <= 4096, "%u unread messages", stats);
  fail_unless_equals_int (warnings, 1);

  /* Read now: every frame has its message again. */
  for (guint i = 0; i < 10; i++) {
    fail_unless_equals_int (gst_harness_push (h,
            gst_buffer_new_allocate (NULL, 16, NULL)), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  drain_bus (bus, &stats, &warnings);
  fail_unless_equals_int (stats, 10);
  fail_unless_equals_int (warnings, 0);
  harness_free (h, bus);
}

GST_END_TEST;

/* ---- a setting that makes a frame take minutes ------------------------ */

#define LONG_FRAME "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1"
/* A stop or a flush waits for one launch of about 50 ms: allow for a
 * loaded 2-core machine, far short of the ~25 s frame. */
#define STOP_WITHIN_US (2 * G_USEC_PER_SEC)

/* mode=box radius=1023 takes ~25 s a frame at 64x48 on 2 PoCL cores (the
 * issue's "Ctrl-C hangs"): a WARNING says how slow the setting is once
 * the frame's first launch was timed, and going to NULL mid-frame then
 * returns at once. */
GST_START_TEST (test_long_frame_stops)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc ! " LONG_FRAME
      " ! clfilter name=f mode=box radius=1023 ! fakesink", NULL);
  GstElement *filter = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *warning = NULL;
  guint64 frames = 0;
  gint64 start, end;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  /* However loaded the machine: until the warning comes, or a frame
   * (a device that finishes it within a second gives none). */
  end = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  while (!warning && frames == 0 && g_get_monotonic_time () < end) {
    warning = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND,
        GST_MESSAGE_WARNING);
    g_object_get (filter, "frames", &frames, NULL);
  }
  start = g_get_monotonic_time ();
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  g_print ("stopped in the middle of a long frame in %.3f s\n",
      (g_get_monotonic_time () - start) / 1e6);
  fail_unless (g_get_monotonic_time () - start < STOP_WITHIN_US);
  /* A device that took over a second for the frame was slow enough to
   * warn about (a GPU may finish it first). */
  if (frames == 0) {
    GError *error = NULL;
    gchar *debug = NULL;

    fail_unless (warning != NULL, "no warning about the slow setting");
    gst_message_parse_warning (warning, &error, &debug);
    fail_unless (strstr (error->message, "mode=box radius=1023 takes about")
        != NULL, "%s", error->message);
    g_print ("warning: %s\n", error->message);
    g_error_free (error);
    g_free (debug);
  }
  if (warning)
    gst_message_unref (warning);
  gst_object_unref (bus);
  gst_object_unref (filter);
  gst_object_unref (pipeline);
}

GST_END_TEST;

typedef struct
{
  GstHarness *h;
  GstFlowReturn ret;
  gsize size;                   /* of the frame pushed */
  gint done;                    /* atomic: the push returned */
} LongPush;

static gpointer
push_long_frame (gpointer data)
{
  LongPush *push = data;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, push->size, NULL);

  gst_buffer_memset (buf, 0, 0x5a, push->size);
  push->ret = gst_harness_push (push->h, buf);
  g_atomic_int_set (&push->done, 1);
  return NULL;
}

/* A flush (a flushing seek) in the middle of a long frame ends it: the
 * push returns FLUSHING at once, and after the flush the element filters
 * again, exactly. */
GST_START_TEST (test_long_frame_flushed)
{
  const FormatCase *fc = format_case ("GRAY8");
  ClfParams params = { CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP };
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  LongPush push = { h, GST_FLOW_OK, 64 * 48, 0 };
  GThread *thread;
  gint64 start;

  g_object_set (h->element, "mode", CLF_MODE_BOX, "radius", 1023, NULL);
  set_caps (h, "GRAY8", 64, 48, &info);
  thread = g_thread_new ("push", push_long_frame, &push);
  g_usleep (G_USEC_PER_SEC / 2);
  start = g_get_monotonic_time ();
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  g_thread_join (thread);
  g_print ("flushed in the middle of a long frame in %.3f s\n",
      (g_get_monotonic_time () - start) / 1e6);
  fail_unless (g_get_monotonic_time () - start < STOP_WITHIN_US);
  /* A GPU may have finished the frame before the flush. */
  fail_unless (push.ret == GST_FLOW_FLUSHING || push.ret == GST_FLOW_OK,
      "%s", gst_flow_get_name (push.ret));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));

  set_caps (h, "GRAY8", 64, 48, &info);
  /* *INDENT-OFF* */
  gst_harness_push_event (h, gst_event_new_segment (&(GstSegment) {
            .format = GST_FORMAT_TIME, .rate = 1.0, .applied_rate = 1.0,
            .stop = GST_CLOCK_TIME_NONE, .duration = GST_CLOCK_TIME_NONE}));
  /* *INDENT-ON* */
  while (gst_harness_buffers_in_queue (h))
    gst_buffer_unref (gst_harness_pull (h));
  push_and_check (h, fc, &info, &params, INPUT_FROM_POOL);
  harness_free (h, bus);
}

GST_END_TEST;

/* mode=convolve with a 15x15 kernel of coefficients in -8..8 times 1000
 * (64-bit sums) on RGBA64_LE 7680x4320: about a second a frame on 2 PoCL
 * cores, more under load, tens of ms on a GPU. */
#define LONG_CONVOLVE_WIDTH 7680
#define LONG_CONVOLVE_HEIGHT 4320

static ClfKernel
long_convolve_kernel (void)
{
  ClfKernel k = {.size = CLF_MAX_KERNEL_SIZE };

  for (guint i = 0; i < k.size * k.size; i++)
    k.coeffs[i] = ((gint) (i * 7 % 17) - 8) * 1000;
  return k;
}

/* The element's kernel property from `k`, divisor 0 (their sum). */
static void
set_convolve_kernel (GstElement * e, const ClfKernel * k)
{
  GString *values = g_string_new ("<");

  for (guint i = 0; i < k->size * k->size; i++)
    g_string_append_printf (values, "%s%d", i ? "," : "", k->coeffs[i]);
  g_string_append (values, ">");
  g_object_set (e, "mode", CLF_MODE_CONVOLVE, "divisor", 0, "bias", 0, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "kernel", values->str);
  g_string_free (values, TRUE);
}

/* Counts the element's debug lines for a frame stopped between two
 * launches of a convolve kernel (the engine's CLF_ERROR_CANCELLED). */
static void
count_stopped_convolve (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  const gchar *text = gst_debug_message_get (message);

  if (text && strstr (text, "frame stopped") && strstr (text,
          "between two launches of its convolve_"))
    g_atomic_int_inc ((gint *) user_data);
}

/* A long convolve frame is cut into launches like a long blur: where its
 * first launch says the frame takes over a second, a WARNING says how slow
 * the kernel is, and a stop (going to NULL, or a flush: `__i__`) ends it
 * between two launches, which the debug log says, and the frame does not
 * come out.  A device that estimates the frame under a second (a GPU, a
 * fast CPU) finishes it instead: how long it then takes depends on the
 * machine and its load, so only that it comes out is checked here
 * (engine-long checks the launches of such frames).  After a flush, the
 * element filters again, exactly. */
GST_START_TEST (test_long_convolve_frame_stopped)
{
  const gboolean flush = __i__ == 1;
  const FormatCase *fc = format_case ("RGBA64_LE");
  ClfParams params = {.mode = CLF_MODE_CONVOLVE,.border = CLF_BORDER_CLAMP,
    .kernel = long_convolve_kernel ()
  };
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  LongPush push = { h, GST_FLOW_OK, 0, 0 };
  GstMessage *warning = NULL;
  gboolean warned;
  GThread *thread;
  gint stopped = 0;
  gint64 end;

  set_convolve_kernel (h->element, &params.kernel);
  set_caps (h, "RGBA64_LE", LONG_CONVOLVE_WIDTH, LONG_CONVOLVE_HEIGHT, &info);
  push.size = GST_VIDEO_INFO_SIZE (&info);
  gst_debug_set_threshold_for_name ("clfilter", GST_LEVEL_DEBUG);
  gst_debug_add_log_function (count_stopped_convolve, &stopped, NULL);
  thread = g_thread_new ("push", push_long_frame, &push);
  /* However loaded the machine: until the warning, or the frame out. */
  end = g_get_monotonic_time () + 300 * G_USEC_PER_SEC;
  while (!warning && gst_harness_buffers_received (h) == 0
      && g_get_monotonic_time () < end)
    warning = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND,
        GST_MESSAGE_WARNING);
  warned = warning != NULL;
  if (warned) {
    GError *error = NULL;
    gchar *debug = NULL;

    gst_message_parse_warning (warning, &error, &debug);
    g_print ("warning: %s\n", error->message);
    fail_unless (strstr (error->message, "mode=convolve with a 15x15 kernel "
            "takes about") != NULL, "%s", error->message);
    g_error_free (error);
    g_free (debug);
    gst_message_unref (warning);
    if (flush)
      fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    else
      fail_unless_equals_int (gst_element_set_state (h->element,
              GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    /* The frame ends before its next launch (the device thread may be in
     * one as the flush returns). */
    end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
    while (!g_atomic_int_get (&stopped) && g_get_monotonic_time () < end)
      g_usleep (10 * 1000);
  }
  g_thread_join (thread);
  gst_debug_remove_log_function (count_stopped_convolve);
  gst_debug_set_threshold_from_string (g_getenv ("GST_DEBUG"), TRUE);
  if (warned) {
    fail_unless_equals_int (g_atomic_int_get (&stopped), 1);
    fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  } else {
    guint64 kernel_ns = 0;

    gst_buffer_unref (gst_harness_pull (h));
    g_object_get (h->element, "last-kernel-ns", &kernel_ns, NULL);
    g_print ("the frame took %.2f s, without a warning\n", kernel_ns / 1e9);
    fail_unless (kernel_ns > 0);
  }
  if (flush) {
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    set_caps (h, "RGBA64_LE", 67, 45, &info);
    /* *INDENT-OFF* */
    gst_harness_push_event (h, gst_event_new_segment (&(GstSegment) {
              .format = GST_FORMAT_TIME,.rate = 1.0,.applied_rate = 1.0,
              .stop = GST_CLOCK_TIME_NONE,.duration = GST_CLOCK_TIME_NONE}));
    /* *INDENT-ON* */
    while (gst_harness_buffers_in_queue (h))
      gst_buffer_unref (gst_harness_pull (h));
    push_and_check (h, fc, &info, &params, INPUT_FROM_POOL);
  }
  harness_free (h, bus);
}

GST_END_TEST;

/* Row padding (the bytes after a row's samples, up to its stride) of
 * each plane of `buf`, set to `marker`, or checked to be 0 (marker 0). */
static void
row_padding (const FormatCase * fc, const GstVideoInfo * info,
    GstBuffer * buf, guint8 marker, const gchar * what)
{
  ClfFrameFormat format = frame_format (fc, info->width, info->height);
  GstVideoFrame frame;
  GstMapInfo all;

  fail_unless (gst_video_frame_map (&frame, info, buf, marker ?
          GST_MAP_READWRITE : GST_MAP_READ));
  fail_unless (gst_buffer_map (buf, &all, GST_MAP_READ));
  for (guint p = 0; p < format.n_planes; p++) {
    guint8 *plane = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gsize stride = (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    gsize row_bytes = clf_frame_format_row_bytes (&format, p);
    guint rows = clf_frame_format_rows (&format, p);

    for (guint y = 0; y < rows; y++) {
      guint8 *row = plane + y * stride;
      /* The last row's padding, where the buffer has it. */
      gsize end = MIN (stride, (gsize) (all.data + all.size - row));

      for (gsize x = row_bytes; x < end; x++) {
        if (marker)
          row[x] = marker;
        else
          fail_unless (row[x] == 0, "%s: plane %u row %u byte %"
              G_GSIZE_FORMAT " (of %" G_GSIZE_FORMAT " samples, stride %"
              G_GSIZE_FORMAT ") is 0x%02x, not 0", what, p, y, x,
              row_bytes, stride, row[x]);
      }
    }
  }
  gst_buffer_unmap (buf, &all);
  gst_video_frame_unmap (&frame);
}

static const struct
{
  const gchar *format;
  guint width, height;
} padded_rows[] = {
  {"GRAY8", 61, 64}, {"RGB", 61, 17}, {"I420", 61, 33},
};

/* The output's row padding is 0 on every frame, whatever the input's
 * padding held (a marker byte here), with zero-copy on and off, on memory
 * as on a discrete GPU and as on the CPU: it never carries another
 * buffer's bytes. */
GST_START_TEST (test_output_padding_zero)
{
  const guint n_cases = G_N_ELEMENTS (padded_rows);
  const gboolean zero_copy = (__i__ / n_cases) % 2 == 0;
  const gboolean discrete = __i__ / (2 * n_cases) == 1;
  const FormatCase *fc = format_case (padded_rows[__i__ % n_cases].format);
  ClfParams params = { CLF_MODE_SEPARABLE, 2, CLF_BORDER_CLAMP };
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h;

  if (discrete)
    g_setenv ("CLF_TEST_HOST_UNIFIED", "0", TRUE);
  h = harness_with_bus (zero_copy, &bus);
  g_object_set (h->element, "mode", params.mode, "radius", params.radius, NULL);
  set_caps (h, fc->name, padded_rows[__i__ % n_cases].width,
      padded_rows[__i__ % n_cases].height, &info);
  for (guint n = 0; n < 12; n++) {
    InputKind kind = zero_copy ? (InputKind) (n % N_INPUT_KINDS) :
        (n % 2 ? INPUT_PADDED : INPUT_UNALIGNED);
    GstBuffer *in = input_buffer (h, fc, &info, kind), *out;
    gchar *what = g_strdup_printf ("%s %dx%d zero-copy=%d%s, frame %u from "
        "%s", fc->name, info.width, info.height, zero_copy,
        discrete ? " discrete" : "", n, input_names[kind]);
    GstVideoInfo in_info = info;
    GstVideoMeta *meta = gst_buffer_get_video_meta (in);

    if (meta) {
      for (guint p = 0; p < meta->n_planes; p++) {
        in_info.offset[p] = meta->offset[p];
        in_info.stride[p] = meta->stride[p];
      }
      in_info.size = gst_buffer_get_size (in);
    }
    row_padding (fc, &in_info, in, 0xa5 + n, what);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    check_output (fc, &info, &params, what, in, out);
    row_padding (fc, &info, out, 0, what);
    g_free (what);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  harness_free (h, bus);
  g_unsetenv ("CLF_TEST_HOST_UNIFIED");
}

GST_END_TEST;

static Suite *
hostile_suite (void)
{
  Suite *s = suite_create ("hostile");
  TCase *tc = tcase_create ("hostile");

  test_rng_init ();
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_lying_video_meta_refused, 0,
      2 * G_N_ELEMENTS (lying_metas));
  tcase_add_test (tc, test_lying_downstream_pool_refused);
  tcase_add_test (tc, test_allocation_query_during_stop);
  tcase_add_test (tc, test_context_engine_released_at_finalize);
  tcase_add_test (tc, test_start_settings_changed_while_playing);
  tcase_add_test (tc, test_unread_bus_bounded);
  tcase_add_test (tc, test_long_frame_stops);
  tcase_add_test (tc, test_long_frame_flushed);
  tcase_add_loop_test (tc, test_long_convolve_frame_stopped, 0, 2);
  tcase_add_loop_test (tc, test_output_padding_zero, 0,
      4 * G_N_ELEMENTS (padded_rows));
  return s;
}

GST_CHECK_MAIN (hostile);
