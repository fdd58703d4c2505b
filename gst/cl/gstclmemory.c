/* GStreamer
 * gst-clfilter: OpenCL buffers as GstMemory.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclmemory.h"

GST_DEBUG_CATEGORY_STATIC (gst_cl_memory_debug);
#define GST_CAT_DEFAULT gst_cl_memory_debug

/* The engine's queues that touch a memory's buffer: the filters', the
 * transfers' (uploads, fills, resident mappings) and the downloads'. */
#define N_QUEUES 3

/* A buffer of GstClMemory and all that goes with it, kept together when
 * the memory is freed and the buffer kept spare for the next one.
 *
 * The CPU reaches the bytes at `host`: on a device that works on host
 * memory itself (resident), the buffer's own mapping, made once for the
 * buffer's life; on a discrete device (staged), a pinned staging buffer
 * of the same size, also mapped once, which uploads and downloads copy
 * from and to (clEnqueueWriteBuffer/ReadBuffer from pinned memory: DMA,
 * on their own queues, while the kernels run). */
typedef struct
{
  cl_mem buffer;
  gsize maxsize;
  cl_mem staging;               /* NULL when resident */
  gpointer host;

  /* Readiness of the device's bytes: the last command that wrote the
   * buffer, and on each queue the last that read it (or NULL).  Each
   * write waited for every earlier command, so the last stands for all. */
  cl_event writer;
  cl_event readers[N_QUEUES];
  cl_command_queue reader_queues[N_QUEUES];     /* where each was enqueued */

  /* Staged only: the last download into the staging buffer (its writer)
   * and the last upload from it (its reader), which the CPU waits for
   * before it reads or writes there; whether the device wrote bytes the
   * staging buffer has not downloaded yet; and whether the device's
   * buffer lacks a CPU write whose upload failed (the staging buffer
   * still holds it: the device's next access uploads it first). */
  cl_event staging_writer;
  cl_event staging_reader;
  gboolean host_stale;
  gboolean device_stale;
} ClStore;

struct _GstClMemory
{
  GstMemory mem;

  /* Kept by the memory that owns the buffer (the root): shared
   * sub-memories map through it. */
  GMutex lock;
  ClStore store;
  guint map_count;
  GstMapFlags map_access;
};

/* The buffers of freed memory are kept for the next allocations of the
 * same size: a decoder copies each frame it still holds mapped
 * (GstVideoDecoder must, to make it writable), and would otherwise create,
 * fault in and map a new OpenCL buffer for every frame. */
#define MAX_SPARE_BUFFERS 8

struct _GstClAllocator
{
  GstAllocator parent;
  ClfEngine *engine;

  GMutex lock;
  ClStore spare[MAX_SPARE_BUFFERS];
  guint n_spare;
};

G_DEFINE_TYPE (GstClAllocator, gst_cl_allocator, GST_TYPE_ALLOCATOR);

G_STATIC_ASSERT (GST_CL_MEMORY_MAX_WAIT == 1 + N_QUEUES);

static GstClMemory *
root_of (GstMemory * mem)
{
  return (GstClMemory *) (mem->parent ? mem->parent : mem);
}

static ClfEngine *
engine_of (GstMemory * mem)
{
  return GST_CL_ALLOCATOR (mem->allocator)->engine;
}

/* Replaces `*slot` with a reference to `event` (or NULL). */
static void
set_event (cl_event * slot, cl_event event)
{
  if (event)
    clRetainEvent (event);
  if (*slot)
    clReleaseEvent (*slot);
  *slot = event;
}

static void
clear_readers (ClStore * store)
{
  for (guint q = 0; q < N_QUEUES; q++) {
    set_event (&store->readers[q], NULL);
    store->reader_queues[q] = NULL;
  }
}

static void
release_events (cl_event * events, guint n)
{
  for (guint i = 0; i < n; i++)
    clReleaseEvent (events[i]);
}

