/* mode=convolve through the element: the kernel, divisor, bias and
 * preset properties as gst-launch users set them, a bad kernel refused
 * with a warning and the old one kept, kernels changed while playing, and
 * the bytes of every frame against the C reference. */
#include "framecheck.h"
#include "gstclfilter.h"

#include <string.h>

/* The element's kernel property as a ClfKernel (divisor and bias too). */
static ClfKernel
element_kernel (GstElement * e)
{
  ClfKernel k = { 0 };
  GValue array = G_VALUE_INIT;
  g_value_init (&array, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "kernel", &array);
  guint n = gst_value_array_get_size (&array);
  for (guint i = 0; i < n && i < G_N_ELEMENTS (k.coeffs); i++)
    k.coeffs[i] = g_value_get_int (gst_value_array_get_value (&array, i));
  while (k.size * k.size < n)
    k.size++;
  g_value_unset (&array);
  g_object_get (e, "divisor", &k.divisor, "bias", &k.bias, NULL);
  return k;
}

static void
set_kernel (GstElement * e, const ClfKernel * k)
{
  GValue array = G_VALUE_INIT;
  g_value_init (&array, GST_TYPE_ARRAY);
  for (guint i = 0; i < k->size * k->size; i++) {
    GValue c = G_VALUE_INIT;
    g_value_init (&c, G_TYPE_INT);
    g_value_set_int (&c, k->coeffs[i]);
    gst_value_array_append_and_take_value (&array, &c);
  }
  g_object_set_property (G_OBJECT (e), "kernel", &array);
  g_value_unset (&array);
  g_object_set (e, "divisor", k->divisor, "bias", k->bias, NULL);
}

GST_START_TEST (test_kernel_from_launch_line)
{
  GstElement *pipeline = gst_parse_launch ("fakesrc ! clfilter name=f "
      "mode=convolve kernel=\"<1,2,3,4,5,6,7,8,-9>\" divisor=-3 bias=7 "
      "! fakesink", NULL);
  fail_unless (pipeline != NULL);
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  ClfKernel k = element_kernel (f);
  const gint want[] = { 1, 2, 3, 4, 5, 6, 7, 8, -9 };
  fail_unless_equals_int (k.size, 3);
  fail_unless (memcmp (k.coeffs, want, sizeof want) == 0);
  fail_unless_equals_int (k.divisor, -3);
  fail_unless_equals_int (k.bias, 7);
  gint mode, preset;
  g_object_get (f, "mode", &mode, "preset", &preset, NULL);
  fail_unless_equals_int (mode, GST_CL_FILTER_MODE_CONVOLVE);
  fail_unless_equals_int (preset, GST_CL_FILTER_PRESET_CUSTOM);
  gst_object_unref (f);
  gst_object_unref (pipeline);
}

GST_END_TEST;

GST_START_TEST (test_presets)
{
  GstElement *f = gst_element_factory_make ("clfilter", NULL);
  static const struct
  {
    const gchar *name;
    guint size;
    gint sum, divisor, bias;
  } presets[] = {
    {"sharpen", 3, 1, 1, 0}, {"gaussian-3x3", 3, 16, 0, 0},
    {"gaussian-5x5", 5, 256, 0, 0}, {"motion-blur", 7, 7968, 0, 0},
    {"emboss", 3, 0, 1, 128}, {"sobel-x", 3, 0, 1, 128},
    {"sobel-y", 3, 0, 1, 128},
  };
  for (guint p = 0; p < G_N_ELEMENTS (presets); p++) {
    gst_util_set_object_arg (G_OBJECT (f), "preset", presets[p].name);
    ClfKernel k = element_kernel (f);
    gint sum = 0;
    for (guint i = 0; i < k.size * k.size; i++)
      sum += k.coeffs[i];
    fail_unless_equals_int (k.size, presets[p].size);
    fail_unless_equals_int (sum, presets[p].sum);
    fail_unless_equals_int (k.divisor, presets[p].divisor);
    fail_unless_equals_int (k.bias, presets[p].bias);
  }
  /* The motion blur's first row, as the preset table gives it (x 10000). */
  gst_util_set_object_arg (G_OBJECT (f), "preset", "motion-blur");
  fail_unless_equals_int (element_kernel (f).coeffs[5], 145);
  fail_unless_equals_int (element_kernel (f).coeffs[12], 1283);
  /* A bias of its own makes the kernel custom; the kernel stays. */
  g_object_set (f, "bias", 5, NULL);
  gint preset;
  g_object_get (f, "preset", &preset, NULL);
  fail_unless_equals_int (preset, GST_CL_FILTER_PRESET_CUSTOM);
  fail_unless_equals_int (element_kernel (f).size, 7);
  gst_object_unref (f);
}

