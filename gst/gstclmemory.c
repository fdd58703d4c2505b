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

/* The engine's two queues: the filters' and the transfers' (CPU maps). */
#define N_QUEUES 2

struct _GstClMemory
{
  GstMemory mem;
  cl_mem buffer;

  /* The CPU mapping, kept by the memory that owns the buffer (the root):
   * shared sub-memories map through it.  `resident`: mapped once for the
   * buffer's life (see gst_cl_allocator_alloc). */
  GMutex lock;
  guint map_count;
  gpointer map_data;
  GstMapFlags map_access;
  gboolean resident;

  /* Readiness, kept by the root: the last command that wrote the buffer,
   * and on each queue the last that read it (or NULL).  A CPU map waits
   * for them (see gst_cl_memory_map), and a device command for them
   * through gst_cl_memory_device_wait_list.  Each write waited for every
   * earlier command, so the last one stands for all. */
  cl_event writer;
  cl_event readers[N_QUEUES];
};

/* The buffers of freed memory are kept for the next allocations of the
 * same size: a decoder copies each frame it still holds mapped
 * (GstVideoDecoder must, to make it writable), and would otherwise create,
 * fault in and map a new OpenCL buffer for every frame. */
#define MAX_SPARE_BUFFERS 8

typedef struct
{
  cl_mem buffer;
  gsize maxsize;
  gpointer map_data;            /* its resident mapping, if any */
  cl_event writer, readers[N_QUEUES];   /* its readiness, passed on */
} SpareBuffer;

struct _GstClAllocator
{
  GstAllocator parent;
  ClfEngine *engine;

  GMutex lock;
  SpareBuffer spare[MAX_SPARE_BUFFERS];
  guint n_spare;
};

G_DEFINE_TYPE (GstClAllocator, gst_cl_allocator, GST_TYPE_ALLOCATOR);

G_STATIC_ASSERT (GST_CL_MEMORY_MAX_WAIT == 1 + N_QUEUES);

static GstClMemory *
root_of (GstMemory * mem)
{
  return (GstClMemory *) (mem->parent ? mem->parent : mem);
}

/* The queue of the CPU's maps: not the filters', so that a map waits for
 * its memory's events only, not behind every frame in flight. */
static cl_command_queue
queue_of (GstMemory * mem)
{
  return clf_engine_transfer_queue (GST_CL_ALLOCATOR (mem->allocator)->engine);
}

/* A map for writing only does not read what the device wrote: its bytes
 * are undefined until the CPU writes them, as with GStreamer's GL and CUDA
 * memories (which download only for GST_MAP_READ).  On a discrete device
 * that saves a download of the whole buffer for every frame a producer
 * (a decoder, a source) fills. */
static cl_map_flags
cl_map_flags_from (GstMapFlags access)
{
  if ((access & GST_MAP_READWRITE) == GST_MAP_WRITE)
    return CL_MAP_WRITE_INVALIDATE_REGION;
  return ((access & GST_MAP_READ) ? CL_MAP_READ : 0) |
      ((access & GST_MAP_WRITE) ? CL_MAP_WRITE : 0);
}

/* The events that access to the root's bytes waits for: a read, the last
 * device write; a write, that and the last device read.  New references
 * in `wait`; returns how many. */
static guint
wait_list_locked (GstClMemory * root, GstMapFlags access,
    cl_event wait[GST_CL_MEMORY_MAX_WAIT])
{
  guint n = 0;

  if (root->writer)
    wait[n++] = root->writer;
  for (guint q = 0; (access & GST_MAP_WRITE) && q < N_QUEUES; q++)
    if (root->readers[q])
      wait[n++] = root->readers[q];
  for (guint i = 0; i < n; i++)
    clRetainEvent (wait[i]);
  return n;
}

static void
release_events (cl_event * events, guint n)
{
  for (guint i = 0; i < n; i++)
    clReleaseEvent (events[i]);
}

/* Where the device works on host memory itself, the mapping is the
 * buffer's storage, mapped for the buffer's life: a CPU map then waits
 * only for the device commands on this memory, not for the whole queue. */
static gboolean
wait_for_device (GstClMemory * root, GstMapFlags access)
{
  cl_event wait[GST_CL_MEMORY_MAX_WAIT];
  guint n = wait_list_locked (root, access, wait);
  cl_int status = n ? clWaitForEvents (n, wait) : CL_SUCCESS;

  release_events (wait, n);
  if (status != CL_SUCCESS)
    GST_ERROR ("clWaitForEvents on the device commands of memory %p "
        "failed: %s", root, clf_cl_status_name (status));
  return status == CL_SUCCESS;
}

