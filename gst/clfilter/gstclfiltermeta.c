/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfiltermeta-private.h"

static gboolean
gst_cl_filter_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstClFilterMeta *m = (GstClFilterMeta *) meta;

  m->frame = 0;
  m->mode = m->border = NULL;
  m->radius = m->copies = m->device_copies = 0;
  m->kernel_ns = m->upload_ns = m->download_ns = 0;
  return TRUE;
}

/* Plain data: a copy of the buffer carries a copy of the meta. */
static gboolean
gst_cl_filter_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstClFilterMeta *from = (GstClFilterMeta *) meta, *to;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  to = (GstClFilterMeta *) gst_buffer_add_meta (dest,
      gst_cl_filter_meta_get_info (), NULL);
  if (!to)
    return FALSE;
  to->frame = from->frame;
  to->mode = from->mode;
  to->radius = from->radius;
  to->border = from->border;
  to->kernel_ns = from->kernel_ns;
  to->upload_ns = from->upload_ns;
  to->download_ns = from->download_ns;
  to->copies = from->copies;
  to->device_copies = from->device_copies;
  return TRUE;
}

/* Registers the API under the name the public header looks up. */
static GType
gst_cl_filter_meta_api_register (void)
{
  static GType api;
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&api))
    g_once_init_leave (&api,
        gst_meta_api_type_register (GST_CL_FILTER_META_API_NAME, tags));
  return api;
}

const GstMetaInfo *
gst_cl_filter_meta_get_info (void)
{
  static const GstMetaInfo *info;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *registered =
        gst_meta_register (gst_cl_filter_meta_api_register (),
        "GstClFilterMeta", sizeof (GstClFilterMeta),
        gst_cl_filter_meta_init, NULL, gst_cl_filter_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) registered);
  }
  return info;
}

GstClFilterMeta *
gst_buffer_add_cl_filter_meta (GstBuffer * buffer)
{
  return (GstClFilterMeta *) gst_buffer_add_meta (buffer,
      gst_cl_filter_meta_get_info (), NULL);
}

/* Registered once per process: a name cannot be registered twice.  An
 * application that registered it first as a custom meta, to read it,
 * keeps its own.  One that registered another kind of meta under the name
 * gets no stats meta (NULL): the C meta and the messages still carry the
 * statistics. */
const GstMetaInfo *
gst_cl_filter_stats_meta_get_info (void)
{
  static gsize once;
  static const GstMetaInfo *info;

  if (g_once_init_enter (&once)) {
    static const gchar *tags[] = { NULL };
    const GstMetaInfo *registered =
        gst_meta_get_info (GST_CL_FILTER_STATS_META_NAME);

    if (!registered)
      registered = gst_meta_register_custom (GST_CL_FILTER_STATS_META_NAME,
          tags, NULL, NULL, NULL);
    if (registered && !gst_meta_info_is_custom (registered)) {
      GST_WARNING ("a meta named %s is registered that is not a "
          "GstCustomMeta: clfilter adds no %s meta to its buffers (the "
          "GstClFilterMeta and the clfilter-stats messages have the statistics)",
          GST_CL_FILTER_STATS_META_NAME, GST_CL_FILTER_STATS_META_NAME);
      registered = NULL;
    }
    info = registered;
    g_once_init_leave (&once, 1);
  }
  return info;
}

gboolean
gst_cl_filter_stats_meta_api_is (GType api)
{
  const GstMetaInfo *info = gst_cl_filter_stats_meta_get_info ();

  return info && api == info->api;
}

/* An upstream clfilter's meta is copied onto the output with the buffer's
 * other metas (no tags): it is reused, so that a buffer carries one. */
GstStructure *
gst_buffer_writable_cl_filter_stats (GstBuffer * buffer)
{
  const GstMetaInfo *info = gst_cl_filter_stats_meta_get_info ();
  GstCustomMeta *meta;

  if (!info)
    return NULL;
  meta = (GstCustomMeta *) gst_buffer_get_meta (buffer, info->api);
  if (!meta)
    meta = (GstCustomMeta *) gst_buffer_add_meta (buffer, info, NULL);
  return gst_custom_meta_get_structure (meta);
}
