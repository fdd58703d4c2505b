/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
#pragma once

#include "gstclfiltermeta.h"

G_BEGIN_DECLS

/* The plugin's side of the public meta: registration and adding. */
const GstMetaInfo *gst_cl_filter_meta_get_info (void);
GstClFilterMeta *gst_buffer_add_cl_filter_meta (GstBuffer * buffer);

/* The GstCustomMeta GST_CL_FILTER_STATS_META_NAME, for bindings; NULL
 * where the application registered another kind of meta by that name. */
const GstMetaInfo *gst_cl_filter_stats_meta_get_info (void);
/* TRUE when `api` is the stats meta's. */
gboolean gst_cl_filter_stats_meta_api_is (GType api);
/* The structure of the buffer's stats meta, added if the buffer has none,
 * to be filled in, or NULL where there is no stats meta.  The buffer must
 * be writable. */
GstStructure *gst_buffer_writable_cl_filter_stats (GstBuffer * buffer);

G_END_DECLS
