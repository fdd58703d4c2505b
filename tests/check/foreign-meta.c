/* GStreamer
 * gst-check test of clfilter where the application registered a meta of
 * its own, not a GstCustomMeta, under the stats meta's name before the
 * plugin registered its own.  A binary of its own: the registration is
 * for the whole process.
 */
#include "config.h"

#include <gst/clfilter/gstclfiltermeta.h>

#include "framecheck.h"

typedef struct
{
  GstMeta meta;
  guint value;
} ForeignMeta;

static gboolean
foreign_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  ((ForeignMeta *) meta)->value = 0;
  return TRUE;
}

/* The stats meta is left out, with a warning in the log: the C meta and
 * the clfilter-stats messages still carry every frame's statistics, and no
 * critical is logged (gst-check fails the test on any). */
GST_START_TEST (test_foreign_meta_with_the_stats_name)
{
  static const gchar *tags[] = { NULL };
  const FormatCase *fc = format_case ("RGBA");
  ClfParams params = { CLF_MODE_SEPARABLE, 2, CLF_BORDER_CLAMP };
  const GstMetaInfo *foreign;
  GType api;
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h;

  /* Nothing registered the name yet: this test comes first. */
  fail_unless (gst_meta_get_info (GST_CL_FILTER_STATS_META_NAME) == NULL);
  api = gst_meta_api_type_register ("ForeignMetaAPI", tags);
  foreign = gst_meta_register (api, GST_CL_FILTER_STATS_META_NAME,
      sizeof (ForeignMeta), foreign_meta_init, NULL, NULL);
  fail_unless (foreign != NULL);
  fail_if (gst_meta_info_is_custom (foreign));

  h = harness_with_bus (TRUE, &bus);
  g_object_set (h->element, "mode", params.mode, "radius", params.radius, NULL);
  set_caps (h, "RGBA", 33, 17, &info);
  for (guint64 n = 0; n < 3; n++) {
    GstBuffer *in = input_buffer (h, fc, &info, INPUT_FROM_POOL);
    GstBuffer *out;
    GstClFilterMeta *meta;
    GstMessage *msg;
    const GstStructure *s;
    guint64 frame = G_MAXUINT64;

    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    check_output (fc, &info, &params, "foreign meta", in, out);
    meta = gst_buffer_get_cl_filter_meta (out);
    fail_unless (meta != NULL, "frame %" G_GUINT64_FORMAT " has no C meta", n);
    fail_unless_equals_uint64 (meta->frame, n);
    fail_unless (gst_buffer_get_meta (out, foreign->api) == NULL,
        "clfilter added the application's own meta");

    /* With a cold cache, the first frame's kernels are built from source
     * and said first (clfilter-building). */
    while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))
        && gst_structure_has_name (gst_message_get_structure (msg),
            "clfilter-building"))
      gst_message_unref (msg);
    fail_unless (msg != NULL, "frame %" G_GUINT64_FORMAT ": no message", n);
    s = gst_message_get_structure (msg);
    fail_unless (gst_structure_has_name (s, "clfilter-stats"),
        "frame %" G_GUINT64_FORMAT ": message %" GST_PTR_FORMAT, n, s);
    fail_unless (gst_structure_get_uint64 (s, "frame", &frame));
    fail_unless_equals_uint64 (frame, n);
    gst_message_unref (msg);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  harness_free (h, bus);
}

GST_END_TEST;

static Suite *
foreign_meta_suite (void)
{
  Suite *s = suite_create ("clfilter-foreign-meta");
  TCase *tc = tcase_create ("foreign-meta");

  test_rng_init ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_foreign_meta_with_the_stats_name);
  return s;
}

GST_CHECK_MAIN (foreign_meta);
