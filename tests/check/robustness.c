/* GStreamer
 * Robustness tests of the clfilter element: a property storm from another
 * thread, renegotiation mid-stream, flushing seeks, EOS and restart, state
 * cycles and parallel pipelines on one device.  In every test, probes on the
 * element's pads log each frame in and out: frames in = frames out, each
 * with its timestamps, offsets and flags, and each exactly the reference's
 * bytes for the settings its clfilter-stats message reports.
 */
#include <glib/gstdio.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/clfilter/gstclfiltermeta.h>
#include "framecheck.h"

/* A flag of our own, set on some input frames: it must come out too. */
#define FLAG_CUSTOM GST_BUFFER_FLAG_LAST

/* The flags a filter must hand on from each input to its output (and must
 * not add: a flag left over from a pooled buffer's last use would show). */
#define PRESERVED_FLAGS (GST_BUFFER_FLAG_LIVE | GST_BUFFER_FLAG_DISCONT | \
    GST_BUFFER_FLAG_HEADER | GST_BUFFER_FLAG_GAP | \
    GST_BUFFER_FLAG_DROPPABLE | GST_BUFFER_FLAG_DELTA_UNIT | \
    GST_BUFFER_FLAG_MARKER | GST_BUFFER_FLAG_CORRUPTED | \
    GST_BUFFER_FLAG_NON_DROPPABLE | FLAG_CUSTOM)

/* Long enough for PoCL on a loaded machine, short of a hang. */
#define WAIT_TIMEOUT (60 * GST_SECOND)

/* ---- the frame log: what went in and out of one element --------------- */

typedef struct
{
  GstBuffer *buf;               /* until checked */
  GstClockTime pts;
  GstBufferFlags flags;
  GstVideoInfo info;            /* the caps on the pad it passed */
  guint epoch;                  /* flushes done before it passed */
  GstSegment segment;           /* outputs: the segment it was pushed in */
  gboolean came_out;            /* inputs: checked against an output */
  guint frame;                  /* outputs out before their stats: whose */
} LoggedFrame;

typedef struct
{
  GstElement *filter;
  GstPad *sink, *src;
  gulong probes[3];
  GMutex lock;
  GCond cond;
  GPtrArray *in, *out;          /* LoggedFrame */
  GPtrArray *stats;             /* GstStructure: clfilter-stats in order */
  GstStructure *summary;        /* the last clfilter-summary */
  guint epoch;
  /* The element feeds another clfilter: it passes each frame on as soon
   * as it is enqueued, before its figures exist (README, "Timing");
   * such outputs wait here for their stats to be checked. */
  gboolean feeds_clfilter;
  GPtrArray *early;             /* LoggedFrame: outputs before their stats */
} FrameLog;

/* How an input may go missing: only when a flush (seek) or a stop (state
 * change down) caught it between the element's pads; the element itself
 * must still have filtered and reported it. */
typedef enum
{
  LOSS_NONE = 0,
  LOSS_AT_FLUSH = 1 << 0,
  LOSS_AT_STOP = 1 << 1,
} LossAllowed;

static const gchar *
field_string (const GstStructure * s, const gchar * name)
{
  const gchar *value = gst_structure_get_string (s, name);

  fail_unless (value != NULL, "%s has no string %s", gst_structure_get_name
      (s), name);
  return value;
}

static guint64
field_uint64 (const GstStructure * s, const gchar * name)
{
  guint64 value = 0;

  fail_unless (gst_structure_get_uint64 (s, name, &value), "%s has no "
      "guint64 %s", gst_structure_get_name (s), name);
  return value;
}

/* The settings a frame was filtered with, as its stats message says. */
static ClfParams
stats_params (const GstStructure * s)
{
  ClfParams params = { 0 };
  const gchar *mode = field_string (s, "mode");
  const gchar *border = field_string (s, "border");
  gboolean known_mode = FALSE, known_border = FALSE;

  for (ClfMode m = CLF_MODE_BOX; m <= CLF_MODE_LAPLACE; m++)
    if (g_str_equal (mode, clf_mode_name (m))) {
      params.mode = m;
      known_mode = TRUE;
    }
  for (ClfBorder b = CLF_BORDER_CLAMP; b <= CLF_BORDER_MIRROR; b++)
    if (g_str_equal (border, clf_border_name (b))) {
      params.border = b;
      known_border = TRUE;
    }
  fail_unless (known_mode && known_border, "unknown mode %s or border %s",
      mode, border);
  fail_unless (gst_structure_get_uint (s, "radius", &params.radius));
  return params;
}

static gboolean
same_params (const ClfParams * a, const ClfParams * b)
{
  return a->mode == b->mode && a->radius == b->radius
      && a->border == b->border;
}

static void
check_kept (guint64 n, const gchar * what, guint64 in, guint64 out)
{
  fail_unless (in == out, "frame %" G_GUINT64_FORMAT ": %s %" G_GUINT64_FORMAT
      " in, %" G_GUINT64_FORMAT " out", n, what, in, out);
}

static gboolean
field_as_posted (GQuark field, const GValue * value, gpointer stats)
{
  const GValue *posted = gst_structure_id_get_value (stats, field);

  return posted && gst_value_compare (value, posted) == GST_VALUE_EQUAL;
}

/* The stats meta (for bindings): one on the buffer, even after two
 * filters, with the message's figures but device and pts. */
static void
check_stats_meta (guint64 n, GstBuffer * buf, const GstStructure * stats)
{
  const GstMetaInfo *info = gst_meta_get_info (GST_CL_FILTER_STATS_META_NAME);
  GstCustomMeta *meta;
  const GstStructure *s;
  gchar *text;

  fail_unless (info != NULL, "no %s meta registered",
      GST_CL_FILTER_STATS_META_NAME);
  fail_unless (gst_buffer_get_n_meta (buf, info->api) == 1,
      "frame %" G_GUINT64_FORMAT ": %u stats metas", n,
      gst_buffer_get_n_meta (buf, info->api));
  meta = gst_buffer_get_custom_meta (buf, GST_CL_FILTER_STATS_META_NAME);
  s = gst_custom_meta_get_structure (meta);
  text = gst_structure_to_string (s);
  fail_unless (gst_structure_n_fields (s) == gst_structure_n_fields (stats)
      - 2 && gst_structure_foreach (s, field_as_posted, (gpointer) stats),
      "frame %" G_GUINT64_FORMAT ": meta %s", n, text);
  g_free (text);
}

static gboolean
passed_through (const GstStructure * stats)
{
  gboolean passthrough = TRUE;

  fail_unless (gst_structure_get_boolean (stats, "passthrough",
          &passthrough));
  return passthrough;
}

/* One input against its output: caps, timestamps, offsets, flags, the
 * metas against the stats message, and every byte against the reference. */
