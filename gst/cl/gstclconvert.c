/* GStreamer
 * gst-clfilter: the colour conversions clfilter makes on the device.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclconvert.h"
#include "gstclformat.h"

#include <string.h>

/* What YUV video becomes for sinks that take RGB only (ximagesink, RGB
 * shm): 8-bit RGB, in the order GStreamer's converters offer it. */
static const GstVideoFormat rgb_targets[] = {
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_xRGB,
  GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBA,
  GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR,
};

/* What RGB becomes for encoders that take YUV only: 4:2:0, 8- and
 * 10-bit. */
static const GstVideoFormat yuv_targets[] = {
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_YV12,
  GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_I420_10LE,
  GST_VIDEO_FORMAT_P010_10LE,
};

/* Frames a format is tried with: odd, so that subsampled planes round
 * up. */
#define PROBE_WIDTH 17
#define PROBE_HEIGHT 9

static gboolean
listed (const GstVideoFormat * list, guint n, GstVideoFormat format)
{
  for (guint i = 0; i < n; i++)
    if (list[i] == format)
      return TRUE;
  return FALSE;
}

static gboolean
in_array (GArray * formats, GstVideoFormat format)
{
  return listed ((const GstVideoFormat *) formats->data, formats->len, format);
}

/* Whether the engine converts `format`'s frames to `to`. */
static gboolean
converts (GstVideoFormat format, GstVideoFormat to)
{
  GstVideoInfo in, out;
  ClfFrameFormat in_format;
  ClfConversion conversion;

  return gst_cl_format_is_supported (format)
      && gst_video_info_set_format (&in, format, PROBE_WIDTH, PROBE_HEIGHT)
      && gst_video_info_set_format (&out, to, PROBE_WIDTH, PROBE_HEIGHT)
      && gst_cl_format_describe (&in, &in_format)
      && gst_cl_convert_for (&in, &in_format, &out, &conversion);
}

static gboolean
converts_to_rgb (GstVideoFormat format)
{
  return converts (format, GST_VIDEO_FORMAT_BGRx);
}

static gboolean
converts_to_yuv (GstVideoFormat format)
{
  return converts (format, GST_VIDEO_FORMAT_I420);
}

/* The YUV formats the engine converts to RGB, and the RGB ones it
 * converts to YUV, in GStreamer's order. */
static GArray *
yuv_sources (void)
{
  static GArray *formats;

  if (g_once_init_enter (&formats))
    g_once_init_leave (&formats, gst_cl_formats_where (converts_to_rgb));
  return formats;
}

static GArray *
rgb_sources (void)
{
  static GArray *formats;

  if (g_once_init_enter (&formats))
    g_once_init_leave (&formats, gst_cl_formats_where (converts_to_yuv));
  return formats;
}

static void
append_format (GValue * list, GstVideoFormat format)
{
  GValue value = G_VALUE_INIT;

  for (guint i = 0; i < gst_value_list_get_size (list); i++)
    if (!g_strcmp0 (g_value_get_string (gst_value_list_get_value (list, i)),
            gst_video_format_to_string (format)))
      return;
  g_value_init (&value, G_TYPE_STRING);
  g_value_set_string (&value, gst_video_format_to_string (format));
  gst_value_list_append_and_take_value (list, &value);
}

static void
append_formats (GValue * list, const GstVideoFormat * formats, guint n)
{
  for (guint i = 0; i < n; i++)
    append_format (list, formats[i]);
}

/* Into `list`, what `format` converts to (`direction` GST_PAD_SINK: it is
 * the input) or from. */
static void
append_conversions (GValue * list, GstPadDirection direction,
    GstVideoFormat format)
{
  GArray *yuv = yuv_sources (), *rgb = rgb_sources ();

  if (direction == GST_PAD_SINK) {
    if (in_array (yuv, format))
      append_formats (list, rgb_targets, G_N_ELEMENTS (rgb_targets));
    if (in_array (rgb, format))
      append_formats (list, yuv_targets, G_N_ELEMENTS (yuv_targets));
  } else {
    if (listed (rgb_targets, G_N_ELEMENTS (rgb_targets), format))
      append_formats (list, (const GstVideoFormat *) yuv->data, yuv->len);
    if (listed (yuv_targets, G_N_ELEMENTS (yuv_targets), format))
      append_formats (list, (const GstVideoFormat *) rgb->data, rgb->len);
  }
}

/* Whether conversions are offered in memory of `features`: system memory,
 * and CUDA memory where clfilter has it (the pad templates then keep the
 * formats GstCudaMemory holds). */
static gboolean
converts_in (GstCapsFeatures * features)
{
  return !features || gst_caps_features_is_any (features)
      || gst_caps_features_is_equal (features,
      GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)
      || (CLF_HAVE_CUDA && gst_caps_features_get_size (features) == 1
      && gst_caps_features_contains (features,
          GST_CL_CAPS_FEATURE_CUDA_MEMORY));
}

/* The structure's conversions, or NULL: only for raw video in system (or
 * CUDA) memory, progressive, of listed formats. */
