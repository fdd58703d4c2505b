/* GStreamer
 * gst-clfilter: a buffer's frame opened for the OpenCL device, to be read
 * or written.
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
#include "gstcldeviceframe.h"
#include "gstclformat.h"

GST_DEBUG_CATEGORY_STATIC (gst_cl_device_frame_debug);
#define GST_CAT_DEFAULT gst_cl_device_frame_debug

/* The most events one frame's readiness gives. */
#define MAX_WAIT (GST_VIDEO_MAX_PLANES * GST_CL_MEMORY_MAX_WAIT + 1)

/* What every way is given. */
typedef struct
{
  ClfEngine *engine;
  const ClfFrameFormat *format;
  GstBuffer *buffer;
  const GstVideoInfo *info;
  GstMapFlags flags;
  gboolean zero_copy;
  GstClCuda *cuda;
} OpenRequest;

typedef enum
{
  OPEN_DONE,
  OPEN_DECLINED,                /* the buffer does not fit: try the next way */
  OPEN_FAILED,
} OpenResult;

/* *INDENT-OFF* */
typedef struct
{
  const gchar *name;
  /* Whether the way applies at all, before it looks at the planes. */
  gboolean (*accept) (const OpenRequest * req);
  OpenResult (*perform) (GstClDeviceFrame * dframe, const OpenRequest * req,
      GError ** error);
  /* What it adds to an allocation query for `caps`, or NULL. */
  gboolean (*propose) (const OpenRequest * req, GstQuery * query,
      GstCaps * caps, gboolean need_pool);
} Way;
/* *INDENT-ON* */

static void
add_device_memory (GstClDeviceFrame * dframe, GstMemory * mem)
{
  for (guint i = 0; i < dframe->n_device; i++)
    if (dframe->device[i] == mem)
      return;
  dframe->device[dframe->n_device++] = mem;
}

static void
release_events (cl_event * events, guint n)
{
  for (guint i = 0; i < n; i++)
    clReleaseEvent (events[i]);
}

/* ---- cuda-memory ------------------------------------------------------ */

#if CLF_HAVE_CUDA
static gboolean
cuda_memory_accept (const OpenRequest * req)
{
  return gst_cl_cuda_accepts (req->cuda, req->buffer);
}

/* The staging frame is laid out as the caps say. */
static OpenResult
cuda_memory_perform (GstClDeviceFrame * dframe, const OpenRequest * req,
    GError ** error)
{
  return gst_cl_cuda_access_open (&dframe->cuda, req->cuda, req->buffer,
      req->info, req->format, req->flags, &dframe->frame, error) ?
      OPEN_DONE : OPEN_FAILED;
}
#endif

/* ---- device-memory ---------------------------------------------------- */

static gboolean
device_memory_accept (const OpenRequest * req)
{
  return req->zero_copy;
}

/* Memory of ours in the engine's context, holding `bytes` bytes from
 * `skip`, that the device can use as it is now. */
static gboolean
device_can_use (const OpenRequest * req, GstMemory * mem, gsize skip,
    gsize bytes)
{
  if (!gst_is_cl_memory (mem)
      || clf_engine_context (gst_cl_memory_get_engine (mem))
      != clf_engine_context (req->engine) || skip + bytes > mem->size)
    return FALSE;
  /* Memory still mapped (decoders keep reference frames mapped) shows
   * the device the CPU's bytes only where both work on the same memory. */
  return !gst_cl_memory_is_mapped (mem)
      || clf_engine_host_unified (req->engine);
}

