/* GStreamer
 * gst-clfilter: a buffer's frame opened for the OpenCL device, to be read
 * or written.
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
#include "gstclcuda.h"
#include "gstclmemory.h"

G_BEGIN_DECLS

/* A buffer's frame opened for the device, to be read (an input) or written
 * (an output), as gstglupload.c does for GL: the ways a frame can take are
 * tried in order, and the first that accepts the buffer performs.
 *
 *   "cuda-memory"    GStreamer's CUDA memory in the context of the
 *                    element's GstClCuda: copied on the device into a
 *                    frame OpenCL imported (to be read), or from it once
 *                    the kernels wrote it (gst_cl_device_frame_complete);
 *   "device-memory"  every plane lies in GstClMemory of the engine's
 *                    context, usable as it is (on a discrete device, not
 *                    mapped by the CPU meanwhile): the kernels work on it
 *                    in place, behind its readiness;
 *   "wrapped-host"   on a device that works on host memory: the buffer is
 *                    mapped and each plane the device can address (whole
 *                    samples, CL_DEVICE_MEM_BASE_ADDR_ALIGN) is wrapped in
 *                    place (CL_MEM_USE_HOST_PTR); the engine copies the
 *                    others;
 *   "copied-host"    the buffer is mapped and the engine copies the
 *                    planes.
 *
 * Without zero copy only the last is tried.  The first is the one that
 * allocation queries propose (a pool of GstClMemory and its allocator). */
typedef struct
{
  /* The frame as the engine takes it. */
  ClfFrame frame;
  /* The way it took: one of the names above. */
  const gchar *method;

  /* private: what gst_cl_device_frame_close() undoes, and our memories the
   * frame lies in (each once), whose readiness the device follows. */
  GstVideoFrame vframe;
  gboolean mapped;
  struct
  {
    guint8 *base;
    cl_mem mem;
  } wraps[GST_VIDEO_MAX_PLANES];
  guint n_wraps;
  GstMemory *device[GST_VIDEO_MAX_PLANES];
  guint n_device;
  /* The way "cuda-memory". */
  GstClCudaAccess cuda;
} GstClDeviceFrame;

/* Opens `buffer` (laid out as `info`, or its GstVideoMeta) for the device
 * as `format` describes its frames, to be accessed with `flags`
 * (GST_MAP_READ or GST_MAP_WRITE); `cuda` (or NULL) takes CUDA memory.  FALSE on failure: with `error` set
 * (CLF_ERROR_FRAME for a buffer whose planes the engine cannot take), or
 * unset when the buffer could not be mapped. */
gboolean gst_cl_device_frame_open (GstClDeviceFrame * dframe, ClfEngine * engine,
    const ClfFrameFormat * format, GstBuffer * buffer,
    const GstVideoInfo * info, GstMapFlags flags, gboolean zero_copy,
    GstClCuda * cuda, GError ** error);
/* Once the device finished the frame, what an output still owes its
 * buffer: the copy to CUDA memory.  FALSE with `error` set on failure. */
gboolean gst_cl_device_frame_complete (GstClDeviceFrame * dframe, GError ** error);
/* The copies made on the device for the frame (CUDA memory). */
guint gst_cl_device_frame_device_copies (const GstClDeviceFrame * dframe);
/* Releases what the frame holds. */
void gst_cl_device_frame_close (GstClDeviceFrame * dframe);

/* Answers an allocation query for frames that go to `engine`'s device
 * (NULL where there is none yet): every way reads the frame's layout from
 * a GstVideoMeta; with `zero_copy`, the first offers a pool of GstClMemory
 * (where the query asks for one) and its allocator.  FALSE where a pool
 * could not be configured. */
gboolean gst_cl_device_frame_propose_allocation (ClfEngine * engine,
    gboolean zero_copy, GstQuery * query);

/* Enqueues `plan`'s filtering of `src` (the frame `in` opened) into `dst`
 * (the frame `out` opened) behind the readiness of the memories both lie
 * in, and records it on them as their last reader and writer: what reads
 * or writes them next, on the device or the CPU, waits for it.  The
 * frame in flight, or NULL with `error` set: where the plan failed, or
 * where a memory's device copy lacks a CPU write that could not be
 * uploaded (gst_cl_memory_device_wait_list; the message says which frame),
 * so that no frame is filtered from stale bytes. */
ClfInFlight *gst_cl_device_frame_enqueue (GstClDeviceFrame * in, GstClDeviceFrame * out,
    ClfPlan * plan, const ClfParams * params, const ClfFrame * src,
    const ClfFrame * dst, GError ** error);
/* Starts the download of what the device wrote to the frame's memories,
 * for a consumer that reads it on the CPU (see gst_cl_memory_prefetch). */
void gst_cl_device_frame_prefetch (const GstClDeviceFrame * dframe);

G_END_DECLS
