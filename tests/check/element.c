/* GStreamer
 * gst-check tests of the clfilter element, the meson test `element`: every
 * format through the element against the C reference (element-formats.c),
 * properties, the stats message and the timing surfaces
 * (element-properties.c), zero copy (element-zero-copy.c) and frames in
 * flight (element-in-flight.c); errors are in errors.c.  This file makes
 * the suite and holds what its files share (element.h).
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

GstMessage *
pop_stats (GstBus * bus)
{
  GstMessage *msg;
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    if (gst_message_has_name (msg, "clfilter-stats"))
      return msg;
    gst_message_unref (msg);
  }
  return NULL;
}

guint64
stats_uint64 (GstMessage * msg, const gchar * field)
{
  guint64 value = 0;
  fail_unless (gst_structure_get_uint64 (gst_message_get_structure (msg),
          field, &value), "no guint64 field %s", field);
  return value;
}

void
open_gate (ChainGate * g)
{
  if (g_atomic_int_compare_and_exchange (&g->opened, 0, 1))
    fail_unless_equals_int (clSetUserEventStatus (g->gate, CL_COMPLETE),
        CL_SUCCESS);
}

gpointer
open_gate_later (gpointer data)
{
  g_usleep (G_USEC_PER_SEC);
  open_gate (data);
  return NULL;
}

static void
log_warnings (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  WarningLog *log = user_data;

  if (level > GST_LEVEL_WARNING)
    return;
  g_mutex_lock (&log->lock);
  log->count++;
  g_string_append_printf (log->text, "%s: %s\n",
      gst_debug_category_get_name (category), gst_debug_message_get (message));
  g_mutex_unlock (&log->lock);
}

void
warning_log_start (WarningLog * log)
{
  g_mutex_init (&log->lock);
  log->text = g_string_new (NULL);
  log->count = 0;
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_from_string ("*:2", TRUE);
  gst_debug_add_log_function (log_warnings, log, NULL);
  GST_CAT_WARNING (GST_CAT_DEFAULT,
      "(a warning of the test, to check that warnings are heard)");
  fail_unless_equals_int (log->count, 1);
  log->count = 0;
  g_string_truncate (log->text, 0);
}

void
warning_log_stop (WarningLog * log)
{
  gst_debug_remove_log_function (log_warnings);
  gst_debug_set_threshold_from_string (g_getenv ("GST_DEBUG"), TRUE);
  g_string_free (log->text, TRUE);
  g_mutex_clear (&log->lock);
}

guint64
frames_filtered (GstHarness * h)
{
  guint64 frames = 0;

  g_object_get (h->element, "frames", &frames, NULL);
  return frames;
}

/* The element under test is the one just built, not an installed one. */
GST_START_TEST (test_plugin_from_build_dir)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (),
      "clfilter");
  fail_unless (plugin != NULL);
  fail_unless (g_str_has_prefix (gst_plugin_get_filename (plugin),
          CLF_PLUGIN_BUILD_DIR), "loaded %s", gst_plugin_get_filename (plugin));
  gst_object_unref (plugin);
}

GST_END_TEST;

/* The "discrete" test case: memory as on a discrete GPU (a device buffer
 * and a pinned staging buffer, transfers on their own queues), on any
 * device.  Engines made while it is set are discrete. */
static void
discrete_setup (void)
{
  g_setenv ("CLF_TEST_HOST_UNIFIED", "0", TRUE);
}

static void
discrete_teardown (void)
{
  g_unsetenv ("CLF_TEST_HOST_UNIFIED");
}

static Suite *
element_suite (void)
{
  Suite *s = suite_create ("clfilter");
  TCase *general = tcase_create ("general");
  TCase *zero_copy = tcase_create ("zero-copy");
  TCase *discrete = tcase_create ("discrete");

  test_rng_init ();

  suite_add_tcase (s, general);
  tcase_add_test (general, test_plugin_from_build_dir);
  element_formats_add_tests (general, discrete);
  element_properties_add_tests (general);
  element_in_flight_add_tests (general, discrete);

  suite_add_tcase (s, zero_copy);
  element_zero_copy_add_tests (zero_copy, discrete);

  suite_add_tcase (s, discrete);
  tcase_add_checked_fixture (discrete, discrete_setup, discrete_teardown);
  return s;
}

GST_CHECK_MAIN (element);
