/* GStreamer
 * A storm of random actions on a playing clfilter, for a bounded time:
 * frames-in-flight, mode and radius changes, flushing seeks, EOS, PAUSED
 * and READY cycles, and a downstream that now and then answers a buffer
 * with an error or with flushing.  Each action runs on a worker thread
 * under a watchdog: an action that does not return in time is a hang, and
 * the test fails naming it.  After the storm the pipeline must still play
 * and stop cleanly, and clfilter must never have posted an error.
 *
 * CLF_STRESS_SECONDS sets how long the storm lasts (default 15); the seed
 * of its actions comes from CLF_TEST_SEED (printed), so a failure can be
 * replayed.
 *
 * The storm never sets a state while the pipeline's first change to
 * PLAYING from READY is under way (see storm_start()): GStreamer loses a
 * PAUSED set at the wrong moment of that change, with any elements
 * (test_gst_first_play_race).
 */
#include <gst/check/gstcheck.h>

#include "framecheck.h"

#include <unistd.h>

/* An action on a loaded machine takes well under a second; one that has
 * not returned after this long never will. */
#define WATCHDOG_SECONDS 60

typedef enum
{
  DOWNSTREAM_OK,
  DOWNSTREAM_ERROR,
  DOWNSTREAM_FLUSHING,
} Downstream;

typedef struct
{
  GstElement *pipeline, *filter;
  gint downstream;              /* Downstream, for the next buffer (atomic) */
  gint eos;                     /* the source ends at its next buffer (atomic) */
  gint buffers_out;             /* buffers that reached the sink (atomic) */
  gint filter_errors;           /* errors posted by clfilter (atomic) */

  /* The action in progress on the worker, and how many returned. */
  GMutex lock;
  GCond cond;
  const gchar *action;
  gboolean quit;
  GRand *rng;
  gint64 end_time;
  guint rounds;
  gboolean played;              /* set to PLAYING since the start (worker) */
} Storm;

/* Downstream's answer to a buffer: as told once, then OK again. */
static GstPadProbeReturn
downstream_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Storm *storm = data;

  switch (g_atomic_int_exchange (&storm->downstream, DOWNSTREAM_OK)) {
    case DOWNSTREAM_ERROR:
      GST_PAD_PROBE_INFO_FLOW_RETURN (info) = GST_FLOW_ERROR;
      return GST_PAD_PROBE_DROP;
    case DOWNSTREAM_FLUSHING:
      GST_PAD_PROBE_INFO_FLOW_RETURN (info) = GST_FLOW_FLUSHING;
      return GST_PAD_PROBE_DROP;
    default:
      g_atomic_int_inc (&storm->buffers_out);
      return GST_PAD_PROBE_OK;
  }
}

/* An end of stream as a source that runs out pushes it: from its
 * streaming thread.  (gst_element_send_event() would hold the pipeline's
 * state lock while basesrc waits for that thread, which may be waiting
 * for the sink's preroll after a flushing seek: a hang of GStreamer's own,
 * not of the element.) */
static GstPadProbeReturn
source_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Storm *storm = data;

  if (!g_atomic_int_exchange (&storm->eos, FALSE))
    return GST_PAD_PROBE_OK;
  gst_pad_push_event (pad, gst_event_new_eos ());
  return GST_PAD_PROBE_DROP;
}

/* Errors from clfilter are failures; those of the source after an
 * injected downstream error are expected (the source stops, and a state
 * cycle starts it again). */
static GstBusSyncReply
bus_sync (GstBus * bus, GstMessage * message, gpointer data)
{
  Storm *storm = data;

  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR
      && GST_MESSAGE_SRC (message) == GST_OBJECT (storm->filter)) {
    GError *error;
    gchar *debug;

    gst_message_parse_error (message, &error, &debug);
    GST_ERROR ("clfilter posted an error: %s (%s)", error->message,
        GST_STR_NULL (debug));
    g_atomic_int_inc (&storm->filter_errors);
    g_error_free (error);
    g_free (debug);
  }
  gst_message_unref (message);
  return GST_BUS_DROP;
}

static void
flushing_seek (Storm * storm)
{
  gst_element_seek_simple (storm->pipeline, GST_FORMAT_TIME,
      GST_SEEK_FLAG_FLUSH, 0);
}

