/* GStreamer
 * The element suite (element.c): properties changed between buffers, the
 * stats message, the timing surfaces, the device fixed while running, and
 * what users expect of a video filter (QoS, metas, radius 0, controllable
 * properties).
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

static const gchar *
stats_string (GstMessage * msg, const gchar * field)
{
  const gchar *value = gst_structure_get_string (gst_message_get_structure
      (msg), field);
  fail_unless (value != NULL, "no string field %s", field);
  return value;
}

/* Settings change between buffers: each frame is filtered, and reported,
 * with the settings it was processed with; timestamps and flags pass. */
GST_START_TEST (test_property_changes_between_buffers)
{
  static const ClfParams steps[] = {
    {CLF_MODE_BOX, 2, CLF_BORDER_CLAMP},
    {CLF_MODE_SLIDING, 9, CLF_BORDER_MIRROR},
    {CLF_MODE_LAPLACE, 9, CLF_BORDER_CLAMP},
    {CLF_MODE_SEPARABLE, 0, CLF_BORDER_MIRROR},
    {CLF_MODE_SEPARABLE, 40, CLF_BORDER_CLAMP},
  };
  const FormatCase *fc = format_case ("BGRx");
  GstHarness *h = gst_harness_new ("clfilter");
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;

  gst_element_set_bus (h->element, bus);
  set_caps (h, fc->name, 64, 48, &info);
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++) {
    GstBuffer *in, *out;
    GstMessage *msg;

    g_object_set (h->element, "mode", steps[i].mode, "radius",
        steps[i].radius, "border", steps[i].border, NULL);
    in = random_buffer (GST_VIDEO_INFO_SIZE (&info));
    GST_BUFFER_PTS (in) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (in) = GST_SECOND / 30;
    GST_BUFFER_FLAG_SET (in, i % 2 ? GST_BUFFER_FLAG_DELTA_UNIT :
        GST_BUFFER_FLAG_DISCONT);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    check_output (fc, &info, &steps[i], "system", in, out);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in));
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out),
        GST_BUFFER_DURATION (in));
    fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (out,
            GST_BUFFER_FLAG_DELTA_UNIT), i % 2);

    msg = pop_stats (bus);
    fail_unless (msg != NULL);
    fail_unless_equals_string (stats_string (msg, "mode"),
        clf_mode_name (steps[i].mode));
    fail_unless_equals_string (stats_string (msg, "border"),
        clf_border_name (steps[i].border));
    fail_unless_equals_uint64 (stats_uint64 (msg, "pts"), GST_BUFFER_PTS (in));
    gst_message_unref (msg);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_stats_message)
{
  /* Copying on purpose, so that every field has something to show. */
  GstElement *filter = gst_object_ref_sink (gst_element_factory_make
      ("clfilter", NULL));
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  gchar *device_name = NULL;
  guint64 frames = 0, last = 0, mean = 0;

  g_object_set (filter, "zero-copy", FALSE, NULL);
  h = gst_harness_new_with_element (filter, "sink", "src");
  gst_element_set_bus (h->element, bus);
  set_caps (h, "RGBA", 320, 240, &info);
  g_object_set (h->element, "mode", CLF_MODE_SLIDING, "radius", 4, NULL);
  for (guint i = 0; i < 3; i++) {
    fail_unless_equals_int (gst_harness_push (h,
            random_buffer (GST_VIDEO_INFO_SIZE (&info))), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  g_object_get (h->element, "device-name", &device_name, "frames", &frames,
      "last-kernel-ns", &last, "mean-kernel-ns", &mean, NULL);
  fail_unless (device_name && *device_name);
  fail_unless_equals_uint64 (frames, 3);
  fail_unless (last > 0 && mean > 0);

  for (guint i = 0; i < 3; i++) {
    GstMessage *msg = pop_stats (bus);
    const GstStructure *s;
    guint radius = 0, copies = 99;

    fail_unless (msg != NULL, "no clfilter-stats for frame %u", i);
    fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (h->element));
    s = gst_message_get_structure (msg);
    fail_unless_equals_uint64 (stats_uint64 (msg, "frame"), i);
    fail_unless_equals_string (stats_string (msg, "mode"), "sliding");
    fail_unless (gst_structure_get_uint (s, "radius", &radius));
    fail_unless_equals_int (radius, 4);
    fail_unless (stats_uint64 (msg, "kernel-ns") > 0);
    fail_unless (stats_uint64 (msg, "upload-ns") > 0);
    fail_unless (stats_uint64 (msg, "download-ns") > 0);
    /* Without zero-copy each frame goes up and down: two host copies. */
    fail_unless (gst_structure_get_uint (s, "copies", &copies));
    fail_unless_equals_int (copies, 2);
    fail_unless_equals_string (stats_string (msg, "device"), device_name);
    gst_message_unref (msg);
  }
  fail_unless (pop_stats (bus) == NULL);

  /* Every 2nd frame only, then never. */
  g_object_set (h->element, "stats-interval", 2, NULL);
  for (guint i = 0; i < 4; i++) {
    gst_harness_push (h, random_buffer (GST_VIDEO_INFO_SIZE (&info)));
    gst_buffer_unref (gst_harness_pull (h));
  }
  for (guint frame = 4; frame < 8; frame += 2) {
    GstMessage *msg = pop_stats (bus);
    fail_unless (msg != NULL);
    fail_unless_equals_uint64 (stats_uint64 (msg, "frame"), frame);
    gst_message_unref (msg);
  }
  fail_unless (pop_stats (bus) == NULL);
  g_object_set (h->element, "stats-interval", 0, NULL);
  gst_harness_push (h, random_buffer (GST_VIDEO_INFO_SIZE (&info)));
  gst_buffer_unref (gst_harness_pull (h));
  fail_unless (pop_stats (bus) == NULL);

  g_free (device_name);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  gst_object_unref (filter);
}

GST_END_TEST;

static int
compare_uint64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* The per-frame INFO lines of the clfilter debug category, counted. */
static void
count_frame_logs (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  const gchar *text = gst_debug_message_get (message);

  if (level == GST_LEVEL_INFO && text && g_str_has_prefix (text, "frame ")
      && !g_strcmp0 (gst_debug_category_get_name (category), "clfilter"))
    g_atomic_int_inc ((gint *) user_data);
}

/* Each frame's statistics reach an application three ways: the meta on the
 * output buffer, the clfilter-stats message and a GST_INFO line; and at
 * EOS, clfilter-summary sums them up. */
GST_START_TEST (test_timing_surfaces)
{
  static const ClfMode modes[] = { CLF_MODE_SLIDING, CLF_MODE_LAPLACE,
    CLF_MODE_SEPARABLE, CLF_MODE_BOX, CLF_MODE_LAPLACE
  };
  GstHarness *h = gst_harness_new ("clfilter");
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  guint64 kernel_ns[G_N_ELEMENTS (modes)];
  gint info_lines = 0;

  gst_debug_set_threshold_for_name ("clfilter", GST_LEVEL_INFO);
  gst_debug_add_log_function (count_frame_logs, &info_lines, NULL);
  gst_element_set_bus (h->element, bus);
  set_caps (h, "RGBA", 33, 17, &info);
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++) {
    GstBuffer *out, *copy;
    GstClFilterMeta *meta;
    GstMessage *msg;

    g_object_set (h->element, "mode", modes[i], "radius", i + 1, NULL);
    fail_unless_equals_int (gst_harness_push (h,
            random_buffer (GST_VIDEO_INFO_SIZE (&info))), GST_FLOW_OK);
    out = gst_harness_pull (h);
    meta = gst_buffer_get_cl_filter_meta (out);
    fail_unless (meta != NULL, "frame %u has no GstClFilterMeta", i);
    msg = pop_stats (bus);
    fail_unless (msg != NULL);
    fail_unless_equals_uint64 (meta->frame, i);
    fail_unless_equals_string (meta->mode, clf_mode_name (modes[i]));
    fail_unless_equals_int (meta->radius, i + 1);
    fail_unless_equals_string (meta->border, stats_string (msg, "border"));
    fail_unless (meta->kernel_ns > 0);
    fail_unless_equals_uint64 (meta->kernel_ns, stats_uint64 (msg,
            "kernel-ns"));
    fail_unless_equals_uint64 (meta->upload_ns, stats_uint64 (msg,
            "upload-ns"));
    fail_unless_equals_uint64 (meta->download_ns, stats_uint64 (msg,
            "download-ns"));
    kernel_ns[i] = meta->kernel_ns;

    /* A copy of the buffer keeps the statistics. */
    copy = gst_buffer_copy (out);
    meta = gst_buffer_get_cl_filter_meta (copy);
    fail_unless (meta != NULL && meta->frame == i
        && meta->kernel_ns == kernel_ns[i]);
    gst_buffer_unref (copy);
    gst_buffer_unref (out);
    gst_message_unref (msg);
  }
  gst_debug_remove_log_function (count_frame_logs);
  gst_debug_set_threshold_for_name ("clfilter", GST_LEVEL_NONE);
  fail_unless_equals_int (g_atomic_int_get (&info_lines), G_N_ELEMENTS (modes));

  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  {
    GstMessage *msg;
    const GstStructure *s = NULL;
    guint64 sorted[G_N_ELEMENTS (modes)], total = 0, frames = 0;
    const guint n = G_N_ELEMENTS (modes);

    while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))
        && !gst_message_has_name (msg, "clfilter-summary"))
      gst_message_unref (msg);
    fail_unless (msg != NULL, "no clfilter-summary at EOS");
    s = gst_message_get_structure (msg);
    memcpy (sorted, kernel_ns, sizeof sorted);
    qsort (sorted, n, sizeof sorted[0], compare_uint64);
    for (guint i = 0; i < n; i++)
      total += sorted[i];
    fail_unless (gst_structure_get_uint64 (s, "frames", &frames));
    fail_unless_equals_uint64 (frames, n);
    fail_unless_equals_uint64 (stats_uint64 (msg, "mean-kernel-ns"), total / n);
    fail_unless_equals_uint64 (stats_uint64 (msg, "min-kernel-ns"), sorted[0]);
    fail_unless_equals_uint64 (stats_uint64 (msg, "median-kernel-ns"),
        sorted[(n - 1) / 2]);
    fail_unless_equals_uint64 (stats_uint64 (msg, "p95-kernel-ns"),
        sorted[n - 1]);
    fail_unless_equals_uint64 (stats_uint64 (msg, "max-kernel-ns"),
        sorted[n - 1]);
    gst_message_unref (msg);
  }

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The device is read when the element starts: a change while it runs is
 * kept for the next start (with a warning: check-hostile), and the device
 * in use does not change meanwhile. */
