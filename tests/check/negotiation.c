/* GStreamer
 * gst-check tests of clfilter's negotiation with neighbours that take
 * other formats: the error it posts says what each side takes and which
 * converter fixes it.
 */
#include "config.h"

#include <glib/gstdio.h>

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

/* Downstream takes only BGRx; upstream's I420 fails its caps event with
 * an error from clfilter, once however often upstream tries again. */
GST_START_TEST (test_downstream_takes_another_format)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);

  gst_harness_set_sink_caps_str (h, "video/x-raw,format=BGRx," SIZE);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420," SIZE);
  fail_unless_equals_int (gst_harness_push (h,
          gst_harness_create_buffer (h, 64 * 48 * 3 / 2)),
      GST_FLOW_NOT_NEGOTIATED);
  check_negotiation_error (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR),
      h->element, "I420", "BGRx");
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
 * ("RGB" after "RGBx"), and once though two structures give them. */
GST_START_TEST (test_every_downstream_format_named)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);

  gst_harness_set_sink_caps_str (h, "video/x-raw,format={ RGBx, RGB }," SIZE
      "; video/x-raw,format=RGBx," SIZE);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420," SIZE);
  fail_unless_equals_int (gst_harness_push (h,
          gst_harness_create_buffer (h, 64 * 48 * 3 / 2)),
      GST_FLOW_NOT_NEGOTIATED);
  check_negotiation_error (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR),
      h->element, "I420", "takes only RGBx, RGB,");
  harness_free (h, bus);
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

/* The design card's line where the sink takes only RGB: a decoder's I420
 * through decodebin.  The first error is clfilter's, not the demuxer's
 * not-negotiated; with the converter it names, the clip plays. */
GST_START_TEST (test_decoded_clip_to_rgb_sink)
{
  gchar *dir = g_dir_make_tmp ("clfilter-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "clip.mp4", NULL);
  gchar *encode = g_strdup_printf ("videotestsrc num-buffers=4 pattern=ball "
      "! video/x-raw,format=I420,width=160,height=120,framerate=30/1 ! "
      "x264enc speed-preset=ultrafast ! mp4mux ! filesink location=%s", path);
  gchar *play = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "clfilter name=f ! video/x-raw,format=BGRx ! fakesink", path);
  gchar *fixed = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "clfilter ! videoconvert ! video/x-raw,format=BGRx ! fakesink", path);
  GstElement *pipeline, *f;

  run_to_eos (encode);
  pipeline = gst_parse_launch (play, NULL);
  fail_unless (pipeline != NULL);
  f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  check_negotiation_error (gst_bus_timed_pop_filtered (GST_ELEMENT_BUS
          (pipeline), GST_CLOCK_TIME_NONE, GST_MESSAGE_ERROR |
          GST_MESSAGE_EOS), f, "I420", "BGRx");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (f);
  gst_object_unref (pipeline);

  run_to_eos (fixed);
  g_unlink (path);
  g_rmdir (dir);
  g_free (fixed);
  g_free (play);
  g_free (encode);
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
  tcase_add_test (tc, test_no_error_where_downstream_takes_it);
  tcase_add_test (tc, test_decoded_clip_to_rgb_sink);
  return s;
}

GST_CHECK_MAIN (negotiation);
