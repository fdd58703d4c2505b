/* Frames: the checks a caller's frame must pass, and the transfers of
 * its planes between host memory, the plan's staged frame and the device
 * (uploads, downloads, plane copies, hand-backs to the host). */
#include "clf-plan-private.h"

#include <inttypes.h>

bool
clf_plan_enqueue_plane_copy (ClfPlan * plan, const PlaneShape * p,
    cl_mem src, const Placement * in, cl_mem dst, const Placement * out,
    GError ** error)
{
  const size_t src_origin[3] = { in->offset, 0, 0 };
  const size_t dst_origin[3] = { out->offset, 0, 0 };
  const size_t region[3] = { p->row_bytes, p->rows, 1 };
  const cl_event *wait;
  cl_uint n_wait = clf_plan_take_wait (plan, &wait);
  CLF_TRY (error, fail, clEnqueueCopyBufferRect,
      clf_engine_queue (plan->engine), src, dst, src_origin, dst_origin,
      region, in->stride, 0, out->stride, 0, n_wait, wait,
      clf_plan_next_event (plan, CMD_KERNEL));
  clf_plan_event_enqueued (plan);
  return true;

fail:
  return false;
}

/* Copies plane i between host memory and the staged device frame: up
 * into staging_in, or down from staging_out.  Rows only, never their
 * padding. */
bool
clf_plan_enqueue_transfer (ClfPlan * plan, CommandKind kind, uint32_t i,
    const ClfFrame * host, GError ** error)
{
  const FrameShape *shape = kind == CMD_UPLOAD ? &plan->in : &plan->out;
  const PlaneShape *p = &shape->planes[i];
  const size_t buffer_origin[3] = { shape->staged[i].offset, 0, 0 };
  const size_t host_origin[3] = { 0, 0, 0 };
  const size_t region[3] = { p->row_bytes, p->rows, 1 };
  cl_command_queue queue = clf_engine_queue (plan->engine);
  cl_event *event = clf_plan_next_event (plan, kind);
  const char *call = kind == CMD_UPLOAD ? "clEnqueueWriteBufferRect" :
      "clEnqueueReadBufferRect";
  const cl_event *wait;
  cl_uint n_wait = clf_plan_take_wait (plan, &wait);
  cl_int status;
  status = kind == CMD_UPLOAD ?
      clEnqueueWriteBufferRect (queue, plan->staging_in, CL_FALSE,
      buffer_origin, host_origin, region, shape->staged[i].stride, 0,
      host->stride[i], 0, host->data[i], n_wait, wait, event) :
      clEnqueueReadBufferRect (queue, plan->staging_out, CL_FALSE,
      buffer_origin, host_origin, region, shape->staged[i].stride, 0,
      host->stride[i], 0, host->data[i], n_wait, wait, event);
  CLF_CHECK (error, fail, status, call);
  clf_plan_event_enqueued (plan);
  return true;

fail:
  return false;
}

/* The bytes from a plane's first row to the end of its last, in 64 bits
 * (the stride is below 2^31 and the rows below 2^32, so it cannot wrap). */
static uint64_t
plane_extent (const PlaneShape * p, size_t stride)
{
  return (uint64_t) (p->rows - 1) * stride + p->row_bytes;
}

/* Where plane i of a frame may reach: `*room` bytes from its first row on,
 * read from the device buffer (past the plane's offset) or given with the
 * host plane. */
static bool
plane_room (const ClfFrame * frame, uint32_t i, const char *what,
    uint64_t * room, GError ** error)
{
  if (!frame->mem[i]) {
    *room = frame->size[i];
    return true;
  }
  size_t size = 0;
  CLF_TRY (error, fail, clGetMemObjectInfo, frame->mem[i], CL_MEM_SIZE,
      sizeof size, &size, NULL);
  if (frame->offset[i] > size) {
    clf_set_error (error, CLF_ERROR_FRAME, "plane %u of the %s frame starts "
        "at offset %zu, past the end of its %zu-byte device buffer", i, what,
        frame->offset[i], size);
    return false;
  }
  /* The kernels take offsets in 32 bits. */
  uint64_t reach = KERNEL_INDEX_LIMIT - (frame->offset[i] < KERNEL_INDEX_LIMIT
      ? frame->offset[i] : KERNEL_INDEX_LIMIT);
  *room = size - frame->offset[i] < reach ? size - frame->offset[i] : reach;
  return true;

fail:
  return false;
}

