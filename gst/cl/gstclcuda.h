/* GStreamer
 * gst-clfilter: GStreamer's CUDA memory (video/x-raw(memory:CUDAMemory))
 * in and out of the OpenCL device, on the device.  Built only where
 * GStreamer's CUDA library is (CLF_HAVE_CUDA); without it no caps are in
 * CUDA memory, and callers leave these calls out.
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

/* An element's CUDA side: the GstCudaContext it shares with its
 * neighbours, the engine's view of that device, and frames of CUDA memory
 * that OpenCL imported, kept for reuse (a frame comes in and goes out
 * through them: one copy on the device each way).  Reference counted: a
 * frame in flight holds one. */
typedef struct _GstClCuda GstClCuda;

/* The pad templates' caps: `system` (raw video in system memory, not
 * taken) followed by the same in CUDA memory for the formats
 * GstCudaMemory allocates. */
GstCaps *gst_cl_cuda_template_caps (GstCaps * system);

/* The GstCudaContext in `*context` (a GstCudaContext the element keeps:
 * one set by the application or a neighbour, else found or made as
 * GStreamer's CUDA elements do, and then stored there), and the engine's
 * use of it.  NULL with `error` set where the engine's device cannot work
 * on that context's memory (another device, no CUDA driver). */
GstClCuda *gst_cl_cuda_new (GstElement * element, GstObject ** context,
    ClfEngine * engine, GError ** error);
GstClCuda *gst_cl_cuda_ref (GstClCuda * cuda);
void gst_cl_cuda_unref (GstClCuda * cuda);

/* Answers a context query with, or takes a context (set_context) into,
 * the CUDA context the element keeps (a GstCudaContext or NULL): TRUE
 * when the query was answered. */
gboolean gst_cl_cuda_handle_context_query (GstElement * element,
    GstQuery * query, GstObject ** context);
void gst_cl_cuda_handle_set_context (GstElement * element,
    GstContext * gst_context, GstObject ** context);

/* A pool of GstCudaMemory buffers in the context for `caps` (the output of
 * an element whose downstream takes CUDA memory), or NULL. */
GstBufferPool *gst_cl_cuda_pool_new (GstClCuda * cuda, GstCaps * caps,
    guint size, guint min, guint max);

/* One buffer of CUDA memory opened for the device (gstcldeviceframe.c's way
 * "cuda-memory"): its frame lies in a staging frame of ours, filled from
 * the buffer by a copy on the device (to be read), or copied to it once
 * the kernels wrote it (gst_cl_cuda_access_complete). */
typedef struct
{
  GstClCuda *cuda;
  struct ClfCudaFrame *staging;
  /* To be written: the buffer (the caller's, kept until close) and its
   * layout. */
  GstBuffer *target;
  GstVideoInfo info;
  ClfFrameFormat format;
  /* OpenCL's hold on the staging frame (cl_khr_external_memory). */
  cl_event acquired, released;
  /* Copies made on the device for this buffer (0 or 1). */
  guint copies;
} GstClCudaAccess;

/* Whether `buffer` is CUDA memory that `cuda`'s device copies itself. */
gboolean gst_cl_cuda_accepts (GstClCuda * cuda, GstBuffer * buffer);
/* Opens `buffer` (laid out as `info`, or its GstVideoMeta) for `flags`
 * (GST_MAP_READ or GST_MAP_WRITE): fills `frame` with the staging frame's
 * planes, laid out as `info` too (the caps' layout).  FALSE with `error`
 * set (CLF_ERROR_FRAME for planes outside the buffer), or unset where the
 * buffer could not be mapped. */
gboolean gst_cl_cuda_access_open (GstClCudaAccess * access, GstClCuda * cuda,
    GstBuffer * buffer, const GstVideoInfo * info,
    const ClfFrameFormat * format, GstMapFlags flags, ClfFrame * frame,
    GError ** error);
/* The event the frame's first command waits for (a new reference), and
 * the recording of its last command's `event`. */
guint gst_cl_cuda_access_wait_list (const GstClCudaAccess * access,
    cl_event * wait);
void gst_cl_cuda_access_done (GstClCudaAccess * access, cl_event event);
/* After the frame's commands ended: an output's copy to its buffer. */
gboolean gst_cl_cuda_access_complete (GstClCudaAccess * access,
    GError ** error);
void gst_cl_cuda_access_close (GstClCudaAccess * access);

G_END_DECLS
