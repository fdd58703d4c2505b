/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

/* Where frames live: the engine, the OpenCL and CUDA contexts shared with
 * neighbours, the buffer pools offered upstream and used for the output,
 * and the opening of a buffer's planes for the device. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfilter-private.h"
#include "gstclbufferpool.h"
#include "gstclcontext.h"
#include "gstclformat.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cl_filter_debug);
#define GST_CAT_DEFAULT gst_cl_filter_debug

/* The engine (a new reference) or NULL, for code that runs outside the
 * stream lock, where stop() may release the element's engine at any
 * moment: queries from upstream's streaming thread, and the application's
 * threads. */
ClfEngine *
gst_cl_filter_ref_engine (GstClFilter * self)
{
  ClfEngine *engine;

  GST_OBJECT_LOCK (self);
  engine = self->engine ? clf_engine_ref (self->engine) : NULL;
  GST_OBJECT_UNLOCK (self);
  return engine;
}

gchar *
gst_cl_filter_device_spec (GstClFilter * self)
{
  gchar *spec;

  GST_OBJECT_LOCK (self);
  spec = g_strdup (self->device);
  GST_OBJECT_UNLOCK (self);
  return spec;
}

void
gst_cl_filter_set_context (GstElement * element, GstContext * context)
{
  GstClFilter *self = GST_CL_FILTER (element);
  gchar *spec = gst_cl_filter_device_spec (self);

  gst_cl_take_context (element, context, spec, &self->engine);
  g_free (spec);
#if CLF_HAVE_CUDA
  GST_OBJECT_LOCK (self);
  gst_cl_cuda_handle_set_context (element, context, &self->cuda_context);
  GST_OBJECT_UNLOCK (self);
#endif
  GST_ELEMENT_CLASS (GST_CL_FILTER_PARENT_CLASS)->set_context (element,
      context);
}

#if CLF_HAVE_CUDA
/* With caps in CUDA memory, the engine's use of the CUDA context (kept
 * across renegotiations); none otherwise.  FALSE with `error` set where the
 * engine's device cannot take CUDA memory. */
gboolean
gst_cl_filter_ensure_cuda (GstClFilter * self, ClfEngine * engine,
    GstCaps * caps, GError ** error)
{
  GError *cuda_error = NULL;

  if (!gst_cl_caps_are_cuda (caps)) {
    g_clear_pointer (&self->cuda, gst_cl_cuda_unref);
    return TRUE;
  }
  if (self->cuda)
    return TRUE;
  /* Not under the object lock: the search for a neighbour's context
   * answers through set_context(), which stores it in cuda_context, as
   * GStreamer's CUDA elements do. */
  self->cuda = gst_cl_cuda_new (GST_ELEMENT (self), &self->cuda_context,
      engine, &cuda_error);
  if (!self->cuda && !clf_error_get_detail (cuda_error))
    clf_error_set_detail (cuda_error, "Frames in CUDA memory need the NVIDIA "
        "driver (libcuda.so.1) and clfilter's OpenCL device to be that CUDA "
        "device (property device). Elsewhere, download them first: \"... ! "
        "cudadownload ! clfilter ! ...\"");
  if (cuda_error)
    g_propagate_error (error, cuda_error);
  return self->cuda != NULL;
}
#endif

/* `pool`, or else a new pool of buffers of `engine`, configured for
 * `caps` with `size`, `min` and `max`, with a GstVideoMeta on each buffer
 * if `video_meta`. */
