/* GStreamer
 * gst-check tests of clfilter's errors: each says what went wrong and what
 * to do, with the GStreamer domain and code that fit, and the element shuts
 * down cleanly after it.  Faults are injected through the test layer
 * (tests/layer/, which meson test loads through OPENCL_LAYERS).
 */
#include "config.h"

#include <glib/gstdio.h>
#include <gmodule.h>

#include "errors.h"

void
expect_no_more_errors (GstBus * bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  if (msg) {
    GError *error = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &error, &debug);
    fail ("a second error was posted: %s", error->message);
  }
}

/* Starts `element` on a bus of its own: the start must fail with an
 * error, whose message and debug string are returned; the element is back
 * in NULL. */
static void
start_must_fail (GstElement * element, GError ** error, gchar ** debug)
{
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (element, bus);
  fail_unless_equals_int (gst_element_set_state (element, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  pop_error (bus, error, debug);
  gst_element_set_state (element, GST_STATE_NULL);
  gst_element_set_bus (element, NULL);
  gst_object_unref (bus);
}

/* No OpenCL driver at all: OCL_ICD_VENDORS names an empty folder, which
 * the ICD loader reads on this process's first OpenCL call (the test runs
 * in a process of its own: check forks one per test). */
GST_START_TEST (test_no_opencl_driver)
{
  gchar *empty = g_dir_make_tmp ("clfilter-no-icd-XXXXXX", NULL);
  GstElement *element;
  GError *error = NULL;
  gchar *debug = NULL;

  g_setenv ("OCL_ICD_VENDORS", empty, TRUE);
  element = gst_element_factory_make ("clfilter", NULL);
  start_must_fail (element, &error, &debug);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND), "%s", error->message);
  fail_unless (strstr (error->message, "No OpenCL platform") != NULL, "%s",
      error->message);
  fail_unless (debug && strstr (debug, "pocl-opencl-icd") != NULL,
      "no hint to install a driver: %s", debug);

  g_free (debug);
  g_error_free (error);
  gst_object_unref (element);
  g_unsetenv ("OCL_ICD_VENDORS");
  g_rmdir (empty);
  g_free (empty);
}

GST_END_TEST;

/* Only PoCL, in a folder of vendors of the test's own (the test runs in a
 * process of its own); FALSE where PoCL is not installed. */
static gboolean
only_pocl (gchar ** vendors)
{
  gchar *icd = NULL, *path;

  if (!g_file_get_contents ("/etc/OpenCL/vendors/pocl.icd", &icd, NULL, NULL))
    return FALSE;
  *vendors = g_dir_make_tmp ("clfilter-pocl-XXXXXX", NULL);
  path = g_build_filename (*vendors, "pocl.icd", NULL);
  fail_unless (g_file_set_contents (path, icd, -1, NULL));
  g_setenv ("OCL_ICD_VENDORS", *vendors, TRUE);
  g_free (path);
  g_free (icd);
  return TRUE;
}

static void
remove_vendors (gchar * vendors)
{
  gchar *path = g_build_filename (vendors, "pocl.icd", NULL);

  g_unsetenv ("OCL_ICD_VENDORS");
  g_remove (path);
  g_rmdir (vendors);
  g_free (path);
  g_free (vendors);
}

/* Cache directories PoCL cannot use: it then lists no device.  The error
 * names the platform that came up empty and PoCL's cache directory, not
 * just an empty list of devices. */
static const gchar *const unusable_caches[] = {
  "/dev/null/x", "/proc",
};

GST_START_TEST (test_platform_without_devices)
{
  const gchar *cache = unusable_caches[__i__];
  GstElement *element;
  GError *error = NULL;
  gchar *debug = NULL, *vendors = NULL;

  if (!only_pocl (&vendors)) {
    g_print ("SKIP test_platform_without_devices: PoCL is not installed\n");
    return;
  }
  g_unsetenv ("POCL_CACHE_DIR");
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  element = gst_element_factory_make ("clfilter", NULL);
  start_must_fail (element, &error, &debug);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND), "%s", error->message);
  fail_unless (strstr (error->message, "Portable Computing Language")
      != NULL && strstr (error->message, "no device") != NULL,
      "the platform that listed no device is not named: %s", error->message);
  fail_unless (debug && strstr (debug, "POCL_CACHE_DIR") != NULL
      && strstr (debug, "XDG_CACHE_HOME") != NULL
      && strstr (debug, cache) != NULL,
      "no hint at PoCL's cache directory (%s): %s", cache, debug);
  fail_unless (g_utf8_validate (error->message, -1, NULL)
      && g_utf8_validate (debug, -1, NULL));

  g_free (debug);
  g_error_free (error);
  gst_object_unref (element);
  remove_vendors (vendors);
}