static void
check_frame (guint64 n, const LoggedFrame * in, const LoggedFrame * out,
    const GstStructure * stats, gboolean early)
{
  GstBuffer *a = in->buf, *b = out->buf;
  GstClFilterMeta *meta = gst_buffer_get_cl_filter_meta (b);
  ClfParams params = stats_params (stats);
  gchar *source;

  fail_unless (GST_VIDEO_INFO_FORMAT (&in->info) ==
      GST_VIDEO_INFO_FORMAT (&out->info) && in->info.width == out->info.width
      && in->info.height == out->info.height, "frame %" G_GUINT64_FORMAT
      ": in as %s %dx%d, out as %s %dx%d", n,
      GST_VIDEO_INFO_NAME (&in->info), in->info.width, in->info.height,
      GST_VIDEO_INFO_NAME (&out->info), out->info.width, out->info.height);
  check_kept (n, "PTS", GST_BUFFER_PTS (a), GST_BUFFER_PTS (b));
  check_kept (n, "DTS", GST_BUFFER_DTS (a), GST_BUFFER_DTS (b));
  check_kept (n, "duration", GST_BUFFER_DURATION (a),
      GST_BUFFER_DURATION (b));
  check_kept (n, "offset", GST_BUFFER_OFFSET (a), GST_BUFFER_OFFSET (b));
  check_kept (n, "offset end", GST_BUFFER_OFFSET_END (a),
      GST_BUFFER_OFFSET_END (b));
  fail_unless (((GST_BUFFER_FLAGS (a) ^ GST_BUFFER_FLAGS (b)) &
          PRESERVED_FLAGS) == 0, "frame %" G_GUINT64_FORMAT ": flags 0x%x in,"
      " 0x%x out", n, GST_BUFFER_FLAGS (a) & PRESERVED_FLAGS,
      GST_BUFFER_FLAGS (b) & PRESERVED_FLAGS);
  /* Outputs stay inside the segment they are pushed in. */
  if (out->segment.format == GST_FORMAT_TIME)
    fail_unless (gst_segment_clip (&out->segment, GST_FORMAT_TIME,
            GST_BUFFER_PTS (b), GST_BUFFER_PTS (b), NULL, NULL),
        "frame %" G_GUINT64_FORMAT " at %" GST_TIME_FORMAT " is outside its "
        "segment %" GST_SEGMENT_FORMAT, n, GST_TIME_ARGS (GST_BUFFER_PTS (b)),
        &out->segment);

  /* A blur of radius 0 passes the frame through: no meta of its own. */
  if (passed_through (stats)) {
    fail_unless (params.mode != CLF_MODE_LAPLACE && params.radius == 0,
        "frame %" G_GUINT64_FORMAT ": %s r=%u passed through", n,
        clf_mode_name (params.mode), params.radius);
    fail_unless (a == b, "frame %" G_GUINT64_FORMAT ": passed through, "
        "but not the buffer that came in", n);
    return;
  }
  /* A frame passed on before its figures existed carries none. */
  if (early) {
    fail_unless (meta == NULL, "frame %" G_GUINT64_FORMAT " passed on early "
        "with a meta", n);
    fail_unless (gst_buffer_get_custom_meta (b, "clfilter-stats") == NULL);
  } else {
    fail_unless (meta != NULL, "frame %" G_GUINT64_FORMAT " has no meta", n);
    fail_unless_equals_uint64 (meta->frame, n);
  fail_unless_equals_string (meta->mode, field_string (stats, "mode"));
  fail_unless_equals_string (meta->border, field_string (stats, "border"));
  fail_unless_equals_int (meta->radius, params.radius);
    fail_unless_equals_uint64 (meta->kernel_ns, field_uint64 (stats,
            "kernel-ns"));
    check_stats_meta (n, b, stats);
  }

  source = g_strdup_printf ("frame %" G_GUINT64_FORMAT, n);
  check_output (format_case (GST_VIDEO_INFO_NAME (&in->info)), &in->info,
      &params, source, a, b);
  g_free (source);
}

static void
logged_frame_free (gpointer data)
{
  LoggedFrame *f = data;

  gst_clear_buffer (&f->buf);
  g_free (f);
}

static LoggedFrame *
logged_frame_new (FrameLog * log, GstPad * pad, GstBuffer * buf)
{
  LoggedFrame *f = g_new0 (LoggedFrame, 1);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstEvent *segment = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);

  fail_unless (caps != NULL, "a buffer on %s:%s without caps",
      GST_DEBUG_PAD_NAME (pad));
  fail_unless (gst_video_info_from_caps (&f->info, caps));
  gst_caps_unref (caps);
  gst_segment_init (&f->segment, GST_FORMAT_UNDEFINED);
  if (segment) {
    gst_event_copy_segment (segment, &f->segment);
    gst_event_unref (segment);
  }
  f->buf = gst_buffer_ref (buf);
  f->pts = GST_BUFFER_PTS (buf);
  f->flags = GST_BUFFER_FLAGS (buf);
  f->epoch = log->epoch;
  return f;
}

/* Checks output `out` of frame `n` against its input and stats, and lets
 * both go, so that the pools recycle buffers as they would without the
 * log. */
static void
frame_log_check_frame (FrameLog * log, guint n, LoggedFrame * out,
    gboolean early)
{
  LoggedFrame *in = g_ptr_array_index (log->in, n);

  check_frame (n, in, out, g_ptr_array_index (log->stats, n), early);
  gst_clear_buffer (&in->buf);
  gst_clear_buffer (&out->buf);
}

/* What leaves the element is the last frame that went in, already
 * reported, and is checked at once; or, when it feeds another clfilter,
 * the frame not yet reported, checked when its stats come. */
static void
frame_log_check_out (FrameLog * log, LoggedFrame * out)
{
  guint n = log->in->len - 1;
  LoggedFrame *in;

  fail_unless (log->in->len > 0, "a frame came out of %s before any went in",
      GST_OBJECT_NAME (log->filter));
  in = g_ptr_array_index (log->in, n);
  fail_if (in->came_out, "frame %u came out twice", n);
  in->came_out = TRUE;
  if (log->stats->len == n + 1) {
    frame_log_check_frame (log, n, out, FALSE);
    return;
  }
  fail_unless (log->feeds_clfilter && log->stats->len <= n, "frame %u came "
      "out with %u stats messages", n, log->stats->len);
  out->frame = n;
  g_ptr_array_add (log->early, out);
}

/* Checks the outputs that were waiting for the stats just logged. */
static void
frame_log_check_early (FrameLog * log)
{
  while (log->early->len > 0) {
    LoggedFrame *out = g_ptr_array_index (log->early, 0);
    guint n = out->frame;

    if (log->stats->len <= n)
      return;
    frame_log_check_frame (log, n, out, TRUE);
    g_ptr_array_remove_index (log->early, 0);
  }
}

static GstPadProbeReturn
log_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  FrameLog *log = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  LoggedFrame *f;

  g_mutex_lock (&log->lock);
  f = logged_frame_new (log, pad, buf);
  g_ptr_array_add (pad == log->sink ? log->in : log->out, f);
  if (pad == log->src)
    frame_log_check_out (log, f);
  g_cond_broadcast (&log->cond);
  g_mutex_unlock (&log->lock);
  return GST_PAD_PROBE_OK;
}

/* Frames before and after a flush belong to different epochs. */
static GstPadProbeReturn
log_flush (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  FrameLog *log = data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_FLUSH_STOP) {
    g_mutex_lock (&log->lock);
    log->epoch++;
    g_mutex_unlock (&log->lock);
  }
  return GST_PAD_PROBE_OK;
}

static FrameLog *
frame_log_new (GstElement * filter)
{
  FrameLog *log = g_new0 (FrameLog, 1);

  /* The log takes each output for the latest input, and every input for
   * reported: a filter that holds frames in flight (frames-in-flight
   * above 1, the default on a discrete GPU) breaks both, and drops the
   * frames in it at a flush without figures (test_frames_in_flight and
   * test_frames_in_flight_pipeline check those), so the filters logged
   * here work frame by frame on every device. */
  g_object_set (filter, "frames-in-flight", 1, NULL);
  log->filter = gst_object_ref (filter);
  log->sink = gst_element_get_static_pad (filter, "sink");
  log->src = gst_element_get_static_pad (filter, "src");
  g_mutex_init (&log->lock);
  g_cond_init (&log->cond);
  log->in = g_ptr_array_new_with_free_func (logged_frame_free);
  log->out = g_ptr_array_new_with_free_func (logged_frame_free);
  log->stats = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  log->early = g_ptr_array_new ();
  log->probes[0] = gst_pad_add_probe (log->sink, GST_PAD_PROBE_TYPE_BUFFER,
      log_buffer, log, NULL);
  log->probes[1] = gst_pad_add_probe (log->src, GST_PAD_PROBE_TYPE_BUFFER,
      log_buffer, log, NULL);
  log->probes[2] = gst_pad_add_probe (log->sink,
      GST_PAD_PROBE_TYPE_EVENT_FLUSH, log_flush, log, NULL);
  return log;
}

/* For a new run of the element (its frame count starts again at 0). */
static void
frame_log_reset (FrameLog * log)
{
  g_mutex_lock (&log->lock);
  g_ptr_array_set_size (log->in, 0);
  g_ptr_array_set_size (log->out, 0);
  g_ptr_array_set_size (log->stats, 0);
  g_ptr_array_set_size (log->early, 0);
  g_clear_pointer (&log->summary, gst_structure_free);
  log->epoch = 0;
  g_mutex_unlock (&log->lock);
}