GST_END_TEST;

/* Kernels of 4, 16, 0 and 17x17 values and one of strings: a warning
 * each, and the kernel as it was. */
static void
set_array (GstElement * e, guint n, GType type)
{
  GValue array = G_VALUE_INIT;
  g_value_init (&array, GST_TYPE_ARRAY);
  for (guint i = 0; i < n; i++) {
    GValue c = G_VALUE_INIT;
    g_value_init (&c, type);
    if (type == G_TYPE_STRING)
      g_value_set_static_string (&c, "1");
    gst_value_array_append_and_take_value (&array, &c);
  }
  g_object_set_property (G_OBJECT (e), "kernel", &array);
  g_value_unset (&array);
}

/* An array of strings never reaches the element: GObject validates the
 * value against the kernel's element spec (gint), finds it invalid and
 * refuses it, with a warning up to GLib 2.74 and a critical in newer
 * GLib (2.84: Debian 13).  Either says so; the kernel stays. */
#define ASSERT_REFUSED_BY_GOBJECT(code)                                 \
  G_STMT_START {                                                        \
    _gst_check_expecting_log = TRUE;                                    \
    _gst_check_raised_warning = _gst_check_raised_critical = FALSE;     \
    code;                                                               \
    fail_unless (_gst_check_raised_warning || _gst_check_raised_critical, \
        "GObject did not refuse " #code);                               \
    _gst_check_expecting_log = FALSE;                                   \
  } G_STMT_END

GST_START_TEST (test_bad_kernel_refused)
{
  GstElement *f = gst_element_factory_make ("clfilter", NULL);
  gst_util_set_object_arg (G_OBJECT (f), "preset", "gaussian-5x5");
  ClfKernel before = element_kernel (f);
  static const gchar *const bad[] = { "<1,2,3,4>",
    "<1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16>",
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    ASSERT_WARNING (gst_util_set_object_arg (G_OBJECT (f), "kernel", bad[i]));
  ASSERT_WARNING (set_array (f, 0, G_TYPE_INT));
  ASSERT_WARNING (set_array (f, 17 * 17, G_TYPE_INT));
  ASSERT_REFUSED_BY_GOBJECT (set_array (f, 9, G_TYPE_STRING));
  ClfKernel after = element_kernel (f);
  fail_unless (memcmp (&before, &after, sizeof before) == 0);
  gint preset;
  g_object_get (f, "preset", &preset, NULL);
  fail_unless_equals_int (preset, GST_CL_FILTER_PRESET_GAUSSIAN_5X5);
  gst_object_unref (f);
}

GST_END_TEST;

/* Plays `pipeline` to EOS (no error) and returns the texts of the warning
 * messages of its element `f`, in order. */
static GPtrArray *
warnings_to_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  while ((msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    GstMessageType type = GST_MESSAGE_TYPE (msg);
    if (type == GST_MESSAGE_WARNING
        && g_str_equal (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), "f")) {
      GError *err = NULL;
      gst_message_parse_warning (msg, &err, NULL);
      g_ptr_array_add (texts, g_strdup (err->message));
      g_error_free (err);
    }
    gst_message_unref (msg);
    fail_unless (type != GST_MESSAGE_ERROR);
    if (type == GST_MESSAGE_EOS)
      break;
  }
  fail_unless (msg != NULL, "no EOS in 60 s");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return texts;
}

/* A refused kernel is also a warning message naming the property, for
 * applications, whether it was set before the element had a bus (the
 * launch line) or while it plays; the old kernel stays. */
GST_START_TEST (test_bad_kernel_posts_warning)
{
  GstElement *pipeline = NULL, *f;
  GPtrArray *texts;

  ASSERT_WARNING (pipeline = gst_parse_launch ("videotestsrc num-buffers=2 "
          "! video/x-raw,format=RGBA,width=16,height=8 ! clfilter name=f "
          "mode=convolve kernel=\"<1,2,3,4>\" ! fakesink", NULL));
  fail_unless (pipeline != NULL);
  texts = warnings_to_eos (pipeline);
  fail_unless_equals_int (texts->len, 1);
  fail_unless (strstr (g_ptr_array_index (texts, 0), "kernel refused: 4 "
          "values") != NULL, "%s", (gchar *) g_ptr_array_index (texts, 0));
  g_ptr_array_unref (texts);

  /* In a bin: posted at once (in NULL, the bus flushes). */
  fail_unless (gst_element_set_state (pipeline, GST_STATE_READY)
      == GST_STATE_CHANGE_SUCCESS);
  f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  GstBus *bus = gst_element_get_bus (pipeline);
  ASSERT_WARNING (set_array (f, 16, G_TYPE_INT));
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  GError *err = NULL;
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "kernel refused: 16 values") != NULL);
  g_error_free (err);
  gst_message_unref (msg);
  fail_unless_equals_int (element_kernel (f).size, 3);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (f);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A convolve property set while the mode is another is said once, as a
 * warning that says to set mode=convolve; with mode=convolve, nothing. */