static void
set_state (Storm * storm, GstState state)
{
  if (state == GST_STATE_PLAYING)
    storm->played = TRUE;
  gst_element_set_state (storm->pipeline, state);
  gst_element_get_state (storm->pipeline, NULL, NULL, GST_CLOCK_TIME_NONE);
}

static void
set_frames_in_flight (Storm * storm)
{
  static const guint flights[] = { 0, 1, 1, 2, 4 };

  g_object_set (storm->filter, "frames-in-flight",
      flights[g_rand_int_range (storm->rng, 0, G_N_ELEMENTS (flights))], NULL);
}

static void
set_mode (Storm * storm)
{
  static const gchar *const modes[] = { "box", "separable", "sliding",
    "laplace"
  };

  gst_util_set_object_arg (G_OBJECT (storm->filter), "mode",
      modes[g_rand_int_range (storm->rng, 0, G_N_ELEMENTS (modes))]);
}

static void
set_radius (Storm * storm)
{
  g_object_set (storm->filter, "radius", g_rand_int_range (storm->rng, 0, 4),
      NULL);
}

static void
end_stream (Storm * storm)
{
  g_atomic_int_set (&storm->eos, TRUE);
}

static void
pause_and_play (Storm * storm)
{
  set_state (storm, GST_STATE_PAUSED);
  set_state (storm, GST_STATE_PLAYING);
}

static void
stop_and_play (Storm * storm)
{
  set_state (storm, GST_STATE_READY);
  set_state (storm, GST_STATE_PLAYING);
}

static void
downstream_error (Storm * storm)
{
  g_atomic_int_set (&storm->downstream, DOWNSTREAM_ERROR);
}

static void
downstream_flushing (Storm * storm)
{
  g_atomic_int_set (&storm->downstream, DOWNSTREAM_FLUSHING);
}

/* The sequence that lost a wake-up: a frame enqueued with 1 in flight,
 * then frames sent to the device thread behind it. */
static void
one_then_four_in_flight (Storm * storm)
{
  g_object_set (storm->filter, "frames-in-flight", 1, NULL);
  g_usleep (g_rand_int_range (storm->rng, 0, 3000));
  g_object_set (storm->filter, "frames-in-flight", 4, NULL);
  flushing_seek (storm);
}

/* The actions, each with its weight in 100. */
static const struct
{
  guint weight;
  const gchar *name;
  void (*run) (Storm * storm);
} actions[] = {
  {40, "frames-in-flight", set_frames_in_flight},
  {10, "mode", set_mode},
  {5, "radius", set_radius},
  {20, "flushing seek", flushing_seek},
  {4, "EOS", end_stream},
  {5, "PAUSED and back", pause_and_play},
  {4, "READY and back", stop_and_play},
  {4, "downstream error", downstream_error},
  {4, "downstream flushing", downstream_flushing},
  {4, "frames-in-flight 1 then 4 and a flushing seek",
      one_then_four_in_flight},
};

/* One random action; its name goes to the watchdog first. */
static void
random_action (Storm * storm)
{
  guint pick = g_rand_int_range (storm->rng, 0, 100);
  guint i = 0;

  while (i + 1 < G_N_ELEMENTS (actions) && pick >= actions[i].weight)
    pick -= actions[i++].weight;

  g_mutex_lock (&storm->lock);
  storm->action = actions[i].name;
  g_mutex_unlock (&storm->lock);

  actions[i].run (storm);
  /* The source stopped after an error or EOS: a flushing seek restarts
   * it from time to time (above), a state cycle always does. */
  if (g_rand_int_range (storm->rng, 0, 8) == 0)
    stop_and_play (storm);
  g_usleep (g_rand_int_range (storm->rng, 0, 3000));

  g_mutex_lock (&storm->lock);
  storm->rounds++;
  g_cond_signal (&storm->cond);
  g_mutex_unlock (&storm->lock);
}

/* A pipeline set to PLAYING from READY commits PAUSED when its sinks
 * preroll, with its next state still PAUSED, and leaves PLAYING to a
 * thread of its own; a PAUSED set before that thread runs is taken as
 * already under way, and the pipeline stays PAUSED pending PAUSED for
 * ever (bin_handle_async_done() in GStreamer's gstbin.c: 1.22 to 1.29
 * at least).  So the storm starts the pipeline towards PAUSED only, its
 * actions meeting the first preroll (the kernels' build, a flush while
 * they build), and takes it to PLAYING once it has prerolled, unless a
 * state action did so first; those wait for each change to complete. */
