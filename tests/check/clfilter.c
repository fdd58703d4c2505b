/* GStreamer
 * gst-check tests of the clfilter element: every format through the element
 * against the C reference, property changes between buffers, the stats
 * message, refused caps, device errors, and a real H.264 decode.
 */
#include <glib/gstdio.h>
#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstclmemory.h"
#include "reference.h"

static GRand *rng;

/* What each format means to the filter, written out by hand so that a
 * mistake in the element's own mapping cannot hide: bytes per pixel and
 * filtered bytes per plane, and the chroma subsampling. */
typedef struct
{
  const gchar *name;
  guint n_planes;
  guint bpp[3];
  guint8 blur[3];
  guint8 laplace[3];
  guint sub_x, sub_y;
} FormatCase;

static const FormatCase formats[] = {
  {"GRAY8", 1, {1}, {0x1}, {0x1}, 1, 1},
  {"RGBA", 1, {4}, {0x7}, {0x7}, 1, 1},
  {"BGRA", 1, {4}, {0x7}, {0x7}, 1, 1},
  {"ARGB", 1, {4}, {0xE}, {0xE}, 1, 1},
  {"ABGR", 1, {4}, {0xE}, {0xE}, 1, 1},
  {"RGBx", 1, {4}, {0x7}, {0x7}, 1, 1},
  {"BGRx", 1, {4}, {0x7}, {0x7}, 1, 1},
  {"xRGB", 1, {4}, {0xE}, {0xE}, 1, 1},
  {"xBGR", 1, {4}, {0xE}, {0xE}, 1, 1},
  {"RGB", 1, {3}, {0x7}, {0x7}, 1, 1},
  {"BGR", 1, {3}, {0x7}, {0x7}, 1, 1},
  {"I420", 3, {1, 1, 1}, {1, 1, 1}, {1, 0, 0}, 2, 2},
  {"YV12", 3, {1, 1, 1}, {1, 1, 1}, {1, 0, 0}, 2, 2},
  {"NV12", 2, {1, 2}, {1, 3}, {1, 0}, 2, 2},
  {"NV21", 2, {1, 2}, {1, 3}, {1, 0}, 2, 2},
  {"Y42B", 3, {1, 1, 1}, {1, 1, 1}, {1, 0, 0}, 2, 1},
  {"Y444", 3, {1, 1, 1}, {1, 1, 1}, {1, 0, 0}, 1, 1},
};

static const FormatCase *
format_case (const gchar * name)
{
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (g_str_equal (formats[i].name, name))
      return &formats[i];
  g_error ("no format case %s", name);
  return NULL;
}

static ClfFrameFormat
frame_format (const FormatCase * fc, guint width, guint height)
{
  ClfFrameFormat f = { fc->n_planes };
  for (guint i = 0; i < fc->n_planes; i++) {
    guint sx = i ? fc->sub_x : 1, sy = i ? fc->sub_y : 1;
    f.planes[i].width = (width + sx - 1) / sx;
    f.planes[i].height = (height + sy - 1) / sy;
    f.planes[i].bpp = fc->bpp[i];
    f.planes[i].blur_mask = fc->blur[i];
    f.planes[i].laplace_mask = fc->laplace[i];
  }
  return f;
}

static gchar *
caps_string (const gchar * format, guint width, guint height)
{
  return g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
      "framerate=30/1", format, width, height);
}

static GstBuffer *
fill_random (GstBuffer * buf)
{
  GstMapInfo map;
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = (guint8) g_rand_int (rng);
  gst_buffer_unmap (buf, &map);
  return buf;
}

static GstBuffer *
random_buffer (gsize size)
{
  return fill_random (gst_buffer_new_allocate (NULL, size, NULL));
}

/* How a test frame reaches the element. */
typedef enum
{
  INPUT_FROM_POOL,              /* the pool clfilter proposed: in place */
  INPUT_PADDED,                 /* system memory, padded rows and gaps
                                 * between planes, described by a meta */
  INPUT_UNALIGNED,              /* system memory 1 byte off alignment */
  N_INPUT_KINDS
} InputKind;

static const gchar *const input_names[] = { "pool", "padded", "unaligned" };

/* System memory starting `misalign` bytes after a 4096-byte boundary. */
static GstBuffer *
system_buffer (gsize size, gsize misalign)
{
  GstAllocationParams params;
  GstBuffer *buf = gst_buffer_new ();

  gst_allocation_params_init (&params);
  params.align = 4095;
  params.prefix = misalign;
  gst_buffer_append_memory (buf, gst_allocator_alloc (NULL, size, &params));
  return buf;
}

/* A frame whose planes have rows longer than their pixels (by an odd
 * number of bytes) and gaps between them, all random: only a meta says
 * where the pixels are. */
