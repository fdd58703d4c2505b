/* CUDA device memory that the engine's OpenCL device works on (NVIDIA).
 *
 * Frames are allocated with the CUDA driver's virtual memory API
 * (cuMemCreate), exported once as a file descriptor and imported once
 * into OpenCL (cl_khr_external_memory_opaque_fd): CUDA copies frames in
 * and out of them on the device, and the kernels read and write them as
 * any buffer.  The CUDA driver (libcuda.so.1) is loaded on first use, so
 * programs that never use this run where there is none.  No GStreamer
 * here: the glue gives the CUDA context it shares with its neighbours. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "clf.h"

typedef struct ClfCuda ClfCuda;

/* CUDA work for `engine`'s device in `cu_context` (a CUcontext, kept by
 * the caller while the ClfCuda lives).  Fails (CLF_ERROR_NOT_FOUND) when
 * there is no CUDA driver, when the OpenCL device cannot import CUDA
 * memory, or when the context's device is not the engine's (the devices'
 * UUIDs differ); the message says which. */
ClfCuda *clf_cuda_new (ClfEngine * engine, void *cu_context, GError ** error);
void clf_cuda_free (ClfCuda * cuda);

/* A frame's memory: `size` bytes (allocated rounded up to the
 * granularity) that CUDA addresses at clf_cuda_frame_address() and OpenCL
 * as clf_cuda_frame_buffer().  clf_cuda_frame_size() is that `size`, as
 * asked for: frames kept for reuse are matched by it. */
typedef struct ClfCudaFrame ClfCudaFrame;

ClfCudaFrame *clf_cuda_frame_new (ClfCuda * cuda, size_t size,
    GError ** error);
void clf_cuda_frame_free (ClfCudaFrame * frame);
cl_mem clf_cuda_frame_buffer (const ClfCudaFrame * frame);
uint64_t clf_cuda_frame_address (const ClfCudaFrame * frame);
size_t clf_cuda_frame_size (const ClfCudaFrame * frame);

/* One plane copied on the device: `rows` rows of `row_bytes` bytes. */
typedef struct {
  uint64_t src;                 /* CUdeviceptr */
  size_t src_stride;
  uint64_t dst;
  size_t dst_stride;
  size_t row_bytes;
  size_t rows;
} ClfCudaCopy;

/* Copies the planes on the ClfCuda's stream and waits for them. */
bool clf_cuda_copy (ClfCuda * cuda, const ClfCudaCopy * planes, uint32_t n,
    GError ** error);

/* OpenCL's use of a frame, as cl_khr_external_memory asks: acquired on
 * the engine's queue before the commands that use it (after `wait`), and
 * released after them.  `*done` (never NULL on success) is the command's
 * event: a later command or a wait for the frame waits for it.  Where the
 * driver has no acquire and release, a marker stands for them. */
bool clf_cuda_frame_acquire (ClfCudaFrame * frame, const cl_event * wait,
    uint32_t n_wait, cl_event * done, GError ** error);
bool clf_cuda_frame_release (ClfCudaFrame * frame, const cl_event * wait,
    uint32_t n_wait, cl_event * done, GError ** error);