GST_START_TEST (test_convolve_property_without_mode)
{
  static const struct
  {
    const gchar *settings;
    guint warnings;
  } cases[] = {
    {"preset=emboss", 1}, {"divisor=3", 1}, {"kernel=\"<1>\"", 1},
    {"mode=convolve preset=emboss", 0}, {"preset=emboss mode=convolve", 0},
    {"mode=sliding", 0},
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *description = g_strdup_printf ("videotestsrc num-buffers=4 ! "
        "video/x-raw,format=GRAY8,width=16,height=8 ! clfilter name=f %s ! "
        "fakesink", cases[c].settings);
    GstElement *pipeline = gst_parse_launch (description, NULL);
    GPtrArray *texts = warnings_to_eos (pipeline);

    fail_unless_equals_int (texts->len, cases[c].warnings);
    if (cases[c].warnings)
      fail_unless (strstr (g_ptr_array_index (texts, 0), "set "
              "mode=convolve") != NULL);
    g_ptr_array_unref (texts);
    gst_object_unref (pipeline);
    g_free (description);
  }
}

GST_END_TEST;

/* A random value in [lo, hi] from the tests' generator. */
static gint64
random_in (gint64 lo, gint64 hi)
{
  guint64 r = (guint64) g_rand_int (test_rng) << 32 | g_rand_int (test_rng);
  return lo + (gint64) (r % (guint64) (hi - lo + 1));
}

/* A random kernel of size K: small coefficients with a bias, or
 * coefficients, divisor and bias anywhere in 32 bits. */
static ClfKernel
element_random_kernel (guint size, gboolean huge)
{
  ClfKernel k = random_kernel (size, huge ? KERNEL_HUGE : KERNEL_SMALL,
      random_in);

  if (!huge)
    k.bias = (gint32) random_in (-64, 64);
  return k;
}

/* Kernels of every odd size, changed between frames of one stream (as
 * while playing), each frame against the reference: 8-bit RGBA, 16-bit
 * gray, I420 (each plane on its own grid), YUY2 (packed 4:2:2), both
 * borders, at an odd size. */
GST_START_TEST (test_kernels_while_playing)
{
  static const gchar *const names[] = { "RGBA", "GRAY16_LE", "I420", "YUY2",
    "RGBx", "P010_10LE",
  };
  for (guint f = 0; f < G_N_ELEMENTS (names); f++) {
    GstBus *bus;
    GstHarness *h = harness_with_bus (TRUE, &bus);
    GstVideoInfo info;
    const FormatCase *fc = format_case (names[f]);
    set_caps (h, names[f], 37, 21, &info);
    for (guint size = 1; size <= CLF_MAX_KERNEL_SIZE; size += 2) {
      if (!test_sampled (f + size / 2, 2))
        continue;
      ClfParams params = {.mode = CLF_MODE_CONVOLVE,
        .border = (size / 2) % 2 ? CLF_BORDER_MIRROR : CLF_BORDER_CLAMP,
        .kernel = element_random_kernel (size, size % 3 == 0)
      };
      set_kernel (h->element, &params.kernel);
      push_and_check (h, fc, &info, &params, INPUT_PADDED);
    }
    harness_free (h, bus);
  }
}