GST_END_TEST;

/* Values from the environment or the properties that are not UTF-8 reach
 * the error as valid UTF-8, still readable: each invalid byte becomes
 * U+FFFD.  The test runs in a process of its own. */
static const struct
{
  const gchar *variable, *value, *shown;
} not_utf8[] = {
  {"CLFILTER_DEVICE", "bad\xff\xfe-name", "bad\xef\xbf\xbd\xef\xbf\xbd-name"},
  {NULL, "also\xc3(bad", "also\xef\xbf\xbd(bad"},
  {"XDG_CACHE_HOME", "/dev/null/\xff\xfe-cache",
      "/dev/null/\xef\xbf\xbd\xef\xbf\xbd-cache"},
};

GST_START_TEST (test_error_not_utf8)
{
  const gchar *variable = not_utf8[__i__].variable;
  GstElement *element = gst_element_factory_make ("clfilter", NULL);
  GError *error = NULL;
  gchar *debug = NULL, *vendors = NULL;

  if (!variable)
    g_object_set (element, "device", not_utf8[__i__].value, NULL);
  else if (g_str_equal (variable, "XDG_CACHE_HOME")) {
    if (!only_pocl (&vendors)) {
      g_print ("SKIP test_error_not_utf8: PoCL is not installed\n");
      gst_object_unref (element);
      return;
    }
    g_unsetenv ("POCL_CACHE_DIR");
  }
  if (variable)
    g_setenv (variable, not_utf8[__i__].value, TRUE);
  start_must_fail (element, &error, &debug);
  fail_unless (g_utf8_validate (error->message, -1, NULL),
      "the message is not UTF-8: %s", error->message);
  fail_unless (debug && g_utf8_validate (debug, -1, NULL),
      "the debug string is not UTF-8: %s", debug);
  fail_unless (strstr (error->message, not_utf8[__i__].shown) != NULL
      || strstr (debug, not_utf8[__i__].shown) != NULL,
      "the value is not shown: %s / %s", error->message, debug);

  g_free (debug);
  g_error_free (error);
  gst_object_unref (element);
  if (variable)
    g_unsetenv (variable);
  if (vendors)
    remove_vendors (vendors);
}

GST_END_TEST;

/* Our own kernel cache in a directory it cannot use, PoCL's in one it
 * can: the kernels are built from source and the frames come out right. */
GST_START_TEST (test_kernel_cache_unusable)
{
  const FormatCase *fc = format_case ("GRAY8");
  ClfParams params = { CLF_MODE_SEPARABLE, 2, CLF_BORDER_CLAMP };
  gchar *pocl_cache = g_dir_make_tmp ("clfilter-pocl-cache-XXXXXX", NULL);
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h;

  g_setenv ("POCL_CACHE_DIR", pocl_cache, TRUE);
  g_setenv ("XDG_CACHE_HOME", unusable_caches[__i__], TRUE);
  h = harness_with_bus (TRUE, &bus);
  g_object_set (h->element, "mode", params.mode, "radius", params.radius, NULL);
  set_caps (h, "GRAY8", 31, 9, &info);
  push_and_check (h, fc, &info, &params, INPUT_FROM_POOL);
  push_and_check (h, fc, &info, &params, INPUT_PADDED);
  fail_if (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) != NULL);
  harness_free (h, bus);
  g_unsetenv ("POCL_CACHE_DIR");
  g_free (pocl_cache);
}

GST_END_TEST;