static GstBufferPool *
gst_cl_filter_configure_pool (GstClFilter * self, ClfEngine * engine,
    GstBufferPool * pool, GstCaps * caps, guint size, guint min, guint max,
    gboolean video_meta)
{
  if (!pool)
    pool = gst_cl_buffer_pool_new (engine);
  if (!gst_cl_buffer_pool_configure (pool, caps, size, min, max, video_meta)) {
    GST_WARNING_OBJECT (self, "%" GST_PTR_FORMAT " refused the configuration "
        "for %" GST_PTR_FORMAT, pool, caps);
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* Offers upstream what the ways in for a frame ask for (our pool and
 * allocator, so producers write frames straight into memory the device
 * uses).  Runs in upstream's streaming thread, without our stream lock:
 * it keeps its own engine reference. */
gboolean
gst_cl_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  gboolean zero_copy, proposed;
  ClfEngine *engine;

  if (!GST_CL_FILTER_PARENT_CLASS->propose_allocation
      (trans, decide_query, query))
    return FALSE;
  GST_OBJECT_LOCK (self);
  zero_copy = self->started_zero_copy;
  GST_OBJECT_UNLOCK (self);
  engine = gst_cl_filter_ref_engine (self);
  proposed = gst_cl_device_frame_propose_allocation (engine, zero_copy, query);
  if (engine)
    clf_engine_unref (engine);
  if (!proposed)
    GST_WARNING_OBJECT (self, "could not offer a pool for %" GST_PTR_FORMAT,
        query);
  return proposed;
}

/* Memory of `other` is usable in place by `ours`: the same OpenCL
 * context. */
static gboolean
engines_share_context (ClfEngine * ours, ClfEngine * other)
{
  return clf_engine_context (other) == clf_engine_context (ours);
}

static gboolean
engine_owns_pool (ClfEngine * engine, GstBufferPool * pool)
{
  ClfEngine *owner = pool && GST_IS_CL_BUFFER_POOL (pool) ?
      gst_cl_buffer_pool_get_engine (GST_CL_BUFFER_POOL (pool)) : NULL;

  return owner && engines_share_context (engine, owner);
}

/* Puts `pool` (taken) first in the allocation query's answer. */
static void
answer_pool (GstQuery * query, GstBufferPool * pool, guint size, guint min,
    guint max)
{
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
}

#if CLF_HAVE_CUDA
/* Output in CUDA memory comes from a GstCudaBufferPool of the shared
 * context: the frame is copied there on the device once the kernels are
 * done. */
static gboolean
gst_cl_filter_decide_cuda_allocation (GstClFilter * self, GstQuery * query,
    GstCaps * caps)
{
  GstVideoInfo info;
  guint size, min = 0, max = 0;
  GstBufferPool *pool;

  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  size = info.size;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &min, &max);
  gst_cl_flight_set_output_to_filter (self->flight, FALSE);
  pool = gst_cl_cuda_pool_new (self->cuda, caps, size, min, max);
  if (!pool) {
    GST_ERROR_OBJECT (self, "no CUDA buffer pool for %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  answer_pool (query, pool, size, min, max);
  return TRUE;
}
#endif

/* Output buffers come from a pool of ours: downstream's when it offers one
 * in our OpenCL context (another clfilter), else a new one.  May run in
 * upstream's thread (an allocation query renegotiates), so it holds its
 * own engine reference. */
gboolean
gst_cl_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  GstCaps *caps;
  guint size, min = 0, max = 0;
  gboolean video_meta;
  ClfEngine *engine;

  gst_query_parse_allocation (query, &caps, NULL);
#if CLF_HAVE_CUDA
  if (self->cuda && gst_cl_caps_are_cuda (caps))
    return gst_cl_filter_decide_cuda_allocation (self, query, caps);
#endif
  if (!self->started_zero_copy) {
    gst_cl_flight_set_output_to_filter (self->flight, FALSE);
    /* Without downstream's pool, one whose buffers' row padding is zeroed
     * once (the base class's would carry a freed buffer's bytes). */
    if (gst_query_get_n_allocation_pools (query) == 0 && caps
        && gst_video_info_from_caps (&info, caps))
      answer_pool (query, gst_cl_buffer_pool_new_host (), info.size, 0, 0);
    return GST_CL_FILTER_PARENT_CLASS->decide_allocation (trans, query);
  }

  if (!caps || !gst_video_info_from_caps (&info, caps))
    goto invalid_caps;
  engine = gst_cl_filter_ref_engine (self);
  if (!engine)
    goto stopped;
  size = info.size;
  for (guint i = 0; i < gst_query_get_n_allocation_pools (query) && !pool; i++) {
    GstBufferPool *offered;
    guint offered_size;

    gst_query_parse_nth_allocation_pool (query, i, &offered, &offered_size,
        &min, &max);
    if (engine_owns_pool (engine, offered)) {
      pool = offered;
      size = MAX (size, offered_size);
    } else {
      gst_clear_object (&offered);
    }
  }
  video_meta = gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
      NULL);
  GST_DEBUG_OBJECT (self, "output from %s pool, video meta %d",
      pool ? "downstream's" : "our own", video_meta);
  gst_cl_flight_set_output_to_filter (self->flight, pool != NULL);
  pool = gst_cl_filter_configure_pool (self, engine, pool, caps, size,
      min, max, video_meta);
  clf_engine_unref (engine);
  if (!pool)
    return FALSE;
  answer_pool (query, pool, size, min, max);
  return TRUE;

  /* ERRORS */
stopped:
  {
    GST_DEBUG_OBJECT (self, "stopped: no engine to allocate from");
    return FALSE;
  }
invalid_caps:
  {
    GST_ERROR_OBJECT (self, "no raw video caps in the allocation query");
    return FALSE;
  }
}

/* Caps that came while passing through decided no output pool: leaving
 * passthrough, the source pad renegotiates for one.  Otherwise the pool
 * decided before is still there, and no frame waits for a new one. */
void
gst_cl_filter_ensure_output_pool (GstClFilter * self)
{
  GstBufferPool *pool =
      gst_base_transform_get_buffer_pool (GST_BASE_TRANSFORM (self));

  if (pool)
    gst_object_unref (pool);
  else
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

/* Gives the engine the buffer's frame (the input's, or with `output` the
 * output's), the first way that takes it (gst/cl/gstcldeviceframe.h: in
 * place when it is in our memory, else through a CPU mapping), and checks
 * that every plane, as the buffer's GstVideoMeta describes it, lies inside
 * the buffer's memory (else CLF_ERROR_FRAME, the message naming "input"
 * or "output").  FALSE with `error` unset when mapping failed. */
gboolean
gst_cl_filter_frame_open (GstClFilter * self, GstBuffer * buffer,
    gboolean output, GstMapFlags flags, GstClDeviceFrame * access,
    GError ** error)
{
  const GstVideoInfo *info = output ? &self->out_info : &self->in_info;
  const ClfFrameFormat *format = output ? &self->out_format : &self->format;
  const gchar *what = output ? "output" : "input";

  if (!gst_cl_device_frame_open (access, self->engine, format, buffer,
          info, flags, self->started_zero_copy, self->cuda, error))
    return FALSE;
  if (!clf_plan_check_frame (self->plan, &access->frame, output, what, error)) {
    gst_cl_device_frame_close (access);
    return FALSE;
  }
  return TRUE;
}