static void
frame_log_free (FrameLog * log)
{
  gst_pad_remove_probe (log->sink, log->probes[0]);
  gst_pad_remove_probe (log->src, log->probes[1]);
  gst_pad_remove_probe (log->sink, log->probes[2]);
  frame_log_reset (log);
  g_ptr_array_unref (log->in);
  g_ptr_array_unref (log->out);
  g_ptr_array_unref (log->stats);
  g_ptr_array_unref (log->early);
  g_mutex_clear (&log->lock);
  g_cond_clear (&log->cond);
  gst_object_unref (log->sink);
  gst_object_unref (log->src);
  gst_object_unref (log->filter);
  g_free (log);
}

static guint
frame_log_n_out (FrameLog * log)
{
  guint n;

  g_mutex_lock (&log->lock);
  n = log->out->len;
  g_mutex_unlock (&log->lock);
  return n;
}

/* Waits until `n` frames have come out. */
static void
frame_log_wait_out (FrameLog * log, guint n)
{
  gint64 end = g_get_monotonic_time () + WAIT_TIMEOUT / GST_USECOND;

  g_mutex_lock (&log->lock);
  while (log->out->len < n)
    fail_unless (g_cond_wait_until (&log->cond, &log->lock, end),
        "%u of %u frames came out of %s", log->out->len, n,
        GST_OBJECT_NAME (log->filter));
  g_mutex_unlock (&log->lock);
}

/* Keeps the element's messages: stats in order, the last summary. */
static gboolean
frame_log_take_message (FrameLog * log, GstMessage * msg)
{
  const GstStructure *s = gst_message_get_structure (msg);

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT
      || GST_MESSAGE_SRC (msg) != GST_OBJECT (log->filter))
    return FALSE;
  g_mutex_lock (&log->lock);
  if (gst_structure_has_name (s, "clfilter-stats")) {
    g_ptr_array_add (log->stats, gst_structure_copy (s));
    frame_log_check_early (log);
  } else if (gst_structure_has_name (s, "clfilter-summary")) {
    g_clear_pointer (&log->summary, gst_structure_free);
    log->summary = gst_structure_copy (s);
  }
  g_mutex_unlock (&log->lock);
  return TRUE;
}

/* On the posting thread, so that a frame's stats are logged before the
 * frame leaves the element. */
static GstBusSyncReply
take_filter_messages (GstBus * bus, GstMessage * msg, gpointer data)
{
  GPtrArray *logs = data;

  for (guint i = 0; i < logs->len; i++)
    if (frame_log_take_message (g_ptr_array_index (logs, i), msg)) {
      gst_message_unref (msg);
      return GST_BUS_DROP;
    }
  return GST_BUS_PASS;
}

/* The bus takes the logs (an array the caller no longer needs). */
static void
watch_bus (GstBus * bus, GPtrArray * logs)
{
  gst_bus_set_sync_handler (bus, take_filter_messages, logs,
      (GDestroyNotify) g_ptr_array_unref);
}

static GPtrArray *
logs_of (FrameLog * log)
{
  GPtrArray *logs = g_ptr_array_new ();

  g_ptr_array_add (logs, log);
  return logs;
}

/* Every input was filtered and reported, in order, and came out, unless
 * a flush or a stop caught it (only as `loss` allows); returns how many
 * were caught. */
static guint
frame_log_check (FrameLog * log, LossAllowed loss)
{
  guint out = 0, lost = 0;

  g_mutex_lock (&log->lock);
  fail_unless (log->in->len > 0, "no frame went into %s",
      GST_OBJECT_NAME (log->filter));
  fail_unless_equals_int (log->stats->len, log->in->len);
  fail_unless_equals_int (log->early->len, 0);
  for (guint i = 0; i < log->in->len; i++) {
    const LoggedFrame *in = g_ptr_array_index (log->in, i);
    const LoggedFrame *next = i + 1 < log->in->len ?
        g_ptr_array_index (log->in, i + 1) : NULL;
    const GstStructure *stats = g_ptr_array_index (log->stats, i);

    /* The element numbers its frames from 0 and reports each one. */
    fail_unless_equals_uint64 (field_uint64 (stats, "frame"), i);
    fail_unless_equals_uint64 (field_uint64 (stats, "pts"), in->pts);
    if (in->came_out) {
      out++;
      continue;
    }
    fail_unless ((next && next->epoch > in->epoch && (loss & LOSS_AT_FLUSH))
        || (!next && (loss & LOSS_AT_STOP)), "frame %u (pts %"
        GST_TIME_FORMAT ") went into %s and never came out", i,
        GST_TIME_ARGS (in->pts), GST_OBJECT_NAME (log->filter));
    lost++;
  }
  fail_unless (out == log->out->len, "%s pushed %u frames for %u inputs",
      GST_OBJECT_NAME (log->filter), log->out->len, out);
  g_mutex_unlock (&log->lock);
  return lost;
}

/* ---- pipelines ------------------------------------------------------- */

static GstElement *
launch (const gchar * description)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);

  fail_unless (pipeline != NULL, "%s: %s", description,
      error ? error->message : "?");
  return pipeline;
}

static GstElement *
by_name (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);

  fail_unless (e != NULL, "no element %s", name);
  return e;
}

static void
set_state (GstElement * pipeline, GstState state)
{
  fail_unless (gst_element_set_state (pipeline, state) !=
      GST_STATE_CHANGE_FAILURE);
}

/* Waits for EOS: NULL, else what came instead (an error, or nothing in
 * time).  Fails nothing itself, for threads: a test fails in its own. */
static gchar *
eos_or_problem (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, WAIT_TIMEOUT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gchar *problem = NULL;

  if (!msg) {
    problem = g_strdup_printf ("%s: no EOS in time",
        GST_OBJECT_NAME (pipeline));
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *error = NULL;

    gst_message_parse_error (msg, &error, NULL);
    problem = g_strdup_printf ("%s: %s", GST_OBJECT_NAME (msg->src),
        error->message);
    g_error_free (error);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  return problem;
}

static void
wait_eos (GstElement * pipeline)
{
  gchar *problem = eos_or_problem (pipeline);

  fail_unless (problem == NULL, "%s", problem);
}

/* Flags and a DTS that change from frame to frame, for every test to see
 * them handed on. */
static void
stamp_flags (GstBuffer * buf, guint64 n)
{
  if (n % 2)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
  if (n % 3 == 0)
    GST_BUFFER_FLAG_SET (buf, FLAG_CUSTOM);
  if (n % 5 == 0)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_MARKER);
  if (n % 7 == 0)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  GST_BUFFER_DTS (buf) = GST_BUFFER_PTS (buf);
}

/* Frame n of a 30/1 stream: timestamps, offsets and flags. */
static void
stamp_frame (GstBuffer * buf, guint64 n)
{
  GST_BUFFER_PTS (buf) = n * GST_SECOND / 30;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  GST_BUFFER_OFFSET (buf) = n;
  GST_BUFFER_OFFSET_END (buf) = n + 1;
  stamp_flags (buf, n);
}

/* Stamps the frames a source pushes (numbered by their offsets). */
static GstPadProbeReturn
stamp_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));

  stamp_flags (buf, GST_BUFFER_OFFSET (buf));
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

static void
stamp_source (GstElement * pipeline, const gchar * name)
{
  GstElement *src = by_name (pipeline, name);
  GstPad *pad = gst_element_get_static_pad (src, "src");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, stamp_buffer, NULL,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (src);
}

/* A pipeline with a clfilter named f, logged, its frames stamped at a
 * source named src. */
static GstElement *
logged_pipeline (const gchar * description, FrameLog ** log)
{
  GstElement *pipeline = launch (description);
  GstElement *f = by_name (pipeline, "f");
  GstBus *bus = gst_element_get_bus (pipeline);

  *log = frame_log_new (f);
  watch_bus (bus, logs_of (*log));
  stamp_source (pipeline, "src");
  gst_object_unref (bus);
  gst_object_unref (f);
  return pipeline;
}

/* A random input frame the way an application hands it over: padded
 * rows described by a meta, or unaligned. */
static GstBuffer *
app_frame (const FormatCase * fc, const GstVideoInfo * info, guint64 n)
{
  GstBuffer *buf = n % 2 ? padded_buffer (fc, info) :
      fill_random (system_buffer (GST_VIDEO_INFO_SIZE (info), 1));

  stamp_frame (buf, n);
  return buf;
}

/* ---- property storm -------------------------------------------------- */

#define STORM_FRAMES 1000
#define STORM_MAX_RADIUS 4      /* box is O(r^2): keep it small */
#define STORM_PACE 2            /* frames per change */