GST_START_TEST (test_unsupported_caps_refused)
{
  static const gchar *refused[] = {
    /* Samples that are not whole bytes or words of their own. */
    "video/x-raw,format=v210,width=16,height=16,framerate=30/1",
    "video/x-raw,format=RGB16,width=16,height=16,framerate=30/1",
    "video/x-raw,format=RGBA,width=0,height=16,framerate=30/1",
    "audio/x-raw,format=S16LE,rate=48000,channels=2,layout=interleaved",
  };
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++) {
    GstHarness *h = gst_harness_new ("clfilter");
    GstCaps *caps = gst_caps_from_string (refused[i]);
    GstPad *sink = gst_element_get_static_pad (h->element, "sink");

    fail_if (gst_pad_query_accept_caps (sink, caps), "accepted %s", refused[i]);
    gst_harness_set_src_caps (h, caps);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate
            (NULL, 512, NULL)), GST_FLOW_NOT_NEGOTIATED);
    gst_object_unref (sink);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* A device that matches nothing: the element does not start, and says what
 * was asked for and which devices exist. */
GST_START_TEST (test_device_not_found_error)
{
  GstElement *probe = gst_element_factory_make ("clfilter", NULL);
  GstElement *element = gst_element_factory_make ("clfilter", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL, *existing = NULL;

  /* The name of the device that does exist. */
  fail_unless_equals_int (gst_element_set_state (probe, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  g_object_get (probe, "device-name", &existing, NULL);
  gst_element_set_state (probe, GST_STATE_NULL);
  gst_object_unref (probe);

  g_object_set (element, "device", "no-such-device-xyz", NULL);
  gst_element_set_bus (element, bus);
  fail_unless_equals_int (gst_element_set_state (element, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, &debug);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND), "%s", error->message);
  fail_unless (strstr (error->message, "no-such-device-xyz") != NULL,
      "%s", error->message);
  fail_unless (strstr (error->message, existing) != NULL,
      "the error does not list %s: %s", existing, error->message);
  fail_unless (debug && strstr (debug, "pocl-opencl-icd") != NULL,
      "no hint in the debug string: %s", debug);

  g_free (existing);
  g_free (debug);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_state (element, GST_STATE_NULL);
  gst_element_set_bus (element, NULL);
  gst_object_unref (bus);
  gst_object_unref (element);
}

GST_END_TEST;


/* A frame whose buffers the device cannot hold: RGBA rows of 4096 pixels,
 * enough of them that the blur's sums (4 bytes a byte) pass
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE, or the 2 GiB the kernels' 32-bit indices
 * reach where the device allows more.  PoCL is held to 1 GiB of memory
 * (256 MiB a buffer) so that the device's limit is the one met there.
 * Refused when the caps come, with the reason, before any frame. */
GST_START_TEST (test_frame_too_large_for_device)
{
  GError *err = NULL;
  ClfEngine *engine;
  cl_ulong max_alloc = 0;
  GstBus *bus;
  GstHarness *h;
  GError *error = NULL;
  gchar *debug = NULL, *caps;
  guint64 limit, sums_per_row = 4096 * 4 * 4;
  guint height;

  g_setenv ("POCL_MEMORY_LIMIT", "1", TRUE);
  engine = clf_engine_new ("auto", &err);
  fail_unless (engine != NULL, "%s", err->message);
  fail_unless_equals_int (clGetDeviceInfo (clf_engine_device (engine),
          CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL),
      CL_SUCCESS);
  clf_engine_unref (engine);
  limit = MIN (max_alloc, (guint64) G_MAXINT32);
  height = (guint) (limit / sums_per_row + 1);

  h = harness_with_bus (TRUE, &bus);
  g_object_set (h->element, "mode", CLF_MODE_SLIDING, NULL);
  caps = caps_string ("RGBA", 4096, height);
  gst_harness_set_src_caps_str (h, caps);
  fail_unless_equals_int (gst_harness_push (h, random_buffer (4096)),
      GST_FLOW_NOT_NEGOTIATED);
  pop_error (bus, &error, &debug);
  fail_unless (g_error_matches (error, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION), "%s", error->message);
  fail_unless (strstr (error->message, max_alloc < G_MAXINT32 ?
          "allows at most" : "32-bit indices") != NULL,
      "max alloc %" G_GUINT64_FORMAT ": %s", (guint64) max_alloc,
      error->message);
  fail_unless_equals_int (gst_harness_push (h, random_buffer (4096)),
      GST_FLOW_NOT_NEGOTIATED);
  expect_no_more_errors (bus);

  g_free (caps);
  g_free (debug);
  g_error_free (error);
  harness_free (h, bus);
  g_unsetenv ("POCL_MEMORY_LIMIT");
}

GST_END_TEST;

/* RGBA 16384x16384 (1 GiB) is too large for the blurs' 32-bit sums (4
 * GiB), not for laplace: laplace takes the caps, a blur refuses them
 * saying why and that laplace works. */
GST_START_TEST (test_laplace_beyond_the_blur_limit)
{
  gchar *caps = caps_string ("RGBA", 16384, 16384);
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  GstPad *src = gst_element_get_static_pad (h->element, "src");
  GError *error = NULL;
  gchar *debug = NULL;

  gst_harness_set_src_caps_str (h, caps);
  fail_unless (gst_pad_has_current_caps (src), "laplace refused the caps");
  gst_object_unref (src);
  harness_free (h, bus);

  h = harness_with_bus (TRUE, &bus);
  g_object_set (h->element, "mode", CLF_MODE_SLIDING, NULL);
  gst_harness_set_src_caps_str (h, caps);
  pop_error (bus, &error, &debug);
  fail_unless (g_error_matches (error, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION), "%s", error->message);
  fail_unless (strstr (error->message, "too large to blur") != NULL
      && strstr (error->message, "laplace works") != NULL, "%s",
      error->message);

  g_free (caps);
  g_free (debug);
  g_error_free (error);
  harness_free (h, bus);
}

GST_END_TEST;

/* Caps in CUDA memory where there is no CUDA driver (CI, this machine):
 * refused when the caps come, with an error that says what is missing and
 * what to do, not a crash or frames passed through.  A build without CUDA
 * memory does not take such caps at all (its templates lack them).  Where
 * a CUDA driver is installed, tests/bench/cuda-pipelines.sh tests the
 * path (with nvh264dec and cudadownload). */
GST_START_TEST (test_cuda_memory_without_cuda)
{
  GModule *cuda = g_module_open ("libcuda.so.1", G_MODULE_BIND_LAZY);
  GstBus *bus;
  GstHarness *h;
  GError *error = NULL;
  gchar *debug = NULL;

  if (cuda) {
    g_module_close (cuda);
    g_print ("SKIP test_cuda_memory_without_cuda: a CUDA driver is "
        "installed (tests/bench/cuda-pipelines.sh tests CUDA memory)\n");
    return;
  }
  h = harness_with_bus (TRUE, &bus);
  gst_harness_set_src_caps_str (h, "video/x-raw(memory:CUDAMemory),"
      "format=NV12,width=64,height=48,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, random_buffer (64 * 48 * 3
              / 2)), GST_FLOW_NOT_NEGOTIATED);
  if (CLF_HAVE_CUDA) {
    pop_error (bus, &error, &debug);
    fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NOT_FOUND), "%s", error->message);
    fail_unless (strstr (error->message, "libcuda.so.1") != NULL, "%s",
        error->message);
    fail_unless (strstr (debug, "cudadownload") != NULL, "%s", debug);
  }
  expect_no_more_errors (bus);

  g_free (debug);
  g_clear_error (&error);
  harness_free (h, bus);
}

