/* GStreamer
 * gst-clfilter: GStreamer's CUDA memory in and out of the OpenCL device,
 * on the device (gstclcuda.h).
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

#include "gstclcuda.h"
#include "gstclformat.h"


#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "clf-cuda.h"

GST_DEBUG_CATEGORY_STATIC (gst_cl_cuda_debug);
#define GST_CAT_DEFAULT gst_cl_cuda_debug

struct _GstClCuda
{
  gint refs;
  GstCudaContext *context;
  ClfCuda *engine_cuda;
  /* Staging frames not in use, of the sizes of the frames in and out
   * (two where the element converts), the latest first. */
  GMutex lock;
  GQueue idle;
  gsize frame_sizes[2];
};

/* The formats of GstCudaMemory in GStreamer 1.22 (its cudaupload's caps). */
static const gchar cuda_formats[] = "{ I420, YV12, NV12, NV21, P010_10LE, "
    "P016_LE, I420_10LE, Y444, Y444_16LE, BGRA, RGBA, RGBx, BGRx, ARGB, ABGR, "
    "RGB, BGR, Y42B, I422_10LE, I422_12LE, YUY2, UYVY, RGBP, BGRP, GBR, GBRA }";

/* `caps` (taken), whose structures differ in their formats only, as
 * structures of GST_CL_FORMATS_PER_STRUCTURE formats in order, as the
 * system memory's are. */
static GstCaps *
in_structures (GstCaps * caps)
{
  GstCaps *out;
  GValue formats = G_VALUE_INIT;
  guint n;

  if (gst_caps_is_empty (caps))
    return caps;
  g_value_init (&formats, GST_TYPE_LIST);
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GValue merged = G_VALUE_INIT;

    gst_value_list_merge (&merged, &formats,
        gst_structure_get_value (gst_caps_get_structure (caps, i), "format"));
    g_value_unset (&formats);
    formats = merged;
  }
  /* A merge of one format is that string, not a list. */
  n = GST_VALUE_HOLDS_LIST (&formats) ? gst_value_list_get_size (&formats) : 1;
  out = gst_caps_new_empty ();
  for (guint i = 0; i < n; i += GST_CL_FORMATS_PER_STRUCTURE) {
    GstCaps *part = gst_caps_copy_nth (caps, 0);
    GValue list = G_VALUE_INIT;

    g_value_init (&list, GST_TYPE_LIST);
    for (guint j = i; j < MIN (n, i + GST_CL_FORMATS_PER_STRUCTURE); j++)
      gst_value_list_append_value (&list, GST_VALUE_HOLDS_LIST (&formats) ?
          gst_value_list_get_value (&formats, j) : &formats);
    gst_structure_take_value (gst_caps_get_structure (part, 0), "format",
        &list);
    gst_caps_append (out, part);
  }
  g_value_unset (&formats);
  gst_caps_unref (caps);
  return out;
}

GstCaps *
gst_cl_cuda_template_caps (GstCaps * system)
{
  gchar *desc = g_strdup_printf ("video/x-raw(%s), format=(string)%s",
      GST_CL_CAPS_FEATURE_CUDA_MEMORY, cuda_formats);
  GstCaps *formats = gst_caps_from_string (desc);
  GstCaps *in_cuda = gst_caps_copy (system);
  GstCaps *cuda;

  /* The system caps' fields (sizes, rates) in CUDA memory, for the
   * formats both take. */
  gst_caps_set_features_simple (in_cuda,
      gst_caps_features_new (GST_CL_CAPS_FEATURE_CUDA_MEMORY, NULL));
  cuda = in_structures (gst_caps_intersect (in_cuda, formats));
  gst_caps_unref (in_cuda);
  gst_caps_unref (formats);
  g_free (desc);
  return gst_caps_merge (gst_caps_ref (system), cuda);
}