/* The events that device access to the store's bytes waits for: a read,
 * the last device write; a write, that and the last device reads.  New
 * references in `wait`; returns how many. */
static guint
device_wait_list (const ClStore * store, GstMapFlags access,
    cl_event wait[GST_CL_MEMORY_MAX_WAIT])
{
  guint n = 0;

  if (store->writer)
    wait[n++] = store->writer;
  for (guint q = 0; (access & GST_MAP_WRITE) && q < N_QUEUES; q++)
    if (store->readers[q])
      wait[n++] = store->readers[q];
  for (guint i = 0; i < n; i++)
    clRetainEvent (wait[i]);
  return n;
}

/* Records a read: it replaces the last read on the same queue (which it
 * follows there), or takes a free slot.  A read whose queue cannot be
 * known is waited for here instead: in another queue's slot it would
 * drop that queue's read, which a later write would then overtake. */
static void
add_reader (ClStore * store, cl_event event)
{
  cl_command_queue queue = NULL;
  guint slot = 0;
  cl_int status = clGetEventInfo (event, CL_EVENT_COMMAND_QUEUE,
      sizeof queue, &queue, NULL);

  if (status != CL_SUCCESS) {
    GST_WARNING ("clGetEventInfo (CL_EVENT_COMMAND_QUEUE) on a read of a "
        "memory failed: %s; waiting for the read", clf_cl_status_name (status));
    /* Where even the wait fails (the read ended in an error, or the
     * driver is failing), the read is dropped, and said. */
    status = clWaitForEvents (1, &event);
    if (status != CL_SUCCESS)
      GST_ERROR ("clWaitForEvents on a read of a memory failed: %s",
          clf_cl_status_name (status));
    return;
  }
  for (guint q = 0; q < N_QUEUES; q++) {
    if (!store->readers[q] || store->reader_queues[q] == queue) {
      slot = q;
      break;
    }
  }
  set_event (&store->readers[slot], event);
  store->reader_queues[slot] = queue;
}

/* Records a write to the device's bytes: it waited for every earlier
 * command on them, so it stands for all. */
static void
set_writer (ClStore * store, cl_event event)
{
  set_event (&store->writer, event);
  clear_readers (store);
}

/* Staged: enqueues the copy between the staging buffer and the device's
 * buffer, without waiting for it, and records it: `to_device`, the upload
 * of the CPU's bytes (transfer queue), after every device command on the
 * buffer; else the download of the device's (download queue), after its
 * last write.  FALSE with `error` set where it could not be enqueued: the
 * store is then as it was. */
static gboolean
transfer (ClStore * store, ClfEngine * engine, gboolean to_device,
    GError ** error)
{
  cl_command_queue queue = to_device ? clf_engine_transfer_queue (engine) :
      clf_engine_download_queue (engine);
  const gchar *call = to_device ? "clEnqueueWriteBuffer" :
      "clEnqueueReadBuffer";
  cl_event wait[GST_CL_MEMORY_MAX_WAIT], done = NULL;
  guint n = device_wait_list (store, to_device ? GST_MAP_WRITE :
      GST_MAP_READ, wait);
  cl_int status = to_device ?
      clEnqueueWriteBuffer (queue, store->buffer, CL_FALSE, 0, store->maxsize,
      store->host, n, n ? wait : NULL, &done) :
      clEnqueueReadBuffer (queue, store->buffer, CL_FALSE, 0, store->maxsize,
      store->host, n, n ? wait : NULL, &done);

  release_events (wait, n);
  if (status != CL_SUCCESS) {
    g_set_error (error, CLF_ERROR, CLF_ERROR_OPENCL, "%s of %"
        G_GSIZE_FORMAT " bytes %s the staging buffer failed: %s", call,
        store->maxsize, to_device ? "from" : "into",
        clf_cl_status_name (status));
    return FALSE;
  }
  if (to_device) {
    set_writer (store, done);
    set_event (&store->staging_reader, done);
  } else {
    add_reader (store, done);
    set_event (&store->staging_writer, done);
  }
  /* Either way both copies will hold the same bytes. */
  store->host_stale = store->device_stale = FALSE;
  clReleaseEvent (done);
  /* Started now, not when something waits for it; the copy is enqueued
   * either way, and a wait for it flushes the queue. */
  status = clFlush (queue);
  if (status != CL_SUCCESS)
    GST_WARNING ("clFlush after %s failed: %s", call,
        clf_cl_status_name (status));
  return TRUE;
}

