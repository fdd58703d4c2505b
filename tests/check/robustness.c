/* GStreamer
 * Robustness tests of the clfilter element, the meson test `robustness`:
 * a property storm from another thread and renegotiation mid-stream
 * (robustness-storm.c); flushing seeks, EOS and restart, state cycles and
 * parallel pipelines on one device (robustness-flow.c); stops and seeks
 * while the kernels build, and the builds an element starts
 * (robustness-building.c).  In every test, probes on the element's pads
 * log each frame in and out: frames in = frames out, each with its
 * timestamps, offsets and flags, and each exactly the reference's bytes
 * for the settings its clfilter-stats message reports.  This file makes
 * the suite and holds the frame log and pipelines (robustness.h).
 */
#include <glib/gstdio.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/clfilter/gstclfiltermeta.h>
#include "framecheck.h"
#include "robustness.h"

/* A flag of our own, set on some input frames: it must come out too. */
#define FLAG_CUSTOM GST_BUFFER_FLAG_LAST

/* The flags a filter must hand on from each input to its output (and must
 * not add: a flag left over from a pooled buffer's last use would show). */
#define PRESERVED_FLAGS (GST_BUFFER_FLAG_LIVE | GST_BUFFER_FLAG_DISCONT | \
    GST_BUFFER_FLAG_HEADER | GST_BUFFER_FLAG_GAP | \
    GST_BUFFER_FLAG_DROPPABLE | GST_BUFFER_FLAG_DELTA_UNIT | \
    GST_BUFFER_FLAG_MARKER | GST_BUFFER_FLAG_CORRUPTED | \
    GST_BUFFER_FLAG_NON_DROPPABLE | FLAG_CUSTOM)

/* ---- the frame log: what went in and out of one element --------------- */

static const gchar *
field_string (const GstStructure * s, const gchar * name)
{
  const gchar *value = gst_structure_get_string (s, name);

  fail_unless (value != NULL, "%s has no string %s", gst_structure_get_name
      (s), name);
  return value;
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
 * filters, with the message's statistics but device and pts. */
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

  fail_unless (gst_structure_get_boolean (stats, "passthrough", &passthrough));
  return passthrough;
}

/* One input against its output: caps, timestamps, offsets, flags, the
 * metas against the stats message, and every byte against the reference. */
static void
check_frame (guint64 n, const LoggedFrame * in, const LoggedFrame * out,
    const GstStructure * stats)
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
  check_kept (n, "duration", GST_BUFFER_DURATION (a), GST_BUFFER_DURATION (b));
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
  fail_unless (meta != NULL, "frame %" G_GUINT64_FORMAT " has no meta", n);
  fail_unless_equals_uint64 (meta->frame, n);
  fail_unless_equals_string (meta->mode, field_string (stats, "mode"));
  fail_unless_equals_string (meta->border, field_string (stats, "border"));
  fail_unless_equals_int (meta->radius, params.radius);
  fail_unless_equals_uint64 (meta->kernel_ns, field_uint64 (stats,
          "kernel-ns"));
  check_stats_meta (n, b, stats);

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
frame_log_check_frame (FrameLog * log, guint n, LoggedFrame * out)
{
  LoggedFrame *in = g_ptr_array_index (log->in, n);

  check_frame (n, in, out, g_ptr_array_index (log->stats, n));
  gst_clear_buffer (&in->buf);
  gst_clear_buffer (&out->buf);
}

/* What leaves the element is the last frame that went in, already
 * reported, and is checked at once. */
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
  fail_unless (log->stats->len == n + 1, "frame %u came out with %u stats "
      "messages", n, log->stats->len);
  frame_log_check_frame (log, n, out);
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

/* ---- pipelines ------------------------------------------------------- */

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

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, stamp_buffer, NULL, NULL);
  gst_object_unref (pad);
  gst_object_unref (src);
}

/* ---- what the suite's files share (robustness.h) ---- */

guint64
field_uint64 (const GstStructure * s, const gchar * name)
{
  guint64 value = 0;

  fail_unless (gst_structure_get_uint64 (s, name, &value), "%s has no "
      "guint64 %s", gst_structure_get_name (s), name);
  return value;
}

ClfParams
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

gboolean
same_params (const ClfParams * a, const ClfParams * b)
{
  return a->mode == b->mode && a->radius == b->radius && a->border == b->border;
}

