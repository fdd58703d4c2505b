/* GStreamer
 * gst-check tests of clfilter's negotiation with neighbours that take
 * other formats: YUV converted to the RGB downstream takes, and where no
 * format both sides take can be reached (from upstream's caps, or in
 * upstream's query of what clfilter takes), the error it posts says what
 * each side takes and which converter fixes it.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <gst/base/gstbasesink.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "framecheck.h"

#define SIZE "width=64,height=48,framerate=30/1"

/* `msg` (taken) is an error from `element`: a negotiation error whose
 * message names `offered`, `accepted` and the converter after clfilter,
 * and whose debug string gives both sides' caps. */
static void
check_negotiation_error (GstMessage * msg, GstElement * element,
    const gchar * offered, const gchar * accepted)
{
  GError *error = NULL;
  gchar *debug = NULL;

  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
      "no error was posted");
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (element),
      "the error came from %s, not clfilter", GST_MESSAGE_SRC_NAME (msg));
  gst_message_parse_error (msg, &error, &debug);
  fail_unless (g_error_matches (error, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION), "%s", error->message);
  fail_unless (strstr (error->message, offered)
      && strstr (error->message, accepted)
      && strstr (error->message, "clfilter ! videoconvert"),
      "the message does not say what each side takes and the fix: %s",
      error->message);
  fail_if (strstr (error->message, "not linked"), "a linked downstream "
      "named as not linked: %s", error->message);
  fail_unless (debug && strstr (debug, "upstream offers video/x-raw")
      && strstr (debug, "downstream accepts video/x-raw"), "debug: %s", debug);
  g_error_free (error);
  g_free (debug);
  gst_message_unref (msg);
}

/* Downstream takes only GRAY8, which clfilter does not convert to;
 * upstream's I420 fails its caps event with an error from clfilter, once
 * however often upstream tries again. */
GST_START_TEST (test_downstream_takes_another_format)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);

  gst_harness_set_sink_caps_str (h, "video/x-raw,format=GRAY8," SIZE);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420," SIZE);
  fail_unless_equals_int (gst_harness_push (h,
          gst_harness_create_buffer (h, 64 * 48 * 3 / 2)),
      GST_FLOW_NOT_NEGOTIATED);
  check_negotiation_error (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR),
      h->element, "I420", "GRAY8");
  /* Each push sends the caps again. */
  fail_unless_equals_int (gst_harness_push (h,
          gst_harness_create_buffer (h, 64 * 48 * 3 / 2)),
      GST_FLOW_NOT_NEGOTIATED);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL,
      "the same caps were said twice");
  harness_free (h, bus);
}

GST_END_TEST;

/* Downstream's formats are each named, one a prefix of another too
 * ("Y444" after "Y444_10LE"), and once though two structures give them. */
GST_START_TEST (test_every_downstream_format_named)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);

  gst_harness_set_sink_caps_str (h, "video/x-raw,format={ Y444_10LE, Y444 },"
      SIZE "; video/x-raw,format=Y444_10LE," SIZE);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420," SIZE);
  fail_unless_equals_int (gst_harness_push (h,
          gst_harness_create_buffer (h, 64 * 48 * 3 / 2)),
      GST_FLOW_NOT_NEGOTIATED);
  check_negotiation_error (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR),
      h->element, "I420", "takes only Y444_10LE, Y444,");
  harness_free (h, bus);
}

GST_END_TEST;

/* Upstream insists on RGBA and downstream takes only BGRx (RGB to RGB of
 * another order is not a conversion clfilter makes): upstream's caps
 * query finds nothing to take, and the first error on the bus is
 * clfilter's, saying what each side takes and the fix, not
 * videotestsrc's not-negotiated. */
GST_START_TEST (test_upstream_offers_what_cannot_reach)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=RGBA," SIZE " ! clfilter name=filter ! "
      "appsink name=sink", NULL);
  GstElement *filter = gst_bin_get_by_name (GST_BIN (pipeline), "filter");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstCaps *bgrx = gst_caps_from_string ("video/x-raw,format=BGRx");
  GstBus *bus = gst_element_get_bus (pipeline);

  /* Set after linking: the link itself would refuse them. */
  g_object_set (sink, "caps", bgrx, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  check_negotiation_error (gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
          GST_MESSAGE_ERROR), filter, "RGBA", "BGRx");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_caps_unref (bgrx);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (filter);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Where downstream takes the format, or caps are refused for another
 * reason (clfilter said it already), no negotiation error. */
