/* GStreamer
 * gst-clfilter: the colour conversions clfilter makes on the device when
 * downstream takes another format than upstream gives.
 */
#pragma once

#include <gst/video/video.h>

#include "clf.h"

G_BEGIN_DECLS

/* The caps a pad of clfilter can give or take for `caps` on the other
 * (GstBaseTransformClass::transform_caps): `caps` themselves first (the
 * same format is always preferred), then, for each structure in system
 * memory of progressive video, its formats' conversions: YUV to the RGB
 * formats sinks take, RGB to the YUV formats encoders take, without
 * colorimetry or chroma siting (the conversion sets them).  Transfer
 * full. */
GstCaps *gst_cl_convert_transform_caps (GstPadDirection direction,
    GstCaps * caps);

/* othercaps fixated for `caps` on the other pad (transfer full of
 * othercaps, as GstBaseTransformClass::fixate_caps): caps' own format
 * where othercaps take it, else the first format they list. */
GstCaps *gst_cl_convert_fixate_caps (GstCaps * caps, GstCaps * othercaps);

/* The conversion of frames of `in` (described by `in_format`) into frames
 * of `out`, with `in`'s colorimetry (its matrix and range) and `out`'s
 * range; FALSE where clfilter makes none between the two formats. */
gboolean gst_cl_convert_for (const GstVideoInfo * in,
    const ClfFrameFormat * in_format, const GstVideoInfo * out,
    ClfConversion * conversion);

G_END_DECLS