FrameLog *
frame_log_new (GstElement * filter)
{
  FrameLog *log = g_new0 (FrameLog, 1);

  /* The log takes each output for the latest input, and every input for
   * reported: a filter that holds frames in flight (frames-in-flight
   * above 1, the default on a discrete GPU) breaks both, and drops the
   * frames in it at a flush without statistics (test_frames_in_flight and
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
  log->probes[0] = gst_pad_add_probe (log->sink, GST_PAD_PROBE_TYPE_BUFFER,
      log_buffer, log, NULL);
  log->probes[1] = gst_pad_add_probe (log->src, GST_PAD_PROBE_TYPE_BUFFER,
      log_buffer, log, NULL);
  log->probes[2] = gst_pad_add_probe (log->sink,
      GST_PAD_PROBE_TYPE_EVENT_FLUSH, log_flush, log, NULL);
  return log;
}

void
frame_log_reset (FrameLog * log)
{
  g_mutex_lock (&log->lock);
  g_ptr_array_set_size (log->in, 0);
  g_ptr_array_set_size (log->out, 0);
  g_ptr_array_set_size (log->stats, 0);
  g_clear_pointer (&log->summary, gst_structure_free);
  log->epoch = 0;
  g_mutex_unlock (&log->lock);
}

void
frame_log_free (FrameLog * log)
{
  gst_pad_remove_probe (log->sink, log->probes[0]);
  gst_pad_remove_probe (log->src, log->probes[1]);
  gst_pad_remove_probe (log->sink, log->probes[2]);
  frame_log_reset (log);
  g_ptr_array_unref (log->in);
  g_ptr_array_unref (log->out);
  g_ptr_array_unref (log->stats);
  g_mutex_clear (&log->lock);
  g_cond_clear (&log->cond);
  gst_object_unref (log->sink);
  gst_object_unref (log->src);
  gst_object_unref (log->filter);
  g_free (log);
}

guint
frame_log_n_out (FrameLog * log)
{
  guint n;

  g_mutex_lock (&log->lock);
  n = log->out->len;
  g_mutex_unlock (&log->lock);
  return n;
}

void
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

void
watch_bus (GstBus * bus, GPtrArray * logs)
{
  gst_bus_set_sync_handler (bus, take_filter_messages, logs,
      (GDestroyNotify) g_ptr_array_unref);
}

GPtrArray *
logs_of (FrameLog * log)
{
  GPtrArray *logs = g_ptr_array_new ();

  g_ptr_array_add (logs, log);
  return logs;
}

guint
frame_log_check (FrameLog * log, LossAllowed loss)
{
  guint out = 0, lost = 0;

  g_mutex_lock (&log->lock);
  fail_unless (log->in->len > 0, "no frame went into %s",
      GST_OBJECT_NAME (log->filter));
  fail_unless_equals_int (log->stats->len, log->in->len);
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

GstElement *
launch (const gchar * description)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);

  fail_unless (pipeline != NULL, "%s: %s", description,
      error ? error->message : "?");
  return pipeline;
}

GstElement *
by_name (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);

  fail_unless (e != NULL, "no element %s", name);
  return e;
}

void
set_state (GstElement * pipeline, GstState state)
{
  fail_unless (gst_element_set_state (pipeline, state) !=
      GST_STATE_CHANGE_FAILURE);
}

gchar *
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

void
wait_eos (GstElement * pipeline)
{
  gchar *problem = eos_or_problem (pipeline);

  fail_unless (problem == NULL, "%s", problem);
}

void
stamp_frame (GstBuffer * buf, guint64 n)
{
  GST_BUFFER_PTS (buf) = n * GST_SECOND / 30;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  GST_BUFFER_OFFSET (buf) = n;
  GST_BUFFER_OFFSET_END (buf) = n + 1;
  stamp_flags (buf, n);
}

GstElement *
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

GstBuffer *
app_frame (const FormatCase * fc, const GstVideoInfo * info, guint64 n)
{
  GstBuffer *buf = n % 2 ? padded_buffer (fc, info) :
      fill_random (system_buffer (GST_VIDEO_INFO_SIZE (info), 1));

  stamp_frame (buf, n);
  return buf;
}

static Suite *
robustness_suite (void)
{
  Suite *s = suite_create ("robustness");
  TCase *tc = tcase_create ("robustness");

  test_rng_init ();
  suite_add_tcase (s, tc);
  robustness_storm_add_tests (tc);
  robustness_flow_add_tests (tc);
  robustness_building_add_tests (tc);
  return s;
}

GST_CHECK_MAIN (robustness);
