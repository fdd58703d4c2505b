/* Shared by the gst-check tests: see framecheck.h. */
#include "config.h"

#include "framecheck.h"

#include "gstclmemory.h"

GRand *test_rng;


#define SH CLF_COMPONENT_SHARPENED
#define BL CLF_COMPONENT_BLURRED
#define AL CLF_COMPONENT_COPIED
/* An 8-bit component: plane, offset, pixel stride, role, subsampling. */
#define C8(p, o, ps, r, sx, sy) { p, o, ps, 8, 0, FALSE, r, sx, sy }
/* One in a 2-byte container: depth d shifted up by sh, big-endian or not. */
#define C16(p, o, ps, d, sh, be, r, sx, sy) { p, o, ps, d, sh, be, r, sx, sy }

#define GRAY16(name, be) { name, 1, 1, { C16 (0, 0, 2, 16, 0, be, SH, 1, 1) } }
/* Packed colours at byte offsets r, g, b (a: alpha) of 3- or 4-byte
 * pixels; 'x' padding is no component. */
#define RGBA8(name, r, g, b, a) { name, 1, 4, { C8 (0, r, 4, SH, 1, 1), \
      C8 (0, g, 4, SH, 1, 1), C8 (0, b, 4, SH, 1, 1), C8 (0, a, 4, AL, 1, 1) } }
#define RGBX8(name, r, g, b, ps) { name, 1, 3, { C8 (0, r, ps, SH, 1, 1), \
      C8 (0, g, ps, SH, 1, 1), C8 (0, b, ps, SH, 1, 1) } }
#define YUVA8(name, y, u, v, a) { name, 1, 4, { C8 (0, y, 4, SH, 1, 1), \
      C8 (0, u, 4, BL, 1, 1), C8 (0, v, 4, BL, 1, 1), C8 (0, a, 4, AL, 1, 1) } }
#define YUV8(name, y, u, v) { name, 1, 3, { C8 (0, y, 3, SH, 1, 1), \
      C8 (0, u, 3, BL, 1, 1), C8 (0, v, 3, BL, 1, 1) } }
#define RGBA16(name, r, g, b, a, be) { name, 1, 4, { \
      C16 (0, r, 8, 16, 0, be, SH, 1, 1), C16 (0, g, 8, 16, 0, be, SH, 1, 1), \
      C16 (0, b, 8, 16, 0, be, SH, 1, 1), C16 (0, a, 8, 16, 0, be, AL, 1, 1) } }
#define YUVA16(name, y, u, v, a, be) { name, 1, 4, { \
      C16 (0, y, 8, 16, 0, be, SH, 1, 1), C16 (0, u, 8, 16, 0, be, BL, 1, 1), \
      C16 (0, v, 8, 16, 0, be, BL, 1, 1), C16 (0, a, 8, 16, 0, be, AL, 1, 1) } }
/* Packed 4:2:2: luma every 2 bytes, each chroma every 4. */
#define YUV422(name, y, u, v) { name, 1, 3, { C8 (0, y, 2, SH, 1, 1), \
      C8 (0, u, 4, BL, 2, 1), C8 (0, v, 4, BL, 2, 1) } }
/* Planar: components 0, 1, 2 (Y U V, or R G B: all sharpened) in planes
 * p0, p1, p2, the last two subsampled by sx, sy; then alpha in plane 3. */
#define PLANES(name, p0, p1, p2, sx, sy, r) { name, 3, 3, { \
      C8 (p0, 0, 1, SH, 1, 1), C8 (p1, 0, 1, r, sx, sy), \
      C8 (p2, 0, 1, r, sx, sy) } }
#define PLANES_A(name, p0, p1, p2, sx, sy, r) { name, 4, 4, { \
      C8 (p0, 0, 1, SH, 1, 1), C8 (p1, 0, 1, r, sx, sy), \
      C8 (p2, 0, 1, r, sx, sy), C8 (3, 0, 1, AL, 1, 1) } }
