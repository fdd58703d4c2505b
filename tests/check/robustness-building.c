/* GStreamer
 * The robustness suite (robustness.c): a stop, a seek and a flush while
 * the kernels build from source, and the builds an element starts before
 * any caps.
 */
#include <glib/gstdio.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/clfilter/gstclfiltermeta.h>
#include "framecheck.h"
#include "robustness.h"

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
  clf_test_remove_tree (cold->cache);
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
  fail_unless_equals_string (gst_structure_get_string (s, "mode"), "sliding");
  fail_unless (gst_structure_get_string (s, "device")
      && *gst_structure_get_string (s, "device"));
  g_ptr_array_unref (said);

  said = building_messages (description);
  fail_unless_equals_int (said->len, 0);
  g_ptr_array_unref (said);
  clf_test_remove_tree (cache);
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
  clf_test_remove_tree (cache);
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
  clf_test_remove_tree (cache);
  g_free (cache);
}

GST_END_TEST;

void
robustness_building_add_tests (TCase * tc)
{
  tcase_add_test (tc, test_stop_while_building);
  tcase_add_test (tc, test_seek_while_building);
  tcase_add_test (tc, test_seek_while_building_caps_sent);
  tcase_add_test (tc, test_building_is_said);
  tcase_add_test (tc, test_start_builds_the_one_format);
  tcase_add_test (tc, test_start_builds_only_for_one_format);
}