/* Before the device accesses the store (to read, or to write: a kernel
 * may write only part of the buffer), a CPU write whose upload failed is
 * uploaded again: the staging buffer still holds it.  FALSE with `error`
 * set where that fails too: the device's bytes are not the memory's, and
 * the access must not happen. */
static gboolean
upload_failed_write (ClStore * store, ClfEngine * engine, GError ** error)
{
  if (!store->device_stale || transfer (store, engine, TRUE, error))
    return TRUE;
  g_prefix_error (error, "bytes the CPU wrote did not reach the device "
      "(their upload failed at the unmap and again before the device used "
      "them): ");
  if (error)
    clf_error_set_detail (*error, "The CPU (an element upstream) wrote "
        "the frame into clfilter's memory, but copying it to the device "
        "failed at the unmap and again before the kernels, so the frame is "
        "not filtered.  The device may be short of memory: lower "
        "frames-in-flight, the frame size or the number of streams on the "
        "device.");
  return FALSE;
}

/* The events a CPU access to `host` waits for.  Resident: the device's
 * commands on the buffer.  Staged: the transfers of the staging buffer
 * (a read, the last download; a write, that and the last upload). */
static guint
host_wait_list (const ClStore * store, GstMapFlags access,
    cl_event wait[GST_CL_MEMORY_MAX_WAIT])
{
  guint n = 0;

  if (!store->staging)
    return device_wait_list (store, access, wait);
  if (store->staging_writer)
    wait[n++] = store->staging_writer;
  if ((access & GST_MAP_WRITE) && store->staging_reader)
    wait[n++] = store->staging_reader;
  for (guint i = 0; i < n; i++)
    clRetainEvent (wait[i]);
  return n;
}

/* Readies `host` for a CPU access: a staged read downloads what the device
 * wrote since; then the CPU waits for the commands on those bytes only,
 * never for a whole queue, so a decoder mapping its next frame does not
 * stall behind another frame's kernels or transfers. */
static gboolean
ready_for_cpu (ClStore * store, ClfEngine * engine, GstMapFlags access)
{
  cl_event wait[GST_CL_MEMORY_MAX_WAIT];
  GError *err = NULL;
  guint n;
  cl_int status;

  /* A map for writing only does not read the device's bytes: they are
   * undefined until written, as in GStreamer's GL and CUDA memories, and a
   * producer filling a frame does not download it first. */
  if ((access & GST_MAP_READ) && store->host_stale
      && !transfer (store, engine, FALSE, &err)) {
    GST_ERROR ("%s", err->message);
    g_error_free (err);
    return FALSE;
  }
  n = host_wait_list (store, access, wait);
  status = n ? clWaitForEvents (n, wait) : CL_SUCCESS;
  release_events (wait, n);
  if (status != CL_SUCCESS)
    GST_ERROR ("clWaitForEvents on the device commands of a memory "
        "failed: %s", clf_cl_status_name (status));
  return status == CL_SUCCESS;
}