#define PLANES16(name, p0, p1, p2, d, be, sx, sy, r) { name, 3, 3, { \
      C16 (p0, 0, 2, d, 0, be, SH, 1, 1), C16 (p1, 0, 2, d, 0, be, r, sx, sy), \
      C16 (p2, 0, 2, d, 0, be, r, sx, sy) } }
#define PLANES16_A(name, p0, p1, p2, d, be, sx, sy, r) { name, 4, 4, { \
      C16 (p0, 0, 2, d, 0, be, SH, 1, 1), C16 (p1, 0, 2, d, 0, be, r, sx, sy), \
      C16 (p2, 0, 2, d, 0, be, r, sx, sy), C16 (3, 0, 2, d, 0, be, AL, 1, 1) } }
/* YUV planes in order, and G B R planes holding R G B. */
#define YUV_PLANES(name, sx, sy) PLANES (name, 0, 1, 2, sx, sy, BL)
#define YUV16_PLANES(name, d, be, sx, sy) \
  PLANES16 (name, 0, 1, 2, d, be, sx, sy, BL)
#define YUVA16_PLANES(name, d, be, sx, sy) \
  PLANES16_A (name, 0, 1, 2, d, be, sx, sy, BL)
#define GBR16_PLANES(name, d, be) PLANES16 (name, 2, 0, 1, d, be, 1, 1, SH)
#define GBRA16_PLANES(name, d, be) \
  PLANES16_A (name, 2, 0, 1, d, be, 1, 1, SH)
/* Semi-planar: luma, then chroma pairs at offsets u, v. */
#define NV(name, u, v, sx, sy) { name, 2, 3, { C8 (0, 0, 1, SH, 1, 1), \
      C8 (1, u, 2, BL, sx, sy), C8 (1, v, 2, BL, sx, sy) } }
#define P01X(name, d, sh, be) { name, 2, 3, { C16 (0, 0, 2, d, sh, be, SH, 1, 1), \
      C16 (1, 0, 4, d, sh, be, BL, 2, 2), C16 (1, 2, 4, d, sh, be, BL, 2, 2) } }

/* Every format the element takes (little-endian hosts: ARGB64 and AYUV64
 * are in the host's byte order), with those of the GStreamer built
 * against. */