bool
clf_plan_check_frame (const ClfPlan * plan, const ClfFrame * frame,
    bool destination, const char *what, GError ** error)
{
  const FrameShape *shape = destination ? &plan->out : &plan->in;
  for (uint32_t i = 0; i < shape->n_planes; i++) {
    const PlaneShape *p = &shape->planes[i];
    size_t row = p->row_bytes;
    uint32_t align = p->sample_bytes;
    uint64_t room = 0;
    if (!frame->mem[i] && !frame->data[i]) {
      clf_set_error (error, CLF_ERROR_FRAME, "plane %u of the %s frame has no "
          "memory", i, what);
      return false;
    }
    if (frame->stride[i] < row || frame->stride[i] > KERNEL_INDEX_LIMIT) {
      clf_set_error (error, CLF_ERROR_FRAME, "plane %u of the %s frame has a "
          "stride of %zu bytes: it must hold a row (%zu bytes) and be below "
          "2 GiB", i, what, frame->stride[i], row);
      return false;
    }
    if (frame->mem[i] && (frame->offset[i] % align || frame->stride[i]
            % align)) {
      clf_set_error (error, CLF_ERROR_FRAME, "plane %u of the %s frame has "
          "offset %zu and stride %zu in its device buffer: its %u-byte "
          "samples need both to be multiples of %u", i, what,
          frame->offset[i], frame->stride[i], align, align);
      return false;
    }
    if (!plane_room (frame, i, what, &room, error))
      return false;
    if (plane_extent (p, frame->stride[i]) > room) {
      clf_set_error (error, CLF_ERROR_FRAME, "plane %u of the %s frame (%u "
          "rows of %zu bytes, stride %zu, offset %zu) reaches %" PRIu64
          " bytes past its start, but its memory holds only %" PRIu64, i,
          what, p->rows, row, frame->stride[i], frame->offset[i],
          plane_extent (p, frame->stride[i]), room);
      return false;
    }
  }
  return true;
}

/* Where the filter finds plane i of a frame: in the frame's own device
 * buffer, or staged in the plan's. */
cl_mem
clf_plan_device_plane (const FrameShape * shape, const ClfFrame * frame,
    uint32_t i, cl_mem staging, Placement * at)
{
  if (!frame->mem[i]) {
    *at = shape->staged[i];
    return staging;
  }
  at->offset = frame->offset[i];
  at->stride = frame->stride[i];
  return frame->mem[i];
}

bool
clf_plan_has_host_plane (const FrameShape * shape, const ClfFrame * frame)
{
  for (uint32_t i = 0; i < shape->n_planes; i++)
    if (!frame->mem[i])
      return true;
  return false;
}

/* A buffer over host memory (clf_engine_wrap_host) shows the device's
 * writes to the host once mapped: map and unmap the bytes at [from, to),
 * which moves none on the host-unified devices such buffers are made
 * for. */
static bool
enqueue_host_handback (ClfPlan * plan, cl_mem mem, size_t from, size_t to,
    GError ** error)
{
  cl_command_queue queue = clf_engine_queue (plan->engine);
  void *mapped = NULL;
  cl_int status;

  mapped = clEnqueueMapBuffer (queue, mem, CL_FALSE, CL_MAP_READ, from,
      to - from, 0, NULL, clf_plan_next_event (plan, CMD_DOWNLOAD), &status);
  CLF_CHECK (error, fail, status, "clEnqueueMapBuffer");
  clf_plan_event_enqueued (plan);
  status = clEnqueueUnmapMemObject (queue, mem, mapped, 0, NULL,
      clf_plan_next_event (plan, CMD_DOWNLOAD));
  if (status == CL_SUCCESS)
    clf_plan_event_enqueued (plan);
  CLF_CHECK (error, fail, status, "clEnqueueUnmapMemObject");
  return true;

fail:
  return false;
}

/* Hands each distinct wrapped buffer of `dst` back to the host, once over
 * the bytes of all the planes in it. */
bool
clf_plan_enqueue_handbacks (ClfPlan * plan, const ClfFrame * dst,
    GError ** error)
{
  const FrameShape *shape = &plan->out;
  for (uint32_t i = 0; i < shape->n_planes; i++) {
    bool seen = false;
    size_t from = SIZE_MAX, to = 0;
    for (uint32_t j = 0; j < i; j++)
      seen |= dst->wrapped[j] && dst->mem[j] == dst->mem[i];
    if (!dst->wrapped[i] || seen)
      continue;
    for (uint32_t j = i; j < shape->n_planes; j++) {
      if (!dst->wrapped[j] || dst->mem[j] != dst->mem[i])
        continue;
      /* clf_plan_check_frame kept each plane within its buffer. */
      size_t end = dst->offset[j] + (size_t) plane_extent (&shape->planes[j],
          dst->stride[j]);
      from = dst->offset[j] < from ? dst->offset[j] : from;
      to = end > to ? end : to;
    }
    if (!enqueue_host_handback (plan, dst->mem[i], from, to, error))
      return false;
  }
  return true;
}
