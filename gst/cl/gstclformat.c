/* GStreamer
 * gst-clfilter: the raw video formats clfilter takes.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclformat.h"

#include <string.h>

/* Size of the frames a format is tried with: odd, so that subsampled
 * planes round up. */
#define PROBE_WIDTH 17
#define PROBE_HEIGHT 9

/* Alpha is GStreamer's fourth component (GST_VIDEO_COMP_A), whether or not
 * the format is flagged as having alpha: 1.22 does not flag AV12's alpha
 * plane. */
static ClfComponentRole
component_role (const GstVideoFormatInfo * finfo, guint c)
{
  if (c == GST_VIDEO_COMP_A)
    return CLF_COMPONENT_COPIED;
  if (GST_VIDEO_FORMAT_INFO_IS_YUV (finfo) && c != GST_VIDEO_COMP_Y)
    return CLF_COMPONENT_BLURRED;
  return CLF_COMPONENT_SHARPENED;
}

/* Where component c's container starts in a pixel.  GStreamer 1.22's
 * tables give the V sample of the 16-bit semi-planar formats (P010, P012,
 * P016) offset 1, counted in samples rather than bytes: a 2-byte sample
 * never starts at an odd byte. */
static guint32
component_offset (const GstVideoFormatInfo * finfo, guint c)
{
  guint32 offset = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
  gboolean two_bytes = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) +
      GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c) > 8;

  return two_bytes && offset % 2 ? 2 * offset : offset;
}

gboolean
gst_cl_format_describe (const GstVideoInfo * info, ClfFrameFormat * format)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  GError *err = NULL;
  gboolean ok;

  memset (format, 0, sizeof *format);
  if (!finfo || GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo)
      || GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)
      || GST_VIDEO_FORMAT_INFO_IS_COMPLEX (finfo)
      || GST_VIDEO_INFO_N_COMPONENTS (info) < 1
      || GST_VIDEO_INFO_N_PLANES (info) > CLF_MAX_PLANES)
    return FALSE;
  format->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  format->n_components = GST_VIDEO_INFO_N_COMPONENTS (info);
  for (guint c = 0; c < format->n_components; c++) {
    gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
    gint depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c);
    gint shift = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c);

    if (pstride <= 0 || depth <= 0 || shift < 0)
      return FALSE;
    /* *INDENT-OFF* */
    format->components[c] = (ClfComponent) {
      .plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c),
      .offset = component_offset (finfo, c),
      .pstride = (guint32) pstride,
      .width = GST_VIDEO_INFO_COMP_WIDTH (info, c),
      .height = GST_VIDEO_INFO_COMP_HEIGHT (info, c),
      .depth = (guint32) depth,
      .shift = (guint32) shift,
      /* GStreamer flags 8-bit formats neither way. */
      .big_endian = depth + shift > 8 && !GST_VIDEO_FORMAT_INFO_IS_LE (finfo),
      .role = component_role (finfo, c),
    };
    /* *INDENT-ON* */
  }
  ok = clf_frame_format_check (format, &err);
  g_clear_error (&err);
  return ok;
}

/* Sample (x, y) of component c of a frame, as `format` describes it. */
static guint
described_value (const ClfFrameFormat * format, guint c, guint8 * const *data,
    const gint * stride, guint x, guint y)
{
  const ClfComponent *k = &format->components[c];
  const guint8 *p = data[k->plane] + y * stride[k->plane] + x * k->pstride
      + k->offset;
  guint bits = k->depth + k->shift <= 8 ? p[0] :
      k->big_endian ? GST_READ_UINT16_BE (p) : GST_READ_UINT16_LE (p);

  return (bits >> k->shift) & ((1u << k->depth) - 1);
}

/* Whether `format` reads every sample of a frame of random bytes as
 * GStreamer's own unpacking does (to 8- or 16-bit AYUV or ARGB, the value
 * in the high bits): the check that the component tables were read right,
 * for GStreamer versions whose tables have quirks (1.22: P010's V offset,
 * AV12's unflagged alpha, Y210's offsets). */