GST_START_TEST (test_device_fixed_while_running)
{
  GstHarness *h = gst_harness_new ("clfilter");
  gchar *device = NULL, *before = NULL, *after = NULL;

  g_object_get (h->element, "device-name", &before, NULL);
  g_object_set (h->element, "device", "no-such-device", NULL);
  g_object_get (h->element, "device", &device, "device-name", &after, NULL);
  fail_unless_equals_string (device, "no-such-device");
  fail_unless (before != NULL);
  fail_unless_equals_string (after, before);
  g_free (device);
  g_free (before);
  g_free (after);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- what users expect of a video filter ------------------------------ */

static guint
count_metas (GstBuffer * buf, GType api)
{
  gpointer state = NULL;
  guint n = 0;

  while (gst_buffer_iterate_meta_filtered (buf, &state, api))
    n++;
  return n;
}

/* QoS is on: a frame that a QoS event says is already too late (its
 * running time before the earliest time downstream can still show) is
 * dropped before any kernel runs; the next one, in time, is filtered. */
GST_START_TEST (test_qos_drops_late_frames)
{
  GstHarness *h = gst_harness_new ("clfilter");
  const FormatCase *fc = format_case ("RGBA");
  ClfParams params = { CLF_MODE_SLIDING, 4, CLF_BORDER_CLAMP };
  GstVideoInfo info;
  GstBuffer *late, *in_time, *out;

  fail_unless (gst_base_transform_is_qos_enabled (GST_BASE_TRANSFORM
          (h->element)));
  set_caps (h, "RGBA", 64, 48, &info);
  g_object_set (h->element, "mode", params.mode, "radius", params.radius, NULL);
  late = random_buffer (GST_VIDEO_INFO_SIZE (&info));
  GST_BUFFER_PTS (late) = 0;
  GST_BUFFER_DURATION (late) = GST_SECOND / 30;
  in_time = random_buffer (GST_VIDEO_INFO_SIZE (&info));
  GST_BUFFER_PTS (in_time) = 2 * GST_SECOND;
  GST_BUFFER_DURATION (in_time) = GST_SECOND / 30;

  /* The stream starts before a QoS event can come back. */
  fail_unless_equals_int (gst_harness_push (h, random_buffer
          (GST_VIDEO_INFO_SIZE (&info))), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 2.0, GST_SECOND, 0)));

  fail_unless_equals_int (gst_harness_push (h, late), GST_FLOW_OK);
  fail_unless (gst_harness_try_pull (h) == NULL, "a late frame was filtered");
  fail_unless_equals_uint64 (frames_filtered (h), 1);

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in_time)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  check_output (fc, &info, &params, "in time", in_time, out);
  fail_unless_equals_uint64 (frames_filtered (h), 2);
  gst_buffer_unref (out);
  gst_buffer_unref (in_time);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Metas that still hold for the filtered frame reach the output (crop,
 * region of interest, AFD), as through videobalance; an upstream
 * clfilter's statistics do not: the output carries this element's, once.
 * Before, every tagged meta was dropped, and an upstream crop showed the
 * whole frame. */