static OpenResult
device_memory_perform (GstClDeviceFrame * dframe, const OpenRequest * req,
    GError ** error)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (req->buffer);
  ClfFrame *frame = &dframe->frame;

  for (guint i = 0; i < req->format->n_planes; i++) {
    gsize row_bytes = clf_frame_format_row_bytes (req->format, i);
    guint rows = clf_frame_format_rows (req->format, i);
    gsize offset = meta ? meta->offset[i] : req->info->offset[i];
    gint stride = meta ? meta->stride[i] : req->info->stride[i];
    guint idx, n;
    gsize skip, mem_offset;
    GstMemory *mem;

    if (stride <= 0 || !gst_buffer_find_memory (req->buffer, offset, 1, &idx,
            &n, &skip))
      return OPEN_DECLINED;
    mem = gst_buffer_peek_memory (req->buffer, idx);
    if (!device_can_use (req, mem, skip, (gsize) stride * (rows - 1)
            + row_bytes))
      return OPEN_DECLINED;
    frame->mem[i] = gst_cl_memory_get_buffer (mem, &mem_offset);
    frame->offset[i] = mem_offset + skip;
    frame->stride[i] = (size_t) stride;
    add_device_memory (dframe, mem);
  }
  return OPEN_DONE;
}

/* A pool of our memory (where the query asks for one: its buffers carry
 * a GstVideoMeta, so producers may pad their rows) and our allocator, so
 * producers write frames straight into memory the device uses. */
static gboolean
device_memory_propose (const OpenRequest * req, GstQuery * query,
    GstCaps * caps, gboolean need_pool)
{
  GstAllocator *allocator;
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps))
    return TRUE;
  if (need_pool) {
    GstBufferPool *pool = gst_cl_buffer_pool_new (req->engine);

    if (!gst_cl_buffer_pool_configure (pool, caps, info.size, 0, 0, TRUE)) {
      gst_object_unref (pool);
      return FALSE;
    }
    gst_query_add_allocation_pool (query, pool, info.size, 0, 0);
    gst_object_unref (pool);
  }
  allocator = gst_cl_allocator_new (req->engine);
  gst_query_add_allocation_param (query, allocator, NULL);
  gst_object_unref (allocator);
  return TRUE;
}

/* ---- wrapped-host and copied-host ------------------------------------- */

static gboolean
wrapped_host_accept (const OpenRequest * req)
{
  return req->zero_copy && clf_engine_host_unified (req->engine);
}

static gboolean
copied_host_accept (const OpenRequest * req)
{
  return TRUE;
}

/* A device buffer over the mapped memory at `region` (one per distinct
 * memory), or NULL where only a copy can take it to the device. */
static cl_mem
wrap_region (GstClDeviceFrame * dframe, ClfEngine * engine,
    const GstMapInfo * region, GError ** error)
{
  cl_mem mem;

  for (guint w = 0; w < dframe->n_wraps; w++)
    if (dframe->wraps[w].base == region->data)
      return dframe->wraps[w].mem;
  mem = clf_engine_wrap_host (engine, region->data, region->size, error);
  if (mem) {
    dframe->wraps[dframe->n_wraps].base = region->data;
    dframe->wraps[dframe->n_wraps++].mem = mem;
  }
  return mem;
}

/* Maps the buffer for the CPU; each plane is then wrapped in place where
 * `wrap` and the device allow it, else left in host memory for the engine
 * to copy.  The planes' extents are the mapped memory's: the engine checks
 * that the strides keep every row inside it. */
