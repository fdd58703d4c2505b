/* GStreamer
 * gst-check tests of clfilter in CUDA memory (issue 17), where GStreamer's
 * nvcodec has a CUDA device (an NVIDIA machine): random frames go through
 * cudaupload ! clfilter ! cudadownload, clfilter working in CUDA memory,
 * and each frame out is checked against the C reference.  Elsewhere (CI,
 * no CUDA device) each test says SKIP and passes: errors.c checks the
 * refusal there.  tests/bench/cuda-pipelines.sh checks decoded media.
 */
#include "config.h"

#include "framecheck.h"

/* Staging frames clfilter made (its "clcuda" debug category says each). */
static gint staging_made;

static void
count_staging (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (g_strcmp0 (gst_debug_category_get_name (category), "clcuda") == 0
      && g_str_has_prefix (gst_debug_message_get (message),
          "a new staging frame"))
    g_atomic_int_inc (&staging_made);
}

static const FilterCase cuda_cases[] = {
  {"NV12", 13, 11, {CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP}},
  {"NV12", 130, 67, {CLF_MODE_SLIDING, 7, CLF_BORDER_CLAMP}},
  {"NV12", 1284, 722, {CLF_MODE_SEPARABLE, 3, CLF_BORDER_MIRROR}},
  {"I420", 97, 55, {CLF_MODE_BOX, 2, CLF_BORDER_CLAMP}},
  {"P010_10LE", 130, 66, {CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP}},
  {"P010_10LE", 66, 31, {CLF_MODE_SLIDING, 4, CLF_BORDER_MIRROR}},
  {"NV12", 130, 67, {.mode = CLF_MODE_GAUSSIAN,.border = CLF_BORDER_MIRROR,
          .sigma = 3.2}},
  {"I420", 97, 55, {.mode = CLF_MODE_UNSHARP,.border = CLF_BORDER_CLAMP,
          .sigma = 11,.amount = 1.5,.threshold = 2}},
  {"P010_10LE", 66, 31, {.mode = CLF_MODE_GAUSSIAN,.border = CLF_BORDER_CLAMP,
          .sigma = 21}},
};

#define CUDA_FRAMES 12

/* Frames through CUDA memory, each exact; the staging frames (an input's
 * and an output's, with one frame in flight) are made once and reused,
 * not made again for every buffer. */
GST_START_TEST (test_cuda_memory_exact_and_reused)
{
  const FilterCase *c = &cuda_cases[__i__];
  const FormatCase *fc = format_case (c->format);
  GstElement *filter;
  GstVideoInfo info;
  GstHarness *h;
  GstCaps *negotiated;
  GstPad *pad;
  gchar *caps, *described;

  if (!have_cuda_memory ("test_cuda_memory_exact_and_reused"))
    return;
  g_atomic_int_set (&staging_made, 0);
  /* CUDA memory named: cudadownload before a system-memory sink prefers
   * system memory, and cudaupload then passes it through. */
  h = gst_harness_new_parse ("cudaupload ! video/x-raw(memory:CUDAMemory) "
      "! clfilter name=f ! cudadownload");
  filter = gst_bin_get_by_name (GST_BIN (h->element), "f");
  g_object_set (filter, "mode", c->params.mode, "radius", c->params.radius,
      "border", c->params.border, "sigma", c->params.sigma, "amount",
      c->params.amount, "threshold", c->params.threshold, NULL);
  set_caps (h, c->format, c->width, c->height, &info);
  caps = caps_string (c->format, c->width, c->height);
  gst_harness_set_sink_caps_str (h, caps);

  for (guint i = 0; i < CUDA_FRAMES; i++) {
    GstBuffer *in = random_buffer (info.size);
    GstBuffer *out;

    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    check_output (fc, &info, &c->params, "CUDA memory", in, out);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  /* The frames went through CUDA memory, not the host. */
  pad = gst_element_get_static_pad (filter, "sink");
  negotiated = gst_pad_get_current_caps (pad);
  described = gst_caps_to_string (negotiated);
  fail_unless (negotiated && gst_caps_features_contains
      (gst_caps_get_features (negotiated, 0), "memory:CUDAMemory"),
      "clfilter negotiated %s", described);
  fail_unless (g_atomic_int_get (&staging_made) > 0,
      "clfilter made no staging frame");
  fail_unless (g_atomic_int_get (&staging_made) <= 4, "%d staging frames "
      "made for %d buffers: they are not reused",
      g_atomic_int_get (&staging_made), CUDA_FRAMES);

  gst_caps_unref (negotiated);
  gst_object_unref (pad);
  g_free (described);
  g_free (caps);
  gst_object_unref (filter);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
cuda_suite (void)
{
  Suite *s = suite_create ("clfilter-cuda");
  TCase *tc = tcase_create ("cuda");

  test_rng_init ();
  gst_debug_set_threshold_for_name ("clcuda", GST_LEVEL_DEBUG);
  gst_debug_add_log_function (count_staging, NULL, NULL);
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_cuda_memory_exact_and_reused, 0,
      G_N_ELEMENTS (cuda_cases));
  return s;
}

GST_CHECK_MAIN (cuda);