GST_START_TEST (test_metas_kept_by_tags)
{
  GstHarness *h = gst_harness_new ("clfilter");
  const FormatCase *fc = format_case ("I420");
  ClfParams params = { CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP };
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoCropMeta *crop;
  GstVideoRegionOfInterestMeta *roi;
  GstVideoAFDMeta *afd;
  GstClFilterMeta *upstream, *meta;
  GstCustomMeta *custom;
  const GstMetaInfo *stats_info = gst_meta_get_info ("clfilter-stats");
  guint64 frame = 99;

  set_caps (h, "I420", 33, 17, &info);
  g_object_set (h->element, "mode", params.mode, NULL);
  /* Padded rows: the output must not take the input's GstVideoMeta. */
  in = padded_buffer (fc, &info);
  crop = gst_buffer_add_video_crop_meta (in);
  crop->x = 3;
  crop->y = 2;
  crop->width = 20;
  crop->height = 10;
  gst_buffer_add_video_region_of_interest_meta (in, "face", 4, 5, 6, 7);
  gst_buffer_add_video_afd_meta (in, 0, GST_VIDEO_AFD_SPEC_ATSC_A53,
      GST_VIDEO_AFD_16_9_TOP_ALIGNED);
  /* An upstream clfilter's statistics, its meta and its custom meta. */
  upstream = (GstClFilterMeta *) gst_buffer_add_meta (in,
      gst_meta_get_info ("GstClFilterMeta"), NULL);
  upstream->frame = 1234;
  fail_unless (stats_info != NULL);
  custom = (GstCustomMeta *) gst_buffer_add_meta (in, stats_info, NULL);
  gst_structure_set (gst_custom_meta_get_structure (custom), "frame",
      G_TYPE_UINT64, (guint64) 1234, NULL);

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != in);
  check_output (fc, &info, &params, "with metas", in, out);

  crop = gst_buffer_get_video_crop_meta (out);
  fail_unless (crop != NULL, "the crop meta was dropped");
  fail_unless (crop->x == 3 && crop->y == 2 && crop->width == 20
      && crop->height == 10);
  roi = gst_buffer_get_video_region_of_interest_meta_id (out, 0);
  fail_unless (roi != NULL, "the region of interest was dropped");
  fail_unless (roi->roi_type == g_quark_from_string ("face"));
  fail_unless (roi->x == 4 && roi->y == 5 && roi->w == 6 && roi->h == 7);
  afd = gst_buffer_get_video_afd_meta (out);
  fail_unless (afd != NULL, "the AFD meta was dropped");
  fail_unless_equals_int (afd->afd, GST_VIDEO_AFD_16_9_TOP_ALIGNED);

  fail_unless_equals_int (count_metas (out, GST_CL_FILTER_META_API_TYPE), 1);
  meta = gst_buffer_get_cl_filter_meta (out);
  fail_unless (meta != NULL && meta->frame == 0, "not this element's meta");
  fail_unless_equals_int (count_metas (out, stats_info->api), 1);
  custom = (GstCustomMeta *) gst_buffer_get_meta (out, stats_info->api);
  fail_unless (gst_structure_get_uint64 (gst_custom_meta_get_structure
          (custom), "frame", &frame));
  fail_unless_equals_uint64 (frame, 0);
  fail_unless (count_metas (out, GST_VIDEO_META_API_TYPE) <= 1);

  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A blur of radius 0 is the identity: the buffer passes through as it
 * came, with no kernel and no copy, counted and said in clfilter-stats.
 * A radius again, and the element filters into its own pool's buffers;
 * laplace never passes through. */