static gboolean
matches_unpack (const GstVideoInfo * info, const ClfFrameFormat * format)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  const GstVideoFormatInfo *unpacked =
      gst_video_format_get_info (finfo->unpack_format);
  gboolean wide = GST_VIDEO_FORMAT_INFO_DEPTH (unpacked, 0) > 8;
  guint width = GST_VIDEO_INFO_WIDTH (info);
  guint8 *bytes = g_malloc (GST_VIDEO_INFO_SIZE (info));
  guint8 *row = g_malloc ((gsize) width * 4 * 2);
  gpointer data[GST_VIDEO_MAX_PLANES] = { NULL };
  gboolean same = finfo->unpack_func != NULL;
  guint32 seed = 0x2545F491;

  for (gsize i = 0; i < GST_VIDEO_INFO_SIZE (info); i++)
    bytes[i] = (guint8) ((seed = seed * 1664525 + 1013904223) >> 24);
  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++)
    data[i] = bytes + GST_VIDEO_INFO_PLANE_OFFSET (info, i);
  for (guint y = 0; same && y < (guint) GST_VIDEO_INFO_HEIGHT (info); y++) {
    finfo->unpack_func (finfo, GST_VIDEO_PACK_FLAG_TRUNCATE_RANGE, row,
        data, info->stride, 0, y, width);
    for (guint c = 0; same && c < format->n_components; c++)
      for (guint x = 0; same && x < width; x++) {
        const ClfComponent *k = &format->components[c];
        /* Pixel (x, y) shows the chroma sample it lies in. */
        guint cx = x >> GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
        guint cy = y >> GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
        /* AYUV / ARGB order: alpha first, then components 0, 1, 2. */
        guint lane = 4 * x + (c == GST_VIDEO_COMP_A ? 0 : c + 1);
        guint value = wide ? ((guint16 *) row)[lane] : row[lane];

        same = value >> ((wide ? 16 : 8) - k->depth) ==
            described_value (format, c, (guint8 * const *) data,
            info->stride, cx, cy);
      }
  }
  g_free (row);
  g_free (bytes);
  return same;
}

static gboolean
describable (GstVideoFormat format)
{
  GstVideoInfo info;
  ClfFrameFormat described;

  return gst_video_info_set_format (&info, format, PROBE_WIDTH, PROBE_HEIGHT)
      && gst_cl_format_describe (&info, &described)
      && matches_unpack (&info, &described);
}

GArray *
gst_cl_formats_where (gboolean (*keep) (GstVideoFormat format))
{
  guint n = 0;
  const GstVideoFormat *all = gst_video_formats_raw (&n);
  GArray *list = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));

  for (guint i = 0; i < n; i++)
    if (keep (all[i]))
      g_array_append_val (list, all[i]);
  return list;
}

/* The supported formats, in GStreamer's order. */
static GArray *
supported_formats (void)
{
  static GArray *formats;

  if (g_once_init_enter (&formats))
    g_once_init_leave (&formats, gst_cl_formats_where (describable));
  return formats;
}

/* The formats most sources and sinks speak: first in the caps, so that a
 * source that takes the first format it is offered sends 8-bit video. */
static const GstVideoFormat common_formats[] = {
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_YV12,
  GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY,
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_ARGB,
  GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_AYUV, GST_VIDEO_FORMAT_Y444,
  GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_GRAY8,
};

static gboolean
is_common (GstVideoFormat format)
{
  for (guint i = 0; i < G_N_ELEMENTS (common_formats); i++)
    if (common_formats[i] == format)
      return TRUE;
  return FALSE;
}

/* Appends the supported formats that are common (`pass` 0), the other
 * 8-bit ones (1) or the deeper ones (2), in GStreamer's order. */
static void
append_formats (GArray * ordered, GArray * formats, guint pass)
{
  for (guint i = 0; i < formats->len; i++) {
    GstVideoFormat format = g_array_index (formats, GstVideoFormat, i);
    const GstVideoFormatInfo *finfo = gst_video_format_get_info (format);
    guint which = is_common (format) ? 0 :
        GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) <= 8 ? 1 : 2;

    if (which == pass)
      g_array_append_val (ordered, format);
  }
}

