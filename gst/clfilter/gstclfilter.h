/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* The values equal the engine's ClfMode and ClfBorder. */
typedef enum {
  GST_CL_FILTER_MODE_BOX,
  GST_CL_FILTER_MODE_SEPARABLE,
  GST_CL_FILTER_MODE_SLIDING,
  GST_CL_FILTER_MODE_LAPLACE,
  GST_CL_FILTER_MODE_CONVOLVE,
  GST_CL_FILTER_MODE_GAUSSIAN,
  GST_CL_FILTER_MODE_UNSHARP,
} GstClFilterMode;

typedef enum {
  GST_CL_FILTER_BORDER_CLAMP,
  GST_CL_FILTER_BORDER_MIRROR,
} GstClFilterBorder;

#define GST_TYPE_CL_FILTER_MODE (gst_cl_filter_mode_get_type ())
GType gst_cl_filter_mode_get_type (void);
#define GST_TYPE_CL_FILTER_BORDER (gst_cl_filter_border_get_type ())
GType gst_cl_filter_border_get_type (void);

/* mode=convolve's named kernels (gstclfilterconvolve.c). */
typedef enum {
  GST_CL_FILTER_PRESET_CUSTOM,
  GST_CL_FILTER_PRESET_SHARPEN,
  GST_CL_FILTER_PRESET_GAUSSIAN_3X3,
  GST_CL_FILTER_PRESET_GAUSSIAN_5X5,
  GST_CL_FILTER_PRESET_MOTION_BLUR,
  GST_CL_FILTER_PRESET_EMBOSS,
  GST_CL_FILTER_PRESET_SOBEL_X,
  GST_CL_FILTER_PRESET_SOBEL_Y,
} GstClFilterPreset;

#define GST_TYPE_CL_FILTER_PRESET (gst_cl_filter_preset_get_type ())
GType gst_cl_filter_preset_get_type (void);

#define GST_TYPE_CL_FILTER (gst_cl_filter_get_type ())
G_DECLARE_FINAL_TYPE (GstClFilter, gst_cl_filter, GST, CL_FILTER,
    GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (clfilter);

G_END_DECLS