static GstStateChangeReturn
storm_start (GstElement * pipeline)
{
  return gst_element_set_state (pipeline, GST_STATE_PAUSED);
}

static void
play_once_prerolled (Storm * storm)
{
  GstState state;

  if (storm->played || gst_element_get_state (storm->pipeline, &state, NULL,
          0) != GST_STATE_CHANGE_SUCCESS || state != GST_STATE_PAUSED)
    return;
  g_mutex_lock (&storm->lock);
  storm->action = "PLAYING once prerolled";
  g_mutex_unlock (&storm->lock);
  set_state (storm, GST_STATE_PLAYING);
}

static gpointer
storm_worker (gpointer data)
{
  Storm *storm = data;

  while (g_get_monotonic_time () < storm->end_time) {
    play_once_prerolled (storm);
    random_action (storm);
  }
  g_mutex_lock (&storm->lock);
  storm->quit = TRUE;
  g_cond_signal (&storm->cond);
  g_mutex_unlock (&storm->lock);
  return NULL;
}

/* What a pipeline that stopped producing frames was doing: each
 * element's state, the storm's pending orders, clfilter's settings and
 * counts, and every thread's stack (where gdb is installed), so that a
 * failure on a loaded machine explains itself. */
static void
explain_stall (Storm * storm)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (storm->pipeline));
  GValue item = G_VALUE_INIT;
  GstState state, pending;
  GstStateChangeReturn ret = gst_element_get_state (storm->pipeline, &state,
      &pending, 0);
  gchar *gdb = g_find_program_in_path ("gdb");
  guint flight = 0;
  guint64 frames = 0;
  gint mode = 0;

  g_printerr ("stall: pipeline: %s (pending %s, last change %s)\n",
      gst_element_state_get_name (state), gst_element_state_get_name (pending),
      gst_element_state_change_return_get_name (ret));
  /* A bin waits for its children's ASYNC_DONE: which ones it still holds
   * an ASYNC_START of (none, with a state pending, is a lost commit). */
  GST_OBJECT_LOCK (storm->pipeline);
  g_printerr ("stall: pipeline next %s, target %s\n",
      gst_element_state_get_name (GST_STATE_NEXT (storm->pipeline)),
      gst_element_state_get_name (GST_STATE_TARGET (storm->pipeline)));
  for (GList * l = GST_BIN (storm->pipeline)->messages; l; l = l->next)
    g_printerr ("stall: pipeline holds %s of %s\n",
        GST_MESSAGE_TYPE_NAME (l->data), GST_MESSAGE_SRC_NAME (l->data));
  GST_OBJECT_UNLOCK (storm->pipeline);
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&item);

    ret = gst_element_get_state (e, &state, &pending, 0);
    g_printerr ("stall: %s: %s (pending %s, last change %s)\n",
        GST_ELEMENT_NAME (e), gst_element_state_get_name (state),
        gst_element_state_get_name (pending),
        gst_element_state_change_return_get_name (ret));
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  g_object_get (storm->filter, "frames-in-flight", &flight, "frames", &frames,
      "mode", &mode, NULL);
  g_printerr ("stall: pending orders: eos=%d downstream=%d; buffers out %d; "
      "clfilter mode %d, frames-in-flight %u, frames %" G_GUINT64_FORMAT
      "; last action '%s' of %u\n", g_atomic_int_get (&storm->eos),
      g_atomic_int_get (&storm->downstream),
      g_atomic_int_get (&storm->buffers_out), mode, flight, frames,
      GST_STR_NULL (storm->action), storm->rounds);
  if (gdb) {
    gchar *pid = g_strdup_printf ("%d", (gint) getpid ());
    const gchar *argv[] = { gdb, "-batch", "-p", pid, "-ex",
      "thread apply all bt", NULL
    };
    g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_CHILD_INHERITS_STDIN,
        NULL, NULL, NULL, NULL, NULL, NULL);
    g_free (pid);
  }
  g_free (gdb);
}

/* Waits for each action in turn; fails on the first that hangs. */
static void
watch (Storm * storm)
{
  g_mutex_lock (&storm->lock);
  while (!storm->quit) {
    guint rounds = storm->rounds;
    gint64 deadline = g_get_monotonic_time () +
        WATCHDOG_SECONDS * G_TIME_SPAN_SECOND;

    while (!storm->quit && storm->rounds == rounds)
      if (!g_cond_wait_until (&storm->cond, &storm->lock, deadline))
        break;
    if (!storm->quit && storm->rounds == rounds) {
      g_mutex_unlock (&storm->lock);
      explain_stall (storm);
      g_mutex_lock (&storm->lock);
    }
    fail_unless (storm->quit || storm->rounds != rounds,
        "hung: '%s' had not returned after %d s (round %u)",
        GST_STR_NULL (storm->action), WATCHDOG_SECONDS, storm->rounds + 1);
  }
  g_mutex_unlock (&storm->lock);
}