GstClCuda *
gst_cl_cuda_new (GstElement * element, GstObject ** context,
    ClfEngine * engine, GError ** error)
{
  GstClCuda *cuda;
  ClfCuda *engine_cuda;

  GST_DEBUG_CATEGORY_INIT (gst_cl_cuda_debug, "clcuda", 0,
      "CUDA memory in and out of the OpenCL device");
  /* GStreamer's CUDA library aborts on any call before its driver is
   * loaded. */
  if (!gst_cuda_load_library ()) {
    g_set_error (error, CLF_ERROR, CLF_ERROR_NOT_FOUND, "CUDA memory cannot "
        "be used: the CUDA driver (libcuda.so.1) could not be loaded");
    return NULL;
  }
  /* A neighbour's or the application's context, else one of our own on
   * the default device, as GStreamer's CUDA elements do. */
  if (!gst_cuda_ensure_element_context (element, -1,
          (GstCudaContext **) context)) {
    g_set_error (error, CLF_ERROR, CLF_ERROR_NOT_FOUND, "no CUDA context: "
        "the CUDA driver or a CUDA device is missing");
    return NULL;
  }
  engine_cuda = clf_cuda_new (engine,
      gst_cuda_context_get_handle (GST_CUDA_CONTEXT (*context)), error);
  if (!engine_cuda)
    return NULL;
  cuda = g_new0 (GstClCuda, 1);
  cuda->refs = 1;
  cuda->context = gst_object_ref (GST_CUDA_CONTEXT (*context));
  cuda->engine_cuda = engine_cuda;
  g_mutex_init (&cuda->lock);
  g_queue_init (&cuda->idle);
  return cuda;
}

GstClCuda *
gst_cl_cuda_ref (GstClCuda * cuda)
{
  g_atomic_int_inc (&cuda->refs);
  return cuda;
}

static void
free_staging (gpointer frame)
{
  clf_cuda_frame_free (frame);
}

void
gst_cl_cuda_unref (GstClCuda * cuda)
{
  if (!cuda || !g_atomic_int_dec_and_test (&cuda->refs))
    return;
  g_queue_clear_full (&cuda->idle, free_staging);
  g_mutex_clear (&cuda->lock);
  clf_cuda_free (cuda->engine_cuda);
  gst_object_unref (cuda->context);
  g_free (cuda);
}

gboolean
gst_cl_cuda_handle_context_query (GstElement * element, GstQuery * query,
    GstObject ** context)
{
  const gchar *type;
  GstCudaContext *answer;
  gboolean answered;

  if (!gst_query_parse_context_type (query, &type)
      || g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) != 0)
    return FALSE;
  GST_OBJECT_LOCK (element);
  answer = *context ? gst_object_ref (GST_CUDA_CONTEXT (*context)) : NULL;
  GST_OBJECT_UNLOCK (element);
  answered = gst_cuda_handle_context_query (element, query, answer);
  gst_clear_object (&answer);
  return answered;
}

void
gst_cl_cuda_handle_set_context (GstElement * element, GstContext * gst_context,
    GstObject ** context)
{
  gst_cuda_handle_set_context (element, gst_context, -1,
      (GstCudaContext **) context);
}

GstBufferPool *
gst_cl_cuda_pool_new (GstClCuda * cuda, GstCaps * caps, guint size,
    guint min, guint max)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (cuda->context);
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* ---- staging frames ---- */

static struct ClfCudaFrame *
take_staging (GstClCuda * cuda, gsize size, GError ** error)
{
  ClfCudaFrame *frame = NULL;

  g_mutex_lock (&cuda->lock);
  if (size != cuda->frame_sizes[0] && size != cuda->frame_sizes[1]) {
    /* New caps: the frames of the older size go. */
    GList *l = cuda->idle.head;

    while (l) {
      GList *next = l->next;

      if (clf_cuda_frame_size (l->data) == cuda->frame_sizes[1]) {
        free_staging (l->data);
        g_queue_delete_link (&cuda->idle, l);
      }
      l = next;
    }
    cuda->frame_sizes[1] = cuda->frame_sizes[0];
    cuda->frame_sizes[0] = size;
  }
  for (GList * l = cuda->idle.head; l; l = l->next)
    if (clf_cuda_frame_size (l->data) == size) {
      frame = l->data;
      g_queue_delete_link (&cuda->idle, l);
      break;
    }
  g_mutex_unlock (&cuda->lock);
  if (!frame) {
    /* tests/check/cuda.c counts these: frames are reused, not made per
     * buffer. */
    GST_DEBUG ("a new staging frame of %" G_GSIZE_FORMAT " bytes", size);
    frame = clf_cuda_frame_new (cuda->engine_cuda, size, error);
  }
  return frame;
}

