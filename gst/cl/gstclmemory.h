/* GStreamer
 * gst-clfilter: OpenCL buffers as GstMemory.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
#pragma once

#include <gst/gst.h>

#include "clf.h"

G_BEGIN_DECLS

/* The mem_type of GstClMemory. */
#define GST_CL_MEMORY_TYPE "ClMemory"

/* Memory backed by an OpenCL buffer that the device filters in place.
 * Where the device works on host memory (CL_DEVICE_HOST_UNIFIED_MEMORY:
 * PoCL, integrated GPUs) the buffer is made with CL_MEM_ALLOC_HOST_PTR and
 * mapped once for its life, and gst_memory_map() hands out that mapping.
 * On a discrete device the buffer is in device memory and the CPU works in
 * a pinned staging buffer beside it: a map for reading downloads what the
 * device wrote since the last download (lazily, or ahead of time through
 * gst_cl_memory_prefetch), and the last unmap of a map for writing
 * enqueues the upload, which device commands wait for.  A map for writing
 * only (GST_MAP_WRITE without GST_MAP_READ) does not download the device's
 * bytes: they are undefined until written, as in GStreamer's GL and CUDA
 * memories.  Nested maps share one mapping; on a discrete device a nested
 * map cannot ask for access the outer one lacks.  Shared sub-memories map
 * through their parent. */
typedef struct _GstClMemory GstClMemory;

#define GST_TYPE_CL_ALLOCATOR (gst_cl_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstClAllocator, gst_cl_allocator, GST, CL_ALLOCATOR,
    GstAllocator);

/* An allocator of GstClMemory in `engine`'s OpenCL context. */
GstAllocator *gst_cl_allocator_new (ClfEngine * engine);
ClfEngine *gst_cl_allocator_get_engine (GstClAllocator * allocator);

gboolean gst_is_cl_memory (GstMemory * mem);
/* Zeroes all of `mem`'s bytes, where the CPU sees them and on the device:
 * for memory just allocated, before anyone uses it. */
gboolean gst_cl_memory_zero (GstMemory * mem);
/* The OpenCL buffer behind `mem`, and the offset of mem's first byte in
 * it. */
cl_mem gst_cl_memory_get_buffer (GstMemory * mem, gsize * offset);
/* The engine whose context holds `mem`'s buffer. */
ClfEngine *gst_cl_memory_get_engine (GstMemory * mem);
/* TRUE while `mem` (or memory sharing its buffer) is mapped for the CPU. */
gboolean gst_cl_memory_is_mapped (GstMemory * mem);

/* Readiness.  The memory keeps the event of the last command that wrote
 * its buffer and, on each of its engine's queues, of the last that read
 * it (and of the transfers of its staging buffer).  A CPU map
 * (gst_memory_map) waits for those that touch the bytes it maps: for
 * reading, the writer; for writing, the writer and the readers.  Device
 * access goes through the two calls below, as GStreamer's CUDA memory goes
 * through GST_MAP_CUDA: nothing relies on the element that wrote the
 * memory having waited before it passed the buffer on. */
#define GST_CL_MEMORY_MAX_WAIT 4

/* The events a device command that reads (GST_MAP_READ) or writes
 * (GST_MAP_WRITE) `mem`'s buffer must wait for, as new references in
 * `wait` (release them with clReleaseEvent), and how many in `n_wait`.
 * On a discrete device a CPU write whose upload failed at the unmap is
 * uploaded again first (the staging buffer still holds it); where that
 * fails too, FALSE with `error` set (CLF_ERROR_OPENCL, naming the call)
 * and no events: the device's bytes are stale, and the command must not
 * be enqueued. */
gboolean gst_cl_memory_device_wait_list (GstMemory * mem, GstMapFlags access,
    cl_event wait[GST_CL_MEMORY_MAX_WAIT], guint * n_wait, GError ** error);
/* Records `event` (a reference is taken) as the last device command that
 * read or wrote `mem`'s buffer, once it is enqueued after the wait list. */
void gst_cl_memory_device_done (GstMemory * mem, GstMapFlags access,
    cl_event event);

/* Starts the download of what the device wrote to `mem` (on a discrete
 * device; elsewhere there is nothing to do), without waiting: for memory
 * that goes to a consumer that will read it on the CPU, so the download
 * overlaps the pipeline's other work and the consumer's map finds the
 * bytes there. */
void gst_cl_memory_prefetch (GstMemory * mem);

G_END_DECLS