const FormatCase formats[] = {
  {"GRAY8", 1, 1, {C8 (0, 0, 1, SH, 1, 1)}},
  GRAY16 ("GRAY16_LE", FALSE), GRAY16 ("GRAY16_BE", TRUE),
  RGBA8 ("RGBA", 0, 1, 2, 3), RGBA8 ("BGRA", 2, 1, 0, 3),
  RGBA8 ("ARGB", 1, 2, 3, 0), RGBA8 ("ABGR", 3, 2, 1, 0),
  RGBX8 ("RGBx", 0, 1, 2, 4), RGBX8 ("BGRx", 2, 1, 0, 4),
  RGBX8 ("xRGB", 1, 2, 3, 4), RGBX8 ("xBGR", 3, 2, 1, 4),
  RGBX8 ("RGB", 0, 1, 2, 3), RGBX8 ("BGR", 2, 1, 0, 3),
  YUVA8 ("AYUV", 1, 2, 3, 0), YUVA8 ("VUYA", 2, 1, 0, 3),
  YUV8 ("IYU2", 1, 0, 2), YUV8 ("v308", 0, 1, 2),
  RGBA16 ("RGBA64_LE", 0, 2, 4, 6, FALSE), RGBA16 ("RGBA64_BE", 0, 2, 4, 6,
      TRUE),
  RGBA16 ("BGRA64_LE", 4, 2, 0, 6, FALSE), RGBA16 ("BGRA64_BE", 4, 2, 0, 6,
      TRUE),
  RGBA16 ("ARGB64_LE", 2, 4, 6, 0, FALSE), RGBA16 ("ARGB64_BE", 2, 4, 6, 0,
      TRUE),
  RGBA16 ("ABGR64_LE", 6, 4, 2, 0, FALSE), RGBA16 ("ABGR64_BE", 6, 4, 2, 0,
      TRUE),
  RGBA16 ("ARGB64", 2, 4, 6, 0, FALSE), YUVA16 ("AYUV64", 2, 4, 6, 0, FALSE),
  YUV422 ("YUY2", 0, 1, 3), YUV422 ("UYVY", 1, 0, 2), YUV422 ("YVYU", 0, 3, 1),
  YUV_PLANES ("I420", 2, 2), PLANES ("YV12", 0, 2, 1, 2, 2, BL),
  YUV_PLANES ("Y42B", 2, 1), YUV_PLANES ("Y444", 1, 1),
  YUV_PLANES ("Y41B", 4, 1), YUV_PLANES ("YUV9", 4, 4),
  PLANES ("YVU9", 0, 2, 1, 4, 4, BL), PLANES_A ("A420", 0, 1, 2, 2, 2, BL),
  PLANES ("GBR", 2, 0, 1, 1, 1, SH), PLANES ("RGBP", 0, 1, 2, 1, 1, SH),
  PLANES ("BGRP", 2, 1, 0, 1, 1, SH), PLANES_A ("GBRA", 2, 0, 1, 1, 1, SH),
  YUV16_PLANES ("I420_10LE", 10, FALSE, 2, 2),
  YUV16_PLANES ("I420_10BE", 10, TRUE, 2, 2),
  YUV16_PLANES ("I420_12LE", 12, FALSE, 2, 2),
  YUV16_PLANES ("I420_12BE", 12, TRUE, 2, 2),
  YUV16_PLANES ("I422_10LE", 10, FALSE, 2, 1),
  YUV16_PLANES ("I422_10BE", 10, TRUE, 2, 1),
  YUV16_PLANES ("I422_12LE", 12, FALSE, 2, 1),
  YUV16_PLANES ("I422_12BE", 12, TRUE, 2, 1),
  YUV16_PLANES ("Y444_10LE", 10, FALSE, 1, 1),
  YUV16_PLANES ("Y444_10BE", 10, TRUE, 1, 1),
  YUV16_PLANES ("Y444_12LE", 12, FALSE, 1, 1),
  YUV16_PLANES ("Y444_12BE", 12, TRUE, 1, 1),
  YUV16_PLANES ("Y444_16LE", 16, FALSE, 1, 1),
  YUV16_PLANES ("Y444_16BE", 16, TRUE, 1, 1),
  YUVA16_PLANES ("A420_10LE", 10, FALSE, 2, 2),
  YUVA16_PLANES ("A420_10BE", 10, TRUE, 2, 2),
  YUVA16_PLANES ("A422_10LE", 10, FALSE, 2, 1),
  YUVA16_PLANES ("A422_10BE", 10, TRUE, 2, 1),
  YUVA16_PLANES ("A444_10LE", 10, FALSE, 1, 1),
  YUVA16_PLANES ("A444_10BE", 10, TRUE, 1, 1),
  GBR16_PLANES ("GBR_10LE", 10, FALSE), GBR16_PLANES ("GBR_10BE", 10, TRUE),
  GBR16_PLANES ("GBR_12LE", 12, FALSE), GBR16_PLANES ("GBR_12BE", 12, TRUE),
  GBRA16_PLANES ("GBRA_10LE", 10, FALSE), GBRA16_PLANES ("GBRA_10BE", 10, TRUE),
  GBRA16_PLANES ("GBRA_12LE", 12, FALSE), GBRA16_PLANES ("GBRA_12BE", 12, TRUE),
  NV ("NV12", 0, 1, 2, 2), NV ("NV21", 1, 0, 2, 2), NV ("NV16", 0, 1, 2, 1),
  NV ("NV61", 1, 0, 2, 1), NV ("NV24", 0, 1, 1, 1),
  {"AV12", 3, 4, {C8 (0, 0, 1, SH, 1, 1), C8 (1, 0, 2, BL, 2, 2),
          C8 (1, 1, 2, BL, 2, 2), C8 (2, 0, 1, AL, 1, 1)}},
  P01X ("P010_10LE", 10, 6, FALSE), P01X ("P010_10BE", 10, 6, TRUE),
  P01X ("P012_LE", 12, 4, FALSE), P01X ("P012_BE", 12, 4, TRUE),
  P01X ("P016_LE", 16, 0, FALSE), P01X ("P016_BE", 16, 0, TRUE),
  /* The formats later GStreamers add, which the element takes there as
   * it describes every raw format at start-up (82 formats on 1.22). */
#if GST_CHECK_VERSION(1, 24, 0)
  /* 1.24: 17 more.  A422 and A444 (8-bit), the alpha planar YUV at 12 and
   * 16 bits, 16-bit planar RGB, and RBGA (bytes R B G A). */
  PLANES_A ("A422", 0, 1, 2, 2, 1, BL), PLANES_A ("A444", 0, 1, 2, 1, 1, BL),
  YUVA16_PLANES ("A420_12LE", 12, FALSE, 2, 2),
  YUVA16_PLANES ("A420_12BE", 12, TRUE, 2, 2),
  YUVA16_PLANES ("A422_12LE", 12, FALSE, 2, 1),
  YUVA16_PLANES ("A422_12BE", 12, TRUE, 2, 1),
  YUVA16_PLANES ("A444_12LE", 12, FALSE, 1, 1),
  YUVA16_PLANES ("A444_12BE", 12, TRUE, 1, 1),
  YUVA16_PLANES ("A420_16LE", 16, FALSE, 2, 2),
  YUVA16_PLANES ("A420_16BE", 16, TRUE, 2, 2),
  YUVA16_PLANES ("A422_16LE", 16, FALSE, 2, 1),
  YUVA16_PLANES ("A422_16BE", 16, TRUE, 2, 1),
  YUVA16_PLANES ("A444_16LE", 16, FALSE, 1, 1),
  YUVA16_PLANES ("A444_16BE", 16, TRUE, 1, 1),
  GBR16_PLANES ("GBR_16LE", 16, FALSE), GBR16_PLANES ("GBR_16BE", 16, TRUE),
  RGBA8 ("RBGA", 0, 2, 1, 3),
#endif
#if GST_CHECK_VERSION(1, 26, 0)
  /* 1.26: 10-bit gray in the low bits of little-endian 16-bit words (as
   * I420_10LE's planes).  Its Y216 and Y416 are not offered. */
  {"GRAY10_LE16", 1, 1, {C16 (0, 0, 2, 10, 0, FALSE, SH, 1, 1)}},
#endif
};