GST_END_TEST;

/* The presets with a mid-grey bias (emboss, Sobel) filter luma (every
 * colour of RGB and gray) and add the mid value of the samples' depth,
 * and write chroma as that mid value, so the picture is grey at any
 * depth: random frames against the reference with bias 2^(depth-1) and
 * neutral chroma; planar, semi-planar, packed 4:2:2 and packed 4:4:4
 * (luma and chroma in one pixel). */
GST_START_TEST (test_mid_bias_at_every_depth)
{
  static const struct
  {
    const gchar *format;
    guint depth;
  } cases[] = {
    {"RGBA", 8}, {"YUY2", 8}, {"I420_10LE", 10}, {"P010_10LE", 10},
    {"Y444_12LE", 12}, {"GRAY16_LE", 16}, {"RGBA64_LE", 16}, {"AYUV", 8},
    {"UYVY", 8}, {"NV12", 8}, {"AYUV64", 16}, {"v308", 8},
  };
  static const gchar *const mid_presets[] = { "emboss", "sobel-x",
    "sobel-y"
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    GstBus *bus;
    GstHarness *h = harness_with_bus (TRUE, &bus);
    GstVideoInfo info;
    const FormatCase *fc = format_case (cases[c].format);
    ClfParams params = {.mode = CLF_MODE_CONVOLVE,.border = CLF_BORDER_CLAMP };

    set_caps (h, cases[c].format, 29, 17, &info);
    gst_util_set_object_arg (G_OBJECT (h->element), "preset",
        mid_presets[c % G_N_ELEMENTS (mid_presets)]);
    params.kernel = element_kernel (h->element);
    /* The property keeps the 8-bit value. */
    fail_unless_equals_int (params.kernel.bias, 128);
    params.kernel.bias = 1 << (cases[c].depth - 1);
    params.kernel.chroma = CLF_CHROMA_NEUTRAL;
    push_and_check (h, fc, &info, &params, INPUT_PADDED);
    harness_free (h, bus);
  }
}

GST_END_TEST;

/* Component c's sample at (x, y) of a mapped frame, as its value (the
 * suite's table, not GStreamer's: 1.22 puts P01x's V a byte off). */
static guint
sample_value (const GstVideoFrame * frame, const ClfComponent * c, guint x,
    guint y)
{
  const guint8 *s = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame,
      c->plane) + y * GST_VIDEO_FRAME_PLANE_STRIDE (frame, c->plane)
      + x * c->pstride + c->offset;
  guint v = c->depth + c->shift > 8 ? (c->big_endian ? GST_READ_UINT16_BE (s)
      : GST_READ_UINT16_LE (s)) : *s;
  return (v >> c->shift) & ((1u << c->depth) - 1);
}

/* Emboss and Sobel on random (not flat) YUV frames of 8, 10 and 16 bits:
 * every chroma sample comes out the mid value of its depth, checked
 * sample by sample without the reference. */