GST_START_TEST (test_no_error_where_downstream_takes_it)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  GstMessage *msg;

  gst_harness_set_sink_caps_str (h, "video/x-raw,format={ BGRx, I420 }," SIZE);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420," SIZE);
  fail_unless_equals_int (gst_harness_push (h,
          gst_harness_create_buffer (h, 64 * 48 * 3 / 2)), GST_FLOW_OK);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "an error: %" GST_PTR_FORMAT, msg);
  harness_free (h, bus);
}

GST_END_TEST;

/* Downstream takes only RGB: clfilter converts the I420 it reads, and
 * pushes BGRx. */
/* `in` (frames of `size` bytes) before a downstream that takes only
 * `out`: clfilter converts, pushes `out`, and says no error. */
static void
check_converted (const gchar * in, gsize size, const gchar * out)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  gchar *sink = g_strdup_printf ("video/x-raw,format=%s," SIZE, out);
  gchar *src = g_strdup_printf ("video/x-raw,format=%s," SIZE, in);
  GstCaps *caps;
  GstMessage *msg;

  gst_harness_set_sink_caps_str (h, sink);
  gst_harness_set_src_caps_str (h, src);
  fail_unless_equals_int (gst_harness_push (h,
          gst_harness_create_buffer (h, size)), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  caps = gst_pad_get_current_caps (h->element->srcpads->data);
  fail_unless (caps != NULL);
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (caps, 0), "format"), out);
  gst_caps_unref (caps);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "an error: %" GST_PTR_FORMAT, msg);
  harness_free (h, bus);
  g_free (src);
  g_free (sink);
}

/* Downstream takes only BGRx (a sink): clfilter converts the I420 it
 * reads. */
GST_START_TEST (test_downstream_takes_rgb)
{
  check_converted ("I420", 64 * 48 * 3 / 2, "BGRx");
}

GST_END_TEST;

/* Downstream takes only YUV (an encoder): clfilter converts the RGBA it
 * reads, and pushes I420, or P010. */
GST_START_TEST (test_downstream_takes_yuv)
{
  check_converted ("RGBA", 64 * 48 * 4, "I420");
  check_converted ("BGRx", 64 * 48 * 4, "P010_10LE");
}

GST_END_TEST;

/* An H.264 clip of `frames` frames of a moving ball, width x height, made
 * by x264enc at `path`. */
static void
make_clip (const gchar * path, guint frames, guint width, guint height)
{
  gchar *encode = g_strdup_printf ("videotestsrc num-buffers=%u "
      "pattern=ball ! video/x-raw,format=I420,width=%u,height=%u,"
      "framerate=30/1 ! x264enc speed-preset=ultrafast ! mp4mux ! "
      "filesink location=%s", frames, width, height, path);

  run_to_eos (encode);
  g_free (encode);
}

/* The design card's line where the sink takes only RGB: a decoder's I420
 * through decodebin plays, converted by clfilter.  Where the sink takes
 * a format clfilter cannot reach (GRAY8), the first error is clfilter's,
 * not the demuxer's not-negotiated; with the converter it names, the
 * clip plays. */
GST_START_TEST (test_decoded_clip_to_rgb_sink)
{
  gchar *dir = g_dir_make_tmp ("clfilter-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "clip.mp4", NULL);
  gchar *rgb = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "clfilter ! video/x-raw,format=BGRx ! fakesink", path);
  gchar *play = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "clfilter name=f ! video/x-raw,format=GRAY8 ! fakesink", path);
  gchar *fixed = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "clfilter ! videoconvert ! video/x-raw,format=GRAY8 ! fakesink", path);
  GstElement *pipeline, *f;

  make_clip (path, 4, 160, 120);
  run_to_eos (rgb);
  pipeline = gst_parse_launch (play, NULL);
  fail_unless (pipeline != NULL);
  f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  check_negotiation_error (gst_bus_timed_pop_filtered (GST_ELEMENT_BUS
          (pipeline), GST_CLOCK_TIME_NONE, GST_MESSAGE_ERROR |
          GST_MESSAGE_EOS), f, "I420", "GRAY8");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (f);
  gst_object_unref (pipeline);

  run_to_eos (fixed);
  g_unlink (path);
  g_rmdir (dir);
  g_free (fixed);
  g_free (play);
  g_free (rgb);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* An X server of its own (Xvfb: no XVideo), its display set in DISPLAY
 * for the sinks; its pid, to stop it.  -noreset: autovideosink's first
 * try, xvimagesink, opens the display and closes it, the server then
 * resets, and ximagesink, opening it meanwhile, could not initialise its
 * X output. */