static OpenResult
host_perform (GstClDeviceFrame * dframe, const OpenRequest * req,
    gboolean wrap, GError ** error)
{
  GstVideoFrame *vframe = &dframe->vframe;

  if (!gst_video_frame_map (vframe, req->info, req->buffer, req->flags))
    return OPEN_FAILED;
  dframe->mapped = TRUE;
  for (guint i = 0; i < GST_VIDEO_FRAME_N_PLANES (vframe); i++) {
    guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (vframe, i);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (vframe, i);
    /* With a meta each plane has its own map; without, one holds all. */
    const GstMapInfo *region = vframe->meta ? &vframe->map[i] : &vframe->map[0];
    gsize offset = (gsize) (data - region->data);
    /* The device reads whole samples: a plane off their alignment is
     * copied (host memory has no such rule). */
    guint align = clf_frame_format_sample_bytes (req->format, i);
    GError *wrap_error = NULL;
    cl_mem mem;

    /* Bottom-up rows (a negative stride) are a GstVideoMeta's right, but
     * the engine takes rows top-down; refuse them before they wrap. */
    if (stride <= 0) {
      g_set_error (error, CLF_ERROR, CLF_ERROR_FRAME, "plane %u has a "
          "stride of %d bytes: clfilter takes rows top-down, with a positive "
          "stride", i, stride);
      return OPEN_FAILED;
    }
    mem = wrap && offset % align == 0 && stride % align == 0 ?
        wrap_region (dframe, req->engine, region, &wrap_error) : NULL;
    if (wrap_error) {
      g_propagate_error (error, wrap_error);
      return OPEN_FAILED;
    }
    dframe->frame.stride[i] = (size_t) stride;
    dframe->frame.mem[i] = mem;
    dframe->frame.wrapped[i] = mem != NULL;
    dframe->frame.offset[i] = mem ? offset : 0;
    dframe->frame.data[i] = mem ? NULL : data;
    dframe->frame.size[i] = mem ? 0 : region->size - offset;
  }
  return OPEN_DONE;
}

static OpenResult
wrapped_host_perform (GstClDeviceFrame * dframe, const OpenRequest * req,
    GError ** error)
{
  return host_perform (dframe, req, TRUE, error);
}

static OpenResult
copied_host_perform (GstClDeviceFrame * dframe, const OpenRequest * req,
    GError ** error)
{
  return host_perform (dframe, req, FALSE, error);
}

/* In order of preference: no copy, then a copy only of what cannot be
 * shared, then a copy of everything. */
static const Way ways[] = {
#if CLF_HAVE_CUDA
  {"cuda-memory", cuda_memory_accept, cuda_memory_perform, NULL},
#endif
  {"device-memory", device_memory_accept, device_memory_perform,
      device_memory_propose},
  {"wrapped-host", wrapped_host_accept, wrapped_host_perform, NULL},
  {"copied-host", copied_host_accept, copied_host_perform, NULL},
};

static void
debug_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_cl_device_frame_debug, "cldeviceframe", 0,
        "how frames reach the OpenCL device");
    g_once_init_leave (&done, 1);
  }
}

gboolean
gst_cl_device_frame_open (GstClDeviceFrame * dframe, ClfEngine * engine,
    const ClfFrameFormat * format, GstBuffer * buffer,
    const GstVideoInfo * info, GstMapFlags flags, gboolean zero_copy,
    GstClCuda * cuda, GError ** error)
{
  const OpenRequest req = { engine, format, buffer, info, flags, zero_copy,
    cuda
  };

  debug_init ();
  memset (dframe, 0, sizeof *dframe);
  for (guint m = 0; m < G_N_ELEMENTS (ways); m++) {
    const Way *method = &ways[m];
    OpenResult result;

    if (!method->accept (&req))
      continue;
    result = method->perform (dframe, &req, error);
    if (result == OPEN_DONE) {
      dframe->method = method->name;
      GST_LOG ("buffer %p: %s", buffer, method->name);
      return TRUE;
    }
    gst_cl_device_frame_close (dframe);
    memset (dframe, 0, sizeof *dframe);
    if (result == OPEN_FAILED)
      return FALSE;
  }
  return FALSE;
}

gboolean
gst_cl_device_frame_propose_allocation (ClfEngine * engine, gboolean zero_copy,
    GstQuery * query)
{
  const OpenRequest req = {.engine = engine,.zero_copy = zero_copy };
  GstCaps *caps;
  gboolean need_pool;

  /* Upstream may pad its rows: strides and offsets come from the meta. */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_parse_allocation (query, &caps, &need_pool);
  /* CUDA memory comes from upstream's own pools. */
  if (!caps || !engine || gst_cl_caps_are_cuda (caps))
    return TRUE;
  for (guint m = 0; m < G_N_ELEMENTS (ways); m++) {
    const Way *method = &ways[m];

    if (method->propose && method->accept (&req)
        && !method->propose (&req, query, caps, need_pool))
      return FALSE;
  }
  return TRUE;
}