GST_START_TEST (test_mid_bias_chroma_neutral)
{
  static const gchar *const names[] = { "I420_10LE", "YUY2", "AYUV",
    "NV12", "P016_LE", "Y444_16BE"
  };
  static const gchar *const mid_presets[] = { "emboss", "sobel-x",
    "sobel-y"
  };
  for (guint f = 0; f < G_N_ELEMENTS (names); f++) {
    GstHarness *h = gst_harness_new ("clfilter");
    GstVideoInfo info;
    GstVideoFrame frame;
    const ClfFrameFormat format = frame_format (format_case (names[f]), 23,
        13);
    guint chroma = 0;

    set_caps (h, names[f], 23, 13, &info);
    gst_util_set_object_arg (G_OBJECT (h->element), "mode", "convolve");
    gst_util_set_object_arg (G_OBJECT (h->element), "preset",
        mid_presets[f % G_N_ELEMENTS (mid_presets)]);
    fail_unless_equals_int (gst_harness_push (h,
            random_buffer (GST_VIDEO_INFO_SIZE (&info))), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (h);
    fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
    for (guint i = 0; i < format.n_components; i++) {
      const ClfComponent *c = &format.components[i];
      guint mid = 1u << (c->depth - 1);
      if (c->role != CLF_COMPONENT_BLURRED)
        continue;
      chroma++;
      for (guint y = 0; y < c->height; y++)
        for (guint x = 0; x < c->width; x++)
          if (sample_value (&frame, c, x, y) != mid)
            fail ("%s, %s: chroma sample (%u, %u) of component %u is %u, "
                "want %u", names[f],
                mid_presets[f % G_N_ELEMENTS (mid_presets)], x, y, i,
                sample_value (&frame, c, x, y), mid);
    }
    fail_unless_equals_int (chroma, 2);
    gst_video_frame_unmap (&frame);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* A flat 10-bit frame under emboss: every sample, luma and chroma, 512. */
GST_START_TEST (test_mid_bias_flat_frame)
{
  GstHarness *h = gst_harness_new ("clfilter");
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *in, *out;

  set_caps (h, "I420_10LE", 23, 13, &info);
  gst_util_set_object_arg (G_OBJECT (h->element), "mode", "convolve");
  gst_util_set_object_arg (G_OBJECT (h->element), "preset", "emboss");
  in = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (&info));
  /* Every sample 0x0101: 257, flat. */
  gst_buffer_memset (in, 0, 0x01, GST_VIDEO_INFO_SIZE (&info));
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    guint w = GST_VIDEO_FRAME_COMP_WIDTH (&frame, p);
    guint rows = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p);
    for (guint y = 0; y < rows; y++)
      for (guint x = 0; x < w; x++) {
        const guint8 *s = data + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame,
            p) + 2 * x;
        fail_unless_equals_int (GST_READ_UINT16_LE (s), 512);
      }
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A preset's bias replaced makes the kernel custom: then chroma is
 * filtered as luma, with the bias as set. */
GST_START_TEST (test_custom_bias_filters_chroma)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  GstVideoInfo info;
  const FormatCase *fc = format_case ("I420_10LE");
  ClfParams params = {.mode = CLF_MODE_CONVOLVE,.border = CLF_BORDER_CLAMP };

  set_caps (h, "I420_10LE", 31, 9, &info);
  gst_util_set_object_arg (G_OBJECT (h->element), "preset", "emboss");
  g_object_set (h->element, "bias", 300, NULL);
  params.kernel = element_kernel (h->element);
  fail_unless_equals_int (params.kernel.bias, 300);
  push_and_check (h, fc, &info, &params, INPUT_PADDED);
  harness_free (h, bus);
}

GST_END_TEST;

/* A preset through a pipeline: the motion-blur preset on RGBA, every
 * frame against the reference. */
GST_START_TEST (test_preset_through_pipeline)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  GstVideoInfo info;
  const FormatCase *fc = format_case ("BGRA");
  set_caps (h, "BGRA", 67, 45, &info);
  gst_util_set_object_arg (G_OBJECT (h->element), "preset", "motion-blur");
  ClfParams params = {.mode = CLF_MODE_CONVOLVE,.border = CLF_BORDER_CLAMP,
    .kernel = element_kernel (h->element)
  };
  push_and_check (h, fc, &info, &params, INPUT_FROM_POOL);
  params.border = CLF_BORDER_MIRROR;
  push_and_check (h, fc, &info, &params, INPUT_UNALIGNED);
  harness_free (h, bus);
}

GST_END_TEST;

static Suite *
convolve_suite (void)
{
  Suite *s = suite_create ("convolve");
  TCase *tc = tcase_create ("general");

  test_rng_init ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_kernel_from_launch_line);
  tcase_add_test (tc, test_presets);
  tcase_add_test (tc, test_bad_kernel_refused);
  tcase_add_test (tc, test_bad_kernel_posts_warning);
  tcase_add_test (tc, test_convolve_property_without_mode);
  tcase_add_test (tc, test_kernels_while_playing);
  tcase_add_test (tc, test_preset_through_pipeline);
  tcase_add_test (tc, test_mid_bias_at_every_depth);
  tcase_add_test (tc, test_mid_bias_flat_frame);
  tcase_add_test (tc, test_mid_bias_chroma_neutral);
  tcase_add_test (tc, test_custom_bias_filters_chroma);
  return s;
}

GST_CHECK_MAIN (convolve);