static gpointer
gst_cl_memory_map (GstMemory * mem, GstMapInfo * info, gsize maxsize)
{
  GstClMemory *root = root_of (mem);
  GstMapFlags access = info->flags & GST_MAP_READWRITE;
  gpointer data = NULL;
  cl_event wait[GST_CL_MEMORY_MAX_WAIT];
  guint n_wait;
  cl_int status;

  g_mutex_lock (&root->lock);
  if (root->resident) {
    if (!wait_for_device (root, access)) {
      g_mutex_unlock (&root->lock);
      return NULL;
    }
    root->map_count++;
    data = root->map_data;
    g_mutex_unlock (&root->lock);
    return data;
  }
  if (root->map_count == 0) {
    /* Blocking, after the device commands on this memory: the CPU may
     * touch the bytes as soon as this returns. */
    n_wait = wait_list_locked (root, access, wait);
    root->map_data = clEnqueueMapBuffer (queue_of (mem), root->buffer,
        CL_TRUE, cl_map_flags_from (access), 0, root->mem.maxsize, n_wait,
        n_wait ? wait : NULL, NULL, &status);
    release_events (wait, n_wait);
    if (status != CL_SUCCESS)
      goto map_failed;
    root->map_access = access;
  } else if (access & ~root->map_access) {
    goto access_denied;
  }
  root->map_count++;
  data = root->map_data;
  g_mutex_unlock (&root->lock);
  return data;

  /* ERRORS */
map_failed:
  {
    GST_ERROR ("clEnqueueMapBuffer of %" G_GSIZE_FORMAT " bytes failed: %s",
        root->mem.maxsize, clf_cl_status_name (status));
    root->map_data = NULL;
    g_mutex_unlock (&root->lock);
    return NULL;
  }
access_denied:
  {
    GST_ERROR ("memory %p is mapped for %s; a nested map cannot ask for %s",
        mem, root->map_access & GST_MAP_WRITE ? "writing" : "reading",
        access & GST_MAP_WRITE ? "writing" : "reading");
    g_mutex_unlock (&root->lock);
    return NULL;
  }
}

/* Replaces `*slot` (the writer or the reader) with a reference to
 * `event`. */
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
clear_readers (cl_event readers[N_QUEUES])
{
  for (guint q = 0; q < N_QUEUES; q++)
    set_event (&readers[q], NULL);
}

/* Records a read: it replaces the last read on the same queue (which it
 * follows there), or takes a free slot. */
static void
add_reader (GstClMemory * root, cl_event event)
{
  cl_command_queue queue = NULL, other = NULL;
  guint slot = 0;

  clGetEventInfo (event, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, NULL);
  for (guint q = 0; q < N_QUEUES; q++) {
    if (root->readers[q])
      clGetEventInfo (root->readers[q], CL_EVENT_COMMAND_QUEUE,
          sizeof other, &other, NULL);
    if (!root->readers[q] || other == queue) {
      slot = q;
      break;
    }
  }
  set_event (&root->readers[slot], event);
}

/* Ends the root's mapping; nothing waits here.  The unmap of a CPU write
 * is the buffer's last write, that of a read its last read on the
 * transfer queue: device commands wait for them. */
static void
unmap_root (GstClMemory * root, cl_command_queue queue)
{
  cl_event unmapped = NULL;
  cl_int status = clEnqueueUnmapMemObject (queue, root->buffer,
      root->map_data, 0, NULL, &unmapped);
  if (status != CL_SUCCESS)
    GST_ERROR ("clEnqueueUnmapMemObject failed: %s",
        clf_cl_status_name (status));
  else if (root->map_access & GST_MAP_WRITE) {
    /* The map waited for every command before it. */
    set_event (&root->writer, unmapped);
    clear_readers (root->readers);
  } else {
    add_reader (root, unmapped);
  }
  if (unmapped)
    clReleaseEvent (unmapped);
  root->map_data = NULL;
}