static void
give_staging (GstClCuda * cuda, gsize size, ClfCudaFrame * frame)
{
  g_mutex_lock (&cuda->lock);
  if (size == cuda->frame_sizes[0] || size == cuda->frame_sizes[1]) {
    g_queue_push_head (&cuda->idle, frame);
    frame = NULL;
  }
  g_mutex_unlock (&cuda->lock);
  clf_cuda_frame_free (frame);
}

/* ---- a buffer's access ---- */

gboolean
gst_cl_cuda_accepts (GstClCuda * cuda, GstBuffer * buffer)
{
  GstMemory *mem;

  /* One memory, as GstCudaBufferPool gives: mapping several would merge
   * them.  Memory of another context goes through the host (the
   * copied-host way maps it), not between contexts. */
  if (!cuda || gst_buffer_n_memory (buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  return gst_is_cuda_memory (mem)
      && GST_CUDA_MEMORY_CAST (mem)->context == cuda->context;
}

/* Where a plane of a buffer of one CUDA memory lies in it: its GstVideoMeta
 * or else its caps' layout. */
typedef struct
{
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
} PlaneLayout;

static void
plane_layout (GstBuffer * buffer, const GstVideoInfo * info,
    PlaneLayout * layout)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);

  for (guint i = 0; i < GST_VIDEO_MAX_PLANES; i++) {
    layout->offset[i] = meta ? meta->offset[i] : info->offset[i];
    layout->stride[i] = meta ? meta->stride[i] : info->stride[i];
  }
}

/* Checks that each plane lies in the `size` bytes of the memory, as the
 * host ways leave to clf_plan_check_frame for host planes. */
static gboolean
planes_fit (const PlaneLayout * layout, gsize size,
    const ClfFrameFormat * format, GError ** error)
{
  for (guint i = 0; i < format->n_planes; i++) {
    gsize row_bytes = clf_frame_format_row_bytes (format, i);
    guint rows = clf_frame_format_rows (format, i);
    gsize offset = layout->offset[i];
    gint stride = layout->stride[i];
    gsize room = offset <= size ? size - offset : 0;

    /* offset + stride * (rows - 1) + row_bytes <= size, without wrapping */
    if (stride <= 0 || (gsize) stride < row_bytes || row_bytes > room
        || (rows > 1 && (gsize) stride > (room - row_bytes) / (rows - 1))) {
      g_set_error (error, CLF_ERROR, CLF_ERROR_FRAME, "plane %u (offset %"
          G_GSIZE_FORMAT ", stride %d, %u rows of %" G_GSIZE_FORMAT " bytes) "
          "does not lie in its %" G_GSIZE_FORMAT " bytes of CUDA memory", i,
          offset, stride, rows, row_bytes, size);
      return FALSE;
    }
  }
  return TRUE;
}

/* Copies the planes between the CUDA memory at `device` (laid out as
 * `layout`) and the staging frame (laid out as `info`), in the direction
 * of `flags`. */
static gboolean
copy_planes (GstClCudaAccess * access, guint64 device,
    const PlaneLayout * layout, const GstVideoInfo * info,
    const ClfFrameFormat * format, GstMapFlags flags, GError ** error)
{
  ClfCudaCopy planes[GST_VIDEO_MAX_PLANES];
  guint64 staging = clf_cuda_frame_address (access->staging);
  gboolean in = (flags & GST_MAP_READ) != 0;

  for (guint i = 0; i < format->n_planes; i++) {
    guint64 ours = staging + info->offset[i];
    guint64 theirs = device + layout->offset[i];
    gsize our_stride = (gsize) info->stride[i];
    gsize their_stride = (gsize) layout->stride[i];

    planes[i].src = in ? theirs : ours;
    planes[i].src_stride = in ? their_stride : our_stride;
    planes[i].dst = in ? ours : theirs;
    planes[i].dst_stride = in ? our_stride : their_stride;
    planes[i].row_bytes = clf_frame_format_row_bytes (format, i);
    planes[i].rows = clf_frame_format_rows (format, i);
  }
  if (!clf_cuda_copy (access->cuda->engine_cuda, planes, format->n_planes,
          error))
    return FALSE;
  access->copies++;
  return TRUE;
}

/* Maps the buffer's memory for CUDA (its device address; the memory, not
 * the buffer: an output buffer in flight is not writable, being held by
 * the frame and the element) and copies. */