/* The formats the issue asked for by name (issue 14 and the 17 before). */
const gchar *const required_formats[] = {
  "GRAY8", "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR",
  "RGB", "BGR", "I420", "YV12", "NV12", "NV21", "Y42B", "Y444",
  "YUY2", "UYVY", "YVYU", "NV16", "NV61", "NV24", "Y41B", "A420", "AYUV",
  "VUYA", "GRAY16_LE", "GRAY16_BE", "I420_10LE", "I420_12LE", "I422_10LE",
  "Y444_10LE", "Y444_12LE", "P010_10LE", "P012_LE", "P016_LE", "RGBA64_LE",
  "BGRA64_LE", NULL
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
  ClfFrameFormat f = { fc->n_planes, fc->n_components };
  for (guint i = 0; i < fc->n_components; i++) {
    const CaseComponent *c = &fc->c[i];
    /* *INDENT-OFF* */
    f.components[i] = (ClfComponent) {
      .plane = c->plane,.offset = c->offset,.pstride = c->pstride,
      .width = (width + c->sub_x - 1) / c->sub_x,
      .height = (height + c->sub_y - 1) / c->sub_y,
      .depth = c->depth,.shift = c->shift,.big_endian = c->big_endian,
      .role = c->role};
    /* *INDENT-ON* */
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
  /* Four bytes a draw: a 720p frame of 16-bit RGBA is 7 MB. */
  for (gsize i = 0; i < map.size; i += 4) {
    guint32 r = g_rand_int (test_rng);
    for (gsize b = i; b < map.size && b < i + 4; b++, r >>= 8)
      map.data[b] = (guint8) r;
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

void
count_new_memories (GstBuffer * buf, guint * counter)
{
  GQuark seen = g_quark_from_static_string ("clf-test-seen");

  for (guint i = 0; i < gst_buffer_n_memory (buf); i++) {
    GstMiniObject *mem = GST_MINI_OBJECT (gst_buffer_peek_memory (buf, i));
    if (!gst_mini_object_get_qdata (mem, seen)) {
      gst_mini_object_set_qdata (mem, seen, GINT_TO_POINTER (1), NULL);
      (*counter)++;
    }
  }
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
    stride[i] = clf_frame_format_row_bytes (&format, i) + 1 +
        2 * g_rand_int_range (test_rng, 0, 7);
    size = offset[i] + (gsize) stride[i] * clf_frame_format_rows (&format, i);
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
              GST_CL_MEMORY_TYPE), "the harness did not get clfilter's pool");
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
 * 0, 2, 4... and 1, 3, 5...) filtered on its own, as a frame of one plane
 * of that plane's components. */
static void
reference_fields (const ClfParams * params, const ClfFrameFormat * format,
    const ClfHostFrame * src, const ClfHostFrame * want)
{
  for (guint i = 0; i < format->n_planes; i++)
    for (guint field = 0; field < 2; field++) {
      guint rows = clf_frame_format_rows (format, i);
      ClfFrameFormat one = { 1, 0 };
      /* *INDENT-OFF* */
      ClfHostFrame in = { {0} }, out = { {0} };
      /* *INDENT-ON* */

      rows = field ? rows / 2 : (rows + 1) / 2;
      for (guint c = 0; c < format->n_components; c++)
        if (format->components[c].plane == i) {
          one.components[one.n_components] = format->components[c];
          one.components[one.n_components].plane = 0;
          one.components[one.n_components++].height = rows;
        }
      in.data[0] = src->data[i] + field * src->stride[i];
      in.stride[0] = 2 * src->stride[i];
      out.data[0] = want->data[i] + field * want->stride[i];
      out.stride[0] = 2 * want->stride[i];
      if (rows)
        clf_ref_filter_frame (params, &one, &in, &out);
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
    want.stride[i] = clf_frame_format_row_bytes (&format, i);
    want.data[i] = g_malloc (want.stride[i] *
        clf_frame_format_rows (&format, i));
  }
  if (fields)
    reference_fields (params, &format, &src, &want);
  else
    clf_ref_filter_frame (params, &format, &src, &want);

  for (guint i = 0; i < format.n_planes; i++) {
    for (guint y = 0; y < clf_frame_format_rows (&format, i); y++) {
      const guint8 *g = got.data[i] + y * got.stride[i];
      const guint8 *w = want.data[i] + y * want.stride[i];
      /* Byte by byte only to report a difference: check marks every
       * assertion that passes, a write to its pipe each. */
      if (memcmp (g, w, want.stride[i]) == 0)
        continue;
      for (gsize x = 0; x < want.stride[i]; x++)
        fail_unless (g[x] == w[x],
            "%s %dx%d %s border=%s r=%u, %s input: plane %u row %u byte %"
            G_GSIZE_FORMAT ": got %u, want %u", fc->name, info->width,
            info->height, clf_mode_name (params->mode),
            clf_border_name (params->border), params->radius, source, i, y, x,
            g[x], w[x]);
    }
    g_free (want.data[i]);
  }
  gst_video_frame_unmap (&vout);
  gst_video_frame_unmap (&vin);
}

/* Checks `out` of `first ! second` on `in`: the reference's `first` of
 * `in` is what `second` filtered (`what` names the frame). */
void
check_two_steps (const FormatCase * fc, const GstVideoInfo * info,
    const ClfParams * first, const ClfParams * second, const gchar * what,
    GstBuffer * in, GstBuffer * out)
{
  ClfFrameFormat format = frame_format (fc, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info));
  GstBuffer *middle = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame vin, vmid;
  ClfHostFrame src, mid;

  fail_unless (gst_video_frame_map (&vin, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&vmid, info, middle, GST_MAP_WRITE));
  host_frame (&vin, &src);
  host_frame (&vmid, &mid);
  clf_ref_filter_frame (first, &format, &src, &mid);
  gst_video_frame_unmap (&vmid);
  gst_video_frame_unmap (&vin);
  check_output (fc, info, second, what, middle, out);
  gst_buffer_unref (middle);
}