static GstStructure *
converted_structure (GstPadDirection direction, const GstStructure * s,
    GstCapsFeatures * features)
{
  const GValue *formats = gst_structure_get_value (s, "format");
  const gchar *interlace = gst_structure_get_string (s, "interlace-mode");
  GValue list = G_VALUE_INIT;
  GstStructure *converted = NULL;
  guint n;

  if (!gst_structure_has_name (s, "video/x-raw") || !formats
      || !converts_in (features)
      || (gst_structure_has_field (s, "interlace-mode")
          && g_strcmp0 (interlace, "progressive")))
    return NULL;
  g_value_init (&list, GST_TYPE_LIST);
  n = GST_VALUE_HOLDS_LIST (formats) ? gst_value_list_get_size (formats) : 1;
  for (guint i = 0; i < n; i++) {
    const GValue *one = GST_VALUE_HOLDS_LIST (formats) ?
        gst_value_list_get_value (formats, i) : formats;

    if (G_VALUE_HOLDS_STRING (one))
      append_conversions (&list, direction,
          gst_video_format_from_string (g_value_get_string (one)));
  }
  if (gst_value_list_get_size (&list) > 0) {
    converted = gst_structure_copy (s);
    gst_structure_set_value (converted, "format", &list);
    gst_structure_remove_fields (converted, "colorimetry", "chroma-site", NULL);
  }
  g_value_unset (&list);
  return converted;
}

GstCaps *
gst_cl_convert_transform_caps (GstPadDirection direction, GstCaps * caps)
{
  GstCaps *result = gst_caps_copy (caps);

  if (gst_caps_is_any (caps))
    return result;
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    GstStructure *converted = converted_structure (direction,
        gst_caps_get_structure (caps, i), features);

    if (converted)
      result = gst_caps_merge_structure_full (result, converted,
          features ? gst_caps_features_copy (features) : NULL);
  }
  return result;
}

GstCaps *
gst_cl_convert_fixate_caps (GstCaps * caps, GstCaps * othercaps)
{
  const gchar *format =
      gst_structure_get_string (gst_caps_get_structure (caps, 0), "format");
  GstCaps *same = NULL;

  for (guint i = 0; format && i < gst_caps_get_size (othercaps) && !same; i++) {
    GstStructure *s = gst_caps_get_structure (othercaps, i);
    GstStructure *candidate = gst_structure_copy (s);

    gst_structure_set (candidate, "format", G_TYPE_STRING, format, NULL);
    if (gst_structure_is_subset (candidate, s)) {
      same = gst_caps_new_empty ();
      gst_caps_append_structure_full (same, candidate,
          gst_caps_features_copy (gst_caps_get_features (othercaps, i)));
    } else {
      gst_structure_free (candidate);
    }
  }
  if (same) {
    gst_caps_unref (othercaps);
    othercaps = same;
  }
  return gst_caps_fixate (othercaps);
}

/* The range `info`'s caps say, where they say one; else GStreamer's
 * default for the format (full for RGB, limited for YUV). */
static gboolean
full_range (const GstVideoInfo * info)
{
  return info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255
      || (info->colorimetry.range == GST_VIDEO_COLOR_RANGE_UNKNOWN
      && !GST_VIDEO_INFO_IS_YUV (info));
}

/* The formats whose chroma videoconvert (1.22) takes from the sample a
 * pixel lies in (its fast paths to RGB); it filters every other's. */
static gboolean
nearest_chroma (GstVideoFormat format)
{
  return format == GST_VIDEO_FORMAT_I420 || format == GST_VIDEO_FORMAT_YV12
      || format == GST_VIDEO_FORMAT_A420;
}

gboolean
gst_cl_convert_for (const GstVideoInfo * in, const ClfFrameFormat * in_format,
    const GstVideoInfo * out, ClfConversion * conversion)
{
  gboolean to_rgb = GST_VIDEO_INFO_IS_YUV (in) && GST_VIDEO_INFO_IS_RGB (out);
  /* The YUV side's colorimetry and siting. */
  const GstVideoInfo *yuv = to_rgb ? in : out;
  ClfFrameFormat out_format;
  gdouble kr = 0, kb = 0;
  GError *err = NULL;

  if ((!to_rgb && !(GST_VIDEO_INFO_IS_RGB (in) && GST_VIDEO_INFO_IS_YUV (out)))
      || GST_VIDEO_INFO_IS_INTERLACED (in)
      || !gst_cl_format_describe (out, &out_format))
    return FALSE;
  /* GstVideoInfo gives caps that name no matrix the default for their
   * size; one it has no Kr, Kb for is taken as BT.601, as videoconvert
   * does. */
  if (!gst_video_color_matrix_get_Kr_Kb (yuv->colorimetry.matrix, &kr, &kb))
    gst_video_color_matrix_get_Kr_Kb (GST_VIDEO_COLOR_MATRIX_BT601, &kr, &kb);
  if (!clf_conversion_init (conversion, to_rgb ? CLF_CONVERT_YUV_TO_RGB :
          CLF_CONVERT_RGB_TO_YUV, in_format, &out_format, kr, kb,
          full_range (yuv), &err)) {
    g_clear_error (&err);
    return FALSE;
  }
  conversion->chroma_up = to_rgb
      && nearest_chroma (GST_VIDEO_INFO_FORMAT (in)) ?
      CLF_CHROMA_UP_NEAREST : CLF_CHROMA_UP_FILTERED;
  conversion->h_cosited =
      (yuv->chroma_site & GST_VIDEO_CHROMA_SITE_H_COSITED) != 0;
  conversion->v_cosited =
      (yuv->chroma_site & GST_VIDEO_CHROMA_SITE_V_COSITED) != 0;
  return TRUE;
}