static GstBuffer *
padded_buffer (const FormatCase * fc, const GstVideoInfo * info)
{
  ClfFrameFormat format = frame_format (fc, info->width, info->height);
  gsize offset[GST_VIDEO_MAX_PLANES], size = 0;
  gint stride[GST_VIDEO_MAX_PLANES];
  GstBuffer *buf;

  for (guint i = 0; i < format.n_planes; i++) {
    offset[i] = size + g_rand_int_range (rng, 0, 7);
    stride[i] = format.planes[i].width * format.planes[i].bpp + 1 +
        2 * g_rand_int_range (rng, 0, 7);
    size = offset[i] + (gsize) stride[i] * format.planes[i].height;
  }
  buf = fill_random (system_buffer (size, 0));
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), info->width, info->height,
      format.n_planes, offset, stride);
  return buf;
}

static GstBuffer *
input_buffer (GstHarness * h, const FormatCase * fc,
    const GstVideoInfo * info, InputKind kind)
{
  GstBuffer *buf;

  switch (kind) {
    case INPUT_FROM_POOL:
      buf = gst_harness_create_buffer (h, GST_VIDEO_INFO_SIZE (info));
      fail_unless (gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
              GST_CL_MEMORY_TYPE),
          "the harness did not get clfilter's pool");
      return fill_random (buf);
    case INPUT_PADDED:
      return padded_buffer (fc, info);
    default:
      return fill_random (system_buffer (GST_VIDEO_INFO_SIZE (info), 1));
  }
}

static void
host_frame (GstVideoFrame * vframe, ClfHostFrame * host)
{
  memset (host, 0, sizeof *host);
  for (guint i = 0; i < GST_VIDEO_FRAME_N_PLANES (vframe); i++) {
    host->data[i] = GST_VIDEO_FRAME_PLANE_DATA (vframe, i);
    host->stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (vframe, i);
  }
}

/* Compares the element's output with the reference, plane by plane. */
static void
check_output (const FormatCase * fc, const GstVideoInfo * info,
    const ClfParams * params, const gchar * source, GstBuffer * in,
    GstBuffer * out)
{
  ClfFrameFormat format = frame_format (fc, info->width, info->height);
  GstVideoFrame vin, vout;
  ClfHostFrame src, got, want = { {0} };

  fail_unless (gst_video_frame_map (&vin, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&vout, info, out, GST_MAP_READ));
  fail_unless_equals_int (GST_VIDEO_FRAME_N_PLANES (&vout), format.n_planes);
  host_frame (&vin, &src);
  host_frame (&vout, &got);
  for (guint i = 0; i < format.n_planes; i++) {
    want.stride[i] = format.planes[i].width * format.planes[i].bpp;
    want.data[i] = g_malloc (want.stride[i] * format.planes[i].height);
  }
  clf_ref_filter_frame (params, &format, &src, &want);

  for (guint i = 0; i < format.n_planes; i++) {
    for (guint y = 0; y < format.planes[i].height; y++) {
      const guint8 *g = got.data[i] + y * got.stride[i];
      const guint8 *w = want.data[i] + y * want.stride[i];
      for (gsize x = 0; x < want.stride[i]; x++)
        fail_unless (g[x] == w[x], "%s %dx%d %s border=%s r=%u, %s input: plane %u "
            "row %u byte %" G_GSIZE_FORMAT ": got %u, want %u", fc->name,
            info->width, info->height, clf_mode_name (params->mode),
            clf_border_name (params->border), params->radius, source, i, y,
            x, g[x],
            w[x]);
    }
    g_free (want.data[i]);
  }
  gst_video_frame_unmap (&vout);
  gst_video_frame_unmap (&vin);
}

/* Pushes one random frame with the current settings and checks it. */
static void
push_and_check (GstHarness * h, const FormatCase * fc,
    const GstVideoInfo * info, const ClfParams * params, InputKind kind)
{
  GstBuffer *in, *out;

  g_object_set (h->element, "mode", params->mode, "radius", params->radius,
      "border", params->border, NULL);
  in = input_buffer (h, fc, info, kind);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  check_output (fc, info, params, input_names[kind], in, out);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
}

static void
set_caps (GstHarness * h, const gchar * format, guint width, guint height,
    GstVideoInfo * info)
{
  gchar *caps = caps_string (format, width, height);
  GstCaps *c = gst_caps_from_string (caps);
  fail_unless (gst_video_info_from_caps (info, c));
  gst_harness_set_src_caps (h, c);
  g_free (caps);
}

/* Every format, every mode, both borders, at odd sizes (renegotiating the
 * same element between sizes), each frame from clfilter's own pool, with
 * padded rows, and unaligned. */