/* Pushes one random frame with the current settings and checks it. */
void
push_and_check (GstHarness * h, const FormatCase * fc,
    const GstVideoInfo * info, const ClfParams * params, InputKind kind)
{
  GstBuffer *in, *out;

  g_object_set (h->element, "mode", params->mode, "radius", params->radius,
      "border", params->border, "sigma", params->sigma, "amount",
      params->amount, "threshold", params->threshold, NULL);
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

static gboolean quick_tier;
static guint sample_offset;

void
test_rng_init (void)
{
  const gchar *seed = g_getenv ("CLF_TEST_SEED");
  const gchar *tier = g_getenv ("CLF_TEST_TIER");
  guint32 value = seed ? (guint32) g_ascii_strtoull (seed, NULL, 0) :
      g_random_int ();

  g_print ("CLF_TEST_SEED=%u\n", value);
  test_rng = g_rand_new_with_seed (value);
  if (tier && g_strcmp0 (tier, "quick") != 0 && g_strcmp0 (tier, "full") != 0)
    g_error ("CLF_TEST_TIER=%s: expected quick or full", tier);
  quick_tier = g_strcmp0 (tier, "quick") == 0;
  sample_offset = value % 720720;
  if (quick_tier)
    g_print ("CLF_TEST_TIER=quick: a sample of the matrices, turned by the "
        "seed\n");
}

gboolean
test_tier_quick (void)
{
  return quick_tier;
}

gboolean
test_sampled (guint sum, guint every)
{
  return !quick_tier || (sum + sample_offset) % every == 0;
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

void
drop_stale_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *message;

  while ((message = gst_bus_pop_filtered (bus, GST_MESSAGE_EOS)))
    gst_message_unref (message);
  gst_object_unref (bus);
}

void
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

gboolean
device_shares_host_memory (void)
{
  GError *err = NULL;
  ClfEngine *engine = clf_engine_new ("auto", &err);
  gboolean unified;

  fail_unless (engine != NULL, "%s", err->message);
  unified = clf_engine_host_unified (engine);
  clf_engine_unref (engine);
  return unified;
}

/* Whether clfilter was built with CUDA memory, and cudaupload exists:
 * nvcodec registers it only where the CUDA driver found a device. */
gboolean
have_cuda_memory (const gchar * test)
{
  GstElementFactory *upload;

  if (!CLF_HAVE_CUDA) {
    g_print ("SKIP %s: clfilter was built without CUDA memory (meson "
        "option cuda)\n", test);
    return FALSE;
  }
  upload = gst_element_factory_find ("cudaupload");
  if (!upload) {
    g_print ("SKIP %s: no cudaupload (GStreamer's nvcodec with a CUDA "
        "device)\n", test);
    return FALSE;
  }
  gst_object_unref (upload);
  return TRUE;
}
