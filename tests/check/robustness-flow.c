/* GStreamer
 * The robustness suite (robustness.c): flushing seeks, EOS and restart,
 * state cycles, and parallel pipelines on one device.
 */
#include <glib/gstdio.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/clfilter/gstclfiltermeta.h>
#include "framecheck.h"
#include "robustness.h"

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
    fail_unless_equals_int (frame_log_n_out (players[i].log), PARALLEL_FRAMES);
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

void
robustness_flow_add_tests (TCase * tc)
{
  tcase_add_loop_test (tc, test_flushing_seeks, 0, 2);
  tcase_add_test (tc, test_eos_and_restart);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_loop_test (tc, test_parallel_pipelines, 0, 2);
}