GST_START_TEST (test_every_format_matches_reference)
{
  static const guint sizes[][2] = { {13, 11}, {1, 1}, {70, 5} };
  const FormatCase *fc = &formats[__i__];
  GstHarness *h = gst_harness_new ("clfilter");
  GstVideoInfo info;

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
    set_caps (h, fc->name, sizes[s][0], sizes[s][1], &info);
    for (ClfMode mode = CLF_MODE_BOX; mode <= CLF_MODE_LAPLACE; mode++)
      for (ClfBorder border = CLF_BORDER_CLAMP; border <= CLF_BORDER_MIRROR;
          border++) {
        ClfParams params = { mode, mode == CLF_MODE_BOX ? 2 : 5, border };
        for (InputKind kind = 0; kind < N_INPUT_KINDS; kind++)
          push_and_check (h, fc, &info, &params, kind);
      }
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* What is not filtered is copied: alpha and x bytes, chroma under laplace. */
GST_START_TEST (test_unfiltered_bytes_copied)
{
  static const gchar *names[] = { "RGBA", "ARGB", "xBGR", "I420", "NV21" };
  for (guint n = 0; n < G_N_ELEMENTS (names); n++) {
    const FormatCase *fc = format_case (names[n]);
    ClfFrameFormat format = frame_format (fc, 31, 9);
    gboolean yuv = fc->n_planes > 1;
    GstHarness *h = gst_harness_new ("clfilter");
    GstVideoInfo info;
    GstVideoFrame vin, vout;
    ClfHostFrame a, b;
    GstBuffer *in, *out;

    set_caps (h, names[n], 31, 9, &info);
    g_object_set (h->element, "mode", yuv ? CLF_MODE_LAPLACE :
        CLF_MODE_SLIDING, "radius", 3, NULL);
    in = random_buffer (GST_VIDEO_INFO_SIZE (&info));
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (gst_video_frame_map (&vin, &info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&vout, &info, out, GST_MAP_READ));
    host_frame (&vin, &a);
    host_frame (&vout, &b);
    if (yuv) {
      /* Every chroma plane, whole rows. */
      for (guint p = 1; p < format.n_planes; p++)
        for (guint y = 0; y < format.planes[p].height; y++)
          fail_unless (memcmp (a.data[p] + y * a.stride[p],
                  b.data[p] + y * b.stride[p],
                  format.planes[p].width * format.planes[p].bpp) == 0,
              "%s: chroma plane %u row %u changed under laplace", names[n],
              p, y);
    } else {
      /* The byte of each pixel that is not a colour: alpha or padding. */
      guint spare = fc->blur[0] == 0x7 ? 3 : 0;
      for (guint y = 0; y < format.planes[0].height; y++)
        for (guint x = 0; x < format.planes[0].width; x++)
          fail_unless_equals_int (b.data[0][y * b.stride[0] + 4 * x + spare],
              a.data[0][y * a.stride[0] + 4 * x + spare]);
    }
    gst_video_frame_unmap (&vout);
    gst_video_frame_unmap (&vin);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static GstMessage *
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

static const gchar *
stats_string (GstMessage * msg, const gchar * field)
{
  const gchar *value = gst_structure_get_string (gst_message_get_structure
      (msg), field);
  fail_unless (value != NULL, "no string field %s", field);
  return value;
}

static guint64
stats_uint64 (GstMessage * msg, const gchar * field)
{
  guint64 value = 0;
  fail_unless (gst_structure_get_uint64 (gst_message_get_structure (msg),
          field, &value), "no guint64 field %s", field);
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

GST_START_TEST (test_unsupported_caps_refused)
{
  static const gchar *refused[] = {
    "video/x-raw,format=UYVY,width=16,height=16,framerate=30/1",
    "video/x-raw,format=GRAY16_LE,width=16,height=16,framerate=30/1",
    "video/x-raw,format=RGBA,width=0,height=16,framerate=30/1",
    "audio/x-raw,format=S16LE,rate=48000,channels=2,layout=interleaved",
  };
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++) {
    GstHarness *h = gst_harness_new ("clfilter");
    GstCaps *caps = gst_caps_from_string (refused[i]);
    GstPad *sink = gst_element_get_static_pad (h->element, "sink");

    fail_if (gst_pad_query_accept_caps (sink, caps), "accepted %s",
        refused[i]);
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

/* The device can only change in NULL or READY. */
GST_START_TEST (test_device_fixed_while_running)
{
  GstHarness *h = gst_harness_new ("clfilter");
  gchar *device = NULL;

  g_object_set (h->element, "device", "cpu", NULL);
  g_object_get (h->element, "device", &device, NULL);
  fail_unless_equals_string (device, "auto");
  g_free (device);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
run_to_eos (const gchar * description)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);
  GstMessage *msg;

  fail_unless (pipeline != NULL, "%s: %s", description,
      error ? error->message : "?");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s failed",
      description);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

/* Decodes `path` through `middle` into an appsink; returns the samples,
 * counts the clfilter-stats messages and adds up their copies. */
static GPtrArray *
decode (const gchar * path, const gchar * middle, guint * n_stats,
    guint * copies)
{
  gchar *description = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "%s ! appsink name=out sync=false", path, middle);
  GstElement *pipeline = gst_parse_launch (description, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GPtrArray *samples = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  GstSample *sample;
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s", description);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink))))
    g_ptr_array_add (samples, sample);
  *n_stats = *copies = 0;
  while ((msg = gst_bus_pop (GST_ELEMENT_BUS (pipeline)))) {
    guint frame_copies = 0;
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "%s: error",
        description);
    if (gst_message_has_name (msg, "clfilter-stats")) {
      (*n_stats)++;
      fail_unless (gst_structure_get_uint (gst_message_get_structure (msg),
              "copies", &frame_copies));
      *copies += frame_copies;
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (description);
  return samples;
}

/* A real H.264 clip through decodebin: the decoded frames, filtered, equal
 * the reference applied to the same decoded frames.  The decoder writes
 * into our pool (padded, and still mapped while it keeps references), so
 * no frame is copied on the host. */
GST_START_TEST (test_decoded_h264_matches_reference)
{
  static const guint n_frames = 8;
  gchar *dir = g_dir_make_tmp ("clfilter-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "clip.mp4", NULL);
  gchar *encode = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball "
      "! video/x-raw,format=I420,width=1280,height=720,framerate=30/1 ! "
      "x264enc speed-preset=ultrafast key-int-max=4 ! mp4mux ! filesink "
      "location=%s", n_frames, path);
  guint raw_stats, filtered_stats, raw_copies, copies;
  GPtrArray *raw, *filtered;

  run_to_eos (encode);
  raw = decode (path, "identity", &raw_stats, &raw_copies);
  filtered = decode (path, "clfilter mode=laplace", &filtered_stats, &copies);
  fail_unless_equals_int (raw->len, n_frames);
  fail_unless_equals_int (filtered->len, n_frames);
  fail_unless_equals_int (filtered_stats, n_frames);
  fail_unless_equals_int (copies, 0);

  for (guint i = 0; i < n_frames; i++) {
    GstSample *a = g_ptr_array_index (raw, i);
    GstSample *b = g_ptr_array_index (filtered, i);
    GstVideoInfo info;
    ClfParams params = { CLF_MODE_LAPLACE, 7, CLF_BORDER_CLAMP };
    fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (b)));
    fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer (a)),
        GST_BUFFER_PTS (gst_sample_get_buffer (b)));
    check_output (format_case (gst_video_format_to_string
            (GST_VIDEO_INFO_FORMAT (&info))), &info, &params, "decoded",
        gst_sample_get_buffer (a), gst_sample_get_buffer (b));
  }

  g_ptr_array_unref (raw);
  g_ptr_array_unref (filtered);
  g_unlink (path);
  g_rmdir (dir);
  g_free (encode);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* The element under test is the one just built, not an installed one. */
GST_START_TEST (test_plugin_from_build_dir)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (),
      "clfilter");
  fail_unless (plugin != NULL);
  fail_unless (g_str_has_prefix (gst_plugin_get_filename (plugin),
          CLF_PLUGIN_BUILD_DIR), "loaded %s",
      gst_plugin_get_filename (plugin));
  gst_object_unref (plugin);
}

GST_END_TEST;

static Suite *
clfilter_suite (void)
{
  Suite *s = suite_create ("clfilter");
  TCase *tc = tcase_create ("general");
  const gchar *seed = g_getenv ("CLF_TEST_SEED");
  guint32 value = seed ? (guint32) g_ascii_strtoull (seed, NULL, 0) :
      g_random_int ();

  g_print ("CLF_TEST_SEED=%u\n", value);
  rng = g_rand_new_with_seed (value);

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_plugin_from_build_dir);
  tcase_add_loop_test (tc, test_every_format_matches_reference, 0,
      G_N_ELEMENTS (formats));
  tcase_add_test (tc, test_unfiltered_bytes_copied);
  tcase_add_test (tc, test_property_changes_between_buffers);
  tcase_add_test (tc, test_stats_message);
  tcase_add_test (tc, test_unsupported_caps_refused);
  tcase_add_test (tc, test_device_not_found_error);
  tcase_add_test (tc, test_device_fixed_while_running);
  tcase_add_test (tc, test_decoded_h264_matches_reference);
  return s;
}

GST_CHECK_MAIN (clfilter);