static gboolean
transfer (GstClCudaAccess * access, GstBuffer * buffer,
    const GstVideoInfo * info, const ClfFrameFormat * format,
    GstMapFlags flags, GError ** error)
{
  GstMemory *mem = gst_buffer_peek_memory (buffer, 0);
  PlaneLayout layout;
  GstMapInfo map;
  gboolean ok;

  plane_layout (buffer, info, &layout);
  if (!gst_memory_map (mem, &map, flags | GST_MAP_CUDA)) {
    g_set_error (error, CLF_ERROR, CLF_ERROR_INVALID, "the CUDA memory of a "
        "buffer could not be mapped for %s", (flags & GST_MAP_READ) ?
        "reading" : "writing");
    return FALSE;
  }
  ok = planes_fit (&layout, map.size, format, error)
      && copy_planes (access, (guintptr) map.data, &layout, info,
      format, flags, error);
  gst_memory_unmap (mem, &map);
  return ok;
}

gboolean
gst_cl_cuda_access_open (GstClCudaAccess * access, GstClCuda * cuda,
    GstBuffer * buffer, const GstVideoInfo * info,
    const ClfFrameFormat * format, GstMapFlags flags, ClfFrame * frame,
    GError ** error)
{
  memset (access, 0, sizeof *access);
  access->cuda = gst_cl_cuda_ref (cuda);
  access->staging = take_staging (cuda, info->size, error);
  if (!access->staging)
    return FALSE;
  if ((flags & GST_MAP_READ) && !transfer (access, buffer, info, format,
          GST_MAP_READ, error))
    return FALSE;
  if (flags & GST_MAP_WRITE) {
    access->target = buffer;
    access->info = *info;
    access->format = *format;
  }
  if (!clf_cuda_frame_acquire (access->staging, NULL, 0, &access->acquired,
          error))
    return FALSE;
  for (guint i = 0; i < format->n_planes; i++) {
    frame->mem[i] = clf_cuda_frame_buffer (access->staging);
    frame->offset[i] = info->offset[i];
    frame->stride[i] = (size_t) info->stride[i];
  }
  return TRUE;
}

guint
gst_cl_cuda_access_wait_list (const GstClCudaAccess * access, cl_event * wait)
{
  if (!access->acquired)
    return 0;
  clRetainEvent (access->acquired);
  wait[0] = access->acquired;
  return 1;
}

void
gst_cl_cuda_access_done (GstClCudaAccess * access, cl_event event)
{
  GError *err = NULL;

  if (!access->staging || access->released)
    return;
  if (!clf_cuda_frame_release (access->staging, &event, event ? 1 : 0,
          &access->released, &err)) {
    GST_WARNING ("%s", err->message);
    g_clear_error (&err);
  }
}

/* Until OpenCL let go of the staging frame, CUDA does not touch it. */
static gboolean
wait_released (GstClCudaAccess * access, GError ** error)
{
  cl_int status;

  if (!access->released && access->acquired)
    gst_cl_cuda_access_done (access, access->acquired);
  /* A frame OpenCL holds still has undefined bytes for CUDA. */
  if (!access->released && access->acquired) {
    g_set_error (error, CLF_ERROR, CLF_ERROR_OPENCL, "OpenCL could not give "
        "a CUDA frame back to CUDA (its release failed twice)");
    return FALSE;
  }
  if (!access->released)
    return TRUE;
  status = clWaitForEvents (1, &access->released);
  if (status != CL_SUCCESS) {
    g_set_error (error, CLF_ERROR, CLF_ERROR_OPENCL, "clWaitForEvents failed "
        "on the release of a CUDA frame: %s", clf_cl_status_name (status));
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_cl_cuda_access_complete (GstClCudaAccess * access, GError ** error)
{
  if (!access->target)
    return TRUE;
  return wait_released (access, error) && transfer (access, access->target,
      &access->info, &access->format, GST_MAP_WRITE, error);
}

void
gst_cl_cuda_access_close (GstClCudaAccess * access)
{
  GError *err = NULL;

  if (!access->cuda)
    return;
  if (access->staging) {
    if (wait_released (access, &err))
      give_staging (access->cuda, clf_cuda_frame_size (access->staging),
          access->staging);
    else
      GST_WARNING ("%s: the staging frame is dropped", err->message);
    g_clear_error (&err);
  }
  if (access->acquired)
    clReleaseEvent (access->acquired);
  if (access->released)
    clReleaseEvent (access->released);
  gst_cl_cuda_unref (access->cuda);
  memset (access, 0, sizeof *access);
}
