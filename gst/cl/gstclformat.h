/* GStreamer
 * gst-clfilter: the raw video formats clfilter takes, described for the
 * engine from GstVideoFormatInfo.
 */
#pragma once

#include <gst/video/video.h>

#include "clf.h"

G_BEGIN_DECLS

/* The engine's description of `info`'s frames: one component for each of
 * GstVideoFormatInfo's, with its plane, offset, pixel stride, depth,
 * shift, byte order and subsampled size; alpha is copied, chroma is
 * blurred but not sharpened.  FALSE for formats that components cannot
 * describe (palettes, tiles, bit-packed samples such as v210 or RGB16). */
gboolean gst_cl_format_describe (const GstVideoInfo * info,
    ClfFrameFormat * format);

/* Raw video caps with every format gst_cl_format_describe() takes: the
 * common 8-bit ones first, then the other 8-bit ones, then the deeper
 * ones, each group in GStreamer's order of preference, a few formats to a
 * structure.  Transfer full. */
GstCaps *gst_cl_format_supported_caps (void);

/* Formats in one structure of the templates: gst-inspect prints each
 * structure's list on one line, which stays readable. */
#define GST_CL_FORMATS_PER_STRUCTURE 12

gboolean gst_cl_format_is_supported (GstVideoFormat format);

/* GStreamer's raw formats that `keep` keeps, in its order of preference
 * (a new array). */
GArray *gst_cl_formats_where (gboolean (*keep) (GstVideoFormat format));

/* The supported format closest to `format` (same colour family, alpha,
 * subsampling, then the nearest depth not below it): what a user should
 * ask videoconvert for. */
GstVideoFormat gst_cl_format_nearest_supported (GstVideoFormat format);

/* "memory:CUDAMemory", as GstCudaMemory's caps say. */
#define GST_CL_CAPS_FEATURE_CUDA_MEMORY "memory:CUDAMemory"

/* Whether the caps' first structure is in CUDA memory (refused where
 * clfilter was built without it: the templates lack it). */
gboolean gst_cl_caps_are_cuda (const GstCaps * caps);

G_END_DECLS