GstCaps *
gst_cl_format_supported_caps (void)
{
  GArray *formats = supported_formats ();
  GArray *ordered = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));
  GstCaps *caps = gst_caps_new_empty ();

  for (guint i = 0; i < G_N_ELEMENTS (common_formats); i++)
    if (gst_cl_format_is_supported (common_formats[i]))
      g_array_append_val (ordered, common_formats[i]);
  append_formats (ordered, formats, 1);
  append_formats (ordered, formats, 2);
  for (guint i = 0; i < ordered->len; i += GST_CL_FORMATS_PER_STRUCTURE)
    gst_caps_append (caps, gst_video_make_raw_caps (&g_array_index (ordered,
                GstVideoFormat, i), MIN (GST_CL_FORMATS_PER_STRUCTURE,
                ordered->len - i)));
  g_array_unref (ordered);
  return caps;
}

gboolean
gst_cl_format_is_supported (GstVideoFormat format)
{
  GArray *formats = supported_formats ();

  for (guint i = 0; i < formats->len; i++)
    if (g_array_index (formats, GstVideoFormat, i) == format)
      return TRUE;
  return FALSE;
}

static gint
family (const GstVideoFormatInfo * f)
{
  return GST_VIDEO_FORMAT_INFO_IS_YUV (f) ? 0 :
      GST_VIDEO_FORMAT_INFO_IS_RGB (f) ? 1 : 2;
}

/* How well `candidate` stands in for `wanted`: the colour family first,
 * then alpha, chroma subsampling, a depth not below the wanted one (the
 * nearer the better), then as many planes and little-endian over big. */
static gint
closeness (const GstVideoFormatInfo * wanted,
    const GstVideoFormatInfo * candidate)
{
  gint depth = GST_VIDEO_FORMAT_INFO_DEPTH (wanted, 0);
  gint have = GST_VIDEO_FORMAT_INFO_DEPTH (candidate, 0);
  gint score = 0;

  score += family (wanted) == family (candidate) ? 10000 : 0;
  score += GST_VIDEO_FORMAT_INFO_HAS_ALPHA (wanted) ==
      GST_VIDEO_FORMAT_INFO_HAS_ALPHA (candidate) ? 1000 : 0;
  score += GST_VIDEO_FORMAT_INFO_W_SUB (wanted, 1) ==
      GST_VIDEO_FORMAT_INFO_W_SUB (candidate, 1)
      && GST_VIDEO_FORMAT_INFO_H_SUB (wanted, 1) ==
      GST_VIDEO_FORMAT_INFO_H_SUB (candidate, 1) ? 500 : 0;
  score += have >= depth ? 100 - (have - depth) : -10 * (depth - have);
  score += GST_VIDEO_FORMAT_INFO_N_PLANES (wanted) ==
      GST_VIDEO_FORMAT_INFO_N_PLANES (candidate) ? 2 : 0;
  score += GST_VIDEO_FORMAT_INFO_IS_LE (candidate) || have <= 8 ? 1 : 0;
  return score;
}

GstVideoFormat
gst_cl_format_nearest_supported (GstVideoFormat format)
{
  const GstVideoFormatInfo *wanted = gst_video_format_get_info (format);
  GArray *formats = supported_formats ();
  GstVideoFormat best = GST_VIDEO_FORMAT_UNKNOWN;
  gint best_score = G_MININT;

  for (guint i = 0; wanted && i < formats->len; i++) {
    GstVideoFormat candidate = g_array_index (formats, GstVideoFormat, i);
    gint score = closeness (wanted, gst_video_format_get_info (candidate));

    if (score > best_score) {
      best = candidate;
      best_score = score;
    }
  }
  return best;
}

gboolean
gst_cl_caps_are_cuda (const GstCaps * caps)
{
  GstCapsFeatures *features;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  features = gst_caps_get_features (caps, 0);
  return features && gst_caps_features_contains (features,
      GST_CL_CAPS_FEATURE_CUDA_MEMORY);
}
