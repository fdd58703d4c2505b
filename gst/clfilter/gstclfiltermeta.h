/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GstClFilterMeta:
 * @meta: the parent #GstMeta
 * @frame: the frame's index since the element started (0 first)
 * @mode: the mode the frame was filtered with: "box", "separable",
 *   "sliding" or "laplace" (a static string)
 * @radius: the blur radius it was filtered with (ignored by "laplace")
 * @border: "clamp" or "mirror" (a static string)
 * @kernel_ns: device time of this frame's kernels, in nanoseconds
 * @upload_ns: device time of its uploads and maps, in nanoseconds
 * @download_ns: device time of its downloads and unmaps, in nanoseconds
 * @copies: host-side copies of pixel data made for it (0: zero copy)
 * @device_copies: copies made on the device for it: frames in CUDA memory
 *   are copied into memory OpenCL shares, and out of it (2 for a frame in
 *   and out of CUDA memory, else 0)
 *
 * What clfilter did to the output buffer it is attached to: the same
 * statistics as the frame's `clfilter-stats` message, on the buffer itself, so
 * an application reading buffers (an appsink, a pad probe) gets each
 * frame's timing with the frame.  Copied with the buffer.
 *
 * This header needs no library: the meta is registered by the clfilter
 * plugin, and gst_buffer_get_cl_filter_meta() finds it by its API name
 * once the plugin is loaded.
 */
typedef struct {
  GstMeta meta;

  guint64 frame;
  const gchar *mode;
  guint radius;
  const gchar *border;
  guint64 kernel_ns;
  guint64 upload_ns;
  guint64 download_ns;
  guint copies;
  guint device_copies;
} GstClFilterMeta;

#define GST_CL_FILTER_META_API_NAME "GstClFilterMetaAPI"

/**
 * GST_CL_FILTER_STATS_META_NAME:
 *
 * The name of a #GstCustomMeta that clfilter attaches to every output
 * buffer beside the #GstClFilterMeta, for language bindings, which cannot
 * read a plugin's own C struct.  Its structure, also named
 * "clfilter-stats", has the fields of the `clfilter-stats` message but
 * `device` and `pts`: `frame`, `kernel-ns`, `upload-ns`, `download-ns`
 * (guint64), `mode`, `border` (strings), `radius`, `copies`,
 * `device-copies` (guint).
 * There is one per buffer: a clfilter downstream of another overwrites
 * it.  From Python:
 * |[
 * meta = buffer.get_custom_meta ("clfilter-stats")
 * kernel_ns = meta.get_structure ().get_value ("kernel-ns")
 * ]|
 */
#define GST_CL_FILTER_STATS_META_NAME "clfilter-stats"

/**
 * gst_cl_filter_meta_api_get_type:
 *
 * Returns: the #GType of the meta's API, or 0 while no clfilter element
 * has been created in this process.
 */
static inline GType
gst_cl_filter_meta_api_get_type (void)
{
  return g_type_from_name (GST_CL_FILTER_META_API_NAME);
}

#define GST_CL_FILTER_META_API_TYPE (gst_cl_filter_meta_api_get_type ())

/**
 * gst_buffer_get_cl_filter_meta:
 * @buffer: a buffer that left a clfilter element
 *
 * Returns: (transfer none) (nullable): its #GstClFilterMeta, or %NULL.
 */
static inline GstClFilterMeta *
gst_buffer_get_cl_filter_meta (GstBuffer * buffer)
{
  GType api = GST_CL_FILTER_META_API_TYPE;
  return api ? (GstClFilterMeta *) gst_buffer_get_meta (buffer, api) : NULL;
}

G_END_DECLS