static gpointer
gst_cl_memory_map (GstMemory * mem, GstMapInfo * info, gsize maxsize)
{
  GstClMemory *root = root_of (mem);
  GstMapFlags access = info->flags & GST_MAP_READWRITE;
  gpointer data = NULL;

  g_mutex_lock (&root->lock);
  if (root->map_count > 0 && (access & ~root->map_access))
    goto access_denied;
  if (root->map_count == 0 || !root->store.staging) {
    if (!ready_for_cpu (&root->store, engine_of (mem), access)) {
      g_mutex_unlock (&root->lock);
      return NULL;
    }
  }
  /* Resident memory is the device's own: any access nests.  Staged
   * memory uploads at the last unmap what the first map may write. */
  if (root->map_count++ == 0)
    root->map_access = root->store.staging ? access : GST_MAP_READWRITE;
  data = root->store.host;
  g_mutex_unlock (&root->lock);
  return data;

  /* ERRORS */
access_denied:
  {
    GST_ERROR ("memory %p is mapped for %s; a nested map cannot ask for %s",
        mem, root->map_access & GST_MAP_WRITE ? "writing" : "reading",
        access & GST_MAP_WRITE ? "writing" : "reading");
    g_mutex_unlock (&root->lock);
    return NULL;
  }
}

/* Nothing waits here: the upload of a staged CPU write is enqueued, and
 * device commands wait for it as the buffer's last writer.  An unmap
 * cannot fail: an upload that could not be enqueued is made again before
 * the device's next access (upload_failed_write), which fails where it
 * cannot be. */
static void
gst_cl_memory_unmap (GstMemory * mem, GstMapInfo * info)
{
  GstClMemory *root = root_of (mem);
  GError *err = NULL;

  g_mutex_lock (&root->lock);
  if (root->map_count > 0 && --root->map_count == 0 && root->store.staging
      && (root->map_access & GST_MAP_WRITE)
      && !transfer (&root->store, engine_of (mem), TRUE, &err)) {
    root->store.device_stale = TRUE;
    GST_WARNING ("%s; tried again before the device uses the memory",
        err->message);
    g_error_free (err);
  }
  g_mutex_unlock (&root->lock);
}

static GstClMemory *
memory_new (GstAllocator * allocator, GstMemoryFlags flags,
    GstMemory * parent, gsize maxsize, gsize align, gsize offset, gsize size)
{
  GstClMemory *mem = g_new0 (GstClMemory, 1);

  gst_memory_init (GST_MEMORY_CAST (mem), flags, allocator, parent, maxsize,
      align, offset, size);
  g_mutex_init (&mem->lock);
  return mem;
}

/* A sub-memory keeps its parent (the root) alive, and works through the
 * root's store. */
static GstMemory *
gst_cl_memory_share (GstMemory * mem, gssize offset, gssize size)
{
  GstClMemory *root = root_of (mem);

  if (size == -1)
    size = mem->size - offset;
  return GST_MEMORY_CAST (memory_new (mem->allocator,
          GST_MINI_OBJECT_FLAGS (root) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
          GST_MEMORY_CAST (root), mem->maxsize, mem->align,
          mem->offset + offset, size));
}

static cl_mem
create_buffer (GstClAllocator * self, cl_mem_flags flags, gsize size)
{
  cl_int status;
  cl_mem buffer = clCreateBuffer (clf_engine_context (self->engine),
      CL_MEM_READ_WRITE | flags, size, NULL, &status);

  if (status != CL_SUCCESS) {
    GST_ERROR_OBJECT (self, "clCreateBuffer of %" G_GSIZE_FORMAT " bytes%s "
        "on %s failed: %s", size, flags ? " (CL_MEM_ALLOC_HOST_PTR)" : "",
        clf_engine_device_name (self->engine), clf_cl_status_name (status));
    return NULL;
  }
  return buffer;
}

/* Releases the store.  Its mapping ends after every command that may
 * still touch the bytes, on any queue (a download into the staging
 * buffer, a kernel on the resident buffer); the objects themselves live
 * until their commands are done. */