typedef struct
{
  GstElement *filter;
  GRand *rng;
  gint stop;
  gint sets;
  gint pushed;                  /* frames handed to the pipeline */
  GArray *history;              /* ClfParams: every state set, in order */
} Storm;

/* Sets one property and notes the state it leaves (only the storm sets:
 * the history is the order the element can see the states in). */
static void
storm_set (Storm * s, const gchar * name, gint value)
{
  ClfParams now = { 0 };
  gint mode, border;

  g_object_set (s->filter, name, value, NULL);
  g_object_get (s->filter, "mode", &mode, "radius", &now.radius, "border",
      &border, NULL);
  now.mode = mode;
  now.border = border;
  g_array_append_val (s->history, now);
}

/* Changes one setting, or all three in a row, always to a different
 * value. */
static void
storm_change (Storm * s)
{
  const ClfParams *now = &g_array_index (s->history, ClfParams,
      s->history->len - 1);
  gint mode = (now->mode + g_rand_int_range (s->rng, 1, 4)) % 4;
  gint radius = (now->radius + g_rand_int_range (s->rng, 1,
          STORM_MAX_RADIUS + 1)) % (STORM_MAX_RADIUS + 1);
  gint border = !now->border;

  switch (g_rand_int_range (s->rng, 0, 4)) {
    case 0:
      storm_set (s, "mode", mode);
      break;
    case 1:
      storm_set (s, "radius", radius);
      break;
    case 2:
      storm_set (s, "border", border);
      break;
    default:
      storm_set (s, "mode", mode);
      storm_set (s, "radius", radius);
      storm_set (s, "border", border);
      break;
  }
}

static gpointer
storm_run (gpointer data)
{
  Storm *s = data;

  while (!g_atomic_int_get (&s->stop)) {
    g_usleep (g_rand_int_range (s->rng, 1, 6) * 1000);
    /* No more than a change ahead of the frames (while PoCL compiles a
     * program, say), or the changes would pile up between two frames. */
    if (g_atomic_int_get (&s->sets) * STORM_PACE >
        g_atomic_int_get (&s->pushed))
      continue;
    storm_change (s);
    g_atomic_int_inc (&s->sets);
  }
  return NULL;
}

/* Each frame was filtered with a state the storm set, no older than the
 * frame before's: an element filtering with settings of its own making,
 * or going back to old ones, cannot match the history in order. */
static void
check_settings_history (Storm * s, FrameLog * log)
{
  guint h = 0;

  for (guint i = 0; i < log->stats->len; i++) {
    ClfParams p = stats_params (g_ptr_array_index (log->stats, i));

    while (h < s->history->len && !same_params (&p,
            &g_array_index (s->history, ClfParams, h)))
      h++;
    fail_unless (h < s->history->len, "frame %u: %s r=%u %s was never set "
        "after the settings of the frame before", i, clf_mode_name (p.mode),
        p.radius, clf_border_name (p.border));
  }
}

/* Frames whose settings differ from the frame before's. */
static guint
settings_changes (FrameLog * log)
{
  guint changes = 0;

  for (guint i = 1; i < log->stats->len; i++) {
    ClfParams a = stats_params (g_ptr_array_index (log->stats, i - 1));
    ClfParams b = stats_params (g_ptr_array_index (log->stats, i));
    changes += !same_params (&a, &b);
  }
  return changes;
}

/* mode, radius and border change every few ms from another thread while
 * 1,000 frames play: every frame comes out, exactly as the reference
 * makes it with the settings its stats message reports. */
GST_START_TEST (test_property_storm)
{
  static const gchar *names[] = { "RGB", "I420" };
  const FormatCase *fc = format_case (names[__i__]);
  gchar *desc = caps_string (fc->name, 61, 37);
  GstCaps *caps = gst_caps_from_string (desc);
  GstElement *pipeline = launch ("appsrc name=src format=time block=true "
      "max-buffers=4 ! clfilter name=f ! fakesink sync=false");
  GstElement *src = by_name (pipeline, "src");
  GstElement *f = by_name (pipeline, "f");
  GstBus *bus = gst_element_get_bus (pipeline);
  FrameLog *log = frame_log_new (f);
  Storm storm = { f, g_rand_new_with_seed (g_rand_int (test_rng)), 0, 0, 0,
    g_array_new (FALSE, FALSE, sizeof (ClfParams))
  };
  const ClfParams initial = { CLF_MODE_BOX, 2, CLF_BORDER_CLAMP };
  GstVideoInfo info;
  GThread *thread;
  guint changes;

  watch_bus (bus, logs_of (log));
  g_object_set (src, "caps", caps, NULL);
  fail_unless (gst_video_info_from_caps (&info, caps));
  g_object_set (f, "mode", initial.mode, "radius", initial.radius, "border",
      initial.border, NULL);
  g_array_append_val (storm.history, initial);
  set_state (pipeline, GST_STATE_PLAYING);
  thread = g_thread_new ("storm", storm_run, &storm);
  for (guint64 n = 0; n < STORM_FRAMES; n++) {
    /* Frames go faster than the storm on PoCL (a fraction of a ms each):
     * held back so that it blows all through them, a change every
     * STORM_PACE frames. */
    while ((guint64) g_atomic_int_get (&storm.sets) < n / STORM_PACE)
      g_usleep (500);
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
            app_frame (fc, &info, n)), GST_FLOW_OK);
    g_atomic_int_set (&storm.pushed, n + 1);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  wait_eos (pipeline);
  g_atomic_int_set (&storm.stop, 1);
  g_thread_join (thread);

  fail_unless_equals_int (frame_log_n_out (log), STORM_FRAMES);
  frame_log_check (log, LOSS_NONE);
  check_settings_history (&storm, log);
  changes = settings_changes (log);
  g_print ("storm on %s: %d settings, %u changes between frames\n", fc->name,
      storm.sets, changes);
  fail_unless (changes >= STORM_FRAMES / STORM_PACE / 2,
      "the storm was calm: %d settings, %u changes between frames",
      storm.sets, changes);

  set_state (pipeline, GST_STATE_NULL);
  frame_log_free (log);
  g_rand_free (storm.rng);
  g_array_unref (storm.history);
  gst_caps_unref (caps);
  g_free (desc);
  gst_object_unref (bus);
  gst_object_unref (f);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* ---- renegotiation --------------------------------------------------- */

static const struct
{
  const gchar *format;
  guint width, height;
} caps_steps[] = {
  {"RGBA", 64, 48}, {"I420", 13, 11}, {"NV12", 31, 17}, {"GRAY8", 1, 1},
  {"RGB", 7, 1}, {"Y444", 9, 20}, {"RGBA", 64, 48},
};

/* Sizes and formats change between frames in the harness: new caps, a new
 * plan and new pools each time; frames from the pool clfilter proposes for
 * the new caps, padded and unaligned, in every mode. */