static void
gst_cl_memory_unmap (GstMemory * mem, GstMapInfo * info)
{
  GstClMemory *root = root_of (mem);

  g_mutex_lock (&root->lock);
  if (root->map_count > 0 && --root->map_count == 0 && !root->resident)
    unmap_root (root, queue_of (mem));
  g_mutex_unlock (&root->lock);
}

static GstClMemory *
memory_new (GstAllocator * allocator, GstMemoryFlags flags,
    GstMemory * parent, gsize maxsize, gsize align, gsize offset, gsize size,
    cl_mem buffer)
{
  GstClMemory *mem = g_new0 (GstClMemory, 1);

  gst_memory_init (GST_MEMORY_CAST (mem), flags, allocator, parent, maxsize,
      align, offset, size);
  g_mutex_init (&mem->lock);
  mem->buffer = buffer;
  return mem;
}

static GstMemory *
gst_cl_memory_share (GstMemory * mem, gssize offset, gssize size)
{
  GstClMemory *root = root_of (mem);

  if (size == -1)
    size = mem->size - offset;
  clRetainMemObject (root->buffer);
  return GST_MEMORY_CAST (memory_new (mem->allocator,
          GST_MINI_OBJECT_FLAGS (root) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
          GST_MEMORY_CAST (root), mem->maxsize, mem->align,
          mem->offset + offset, size, root->buffer));
}

/* Zeroes bytes [offset, offset + size) of a new buffer, for allocations
 * that ask for zeroed prefix or padding. */
static gboolean
zero_bytes (GstClAllocator * self, cl_mem buffer, gsize offset, gsize size)
{
  const cl_uchar zero = 0;
  cl_event done = NULL;
  cl_int status;

  if (size == 0)
    return TRUE;
  status = clEnqueueFillBuffer (clf_engine_transfer_queue (self->engine), buffer,
      &zero, sizeof zero, offset, size, 0, NULL, &done);
  if (status == CL_SUCCESS) {
    status = clWaitForEvents (1, &done);
    clReleaseEvent (done);
  }
  if (status != CL_SUCCESS)
    GST_ERROR_OBJECT (self, "clEnqueueFillBuffer failed: %s",
        clf_cl_status_name (status));
  return status == CL_SUCCESS;
}

/* A spare buffer of `spare->maxsize` bytes, if one is kept. */
static gboolean
take_spare (GstClAllocator * self, SpareBuffer * spare)
{
  gboolean found = FALSE;

  g_mutex_lock (&self->lock);
  for (guint i = 0; i < self->n_spare && !found; i++) {
    if (self->spare[i].maxsize == spare->maxsize) {
      *spare = self->spare[i];
      self->spare[i] = self->spare[--self->n_spare];
      found = TRUE;
    }
  }
  g_mutex_unlock (&self->lock);
  return found;
}

static gboolean
keep_spare (GstClAllocator * self, const SpareBuffer * spare)
{
  gboolean kept = FALSE;

  g_mutex_lock (&self->lock);
  if (self->n_spare < MAX_SPARE_BUFFERS) {
    self->spare[self->n_spare++] = *spare;
    kept = TRUE;
  }
  g_mutex_unlock (&self->lock);
  return kept;
}

/* Where the device works on host memory itself, a mapping is the buffer's
 * own storage: map it once, for the buffer's life, so that a CPU map never
 * waits in the queue behind another frame's kernels (a decoder allocating
 * its next frame would otherwise stall until the filter is done).  A CPU
 * map waits for the device commands on this memory only (its writer and
 * reader events), so the CPU and the device never work on it at once. */
static gboolean
map_resident (GstClAllocator * self, GstClMemory * mem)
{
  cl_int status;

  mem->map_data = clEnqueueMapBuffer (clf_engine_transfer_queue (self->engine),
      mem->buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, mem->mem.maxsize,
      0, NULL, NULL, &status);
  if (status != CL_SUCCESS) {
    GST_ERROR_OBJECT (self, "clEnqueueMapBuffer failed: %s",
        clf_cl_status_name (status));
    mem->map_data = NULL;
    return FALSE;
  }
  mem->resident = TRUE;
  mem->map_access = GST_MAP_READWRITE;
  return TRUE;
}