GST_START_TEST (test_radius_zero_passes_through)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  const FormatCase *fc = format_case ("NV12");
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstMessage *stats;
  gboolean passthrough = FALSE;
  guint64 kernel_ns = 1;
  guint copies = 1;

  set_caps (h, "NV12", 45, 29, &info);
  for (ClfMode mode = CLF_MODE_BOX; mode <= CLF_MODE_SLIDING; mode++) {
    ClfParams identity = { mode, 0, CLF_BORDER_MIRROR };
    ClfParams blur = { mode, 3, CLF_BORDER_MIRROR };

    g_object_set (h->element, "mode", mode, "radius", 0, "border",
        CLF_BORDER_MIRROR, NULL);
    in = random_buffer (GST_VIDEO_INFO_SIZE (&info));
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out == in, "%s r=0 did not pass the buffer through",
        clf_mode_name (mode));
    fail_unless (gst_buffer_get_cl_filter_meta (out) == NULL);
    check_output (fc, &info, &identity, "passed through", in, out);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    stats = pop_stats (bus);
    fail_unless (stats != NULL, "no clfilter-stats for a passed frame");
    fail_unless (gst_structure_get (gst_message_get_structure (stats),
            "passthrough", G_TYPE_BOOLEAN,
            &passthrough, "kernel-ns", G_TYPE_UINT64, &kernel_ns, "copies",
            G_TYPE_UINT, &copies, NULL));
    fail_unless (passthrough);
    fail_unless_equals_uint64 (kernel_ns, 0);
    fail_unless_equals_int (copies, 0);
    gst_message_unref (stats);

    g_object_set (h->element, "radius", blur.radius, NULL);
    in = input_buffer (h, fc, &info, INPUT_FROM_POOL);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != in);
    fail_unless (gst_is_cl_memory (gst_buffer_peek_memory (out, 0)),
        "after passthrough the output is not from clfilter's pool");
    fail_unless (gst_buffer_get_cl_filter_meta (out) != NULL);
    check_output (fc, &info, &blur, "after passthrough", in, out);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    stats = pop_stats (bus);
    fail_unless (gst_structure_get (gst_message_get_structure (stats),
            "passthrough", G_TYPE_BOOLEAN, &passthrough, NULL));
    fail_unless (!passthrough);
    gst_message_unref (stats);
  }
  /* New caps while passing through: no output pool is decided for them,
   * so leaving passthrough negotiates one. */
  g_object_set (h->element, "radius", 0, NULL);
  fail_unless_equals_int (gst_harness_push (h, random_buffer
          (GST_VIDEO_INFO_SIZE (&info))), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  set_caps (h, "NV12", 51, 19, &info);
  in = random_buffer (GST_VIDEO_INFO_SIZE (&info));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out == in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  g_object_set (h->element, "mode", CLF_MODE_LAPLACE, NULL);
  in = random_buffer (GST_VIDEO_INFO_SIZE (&info));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != in, "laplace passed a frame through");
  fail_unless (gst_is_cl_memory (gst_buffer_peek_memory (out, 0)),
      "caps set in passthrough left the output without clfilter's pool");
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  fail_unless_equals_uint64 (frames_filtered (h), 9);
  harness_free (h, bus);
}