GST_START_TEST (test_renegotiation)
{
  GstHarness *h = gst_harness_new ("clfilter");
  GstBus *bus = gst_bus_new ();
  FrameLog *log = frame_log_new (h->element);
  guint64 n = 0;

  watch_bus (bus, logs_of (log));
  gst_element_set_bus (h->element, bus);
  for (guint s = 0; s < G_N_ELEMENTS (caps_steps); s++) {
    const FormatCase *fc = format_case (caps_steps[s].format);
    GstVideoInfo info;

    set_caps (h, fc->name, caps_steps[s].width, caps_steps[s].height, &info);
    for (InputKind kind = 0; kind < N_INPUT_KINDS; kind++, n++) {
      GstBuffer *in = input_buffer (h, fc, &info, kind), *out;

      g_object_set (h->element, "mode", (gint) (n % 4), "radius",
          (guint) (n % 5), "border", (gint) (n % 2), NULL);
      stamp_frame (in, n);
      fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
      out = gst_harness_pull (h);
      fail_unless (out != NULL, "frame %" G_GUINT64_FORMAT " did not come "
          "out", n);
      gst_buffer_unref (out);
    }
  }
  fail_unless_equals_int (frame_log_n_out (log), n);
  frame_log_check (log, LOSS_NONE);

  gst_element_set_bus (h->element, NULL);
  frame_log_free (log);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The same caps changes in a playing pipeline, through two filters in a
 * row: the second one's pool feeds the first one's output, and both are
 * renegotiated at every step. */
GST_START_TEST (test_renegotiation_in_pipeline)
{
  GstElement *pipeline = launch ("appsrc name=src format=time block=true "
      "max-buffers=2 ! clfilter name=a mode=sliding radius=3 ! "
      "clfilter name=b mode=laplace border=mirror ! fakesink sync=false");
  GstElement *src = by_name (pipeline, "src");
  GstElement *a = by_name (pipeline, "a");
  GstElement *b = by_name (pipeline, "b");
  GstBus *bus = gst_element_get_bus (pipeline);
  FrameLog *log_a = frame_log_new (a), *log_b = frame_log_new (b);
  GPtrArray *logs = g_ptr_array_new ();
  guint64 n = 0;

  log_a->feeds_clfilter = TRUE;
  g_ptr_array_add (logs, log_a);
  g_ptr_array_add (logs, log_b);
  watch_bus (bus, logs);
  set_state (pipeline, GST_STATE_PLAYING);
  for (guint s = 0; s < G_N_ELEMENTS (caps_steps); s++) {
    gchar *desc = caps_string (caps_steps[s].format, caps_steps[s].width,
        caps_steps[s].height);
    GstCaps *caps = gst_caps_from_string (desc);
    GstVideoInfo info;

    fail_unless (gst_video_info_from_caps (&info, caps));
    for (guint k = 0; k < 3; k++, n++) {
      GstBuffer *buf = app_frame (format_case (caps_steps[s].format), &info,
          n);
      GstSample *sample = gst_sample_new (buf, caps, NULL, NULL);

      fail_unless_equals_int (gst_app_src_push_sample (GST_APP_SRC (src),
              sample), GST_FLOW_OK);
      gst_sample_unref (sample);
      gst_buffer_unref (buf);
    }
    gst_caps_unref (caps);
    g_free (desc);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  wait_eos (pipeline);
  fail_unless_equals_int (frame_log_n_out (log_b), n);
  frame_log_check (log_a, LOSS_NONE);
  frame_log_check (log_b, LOSS_NONE);

  set_state (pipeline, GST_STATE_NULL);
  frame_log_free (log_a);
  frame_log_free (log_b);
  gst_object_unref (bus);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* ---- flushing seeks -------------------------------------------------- */

typedef struct
{
  GstClockTime start, stop;
} SeekStep;

/* The first frame out of each epoch (after each flush). */
static const LoggedFrame *
first_out_of_epoch (FrameLog * log, guint epoch)
{
  for (guint j = 0; j < log->out->len; j++) {
    const LoggedFrame *f = g_ptr_array_index (log->out, j);
    if (f->epoch == epoch)
      return f;
  }
  return NULL;
}

/* The frames out of an epoch (the log's lock held). */
static guint
frames_of_epoch (FrameLog * log, guint epoch)
{
  guint n = 0;

  for (guint j = 0; j < log->out->len; j++)
    n += ((LoggedFrame *) g_ptr_array_index (log->out, j))->epoch == epoch;
  return n;
}

/* Waits for n frames out of an epoch, however many came out before. */
static void
frame_log_wait_epoch_out (FrameLog * log, guint epoch, guint n)
{
  gint64 end = g_get_monotonic_time () + WAIT_TIMEOUT / GST_USECOND;

  g_mutex_lock (&log->lock);
  while (frames_of_epoch (log, epoch) < n)
    fail_unless (g_cond_wait_until (&log->cond, &log->lock, end),
        "%u of %u frames of epoch %u came out", frames_of_epoch (log, epoch),
        n, epoch);
  g_mutex_unlock (&log->lock);
}

static gboolean
pad_is_flushing (GstPad * pad)
{
  gboolean flushing;

  GST_OBJECT_LOCK (pad);
  flushing = GST_PAD_IS_FLUSHING (pad);
  GST_OBJECT_UNLOCK (pad);
  return flushing;
}

/* Holds the HOLD_NTH frame of the segment that starts at arm_at, at the
 * element's sink pad (after the log saw it), until a flush reaches the
 * source pad: the frame is filtered and then refused there, caught by the
 * flush between the pads.  Counted from the segment, in the streaming
 * thread, not armed by the test's thread: a segment's frames cannot all
 * pass before the hold, however slow that thread is. */
#define HOLD_NTH 8

typedef struct
{
  GstPad *src;
  GstClockTime arm_at;
  gint countdown, holding;
} FlushCatch;

static GstPadProbeReturn
hold_for_flush (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  FlushCatch *c = data;
  gint64 end = g_get_monotonic_time () + WAIT_TIMEOUT / GST_USECOND;

  if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
    const GstSegment *segment;

    if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT) {
      gst_event_parse_segment (event, &segment);
      if (segment->start == c->arm_at)
        g_atomic_int_set (&c->countdown, HOLD_NTH);
    }
    return GST_PAD_PROBE_OK;
  }
  if (g_atomic_int_get (&c->countdown) <= 0
      || !g_atomic_int_dec_and_test (&c->countdown))
    return GST_PAD_PROBE_OK;
  g_atomic_int_set (&c->holding, 1);
  while (!pad_is_flushing (c->src) && g_get_monotonic_time () < end)
    g_usleep (1000);
  return GST_PAD_PROBE_OK;
}

static void
wait_holding (FlushCatch * c)
{
  gint64 end = g_get_monotonic_time () + WAIT_TIMEOUT / GST_USECOND;

  while (!g_atomic_int_get (&c->holding)) {
    fail_unless (g_get_monotonic_time () < end, "no frame to hold");
    g_usleep (1000);
  }
}

/* Flushing seeks while frames flow (with the sink waiting on the clock,
 * or as fast as they go): nothing hangs, no stale frame comes out after a
 * flush, and the frames of each new segment start at the position sought,
 * every one exact.  Only a frame the flush caught between the element's
 * pads may go missing, and the element still filtered and reported it. */
GST_START_TEST (test_flushing_seeks)
{
  static const SeekStep seeks[] = {
    {5 * GST_SECOND, 6 * GST_SECOND},
    {GST_SECOND, 2 * GST_SECOND},
    {0, GST_SECOND / 2},
  };
  gboolean sync = __i__;
  gchar *desc = g_strdup_printf ("videotestsrc name=src pattern=snow ! "
      "video/x-raw,format=NV12,width=45,height=29,framerate=30/1 ! "
      "clfilter name=f mode=sliding radius=3 border=mirror ! "
      "fakesink sync=%d", sync);
  FrameLog *log;
  GstElement *pipeline = logged_pipeline (desc, &log);
  /* The second seek's flush catches a frame of the first seek's segment
   * inside the element. */
  FlushCatch hold = { log->src, seeks[0].start };
  guint lost;

  gst_pad_add_probe (log->sink, GST_PAD_PROBE_TYPE_BUFFER
      | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, hold_for_flush, &hold, NULL);
  set_state (pipeline, GST_STATE_PLAYING);
  frame_log_wait_out (log, 8);
  for (guint s = 0; s < G_N_ELEMENTS (seeks); s++) {
    fail_unless (gst_element_seek (pipeline, 1.0, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
            seeks[s].start, GST_SEEK_TYPE_SET, seeks[s].stop));
    drop_stale_eos (pipeline);
    /* The next seek while this segment's frames flow (its first, with
     * one held). */
    if (s == 0)
      wait_holding (&hold);
    else if (s + 1 < G_N_ELEMENTS (seeks))
      frame_log_wait_epoch_out (log, s + 1, 4);
  }
  wait_eos (pipeline);

  lost = frame_log_check (log, LOSS_AT_FLUSH);
  fail_unless (lost >= 1 && lost <= G_N_ELEMENTS (seeks), "%u frames lost "
      "in %u seeks, one of them held for the flush", lost,
      (guint) G_N_ELEMENTS (seeks));
  g_mutex_lock (&log->lock);
  fail_unless_equals_int (log->epoch, G_N_ELEMENTS (seeks));
  for (guint s = 0; s < G_N_ELEMENTS (seeks); s++) {
    const LoggedFrame *head = first_out_of_epoch (log, s + 1);
    guint n = frames_of_epoch (log, s + 1);

    fail_unless (head != NULL, "no frame after seek %u", s);
    fail_unless_equals_uint64 (head->pts, seeks[s].start);
    fail_unless_equals_uint64 (head->segment.start, seeks[s].start);
    fail_unless_equals_uint64 (head->segment.stop, seeks[s].stop);
    fail_unless (head->flags & GST_BUFFER_FLAG_DISCONT);
    /* The last segment plays to its end. */
    if (s + 1 == G_N_ELEMENTS (seeks))
      fail_unless_equals_int (n, (seeks[s].stop - seeks[s].start) * 30 /
          GST_SECOND);
  }
  g_mutex_unlock (&log->lock);
  g_print ("seeks with sync=%d: %u frames out, %u caught by a flush\n",
      sync, frame_log_n_out (log), lost);

  set_state (pipeline, GST_STATE_NULL);
  frame_log_free (log);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

/* ---- EOS and restart ------------------------------------------------- */

#define RESTART_FRAMES 12

static void
check_summary (FrameLog * log, guint64 frames)
{
  g_mutex_lock (&log->lock);
  fail_unless (log->summary != NULL, "no clfilter-summary at EOS");
  fail_unless_equals_uint64 (field_uint64 (log->summary, "frames"), frames);
  g_mutex_unlock (&log->lock);
}

/* Plays to EOS, goes down to READY or NULL and plays again, with other
 * settings: frames flow again, exactly, numbered from 0, and each run's
 * summary counts that run's frames. */
GST_START_TEST (test_eos_and_restart)
{
  static const GstState downs[] = { GST_STATE_READY, GST_STATE_NULL,
    GST_STATE_READY
  };
  FrameLog *log;
  GstElement *pipeline = logged_pipeline ("videotestsrc name=src "
      "pattern=snow num-buffers=" G_STRINGIFY (RESTART_FRAMES) " ! "
      "video/x-raw,format=BGRx,width=40,height=30 ! clfilter name=f "
      "mode=separable radius=6 ! fakesink sync=false", &log);
  guint64 frames = 0;

  for (guint run = 0; run <= G_N_ELEMENTS (downs); run++) {
    set_state (pipeline, GST_STATE_PLAYING);
    wait_eos (pipeline);
    fail_unless_equals_int (frame_log_n_out (log), RESTART_FRAMES);
    frame_log_check (log, LOSS_NONE);
    check_summary (log, RESTART_FRAMES);
    g_object_get (log->filter, "frames", &frames, NULL);
    fail_unless_equals_uint64 (frames, RESTART_FRAMES);
    if (run == G_N_ELEMENTS (downs))
      break;
    set_state (pipeline, downs[run]);
    frame_log_reset (log);
    g_object_set (log->filter, "mode", (gint) (run % 4), "radius", run + 1,
        "border", (gint) (run % 2), NULL);
  }

  set_state (pipeline, GST_STATE_NULL);
  frame_log_free (log);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* ---- state cycles ---------------------------------------------------- */

#define CYCLES 100
#define CYCLE_FRAMES 4

/* NULL -> PLAYING -> NULL 100 times, frames flowing each time: every other
 * cycle plays to EOS, the others stop while frames flow.  Each cycle's
 * frames are exact; a stop may catch the last frame between the pads, but
 * the element filtered every frame that went in. */
GST_START_TEST (test_state_cycles)
{
  FrameLog *log;
  GstElement *pipeline = logged_pipeline ("videotestsrc name=src "
      "pattern=snow num-buffers=" G_STRINGIFY (CYCLE_FRAMES) " ! "
      "video/x-raw,format=I420,width=19,height=9,framerate=30/1 ! "
      "clfilter name=f mode=box radius=2 ! fakesink sync=true", &log);
  guint lost = 0;

  for (guint cycle = 0; cycle < CYCLES; cycle++) {
    gboolean to_eos = cycle % 2 == 0;
    guint64 frames = 0;

    g_object_set (log->filter, "mode", (gint) (cycle % 4), NULL);
    set_state (pipeline, GST_STATE_PLAYING);
    if (to_eos)
      wait_eos (pipeline);
    else
      frame_log_wait_out (log, 1);
    set_state (pipeline, GST_STATE_NULL);

    g_object_get (log->filter, "frames", &frames, NULL);
    g_mutex_lock (&log->lock);
    fail_unless_equals_uint64 (frames, log->in->len);
    g_mutex_unlock (&log->lock);
    if (to_eos)
      fail_unless_equals_int (frame_log_n_out (log), CYCLE_FRAMES);
    lost += frame_log_check (log, to_eos ? LOSS_NONE : LOSS_AT_STOP);
    frame_log_reset (log);
  }
  g_print ("%u state cycles, %u frames caught by a stop\n", CYCLES, lost);

  frame_log_free (log);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* ---- parallel pipelines ---------------------------------------------- */

#define PARALLEL 4
#define PARALLEL_FRAMES 40

typedef struct
{
  GstElement *pipeline;
  FrameLog *log;
  gchar *problem;
} Player;

/* A failed start posts an error, which eos_or_problem() returns. */
static gpointer
play_to_eos (gpointer data)
{
  Player *p = data;

  gst_element_set_state (p->pipeline, GST_STATE_PLAYING);
  p->problem = eos_or_problem (p->pipeline);
  return NULL;
}

/* The engine one filter made, once its pipeline has started. */
static GstContext *
engine_context (void)
{
  GstElement *pipeline = launch ("videotestsrc num-buffers=1 ! "
      "clfilter name=f ! fakesink");
  GstElement *f = by_name (pipeline, "f");
  GstContext *context;

  set_state (pipeline, GST_STATE_PLAYING);
  wait_eos (pipeline);
  context = gst_element_get_context (f, "gst.clfilter.engine");
  fail_unless (context != NULL);
  set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (f);
  gst_object_unref (pipeline);
  return context;
}

/* Four pipelines, each in its thread, with filters of different modes and
 * formats on the same device: each its own engine, then all one engine
 * (one queue) that the application shares.  All complete, all exact. */
GST_START_TEST (test_parallel_pipelines)
{
  static const gchar *filters[PARALLEL] = {
    "format=RGBA,width=33,height=17 ! clfilter name=f mode=box radius=2",
    "format=I420,width=29,height=21 ! clfilter name=f mode=separable "
        "radius=5 border=mirror",
    "format=NV21,width=17,height=31 ! clfilter name=f mode=sliding radius=9",
    "format=RGB,width=23,height=13 ! clfilter name=f mode=laplace "
        "border=mirror",
  };
  gboolean shared = __i__;
  GstContext *context = shared ? engine_context () : NULL;
  Player players[PARALLEL];
  GThread *threads[PARALLEL];
  gchar *device[PARALLEL];

  for (guint i = 0; i < PARALLEL; i++) {
    gchar *desc = g_strdup_printf ("videotestsrc name=src pattern=snow "
        "num-buffers=%d ! video/x-raw,%s ! fakesink sync=false",
        PARALLEL_FRAMES, filters[i]);

    players[i].pipeline = logged_pipeline (desc, &players[i].log);
    players[i].problem = NULL;
    /* As an application does (the bus's sync handler is the log's). */
    if (shared)
      gst_element_set_context (players[i].log->filter, context);
    g_free (desc);
  }
  for (guint i = 0; i < PARALLEL; i++)
    threads[i] = g_thread_new ("player", play_to_eos, &players[i]);
  for (guint i = 0; i < PARALLEL; i++)
    g_thread_join (threads[i]);

  for (guint i = 0; i < PARALLEL; i++) {
    fail_unless (players[i].problem == NULL, "pipeline %u: %s", i,
        players[i].problem);
    fail_unless_equals_int (frame_log_n_out (players[i].log),
        PARALLEL_FRAMES);
    frame_log_check (players[i].log, LOSS_NONE);
    g_object_get (players[i].log->filter, "device-name", &device[i], NULL);
    fail_unless_equals_string (device[i], device[0]);
  }
  for (guint i = 0; i < PARALLEL; i++) {
    set_state (players[i].pipeline, GST_STATE_NULL);
    frame_log_free (players[i].log);
    gst_object_unref (players[i].pipeline);
    g_free (device[i]);
  }
  if (context)
    gst_context_unref (context);
}

GST_END_TEST;

/* ---- a stop while the kernels build ---------------------------------- */

#define BUILD_STOP_FRAMES 8

typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean arrived;
} CapsArrival;

/* The caps reach the element: it builds its kernels for them next. */
static GstPadProbeReturn
note_caps (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  CapsArrival *caps = data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_CAPS) {
    g_mutex_lock (&caps->lock);
    caps->arrived = TRUE;
    g_cond_broadcast (&caps->cond);
    g_mutex_unlock (&caps->lock);
  }
  return GST_PAD_PROBE_OK;
}

static void
wait_caps (CapsArrival * caps)
{
  gint64 end = g_get_monotonic_time () + WAIT_TIMEOUT / GST_USECOND;

  g_mutex_lock (&caps->lock);
  while (!caps->arrived)
    fail_unless (g_cond_wait_until (&caps->cond, &caps->lock, end),
        "no caps reached the filter");
  g_mutex_unlock (&caps->lock);
}

/* The program binaries in the element's cache under `dir`. */
static guint
cached_programs (const gchar * dir)
{
  gchar *path = g_build_filename (dir, "gst-clfilter", NULL);
  GDir *d = g_dir_open (path, 0, NULL);
  const gchar *name;
  guint n = 0;

  while (d && (name = g_dir_read_name (d)))
    n += g_str_has_suffix (name, ".bin");
  if (d)
    g_dir_close (d);
  g_free (path);
  return n;
}

static void
remove_tree (const gchar * path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const gchar *name;

  while (d && (name = g_dir_read_name (d))) {
    gchar *child = g_build_filename (path, name, NULL);

    if (g_file_test (child, G_FILE_TEST_IS_DIR)
        && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
      remove_tree (child);
    else
      g_unlink (child);
    g_free (child);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (path);
}

/* A logged pipeline that starts with empty caches (the element's
 * binaries and PoCL's kernels, both under XDG_CACHE_HOME, read when the
 * driver starts: each test runs in a process of its own), so that its
 * kernels build from source: seconds on PoCL.  `caps` says when the caps
 * reach the filter, which then builds. */
typedef struct
{
  gchar *cache, *old_cache;
  CapsArrival caps;
  FrameLog *log;
  GstElement *pipeline;
} ColdStart;

static void
cold_start_init (ColdStart * cold, const gchar * description)
{
  cold->cache = g_dir_make_tmp ("clfilter-cold-XXXXXX", NULL);
  fail_unless (cold->cache != NULL);
  cold->old_cache = g_strdup (g_getenv ("XDG_CACHE_HOME"));
  g_setenv ("XDG_CACHE_HOME", cold->cache, TRUE);
  g_unsetenv ("POCL_CACHE_DIR");
  cold->pipeline = logged_pipeline (description, &cold->log);
  g_mutex_init (&cold->caps.lock);
  g_cond_init (&cold->caps.cond);
  cold->caps.arrived = FALSE;
  gst_pad_add_probe (cold->log->sink, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      note_caps, &cold->caps, NULL);
}

static void
cold_start_clear (ColdStart * cold)
{
  set_state (cold->pipeline, GST_STATE_NULL);
  frame_log_free (cold->log);
  gst_object_unref (cold->pipeline);
  g_mutex_clear (&cold->caps.lock);
  g_cond_clear (&cold->caps.cond);
  if (cold->old_cache)
    g_setenv ("XDG_CACHE_HOME", cold->old_cache, TRUE);
  else
    g_unsetenv ("XDG_CACHE_HOME");
  remove_tree (cold->cache);
  g_free (cold->old_cache);
  g_free (cold->cache);
}

/* A stop while the kernels build returns at once (within the second the
 * issue allows), before the build ended: nothing came out and no binary
 * was cached yet.  The build goes on by itself; the next start takes its
 * program, filters every frame exactly, and the binary is then cached. */
GST_START_TEST (test_stop_while_building)
{
  ColdStart cold;
  gint64 start, took;

  cold_start_init (&cold, "videotestsrc name=src pattern=snow "
      "num-buffers=" G_STRINGIFY (BUILD_STOP_FRAMES) " ! "
      "video/x-raw,format=RGBA,width=64,height=36 ! clfilter name=f "
      "mode=laplace ! fakesink sync=false");
  set_state (cold.pipeline, GST_STATE_PLAYING);
  wait_caps (&cold.caps);
  start = g_get_monotonic_time ();
  set_state (cold.pipeline, GST_STATE_NULL);
  took = g_get_monotonic_time () - start;
  fail_unless (took < G_USEC_PER_SEC, "the stop took %.1f s: it waited for "
      "the kernels' build", took / 1e6);
  fail_unless_equals_int (frame_log_n_out (cold.log), 0);
  fail_unless_equals_int (cached_programs (cold.cache), 0);

  frame_log_reset (cold.log);
  set_state (cold.pipeline, GST_STATE_PLAYING);
  wait_eos (cold.pipeline);
  fail_unless_equals_int (frame_log_n_out (cold.log), BUILD_STOP_FRAMES);
  frame_log_check (cold.log, LOSS_NONE);
  fail_unless_equals_int (cached_programs (cold.cache), 1);
  cold_start_clear (&cold);
}

GST_END_TEST;

/* A cold start of `format` (caps after format=) filtered with
 * `settings`, and a flushing seek to [1 s, 2 s] as soon as the caps
 * reach the filter, while its kernels build. */
static void
seek_while_building (ColdStart * cold, const gchar * format,
    const gchar * settings)
{
  gchar *description = g_strdup_printf ("videotestsrc name=src "
      "pattern=snow ! video/x-raw,format=%s,framerate=30/1 ! clfilter "
      "name=f %s ! fakesink sync=false", format, settings);

  cold_start_init (cold, description);
  g_free (description);
  set_state (cold->pipeline, GST_STATE_PLAYING);
  wait_caps (&cold->caps);
  fail_unless (gst_element_seek (cold->pipeline, 1.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
          GST_SECOND, GST_SEEK_TYPE_SET, 2 * GST_SECOND));
}

/* A flushing seek while the kernels build does not wait for the build
 * either (no binary is cached when it returns); the element then takes
 * the caps it had again, and every frame of the new segment comes out,
 * exactly. */
GST_START_TEST (test_seek_while_building)
{
  ColdStart cold;

  seek_while_building (&cold, "NV12,width=45,height=29",
      "mode=sliding radius=3");
  fail_unless_equals_int (cached_programs (cold.cache), 0);

  wait_eos (cold.pipeline);
  fail_unless_equals_int (frame_log_n_out (cold.log), 30);
  frame_log_check (cold.log, LOSS_NONE);
  g_mutex_lock (&cold.log->lock);
  fail_unless_equals_uint64 (((LoggedFrame *) g_ptr_array_index
          (cold.log->out, 0))->pts, GST_SECOND);
  g_mutex_unlock (&cold.log->lock);
  /* NV12: a program for luma, one for the interleaved chroma. */
  fail_unless_equals_int (cached_programs (cold.cache), 2);
  cold_start_clear (&cold);
}

GST_END_TEST;

/* Holds the flush in the element for a while after it began (the
 * element says so in its debug log), before the flush goes on
 * downstream. */
#define FLUSH_HOLD_US (200 * G_TIME_SPAN_MILLISECOND)

static void
hold_flush (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  if (g_str_equal (gst_debug_category_get_name (category), "clfilter")
      && g_str_has_prefix (gst_debug_message_get (message), "flushing"))
    g_usleep (FLUSH_HOLD_US);
}

/* A flush begins while the kernels build, and the build's wait ends
 * before the flush reaches downstream: the caps go out, so
 * GstBaseTransform does not hand them to the element again after the
 * flush.  The first frame of the new segment builds, and every frame
 * comes out, exactly, with no error. */
GST_START_TEST (test_seek_while_building_caps_sent)
{
  ColdStart cold;

  gst_debug_set_threshold_for_name ("clfilter", GST_LEVEL_DEBUG);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (hold_flush, NULL, NULL);
  seek_while_building (&cold, "GRAY8,width=37,height=23", "mode=laplace");
  wait_eos (cold.pipeline);
  fail_unless_equals_int (frame_log_n_out (cold.log), 30);
  frame_log_check (cold.log, LOSS_NONE);
  cold_start_clear (&cold);
  gst_debug_remove_log_function (hold_flush);
  gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
}

GST_END_TEST;

/* Runs `description` to EOS and returns the clfilter-building messages
 * it posted, in order. */
static GPtrArray *
building_messages (const gchar * description)
{
  GstElement *pipeline = launch (description);
  GstBus *bus = gst_element_get_bus (pipeline);
  GPtrArray *said = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GstMessage *msg;
  gboolean ended = FALSE;

  set_state (pipeline, GST_STATE_PLAYING);
  while (!ended && (msg = gst_bus_timed_pop_filtered (bus, WAIT_TIMEOUT,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);

    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "an error came");
    ended = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
    if (s && gst_structure_has_name (s, "clfilter-building"))
      g_ptr_array_add (said, gst_structure_copy (s));
    gst_message_unref (msg);
  }
  fail_unless (ended, "no EOS in time");
  set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return said;
}

/* The first build of a format's kernels is said: one clfilter-building
 * message, with the device, the format and the mode, however many
 * programs the format needs (YUY2: luma and chroma).  Once the kernels
 * are built (in the engine, or in the binary cache), nothing is said. */
GST_START_TEST (test_building_is_said)
{
  gchar *cache = g_dir_make_tmp ("clfilter-cold-XXXXXX", NULL);
  const gchar *description = "videotestsrc num-buffers=3 ! "
      "video/x-raw,format=YUY2,width=64,height=36 ! clfilter mode=sliding "
      "radius=3 ! fakesink";
  GPtrArray *said;
  const GstStructure *s;

  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_unsetenv ("POCL_CACHE_DIR");
  said = building_messages (description);
  fail_unless_equals_int (said->len, 1);
  s = g_ptr_array_index (said, 0);
  fail_unless_equals_string (gst_structure_get_string (s, "format"), "YUY2");
  fail_unless_equals_string (gst_structure_get_string (s, "mode"),
      "sliding");
  fail_unless (gst_structure_get_string (s, "device")
      && *gst_structure_get_string (s, "device"));
  g_ptr_array_unref (said);

  said = building_messages (description);
  fail_unless_equals_int (said->len, 0);
  g_ptr_array_unref (said);
  remove_tree (cache);
  g_free (cache);
}

GST_END_TEST;

/* ---- kernels built as the element starts ---------------------------- */

/* Waits, within WAIT_TIMEOUT, for `n` program binaries in the cache under
 * `dir`; whether they came. */
static gboolean
wait_cached_programs (const gchar * dir, guint n)
{
  gint64 end = g_get_monotonic_time () + WAIT_TIMEOUT / GST_USECOND;

  while (cached_programs (dir) < n && g_get_monotonic_time () < end)
    g_usleep (20 * G_TIME_SPAN_MILLISECOND);
  return cached_programs (dir) >= n;
}

/* Sets `pipeline` to NULL and fails where that waits (for a build). */
static void
stop_at_once (GstElement * pipeline, const gchar * when)
{
  gint64 start = g_get_monotonic_time ();
  gint64 took;

  set_state (pipeline, GST_STATE_NULL);
  took = g_get_monotonic_time () - start;
  fail_unless (took < G_USEC_PER_SEC, "the stop %s took %.1f s", when,
      took / 1e6);
}

/* Upstream can give one format only (appsrc, which sends no caps of its
 * own, behind a capsfilter): the element builds its kernels for it as it
 * starts, before any caps reach it.  A stop during those builds returns at
 * once, as nobody waits for them; they go on, and by the next start, with
 * no frame and no caps, the binary cache holds the format's programs
 * (YUY2: luma and chroma). */
GST_START_TEST (test_start_builds_the_one_format)
{
  gchar *cache = g_dir_make_tmp ("clfilter-cold-XXXXXX", NULL);
  GstElement *pipeline, *filter;
  GstPad *sink;

  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_unsetenv ("POCL_CACHE_DIR");
  pipeline = launch ("appsrc ! video/x-raw,format=YUY2,width=64,height=36 ! "
      "clfilter name=f mode=separable radius=3 ! fakesink");
  filter = by_name (pipeline, "f");
  sink = gst_element_get_static_pad (filter, "sink");
  set_state (pipeline, GST_STATE_PAUSED);
  stop_at_once (pipeline, "while the kernels built");

  set_state (pipeline, GST_STATE_PAUSED);
  fail_unless (wait_cached_programs (cache, 2), "%u of the 2 programs "
      "cached with no caps", cached_programs (cache));
  fail_if (gst_pad_has_current_caps (sink), "caps reached the filter");
  stop_at_once (pipeline, "after the kernels built");
  fail_unless_equals_int (cached_programs (cache), 2);

  gst_object_unref (sink);
  gst_object_unref (filter);
  gst_object_unref (pipeline);
  remove_tree (cache);
  g_free (cache);
}

GST_END_TEST;

/* The clfilter debug messages that begin with `prefix`, counted. */
typedef struct
{
  const gchar *prefix;
  gint seen;
} LogWatch;

static void
watch_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  LogWatch *watch = data;

  if (g_str_equal (gst_debug_category_get_name (category), "clfilter")
      && g_str_has_prefix (gst_debug_message_get (message), watch->prefix))
    g_atomic_int_inc (&watch->seen);
}

/* The element's start with what upstream offers: whether it said that it
 * builds at start, and whether it said that it does not.  The start ends
 * within the state change to PAUSED. */
static void
start_with_upstream (const gchar * caps, gboolean * built, gboolean * not_built)
{
  gchar *description = g_strdup_printf ("appsrc ! %s ! clfilter "
      "mode=separable radius=3 ! fakesink", caps);
  GstElement *pipeline = launch (description);
  LogWatch building = { "building the kernels at start" };
  LogWatch not_building = { "no kernels built at start" };

  gst_debug_set_threshold_for_name ("clfilter", GST_LEVEL_DEBUG);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (watch_log, &building, NULL);
  gst_debug_add_log_function (watch_log, &not_building, NULL);
  set_state (pipeline, GST_STATE_PAUSED);
  gst_debug_remove_log_function_by_data (&building);
  gst_debug_remove_log_function_by_data (&not_building);
  gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  stop_at_once (pipeline, "after the start");
  *built = g_atomic_int_get (&building.seen) > 0;
  *not_built = g_atomic_int_get (&not_building.seen) > 0;
  gst_object_unref (pipeline);
  g_free (description);
}

/* Upstream offers several formats, or any: the element does not know
 * which will come, and builds nothing at start (it says so in its debug
 * log, as it does when it builds); one format it builds for. */
GST_START_TEST (test_start_builds_only_for_one_format)
{
  static const struct
  {
    const gchar *caps;
    gboolean builds;
  } upstreams[] = {
    {"video/x-raw,format={YUY2,NV12},width=64,height=36", FALSE},
    {"video/x-raw,width=64,height=36", FALSE},
    {"identity", FALSE},
    {"video/x-raw,format=v210", FALSE},
    {"video/x-raw,format=YUY2", TRUE},
  };
  gchar *cache = g_dir_make_tmp ("clfilter-cold-XXXXXX", NULL);

  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_unsetenv ("POCL_CACHE_DIR");
  for (guint i = 0; i < G_N_ELEMENTS (upstreams); i++) {
    gboolean built, not_built;

    start_with_upstream (upstreams[i].caps, &built, &not_built);
    fail_unless (built == upstreams[i].builds && not_built == !built,
        "upstream %s: said it built at start %d, did not %d",
        upstreams[i].caps, built, not_built);
  }
  /* The one build ends before the process does. */
  fail_unless (wait_cached_programs (cache, 2));
  remove_tree (cache);
  g_free (cache);
}

GST_END_TEST;

static Suite *
robustness_suite (void)
{
  Suite *s = suite_create ("robustness");
  TCase *tc = tcase_create ("robustness");

  test_rng_init ();
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_property_storm, 0, 2);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_renegotiation_in_pipeline);
  tcase_add_loop_test (tc, test_flushing_seeks, 0, 2);
  tcase_add_test (tc, test_eos_and_restart);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_loop_test (tc, test_parallel_pipelines, 0, 2);
  tcase_add_test (tc, test_stop_while_building);
  tcase_add_test (tc, test_seek_while_building);
  tcase_add_test (tc, test_seek_while_building_caps_sent);
  tcase_add_test (tc, test_building_is_said);
  tcase_add_test (tc, test_start_builds_the_one_format);
  tcase_add_test (tc, test_start_builds_only_for_one_format);
  return s;
}

GST_CHECK_MAIN (robustness);