static void
store_destroy (ClStore * store, ClfEngine * engine)
{
  cl_mem mapped = store->staging ? store->staging : store->buffer;
  cl_event wait[GST_CL_MEMORY_MAX_WAIT + 2];
  guint n = device_wait_list (store, GST_MAP_WRITE, wait);
  cl_int status;

  if (store->staging)
    n += host_wait_list (store, GST_MAP_WRITE, wait + n);
  if (store->host) {
    status = clEnqueueUnmapMemObject (clf_engine_transfer_queue (engine),
        mapped, store->host, n, n ? wait : NULL, NULL);
    if (status == CL_SUCCESS)
      status = clFlush (clf_engine_transfer_queue (engine));
    if (status != CL_SUCCESS)
      GST_ERROR ("unmapping a freed buffer failed: %s",
          clf_cl_status_name (status));
  }
  release_events (wait, n);
  set_event (&store->writer, NULL);
  clear_readers (store);
  set_event (&store->staging_writer, NULL);
  set_event (&store->staging_reader, NULL);
  if (store->staging)
    clReleaseMemObject (store->staging);
  if (store->buffer)
    clReleaseMemObject (store->buffer);
  memset (store, 0, sizeof *store);
}

/* A new store of store->maxsize bytes.  Where the device works on host
 * memory (PoCL, integrated GPUs), the buffer is allocated by the driver in
 * host memory and mapped once, for its life: the CPU and the device then
 * share its bytes.  Elsewhere the buffer lives in device memory and the
 * CPU works in a pinned staging buffer, also mapped once: a CPU map never
 * waits in a queue behind another frame, and each transfer is one DMA. */
static gboolean
store_create (GstClAllocator * self, ClStore * store)
{
  gboolean resident = clf_engine_host_unified (self->engine);
  cl_int status = CL_SUCCESS;

  store->buffer = create_buffer (self, resident ? CL_MEM_ALLOC_HOST_PTR : 0,
      store->maxsize);
  if (store->buffer && !resident)
    store->staging = create_buffer (self, CL_MEM_ALLOC_HOST_PTR,
        store->maxsize);
  if (!store->buffer || (!resident && !store->staging))
    goto failed;
  store->host = clEnqueueMapBuffer (clf_engine_transfer_queue (self->engine),
      resident ? store->buffer : store->staging, CL_TRUE,
      CL_MAP_READ | CL_MAP_WRITE, 0, store->maxsize, 0, NULL, NULL, &status);
  if (status != CL_SUCCESS) {
    GST_ERROR_OBJECT (self, "clEnqueueMapBuffer of %" G_GSIZE_FORMAT
        " bytes failed: %s", store->maxsize, clf_cl_status_name (status));
    store->host = NULL;
    goto failed;
  }
  return TRUE;

failed:
  store_destroy (store, self->engine);
  return FALSE;
}

/* Zeroes bytes [offset, offset + size) of a new memory, for allocations
 * that ask for zeroed prefix or padding: where the CPU sees them, and in
 * the device's copy of staged memory (a later download brings those). */
static gboolean
zero_bytes (GstClAllocator * self, ClStore * store, gsize offset, gsize size)
{
  const cl_uchar zero = 0;
  cl_event wait[GST_CL_MEMORY_MAX_WAIT], done = NULL;
  guint n;
  cl_int status;

  if (size == 0)
    return TRUE;
  if (!ready_for_cpu (store, self->engine, GST_MAP_WRITE))
    return FALSE;
  memset ((guint8 *) store->host + offset, 0, size);
  if (!store->staging)
    return TRUE;
  n = device_wait_list (store, GST_MAP_WRITE, wait);
  status = clEnqueueFillBuffer (clf_engine_transfer_queue (self->engine),
      store->buffer, &zero, sizeof zero, offset, size, n, n ? wait : NULL,
      &done);
  release_events (wait, n);
  if (status != CL_SUCCESS) {
    GST_ERROR_OBJECT (self, "clEnqueueFillBuffer failed: %s",
        clf_cl_status_name (status));
    return FALSE;
  }
  /* The staging buffer holds the same zeros there: not a write it lacks. */
  set_writer (store, done);
  clReleaseEvent (done);
  /* Other queues wait for the fill: it must be submitted. */
  status = clFlush (clf_engine_transfer_queue (self->engine));
  if (status != CL_SUCCESS)
    GST_WARNING_OBJECT (self, "clFlush after a fill failed: %s",
        clf_cl_status_name (status));
  return TRUE;
}