void
gst_cl_device_frame_close (GstClDeviceFrame * dframe)
{
  for (guint w = 0; w < dframe->n_wraps; w++)
    clReleaseMemObject (dframe->wraps[w].mem);
  dframe->n_wraps = 0;
  if (dframe->mapped)
    gst_video_frame_unmap (&dframe->vframe);
  dframe->mapped = FALSE;
#if CLF_HAVE_CUDA
  gst_cl_cuda_access_close (&dframe->cuda);
#endif
}

gboolean
gst_cl_device_frame_complete (GstClDeviceFrame * dframe, GError ** error)
{
#if CLF_HAVE_CUDA
  return gst_cl_cuda_access_complete (&dframe->cuda, error);
#else
  return TRUE;
#endif
}

guint
gst_cl_device_frame_device_copies (const GstClDeviceFrame * dframe)
{
  return dframe->cuda.copies;
}

/* The device readiness of the frame's memories: the events a command that
 * accesses them as `flags` says must wait for (new references in `wait`,
 * at most MAX_WAIT; how many in `n_wait`).  FALSE with `error` set, and
 * no events, where a memory's device copy could not be made current. */
static gboolean
wait_list (const GstClDeviceFrame * dframe, GstMapFlags flags, cl_event * wait,
    guint * n_wait, GError ** error)
{
  guint n = 0;

#if CLF_HAVE_CUDA
  n = gst_cl_cuda_access_wait_list (&dframe->cuda, wait);
#endif

  for (guint i = 0; i < dframe->n_device; i++) {
    guint added;

    if (!gst_cl_memory_device_wait_list (dframe->device[i], flags, wait + n,
            &added, error)) {
      release_events (wait, n);
      *n_wait = 0;
      return FALSE;
    }
    n += added;
  }
  *n_wait = n;
  return TRUE;
}

/* Records the command `event`, enqueued after wait_list()'s events, as
 * the last that accessed the frame's memories as `flags` says. */
static void
done (GstClDeviceFrame * dframe, GstMapFlags flags, cl_event event)
{
#if CLF_HAVE_CUDA
  gst_cl_cuda_access_done (&dframe->cuda, event);
#endif
  for (guint i = 0; i < dframe->n_device; i++)
    gst_cl_memory_device_done (dframe->device[i], flags, event);
}

ClfInFlight *
gst_cl_device_frame_enqueue (GstClDeviceFrame * in, GstClDeviceFrame * out,
    ClfPlan * plan, const ClfParams * params, const ClfFrame * src,
    const ClfFrame * dst, GError ** error)
{
  cl_event wait[2 * MAX_WAIT];
  guint n_in, n_out;
  ClfInFlight *job;

  if (!wait_list (in, GST_MAP_READ, wait, &n_in, error)) {
    g_prefix_error (error, "the input frame: ");
    return NULL;
  }
  if (!wait_list (out, GST_MAP_WRITE, wait + n_in, &n_out, error)) {
    release_events (wait, n_in);
    g_prefix_error (error, "the output frame: ");
    return NULL;
  }
  job = clf_plan_enqueue (plan, params, src, dst, wait, n_in + n_out, error);
  release_events (wait, n_in + n_out);
  if (!job)
    return NULL;
  done (in, GST_MAP_READ, clf_in_flight_event (job));
  done (out, GST_MAP_WRITE, clf_in_flight_event (job));
  return job;
}

void
gst_cl_device_frame_prefetch (const GstClDeviceFrame * dframe)
{
  for (guint i = 0; i < dframe->n_device; i++)
    gst_cl_memory_prefetch (dframe->device[i]);
}