GST_END_TEST;

/* Kernel source that does not compile (injected): the caps are refused,
 * and the error carries the compiler's build log. */
GST_START_TEST (test_kernel_build_failure)
{
  GstBus *bus;
  GstHarness *h;
  GError *error = NULL;
  gchar *debug = NULL;

  g_setenv ("CLF_TEST_BAD_SOURCE",
      "#error clfilter-injected-build-error\n", TRUE);
  h = harness_with_bus (TRUE, &bus);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=16,"
      "height=16,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, random_buffer (256)),
      GST_FLOW_NOT_NEGOTIATED);
  pop_error (bus, &error, &debug);
  fail_unless (g_error_matches (error, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_INIT), "%s", error->message);
  fail_unless (strstr (error->message, "failed to build") != NULL, "%s",
      error->message);
  fail_unless (debug && strstr (debug, "Build log") != NULL
      && strstr (debug, "clfilter-injected-build-error") != NULL,
      "the build log is not in the debug string: %s", debug);
  expect_no_more_errors (bus);

  g_free (debug);
  g_error_free (error);
  harness_free (h, bus);
  g_unsetenv ("CLF_TEST_BAD_SOURCE");
}

GST_END_TEST;

/* `code` makes GObject log its refusal: a warning, or a critical where
 * GLib reports invalid property values as one (Debian 13's GLib does). */