static GPid
start_xvfb (void)
{
  const gchar *argv[] = { "Xvfb", "-displayfd", "1", "-screen", "0",
    "640x480x24", "-nolisten", "tcp", "-noreset", NULL
  };
  GError *err = NULL;
  GPid pid;
  gint out;
  gchar number[32] = { 0 };
  gchar *display;
  gssize got = 0;

  fail_unless (g_spawn_async_with_pipes (NULL, (gchar **) argv, NULL,
          G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &pid,
          NULL, &out, NULL, &err), "Xvfb does not start (tests/install-deps.sh "
      "installs it): %s", err ? err->message : "");
  /* -displayfd: it writes its display number once it takes clients. */
  while (got < (gssize) sizeof number - 1 && !strchr (number, '\n')) {
    gssize n = read (out, number + got, sizeof number - 1 - got);
    if (n <= 0)
      break;
    got += n;
  }
  close (out);
  fail_unless (strchr (number, '\n') != NULL, "Xvfb gave no display");
  display = g_strdup_printf (":%d", atoi (number));
  g_setenv ("DISPLAY", display, TRUE);
  g_free (display);
  return pid;
}

static void
stop_xvfb (GPid pid)
{
  kill (pid, SIGTERM);
  waitpid (pid, NULL, 0);
  g_spawn_close_pid (pid);
  g_unsetenv ("DISPLAY");
}

/* Runs `description` to its EOS and returns the frames its video sink
 * (the one sink, maybe inside autovideosink) rendered, and its factory's
 * name. */
static guint64
frames_rendered (const gchar * description, gchar ** sink_name)
{
  GstElement *pipeline = gst_parse_launch (description, NULL);
  GstMessage *msg;
  GstIterator *it;
  GValue item = G_VALUE_INIT;
  guint64 rendered = 0;

  fail_unless (pipeline != NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *error = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &error, &debug);
    fail ("%s: error from %s: %s (%s)", description,
        GST_MESSAGE_SRC_NAME (msg), error->message, debug ? debug : "");
  }
  gst_message_unref (msg);
  it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&item);

    if (GST_IS_BASE_SINK (e)) {
      GstStructure *stats = NULL;

      g_object_get (e, "stats", &stats, NULL);
      gst_structure_get_uint64 (stats, "rendered", &rendered);
      gst_structure_free (stats);
      *sink_name = g_strdup (GST_OBJECT_NAME (gst_element_get_factory (e)));
    }
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return rendered;
}

/* The design card's line, unchanged, on an X display with no XVideo (as
 * over ssh -X or on a minimal desktop): autovideosink settles on
 * ximagesink, which takes RGB only, and the decoded clip's frames reach
 * it; and glimagesink, where the GL plugins are installed. */
GST_START_TEST (test_design_card_line)
{
  gchar *dir = g_dir_make_tmp ("clfilter-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "movie.mp4", NULL);
  gchar *line = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "clfilter mode=laplace ! autovideosink", path);
  gchar *gl = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "clfilter mode=laplace ! glimagesink", path);
  GPid xvfb = start_xvfb ();
  gchar *sink = NULL;
  GstElementFactory *glimagesink;
  guint64 frames;

  make_clip (path, 10, 320, 240);
  frames = frames_rendered (line, &sink);
  fail_unless (frames > 0, "no frame reached %s", sink);
  GST_INFO ("the design card's line: %" G_GUINT64_FORMAT " frames shown by "
      "%s", frames, sink);
  g_clear_pointer (&sink, g_free);
  glimagesink = gst_element_factory_find ("glimagesink");
  if (glimagesink) {
    frames = frames_rendered (gl, &sink);
    fail_unless (frames > 0, "no frame reached glimagesink");
    g_clear_pointer (&sink, g_free);
    gst_object_unref (glimagesink);
  }
  stop_xvfb (xvfb);
  g_unlink (path);
  g_rmdir (dir);
  g_free (gl);
  g_free (line);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

static Suite *
negotiation_suite (void)
{
  Suite *s = suite_create ("clfilter-negotiation");
  TCase *tc = tcase_create ("negotiation");

  test_rng_init ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_downstream_takes_another_format);
  tcase_add_test (tc, test_every_downstream_format_named);
  tcase_add_test (tc, test_upstream_offers_what_cannot_reach);
  tcase_add_test (tc, test_no_error_where_downstream_takes_it);
  tcase_add_test (tc, test_downstream_takes_rgb);
  tcase_add_test (tc, test_downstream_takes_yuv);
  tcase_add_test (tc, test_decoded_clip_to_rgb_sink);
  tcase_add_test (tc, test_design_card_line);
  return s;
}

GST_CHECK_MAIN (negotiation);