GST_END_TEST;

/* Every property that says it is controllable takes a direct control
 * binding, and a value from its control source reaches it; the others
 * (an array has no binding) do not say so. */
GST_START_TEST (test_controllable_flags_true)
{
  GstElement *e = gst_element_factory_make ("clfilter", NULL);
  guint n, bound = 0;
  GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (e),
      &n);

  for (guint i = 0; i < n; i++) {
    GstControlSource *source;
    GstControlBinding *binding;

    if (!(specs[i]->flags & GST_PARAM_CONTROLLABLE))
      continue;
    source = gst_interpolation_control_source_new ();
    g_object_set (source, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
    fail_unless (gst_timed_value_control_source_set
        (GST_TIMED_VALUE_CONTROL_SOURCE (source), 0, 0.0));
    binding = gst_direct_control_binding_new (GST_OBJECT (e),
        specs[i]->name, source);
    fail_unless (binding->pspec != NULL, "%s says it is controllable, but no "
        "direct control binding takes it", specs[i]->name);
    fail_unless (gst_object_add_control_binding (GST_OBJECT (e), binding));
    fail_unless (gst_object_sync_values (GST_OBJECT (e), 0));
    gst_object_unref (source);
    bound++;
  }
  /* mode, radius, border, sigma, amount, threshold, divisor, bias,
   * preset. */
  fail_unless_equals_int (bound, 9);
  g_free (specs);
  gst_object_unref (e);
}