#define ASSERT_REFUSED(code)                                            \
G_STMT_START {                                                          \
  _gst_check_expecting_log = TRUE;                                      \
  _gst_check_raised_warning = FALSE;                                    \
  _gst_check_raised_critical = FALSE;                                   \
  code;                                                                 \
  _gst_check_expecting_log = FALSE;                                     \
  fail_unless (_gst_check_raised_warning || _gst_check_raised_critical, \
      "GObject did not refuse " #code);                                 \
} G_STMT_END

/* Values out of range cannot be set: GObject refuses them with a warning
 * or a critical and the property keeps its value; the ranges are those
 * documented. */
GST_START_TEST (test_invalid_property_values_refused)
{
  GstElement *element = gst_element_factory_make ("clfilter", NULL);
  GObjectClass *klass = G_OBJECT_GET_CLASS (element);
  GParamSpecUInt *radius = G_PARAM_SPEC_UINT (g_object_class_find_property
      (klass, "radius"));
  GParamSpecEnum *mode = G_PARAM_SPEC_ENUM (g_object_class_find_property
      (klass, "mode"));
  GParamSpecEnum *border = G_PARAM_SPEC_ENUM (g_object_class_find_property
      (klass, "border"));
  guint r;
  gint m, b;

  fail_unless_equals_int (radius->minimum, 0);
  fail_unless_equals_int (radius->maximum, CLF_MAX_RADIUS);
  fail_unless_equals_int (mode->enum_class->n_values, CLF_MODE_UNSHARP + 1);
  fail_unless_equals_int (border->enum_class->n_values, 2);

  g_object_set (element, "radius", 5, "mode", CLF_MODE_SLIDING, "border",
      CLF_BORDER_MIRROR, NULL);
  ASSERT_REFUSED (g_object_set (element, "radius", CLF_MAX_RADIUS + 1, NULL));
  ASSERT_REFUSED (g_object_set (element, "mode", CLF_MODE_UNSHARP + 1, NULL));
  ASSERT_REFUSED (g_object_set (element, "border", -1, NULL));
  ASSERT_REFUSED (g_object_set (element, "frames", (guint64) 7, NULL));
  ASSERT_REFUSED (g_object_set (element, "no-such-property", 1, NULL));
  g_object_get (element, "radius", &r, "mode", &m, "border", &b, NULL);
  fail_unless_equals_int (r, 5);
  fail_unless_equals_int (m, CLF_MODE_SLIDING);
  fail_unless_equals_int (b, CLF_BORDER_MIRROR);
  gst_object_unref (element);
}

GST_END_TEST;

static Suite *
errors_suite (void)
{
  Suite *s = suite_create ("clfilter-errors");
  TCase *tc = tcase_create ("errors");

  test_rng_init ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_opencl_driver);
  tcase_add_test (tc, test_device_not_found_error);
  tcase_add_loop_test (tc, test_platform_without_devices, 0,
      G_N_ELEMENTS (unusable_caches));
  tcase_add_loop_test (tc, test_error_not_utf8, 0, G_N_ELEMENTS (not_utf8));
  tcase_add_loop_test (tc, test_kernel_cache_unusable, 0,
      G_N_ELEMENTS (unusable_caches));
  tcase_add_test (tc, test_unsupported_caps_refused);
  tcase_add_test (tc, test_frame_too_large_for_device);
  tcase_add_test (tc, test_laplace_beyond_the_blur_limit);
  tcase_add_test (tc, test_invalid_property_values_refused);
  tcase_add_test (tc, test_cuda_memory_without_cuda);
  tcase_add_test (tc, test_kernel_build_failure);
  errors_stream_add_tests (tc);
  return s;
}

GST_CHECK_MAIN (errors);