static GstMemory *
gst_cl_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstClAllocator *self = GST_CL_ALLOCATOR (allocator);
  gsize maxsize = params->prefix + size + params->padding;
  SpareBuffer spare = { NULL, maxsize, NULL, NULL, {NULL, NULL} };
  cl_int status = CL_SUCCESS;
  GstMemory *mem;

  if (!take_spare (self, &spare))
    spare.buffer = clCreateBuffer (clf_engine_context (self->engine),
        CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, maxsize, NULL, &status);
  if (status != CL_SUCCESS)
    goto create_failed;

  mem = GST_MEMORY_CAST (memory_new (allocator, params->flags, NULL, maxsize,
          params->align, params->prefix, size, spare.buffer));
  ((GstClMemory *) mem)->writer = spare.writer;
  for (guint q = 0; q < N_QUEUES; q++)
    ((GstClMemory *) mem)->readers[q] = spare.readers[q];
  if (spare.map_data) {
    ((GstClMemory *) mem)->map_data = spare.map_data;
    ((GstClMemory *) mem)->map_access = GST_MAP_READWRITE;
    ((GstClMemory *) mem)->resident = TRUE;
  }
  if (((params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED)
          && !zero_bytes (self, spare.buffer, 0, params->prefix))
      || ((params->flags & GST_MEMORY_FLAG_ZERO_PADDED)
          && !zero_bytes (self, spare.buffer, params->prefix + size,
              params->padding))
      || (clf_engine_host_unified (self->engine) && !spare.map_data
          && !map_resident (self, (GstClMemory *) mem))) {
    gst_memory_unref (mem);
    return NULL;
  }
  return mem;

  /* ERRORS */
create_failed:
  {
    GST_ERROR_OBJECT (self, "clCreateBuffer of %" G_GSIZE_FORMAT " bytes "
        "(CL_MEM_ALLOC_HOST_PTR) on %s failed: %s", maxsize,
        clf_engine_device_name (self->engine), clf_cl_status_name (status));
    return NULL;
  }
}

static void
gst_cl_allocator_free (GstAllocator * allocator, GstMemory * mem)
{
  GstClMemory *self = (GstClMemory *) mem;
  SpareBuffer spare = { self->buffer, mem->maxsize, self->map_data,
    self->writer, {self->readers[0], self->readers[1]}
  };

  if (self->map_count > 0)
    GST_WARNING ("memory %p freed while mapped", mem);
  /* Shared sub-memories only hold a reference on their parent's buffer.
   * A buffer kept spare keeps its readiness for its next memory. */
  if (mem->parent || self->map_count > 0
      || !keep_spare (GST_CL_ALLOCATOR (allocator), &spare)) {
    if (self->map_data)
      unmap_root (self, queue_of (mem));
    set_event (&self->writer, NULL);
    clear_readers (self->readers);
    clReleaseMemObject (self->buffer);
  }
  g_mutex_clear (&self->lock);
  g_free (self);
}

static void
gst_cl_allocator_finalize (GObject * object)
{
  GstClAllocator *self = GST_CL_ALLOCATOR (object);
  cl_command_queue queue = clf_engine_transfer_queue (self->engine);

  for (guint i = 0; i < self->n_spare; i++) {
    if (self->spare[i].map_data)
      clEnqueueUnmapMemObject (queue, self->spare[i].buffer,
          self->spare[i].map_data, 0, NULL, NULL);
    set_event (&self->spare[i].writer, NULL);
    clear_readers (self->spare[i].readers);
    clReleaseMemObject (self->spare[i].buffer);
  }
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
  return root_of (mem)->buffer;
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

guint
gst_cl_memory_device_wait_list (GstMemory * mem, GstMapFlags access,
    cl_event wait[GST_CL_MEMORY_MAX_WAIT])
{
  GstClMemory *root;
  guint n;

  g_return_val_if_fail (gst_is_cl_memory (mem), 0);
  root = root_of (mem);
  g_mutex_lock (&root->lock);
  n = wait_list_locked (root, access, wait);
  g_mutex_unlock (&root->lock);
  return n;
}

void
gst_cl_memory_device_done (GstMemory * mem, GstMapFlags access,
    cl_event event)
{
  GstClMemory *root;

  g_return_if_fail (gst_is_cl_memory (mem));
  root = root_of (mem);
  g_mutex_lock (&root->lock);
  /* A write orders after every earlier read and write of the memory (its
   * wait list had them), so it stands for all of them. */
  if (access & GST_MAP_WRITE) {
    set_event (&root->writer, event);
    clear_readers (root->readers);
  } else {
    add_reader (root, event);
  }
  g_mutex_unlock (&root->lock);
}