/* A spare store of `store->maxsize` bytes, if one is kept. */
static gboolean
take_spare (GstClAllocator * self, ClStore * store)
{
  gboolean found = FALSE;

  g_mutex_lock (&self->lock);
  for (guint i = 0; i < self->n_spare && !found; i++) {
    if (self->spare[i].maxsize == store->maxsize) {
      *store = self->spare[i];
      self->spare[i] = self->spare[--self->n_spare];
      found = TRUE;
    }
  }
  g_mutex_unlock (&self->lock);
  return found;
}

/* Keeps `store` (with its readiness, for its next memory), if there is
 * room. */
static gboolean
keep_spare (GstClAllocator * self, const ClStore * store)
{
  gboolean kept = FALSE;

  g_mutex_lock (&self->lock);
  if (self->n_spare < MAX_SPARE_BUFFERS) {
    self->spare[self->n_spare++] = *store;
    kept = TRUE;
  }
  g_mutex_unlock (&self->lock);
  return kept;
}

static GstMemory *
gst_cl_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstClAllocator *self = GST_CL_ALLOCATOR (allocator);
  ClStore store = {.maxsize = params->prefix + size + params->padding };
  GstClMemory *mem;

  if (!take_spare (self, &store) && !store_create (self, &store))
    return NULL;
  mem = memory_new (allocator, params->flags, NULL, store.maxsize,
      params->align, params->prefix, size);
  mem->store = store;
  if (((params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED)
          && !zero_bytes (self, &mem->store, 0, params->prefix))
      || ((params->flags & GST_MEMORY_FLAG_ZERO_PADDED)
          && !zero_bytes (self, &mem->store, params->prefix + size,
              params->padding))) {
    gst_memory_unref (GST_MEMORY_CAST (mem));
    return NULL;
  }
  return GST_MEMORY_CAST (mem);
}

static void
gst_cl_allocator_free (GstAllocator * allocator, GstMemory * mem)
{
  GstClAllocator *self = GST_CL_ALLOCATOR (allocator);
  GstClMemory *clmem = (GstClMemory *) mem;

  /* Sub-memories only hold their parent. */
  if (!mem->parent) {
    if (clmem->map_count > 0)
      GST_WARNING ("memory %p freed while mapped", mem);
    if (clmem->map_count > 0 || !keep_spare (self, &clmem->store))
      store_destroy (&clmem->store, self->engine);
  }
  g_mutex_clear (&clmem->lock);
  g_free (clmem);
}

static void
gst_cl_allocator_finalize (GObject * object)
{
  GstClAllocator *self = GST_CL_ALLOCATOR (object);

  for (guint i = 0; i < self->n_spare; i++)
    store_destroy (&self->spare[i], self->engine);
  g_mutex_clear (&self->lock);

  clf_engine_unref (self->engine);
  G_OBJECT_CLASS (gst_cl_allocator_parent_class)->finalize (object);
}

static void
gst_cl_allocator_class_init (GstClAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  gobject_class->finalize = gst_cl_allocator_finalize;
  allocator_class->alloc = GST_DEBUG_FUNCPTR (gst_cl_allocator_alloc);
  allocator_class->free = GST_DEBUG_FUNCPTR (gst_cl_allocator_free);

  GST_DEBUG_CATEGORY_INIT (gst_cl_memory_debug, "clmemory", 0,
      "OpenCL memory for clfilter");
}

static void
gst_cl_allocator_init (GstClAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  g_mutex_init (&self->lock);
  allocator->mem_type = GST_CL_MEMORY_TYPE;
  allocator->mem_map_full = gst_cl_memory_map;
  allocator->mem_unmap_full = gst_cl_memory_unmap;
  allocator->mem_share = gst_cl_memory_share;
}

