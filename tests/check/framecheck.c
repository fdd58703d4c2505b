/* Shared by the gst-check tests: see framecheck.h. */
#include "framecheck.h"

#include "gstclmemory.h"

GRand *test_rng;


const FormatCase formats[] = {
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

const FormatCase *
format_case (const gchar * name)
{
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (g_str_equal (formats[i].name, name))
      return &formats[i];
  g_error ("no format case %s", name);
  return NULL;
}

ClfFrameFormat
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

gchar *
caps_string (const gchar * format, guint width, guint height)
{
  return g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
      "framerate=30/1", format, width, height);
}

GstBuffer *
fill_random (GstBuffer * buf)
{
  GstMapInfo map;
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = (guint8) g_rand_int (test_rng);
  gst_buffer_unmap (buf, &map);
  return buf;
}

GstBuffer *
random_buffer (gsize size)
{
  return fill_random (gst_buffer_new_allocate (NULL, size, NULL));
}


const gchar *const input_names[] = { "pool", "padded", "unaligned" };

/* System memory starting `misalign` bytes after a 4096-byte boundary. */
GstBuffer *
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
GstBuffer *
padded_buffer (const FormatCase * fc, const GstVideoInfo * info)
{
  ClfFrameFormat format = frame_format (fc, info->width, info->height);
  gsize offset[GST_VIDEO_MAX_PLANES], size = 0;
  gint stride[GST_VIDEO_MAX_PLANES];
  GstBuffer *buf;

  for (guint i = 0; i < format.n_planes; i++) {
    offset[i] = size + g_rand_int_range (test_rng, 0, 7);
    stride[i] = format.planes[i].width * format.planes[i].bpp + 1 +
        2 * g_rand_int_range (test_rng, 0, 7);
    size = offset[i] + (gsize) stride[i] * format.planes[i].height;
  }
  buf = fill_random (system_buffer (size, 0));
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), info->width, info->height,
      format.n_planes, offset, stride);
  return buf;
}

GstBuffer *
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

void
host_frame (GstVideoFrame * vframe, ClfHostFrame * host)
{
  memset (host, 0, sizeof *host);
  for (guint i = 0; i < GST_VIDEO_FRAME_N_PLANES (vframe); i++) {
    host->data[i] = GST_VIDEO_FRAME_PLANE_DATA (vframe, i);
    host->stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (vframe, i);
  }
}

/* The reference for an interlaced frame: each field of each plane (rows
 * 0, 2, 4... and 1, 3, 5...) filtered on its own. */
static void
reference_fields (const ClfParams * params, const ClfFrameFormat * format,
    const ClfHostFrame * src, const ClfHostFrame * want)
{
  for (guint i = 0; i < format->n_planes; i++)
    for (guint field = 0; field < 2; field++) {
      ClfPlaneFormat rows = format->planes[i];

      rows.height = field ? rows.height / 2 : (rows.height + 1) / 2;
      if (rows.height)
        clf_ref_filter_plane (params, &rows,
            src->data[i] + field * src->stride[i], 2 * src->stride[i],
            want->data[i] + field * want->stride[i], 2 * want->stride[i]);
    }
}

/* Compares the element's output with the reference, plane by plane. */
void
check_output (const FormatCase * fc, const GstVideoInfo * info,
    const ClfParams * params, const gchar * source, GstBuffer * in,
    GstBuffer * out)
{
  check_output_fields (fc, info, params, source, in, out, FALSE);
}

/* check_output, with `fields`: as an interlaced frame. */
void
check_output_fields (const FormatCase * fc, const GstVideoInfo * info,
    const ClfParams * params, const gchar * source, GstBuffer * in,
    GstBuffer * out, gboolean fields)
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
  if (fields)
    reference_fields (params, &format, &src, &want);
  else
    clf_ref_filter_frame (params, &format, &src, &want);

  for (guint i = 0; i < format.n_planes; i++) {
    for (guint y = 0; y < format.planes[i].height; y++) {
      const guint8 *g = got.data[i] + y * got.stride[i];
      const guint8 *w = want.data[i] + y * want.stride[i];
      /* Byte by byte only to report a difference: check marks every
       * assertion that passes, a write to its pipe each. */
      if (memcmp (g, w, want.stride[i]) == 0)
        continue;
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
void
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

void
set_caps (GstHarness * h, const gchar * format, guint width, guint height,
    GstVideoInfo * info)
{
  gchar *caps = caps_string (format, width, height);
  GstCaps *c = gst_caps_from_string (caps);
  fail_unless (gst_video_info_from_caps (info, c));
  gst_harness_set_src_caps (h, c);
  g_free (caps);
}
const guint n_formats = G_N_ELEMENTS (formats);

void
test_rng_init (void)
{
  const gchar *seed = g_getenv ("CLF_TEST_SEED");
  guint32 value = seed ? (guint32) g_ascii_strtoull (seed, NULL, 0) :
      g_random_int ();

  g_print ("CLF_TEST_SEED=%u\n", value);
  test_rng = g_rand_new_with_seed (value);
}

/* The first error message on `bus`, parsed; fails when there is none. */
void
pop_error (GstBus * bus, GError ** error, gchar ** debug)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  fail_unless (msg != NULL, "no error message was posted");
  gst_message_parse_error (msg, error, debug);
  GST_INFO ("error: %s / %s", (*error)->message, *debug);
  gst_message_unref (msg);
}

GstHarness *
harness_with_bus (gboolean zero_copy, GstBus ** bus)
{
  /* zero-copy is set before the harness starts the element. */
  GstElement *element = gst_element_factory_make ("clfilter", NULL);
  GstHarness *h;

  g_object_set (element, "zero-copy", zero_copy, NULL);
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  return h;
}

void
harness_free (GstHarness * h, GstBus * bus)
{
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}