static guint
storm_seconds (void)
{
  const gchar *s = g_getenv ("CLF_STRESS_SECONDS");
  guint64 v;

  if (s && g_ascii_string_to_unsigned (s, 10, 1, 3600, &v, NULL))
    return v;
  return 15;
}

static void
run_storm (const gchar * caps, gboolean discrete)
{
  Storm storm = { 0 };
  GstElement *src, *sink;
  GstPad *pad;
  GstBus *bus;
  GThread *worker;
  gchar *desc;
  gint out;

  if (discrete)
    g_setenv ("CLF_TEST_HOST_UNIFIED", "0", TRUE);
  test_rng_init ();
  storm.rng = g_rand_new_with_seed (g_rand_int (test_rng));
  g_mutex_init (&storm.lock);
  g_cond_init (&storm.cond);

  desc = g_strdup_printf ("videotestsrc name=src pattern=snow ! %s ! "
      "clfilter name=f mode=sliding radius=1 frames-in-flight=1 ! "
      "fakesink name=sink sync=false", caps);
  storm.pipeline = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (storm.pipeline != NULL);
  storm.filter = gst_bin_get_by_name (GST_BIN (storm.pipeline), "f");
  sink = gst_bin_get_by_name (GST_BIN (storm.pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, downstream_probe,
      &storm, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  src = gst_bin_get_by_name (GST_BIN (storm.pipeline), "src");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, source_probe, &storm,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (src);
  bus = gst_element_get_bus (storm.pipeline);
  gst_bus_set_sync_handler (bus, bus_sync, &storm, NULL);

  fail_unless (storm_start (storm.pipeline) != GST_STATE_CHANGE_FAILURE);
  storm.end_time = g_get_monotonic_time () +
      storm_seconds () * G_TIME_SPAN_SECOND;
  worker = g_thread_new ("storm", storm_worker, &storm);
  watch (&storm);
  g_thread_join (worker);
  GST_INFO ("%u actions", storm.rounds);

  /* Still alive: frames come out after a restart, and it stops.  The
   * storm's last orders may not have met a buffer yet (the source had
   * stopped): an EOS or a downstream error left pending would end the
   * restarted stream at its first buffer. */
  set_state (&storm, GST_STATE_READY);
  g_atomic_int_set (&storm.eos, FALSE);
  g_atomic_int_set (&storm.downstream, DOWNSTREAM_OK);
  g_object_set (storm.filter, "frames-in-flight", 2, NULL);
  out = g_atomic_int_get (&storm.buffers_out);
  set_state (&storm, GST_STATE_PLAYING);
  for (guint i = 0; i < 600 && g_atomic_int_get (&storm.buffers_out) < out
      + 10; i++)
    g_usleep (100 * 1000);
  if (g_atomic_int_get (&storm.buffers_out) < out + 10)
    explain_stall (&storm);
  fail_unless (g_atomic_int_get (&storm.buffers_out) >= out + 10,
      "no frames came out after the storm (see the stall: lines above)");
  set_state (&storm, GST_STATE_NULL);
  fail_unless_equals_int (g_atomic_int_get (&storm.filter_errors), 0);

  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (storm.filter);
  gst_object_unref (storm.pipeline);
  g_rand_free (storm.rng);
  g_mutex_clear (&storm.lock);
  g_cond_clear (&storm.cond);
  if (discrete)
    g_unsetenv ("CLF_TEST_HOST_UNIFIED");
}

/* The pipeline the lost wake-up was found with. */
GST_START_TEST (test_storm_i420)
{
  run_storm ("video/x-raw,format=I420,width=64,height=48,framerate=200/1",
      FALSE);
}

GST_END_TEST;

/* Frames as on a discrete GPU: staged, more threads. */
GST_START_TEST (test_storm_discrete_rgba)
{
  run_storm ("video/x-raw,format=RGBA,width=37,height=21,framerate=200/1",
      TRUE);
}

GST_END_TEST;

/* The source's first buffer, held until released. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean held;
} FirstBuffer;

static GstPadProbeReturn
first_buffer_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  FirstBuffer *first = data;

  g_mutex_lock (&first->lock);
  first->held = TRUE;
  g_cond_signal (&first->cond);
  g_mutex_unlock (&first->lock);
  return GST_PAD_PROBE_OK;
}

/* Starts the pipeline with start(), lets its first buffer preroll the
 * sink while this thread holds the pipeline's state lock (as a set_state()
 * from another thread does for its whole length), sets PAUSED as soon as
 * the preroll is committed, and returns how the pipeline's state stands
 * 3 s later. */
static GstStateChangeReturn
pause_at_first_commit (const gchar * desc,
    GstStateChangeReturn (*start) (GstElement * pipeline))
{
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *src;
  GstPad *pad;
  FirstBuffer held = { 0 };
  GstStateChangeReturn ret;
  GstState state = GST_STATE_VOID_PENDING;
  gint64 deadline;
  gulong probe;

  fail_unless (pipeline != NULL);
  g_mutex_init (&held.lock);
  g_cond_init (&held.cond);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  pad = gst_element_get_static_pad (src, "src");
  probe = gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BLOCK |
      GST_PAD_PROBE_TYPE_BUFFER, first_buffer_probe, &held, NULL);
  fail_unless (start (pipeline) == GST_STATE_CHANGE_ASYNC);
  g_mutex_lock (&held.lock);
  while (!held.held)
    g_cond_wait (&held.cond, &held.lock);
  g_mutex_unlock (&held.lock);

  GST_STATE_LOCK (pipeline);
  gst_pad_remove_probe (pad, probe);
  deadline = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  while (state != GST_STATE_PAUSED && g_get_monotonic_time () < deadline) {
    g_usleep (1000);
    GST_OBJECT_LOCK (pipeline);
    state = GST_STATE (pipeline);
    GST_OBJECT_UNLOCK (pipeline);
  }
  fail_unless_equals_int (state, GST_STATE_PAUSED);
  GST_INFO ("committed PAUSED, next %s, pending %s",
      gst_element_state_get_name (GST_STATE_NEXT (pipeline)),
      gst_element_state_get_name (GST_STATE_PENDING (pipeline)));
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  GST_STATE_UNLOCK (pipeline);
  ret = gst_element_get_state (pipeline, NULL, NULL, 3 * GST_SECOND);

  fail_unless (gst_element_set_state (pipeline, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pad);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  g_mutex_clear (&held.lock);
  g_cond_clear (&held.cond);
  return ret;
}

static GstStateChangeReturn
start_playing (GstElement * pipeline)
{
  return gst_element_set_state (pipeline, GST_STATE_PLAYING);
}

/* What hung the storm's 'PAUSED and back' about once in 15 runs, made
 * certain: its PAUSED came right after the first preroll. */
GST_START_TEST (test_storm_start_pause_at_preroll)
{
  fail_unless_equals_int (pause_at_first_commit ("videotestsrc name=src "
          "pattern=snow ! video/x-raw,format=I420,width=64,height=48,"
          "framerate=200/1 ! clfilter mode=sliding radius=1 "
          "frames-in-flight=1 ! fakesink sync=false", storm_start),
      GST_STATE_CHANGE_SUCCESS);
}

GST_END_TEST;

/* GStreamer's own race, without clfilter, that storm_start() keeps out
 * of the storm.  Said, not asserted: a GStreamer that has it fixed is no
 * failure here. */
GST_START_TEST (test_gst_first_play_race)
{
  GstStateChangeReturn ret = pause_at_first_commit ("videotestsrc name=src ! "
      "fakesink sync=false", start_playing);

  g_print ("%s %s a PAUSED set as the first PLAYING continues "
      "(get_state: %s)\n", gst_version_string (),
      ret == GST_STATE_CHANGE_ASYNC ? "loses" : "completes",
      gst_element_state_change_return_get_name (ret));
}

GST_END_TEST;

static Suite *
stress_suite (void)
{
  Suite *s = suite_create ("clfilter-stress");
  TCase *tc = tcase_create ("storm");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_storm_i420);
  tcase_add_test (tc, test_storm_discrete_rgba);
  tcase_add_test (tc, test_storm_start_pause_at_preroll);
  tcase_add_test (tc, test_gst_first_play_race);
  return s;
}

GST_CHECK_MAIN (stress);