GstAllocator *
gst_cl_allocator_new (ClfEngine * engine)
{
  GstClAllocator *self = g_object_new (GST_TYPE_CL_ALLOCATOR, NULL);

  gst_object_ref_sink (self);
  self->engine = clf_engine_ref (engine);
  return GST_ALLOCATOR_CAST (self);
}

ClfEngine *
gst_cl_allocator_get_engine (GstClAllocator * allocator)
{
  return allocator->engine;
}

gboolean
gst_cl_memory_zero (GstMemory * mem)
{
  GstClMemory *root;
  gboolean zeroed;

  g_return_val_if_fail (gst_is_cl_memory (mem), FALSE);
  root = root_of (mem);
  g_mutex_lock (&root->lock);
  zeroed = zero_bytes (GST_CL_ALLOCATOR (mem->allocator), &root->store, 0,
      root->store.maxsize);
  g_mutex_unlock (&root->lock);
  return zeroed;
}

gboolean
gst_is_cl_memory (GstMemory * mem)
{
  return mem && mem->allocator && GST_IS_CL_ALLOCATOR (mem->allocator);
}

cl_mem
gst_cl_memory_get_buffer (GstMemory * mem, gsize * offset)
{
  g_return_val_if_fail (gst_is_cl_memory (mem), NULL);
  if (offset)
    *offset = mem->offset;
  return root_of (mem)->store.buffer;
}

ClfEngine *
gst_cl_memory_get_engine (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_cl_memory (mem), NULL);
  return GST_CL_ALLOCATOR (mem->allocator)->engine;
}

gboolean
gst_cl_memory_is_mapped (GstMemory * mem)
{
  GstClMemory *root;
  gboolean mapped;

  g_return_val_if_fail (gst_is_cl_memory (mem), FALSE);
  root = root_of (mem);
  g_mutex_lock (&root->lock);
  mapped = root->map_count > 0;
  g_mutex_unlock (&root->lock);
  return mapped;
}

gboolean
gst_cl_memory_device_wait_list (GstMemory * mem, GstMapFlags access,
    cl_event wait[GST_CL_MEMORY_MAX_WAIT], guint * n_wait, GError ** error)
{
  GstClMemory *root;
  gboolean current;

  *n_wait = 0;
  g_return_val_if_fail (gst_is_cl_memory (mem), FALSE);
  root = root_of (mem);
  g_mutex_lock (&root->lock);
  current = upload_failed_write (&root->store, engine_of (mem), error);
  *n_wait = current ? device_wait_list (&root->store, access, wait) : 0;
  g_mutex_unlock (&root->lock);
  return current;
}

void
gst_cl_memory_device_done (GstMemory * mem, GstMapFlags access, cl_event event)
{
  GstClMemory *root;

  g_return_if_fail (gst_is_cl_memory (mem));
  root = root_of (mem);
  g_mutex_lock (&root->lock);
  if (access & GST_MAP_WRITE) {
    /* The staging buffer lacks the new bytes until downloaded. */
    set_writer (&root->store, event);
    root->store.host_stale = root->store.staging != NULL;
  } else {
    add_reader (&root->store, event);
  }
  g_mutex_unlock (&root->lock);
}

void
gst_cl_memory_prefetch (GstMemory * mem)
{
  GstClMemory *root;
  GError *err = NULL;

  g_return_if_fail (gst_is_cl_memory (mem));
  root = root_of (mem);
  g_mutex_lock (&root->lock);
  /* A download that could not be enqueued is made at the map. */
  if (root->store.host_stale && root->map_count == 0
      && !transfer (&root->store, engine_of (mem), FALSE, &err)) {
    GST_WARNING ("%s; tried again at the map", err->message);
    g_error_free (err);
  }
  g_mutex_unlock (&root->lock);
}
