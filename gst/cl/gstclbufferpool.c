/* GStreamer
 * gst-clfilter: a pool of video buffers in OpenCL memory.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclbufferpool.h"
#include "gstclmemory.h"

GST_DEBUG_CATEGORY_STATIC (gst_cl_buffer_pool_debug);
#define GST_CAT_DEFAULT gst_cl_buffer_pool_debug

struct _GstClBufferPool
{
  GstBufferPool parent;
  GstAllocator *allocator;

  /* From the configuration. */
  GstVideoInfo info;
  GstAllocationParams params;
  gboolean add_meta;
  GstVideoAlignment alignment;
};

G_DEFINE_TYPE_WITH_CODE (GstClBufferPool, gst_cl_buffer_pool,
    GST_TYPE_BUFFER_POOL, GST_DEBUG_CATEGORY_INIT (gst_cl_buffer_pool_debug,
        "clbufferpool", 0, "OpenCL buffer pool for clfilter"));

static const gchar **
gst_cl_buffer_pool_get_options (GstBufferPool * pool)
{
  static const gchar *options[] = {
    GST_BUFFER_POOL_OPTION_VIDEO_META,
    GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT,
    NULL
  };
  return options;
}

static gboolean
gst_cl_buffer_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstClBufferPool *self = GST_CL_BUFFER_POOL (pool);
  GstVideoInfo info;
  GstCaps *caps = NULL;
  guint size, min, max;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      || !caps)
    goto no_caps;
  if (!gst_video_info_from_caps (&info, caps))
    goto wrong_caps;
  /* Whatever allocator was asked for, memory comes from ours; its
   * parameters (alignment, prefix, padding) are kept. */
  if (!gst_buffer_pool_config_get_allocator (config, NULL, &self->params))
    gst_allocation_params_init (&self->params);

  self->add_meta = gst_buffer_pool_config_has_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_video_alignment_reset (&self->alignment);
  /* Padded planes only make sense to users that read the meta. */
  if (self->add_meta && gst_buffer_pool_config_has_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT)) {
    gst_buffer_pool_config_get_video_alignment (config, &self->alignment);
    if (!gst_video_info_align (&info, &self->alignment))
      goto bad_alignment;
    gst_buffer_pool_config_set_video_alignment (config, &self->alignment);
  }
  info.size = MAX (size, info.size);
  self->info = info;
  gst_buffer_pool_config_set_params (config, caps, info.size, min, max);
  gst_buffer_pool_config_set_allocator (config, self->allocator, &self->params);
  GST_DEBUG_OBJECT (self, "%s %dx%d, %" G_GSIZE_FORMAT " bytes per buffer, "
      "meta %d", gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info)),
      info.width, info.height, info.size, self->add_meta);

  return GST_BUFFER_POOL_CLASS (gst_cl_buffer_pool_parent_class)->set_config
      (pool, config);

  /* ERRORS */
no_caps:
  {
    GST_WARNING_OBJECT (self, "the configuration has no caps");
    return FALSE;
  }
wrong_caps:
  {
    GST_WARNING_OBJECT (self, "not raw video caps: %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
bad_alignment:
  {
    GST_WARNING_OBJECT (self, "cannot align %" GST_PTR_FORMAT " as asked",
        caps);
    return FALSE;
  }
}

static gboolean
zero_memory (GstMemory * mem)
{
  GstMapInfo map;

  if (gst_is_cl_memory (mem))
    return gst_cl_memory_zero (mem);
  if (!gst_memory_map (mem, &map, GST_MAP_WRITE))
    return FALSE;
  memset (map.data, 0, map.size);
  gst_memory_unmap (mem, &map);
  return TRUE;
}

static GstFlowReturn
gst_cl_buffer_pool_alloc_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstClBufferPool *self = GST_CL_BUFFER_POOL (pool);
  const GstVideoInfo *info = &self->info;
  GstMemory *mem;

  mem = gst_allocator_alloc (self->allocator, info->size, &self->params);
  if (!mem)
    goto no_memory;
  /* Rows are written up to their samples only: their padding is zeroed
   * here, once, and never carries another buffer's bytes (the memory may
   * be a freed buffer's). */
  if (!zero_memory (mem)) {
    gst_memory_unref (mem);
    goto no_memory;
  }

  *buffer = gst_buffer_new ();
  gst_buffer_append_memory (*buffer, mem);
  if (self->add_meta) {
    GstVideoMeta *meta = gst_buffer_add_video_meta_full (*buffer,
        GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT (info),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_N_PLANES (info), (gsize *) info->offset,
        (gint *) info->stride);
    gst_video_meta_set_alignment (meta, self->alignment);
  }
  return GST_FLOW_OK;

  /* ERRORS */
no_memory:
  {
    GST_ERROR_OBJECT (self, "could not allocate a %" G_GSIZE_FORMAT "-byte "
        "OpenCL buffer", info->size);
    return GST_FLOW_ERROR;
  }
}

static void
gst_cl_buffer_pool_dispose (GObject * object)
{
  GstClBufferPool *self = GST_CL_BUFFER_POOL (object);

  gst_clear_object (&self->allocator);
  G_OBJECT_CLASS (gst_cl_buffer_pool_parent_class)->dispose (object);
}

static void
gst_cl_buffer_pool_class_init (GstClBufferPoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->dispose = gst_cl_buffer_pool_dispose;
  pool_class->get_options = GST_DEBUG_FUNCPTR (gst_cl_buffer_pool_get_options);
  pool_class->set_config = GST_DEBUG_FUNCPTR (gst_cl_buffer_pool_set_config);
  pool_class->alloc_buffer =
      GST_DEBUG_FUNCPTR (gst_cl_buffer_pool_alloc_buffer);
}

static void
gst_cl_buffer_pool_init (GstClBufferPool * self)
{
}

GstBufferPool *
gst_cl_buffer_pool_new (ClfEngine * engine)
{
  GstClBufferPool *self = g_object_new (GST_TYPE_CL_BUFFER_POOL, NULL);

  gst_object_ref_sink (self);
  self->allocator = gst_cl_allocator_new (engine);
  return GST_BUFFER_POOL_CAST (self);
}

GstBufferPool *
gst_cl_buffer_pool_new_host (void)
{
  GstClBufferPool *self = g_object_new (GST_TYPE_CL_BUFFER_POOL, NULL);

  gst_object_ref_sink (self);
  self->allocator = gst_allocator_find (NULL);
  return GST_BUFFER_POOL_CAST (self);
}

ClfEngine *
gst_cl_buffer_pool_get_engine (GstClBufferPool * pool)
{
  return GST_IS_CL_ALLOCATOR (pool->allocator) ?
      gst_cl_allocator_get_engine (GST_CL_ALLOCATOR (pool->allocator)) : NULL;
}

gboolean
gst_cl_buffer_pool_configure (GstBufferPool * pool, GstCaps * caps,
    guint size, guint min, guint max, gboolean video_meta)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (video_meta)
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  return gst_buffer_pool_set_config (pool, config);
}
