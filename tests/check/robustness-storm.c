/* GStreamer
 * The robustness suite (robustness.c): a property storm from another
 * thread, and renegotiation mid-stream, in a harness and in a pipeline.
 */
#include <glib/gstdio.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/clfilter/gstclfiltermeta.h>
#include "framecheck.h"
#include "robustness.h"

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

void
robustness_storm_add_tests (TCase * tc)
{
  tcase_add_loop_test (tc, test_property_storm, 0, 2);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_renegotiation_in_pipeline);
}
