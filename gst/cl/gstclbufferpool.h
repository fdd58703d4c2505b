/* GStreamer
 * gst-clfilter: a pool of video buffers in OpenCL memory.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "clf.h"

G_BEGIN_DECLS

/* Video buffers of one GstClMemory each.  Supports
 * GST_BUFFER_POOL_OPTION_VIDEO_META (buffers carry a GstVideoMeta) and, with
 * it, GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT (padded planes, as decoders
 * ask for). */
#define GST_TYPE_CL_BUFFER_POOL (gst_cl_buffer_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstClBufferPool, gst_cl_buffer_pool, GST,
    CL_BUFFER_POOL, GstBufferPool);

GstBufferPool *gst_cl_buffer_pool_new (ClfEngine * engine);
/* The same pool of system memory, for output the CPU writes. */
GstBufferPool *gst_cl_buffer_pool_new_host (void);
/* Sets a pool's configuration: buffers of `size` bytes for `caps`, at
 * least `min` and at most `max` (0: no limit), each with a GstVideoMeta if
 * `video_meta`.  FALSE where the pool refuses it. */
gboolean gst_cl_buffer_pool_configure (GstBufferPool * pool, GstCaps * caps,
    guint size, guint min, guint max, gboolean video_meta);
/* NULL for a pool of system memory. */
ClfEngine *gst_cl_buffer_pool_get_engine (GstClBufferPool * pool);

G_END_DECLS