GST_END_TEST;

/* mode, radius and border are controllable: a control source animates
 * the radius over stream time, and each frame is blurred with the value
 * at its time (1, then 6, then 0: passed through). */
GST_START_TEST (test_radius_controllable)
{
  GstHarness *h = gst_harness_new ("clfilter");
  const FormatCase *fc = format_case ("GRAY8");
  GstControlSource *source = gst_interpolation_control_source_new ();
  static const guint radii[] = { 1, 6, 0 };
  GstVideoInfo info;

  g_object_set (source, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (radii); i++)
    fail_unless (gst_timed_value_control_source_set
        (GST_TIMED_VALUE_CONTROL_SOURCE (source), i * GST_SECOND, radii[i]));
  fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
          gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
              "radius", source)));
  g_object_set (h->element, "mode", CLF_MODE_SLIDING, NULL);
  set_caps (h, "GRAY8", 31, 23, &info);
  for (guint i = 0; i < G_N_ELEMENTS (radii); i++) {
    ClfParams params = { CLF_MODE_SLIDING, radii[i], CLF_BORDER_CLAMP };
    GstBuffer *in = random_buffer (GST_VIDEO_INFO_SIZE (&info)), *out;
    GstClFilterMeta *meta;
    guint radius = 99;

    GST_BUFFER_PTS (in) = i * GST_SECOND + GST_SECOND / 2;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    check_output (fc, &info, &params, "controlled", in, out);
    g_object_get (h->element, "radius", &radius, NULL);
    fail_unless_equals_int (radius, radii[i]);
    meta = gst_buffer_get_cl_filter_meta (out);
    if (radii[i] > 0)
      fail_unless (meta != NULL && meta->radius == radii[i]);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_object_unref (source);
  gst_harness_teardown (h);
}

GST_END_TEST;

void
element_properties_add_tests (TCase * general)
{
  tcase_add_test (general, test_property_changes_between_buffers);
  tcase_add_test (general, test_stats_message);
  tcase_add_test (general, test_timing_surfaces);
  tcase_add_test (general, test_device_fixed_while_running);
  tcase_add_test (general, test_qos_drops_late_frames);
  tcase_add_test (general, test_metas_kept_by_tags);
  tcase_add_test (general, test_radius_zero_passes_through);
  tcase_add_test (general, test_radius_controllable);
  tcase_add_test (general, test_controllable_flags_true);
}
