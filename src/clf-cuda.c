/* CUDA device memory shared with OpenCL (clf-cuda.h).
 *
 * The CUDA driver API is loaded with GModule, as GStreamer's CUDA library
 * does, and only the calls below are declared, with the driver's types of
 * clf-cuda-driver.h: no toolkit is needed at build time. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <CL/cl_ext.h>
#include <gmodule.h>

#include "clf-cuda-driver.h"
#include "clf-cuda.h"
#include "clf-check.h"
#include "clf-engine-private.h"

/* cl_khr_external_memory's names for the device list of an import:
 * OpenCL headers before the extension's final version lack the MEM_. */
#ifndef CL_MEM_DEVICE_HANDLE_LIST_KHR
#define CL_MEM_DEVICE_HANDLE_LIST_KHR CL_DEVICE_HANDLE_LIST_KHR
#define CL_MEM_DEVICE_HANDLE_LIST_END_KHR CL_DEVICE_HANDLE_LIST_END_KHR
#endif

/* ---- the driver's calls ---- */

/* Each call: the symbol the driver exports and the pointer it fills. */
typedef struct
{
  CUresult (*Init) (unsigned int flags);
  CUresult (*GetErrorName) (CUresult error, const char **name);
  CUresult (*CtxPushCurrent) (CUcontext ctx);
  CUresult (*CtxPopCurrent) (CUcontext * ctx);
  CUresult (*CtxGetDevice) (CUdevice * device);
  CUresult (*DeviceGetUuid) (unsigned char uuid[16], CUdevice device);
  CUresult (*StreamCreate) (CUstream * stream, unsigned int flags);
  CUresult (*StreamDestroy) (CUstream stream);
  CUresult (*StreamSynchronize) (CUstream stream);
  CUresult (*Memcpy2DAsync) (const CUDA_MEMCPY2D * copy, CUstream stream);
  CUresult (*MemGetAllocationGranularity) (size_t *granularity,
      const CUmemAllocationProp * prop,
      CUmemAllocationGranularity_flags option);
  CUresult (*MemCreate) (CUmemGenericAllocationHandle * handle, size_t size,
      const CUmemAllocationProp * prop, unsigned long long flags);
  CUresult (*MemRelease) (CUmemGenericAllocationHandle handle);
  CUresult (*MemAddressReserve) (CUdeviceptr * ptr, size_t size,
      size_t alignment, CUdeviceptr addr, unsigned long long flags);
  CUresult (*MemAddressFree) (CUdeviceptr ptr, size_t size);
  CUresult (*MemMap) (CUdeviceptr ptr, size_t size, size_t offset,
      CUmemGenericAllocationHandle handle, unsigned long long flags);
  CUresult (*MemUnmap) (CUdeviceptr ptr, size_t size);
  CUresult (*MemSetAccess) (CUdeviceptr ptr, size_t size,
      const CUmemAccessDesc * desc, size_t count);
  CUresult (*MemExportToShareableHandle) (void *handle,
      CUmemGenericAllocationHandle allocation, CUmemAllocationHandleType type,
      unsigned long long flags);
} CudaDriver;

#define CUDA_ENTRY(field, symbol) { #symbol, offsetof (CudaDriver, field) }

static const struct
{
  const char *symbol;
  size_t offset;
} cuda_entries[] = {
  CUDA_ENTRY (Init, cuInit),
  CUDA_ENTRY (GetErrorName, cuGetErrorName),
  CUDA_ENTRY (CtxPushCurrent, cuCtxPushCurrent_v2),
  CUDA_ENTRY (CtxPopCurrent, cuCtxPopCurrent_v2),
  CUDA_ENTRY (CtxGetDevice, cuCtxGetDevice),
  CUDA_ENTRY (DeviceGetUuid, cuDeviceGetUuid),
  CUDA_ENTRY (StreamCreate, cuStreamCreate),
  CUDA_ENTRY (StreamDestroy, cuStreamDestroy_v2),
  CUDA_ENTRY (StreamSynchronize, cuStreamSynchronize),
  CUDA_ENTRY (Memcpy2DAsync, cuMemcpy2DAsync_v2),
  CUDA_ENTRY (MemGetAllocationGranularity, cuMemGetAllocationGranularity),
  CUDA_ENTRY (MemCreate, cuMemCreate),
  CUDA_ENTRY (MemRelease, cuMemRelease),
  CUDA_ENTRY (MemAddressReserve, cuMemAddressReserve),
  CUDA_ENTRY (MemAddressFree, cuMemAddressFree),
  CUDA_ENTRY (MemMap, cuMemMap),
  CUDA_ENTRY (MemUnmap, cuMemUnmap),
  CUDA_ENTRY (MemSetAccess, cuMemSetAccess),
  CUDA_ENTRY (MemExportToShareableHandle, cuMemExportToShareableHandle),
};

/* OpenCL calls newer than the 1.2 API the project compiles against: the
 * ICD loader's core entry point and the extension's. */
typedef cl_mem (*CreateBufferWithPropertiesFn) (cl_context context,
    const cl_properties * properties, cl_mem_flags flags, size_t size,
    void *host_ptr, cl_int * status);

typedef struct
{
  CudaDriver cu;
  CreateBufferWithPropertiesFn create_buffer_with_properties;
  const char *missing;          /* why it cannot be used, or NULL */
} Interop;

static Interop interop;

static gpointer
load_interop (gpointer data)
{
  GModule *cuda = g_module_open ("libcuda.so.1", G_MODULE_BIND_LAZY);
  /* The loader the engine links, already loaded: a plugin's libraries
   * are not in the program's global scope. */
  GModule *loader = g_module_open ("libOpenCL.so.1", G_MODULE_BIND_LAZY);
  gpointer symbol = NULL;

  if (!cuda) {
    interop.missing = "the CUDA driver (libcuda.so.1) could not be loaded";
    goto out;
  }
  for (size_t i = 0; i < G_N_ELEMENTS (cuda_entries); i++) {
    if (!g_module_symbol (cuda, cuda_entries[i].symbol, &symbol)) {
      interop.missing = "the CUDA driver is older than CUDA 11 (no virtual "
          "memory API)";
      goto out;
    }
    memcpy ((char *) &interop.cu + cuda_entries[i].offset, &symbol,
        sizeof symbol);
  }
  if (interop.cu.Init (0) != CUDA_SUCCESS) {
    interop.missing = "the CUDA driver did not initialise (cuInit)";
    goto out;
  }
  /* The driver stays loaded for the process, as GStreamer's does. */
  g_module_make_resident (cuda);
  cuda = NULL;
  if (!loader || !g_module_symbol (loader, "clCreateBufferWithProperties",
          &symbol)) {
    interop.missing = "the OpenCL ICD loader predates OpenCL 3.0 "
        "(no clCreateBufferWithProperties)";
    goto out;
  }
  interop.create_buffer_with_properties = (CreateBufferWithPropertiesFn) symbol;
out:
  if (cuda)
    g_module_close (cuda);
  if (loader)
    g_module_close (loader);
  return NULL;
}

/* ---- errors ---- */

static const char *
cuda_error_name (CUresult status)
{
  const char *name = NULL;

  if (interop.cu.GetErrorName (status, &name) != CUDA_SUCCESS || !name)
    return "an unknown CUDA error";
  return name;
}

/* Calls a CUDA function (a field of the driver table) and, on failure,
 * records its name and CUDA error and jumps to `label`. */
#define CUDA_TRY(error, label, fn, ...)                                 \
  do {                                                                  \
    CUresult cuda_status_ = interop.cu.fn (__VA_ARGS__);                \
    if (cuda_status_ != CUDA_SUCCESS) {                                 \
      clf_set_error ((error), CLF_ERROR_OPENCL, "cu" #fn " failed: %s", \
          cuda_error_name (cuda_status_));                              \
      goto label;                                                       \
    }                                                                   \
  } while (0)

/* ---- the device ---- */

struct ClfCuda
{
  ClfEngine *engine;
  CUcontext context;
  CUdevice device;
  CUstream stream;
  size_t granularity;
  clEnqueueAcquireExternalMemObjectsKHR_fn acquire;
  clEnqueueAcquireExternalMemObjectsKHR_fn release;     /* same signature */
};

static bool
cl_device_has_extension (cl_device_id device, const char *name)
{
  char *extensions = clf_info_string (NULL, device, CL_DEVICE_EXTENSIONS);
  bool found = false;

  if (extensions) {
    gchar **list = g_strsplit (extensions, " ", -1);

    found = g_strv_contains ((const gchar * const *) list, name);
    g_strfreev (list);
  }
  g_free (extensions);
  return found;
}

/* Whether the CUDA device and the engine's OpenCL device are one. */
static bool
same_device (ClfCuda * cuda, GError ** error)
{
  cl_device_id device = clf_engine_device (cuda->engine);
  unsigned char cu_uuid[16];
  cl_uchar cl_uuid[CL_UUID_SIZE_KHR];

  if (!cl_device_has_extension (device, "cl_khr_device_uuid")) {
    clf_set_error (error, CLF_ERROR_NOT_FOUND, "%s cannot say which CUDA "
        "device it is (no cl_khr_device_uuid)",
        clf_engine_device_name (cuda->engine));
    return false;
  }
  CLF_TRY (error, fail, clGetDeviceInfo, device, CL_DEVICE_UUID_KHR,
      sizeof cl_uuid, cl_uuid, NULL);
  CUDA_TRY (error, fail, DeviceGetUuid, cu_uuid, cuda->device);
  if (memcmp (cu_uuid, cl_uuid, sizeof cu_uuid) != 0) {
    clf_set_error (error, CLF_ERROR_NOT_FOUND, "the CUDA memory is on CUDA "
        "device %d, which is not the OpenCL device %s", cuda->device,
        clf_engine_device_name (cuda->engine));
    return false;
  }
  return true;
fail:
  return false;
}

static CUmemAllocationProp
allocation_properties (const ClfCuda * cuda)
{
  CUmemAllocationProp prop = { 0 };

  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = cuda->device;
  return prop;
}

static void
find_acquire_release (ClfCuda * cuda)
{
  cl_platform_id platform;

  if (clGetDeviceInfo (clf_engine_device (cuda->engine), CL_DEVICE_PLATFORM,
          sizeof platform, &platform, NULL) != CL_SUCCESS)
    return;
  cuda->acquire = (clEnqueueAcquireExternalMemObjectsKHR_fn)
      clGetExtensionFunctionAddressForPlatform (platform,
      "clEnqueueAcquireExternalMemObjectsKHR");
  cuda->release = (clEnqueueAcquireExternalMemObjectsKHR_fn)
      clGetExtensionFunctionAddressForPlatform (platform,
      "clEnqueueReleaseExternalMemObjectsKHR");
  if (!cuda->acquire || !cuda->release)
    cuda->acquire = NULL, cuda->release = NULL;
}

/* The driver and the loader's calls, loaded once; false with `error` set
 * where something is missing. */
static bool
interop_loaded (GError ** error)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, load_interop, NULL);
  if (interop.missing) {
    clf_set_error (error, CLF_ERROR_NOT_FOUND, "CUDA memory cannot be used: "
        "%s", interop.missing);
    return false;
  }
  return true;
}

ClfCuda *
clf_cuda_new (ClfEngine * engine, void *cu_context, GError ** error)
{
  ClfCuda *cuda;
  CUmemAllocationProp prop;
  bool pushed = false;

  if (!interop_loaded (error))
    return NULL;
  if (!cl_device_has_extension (clf_engine_device (engine),
          "cl_khr_external_memory_opaque_fd")) {
    clf_set_error (error, CLF_ERROR_NOT_FOUND, "CUDA memory cannot be used: "
        "%s cannot import it (no cl_khr_external_memory_opaque_fd)",
        clf_engine_device_name (engine));
    return NULL;
  }
  cuda = g_new0 (ClfCuda, 1);
  cuda->engine = clf_engine_ref (engine);
  cuda->context = cu_context;
  CUDA_TRY (error, fail, CtxPushCurrent, cuda->context);
  pushed = true;
  CUDA_TRY (error, fail, CtxGetDevice, &cuda->device);
  if (!same_device (cuda, error))
    goto fail;
  prop = allocation_properties (cuda);
  CUDA_TRY (error, fail, MemGetAllocationGranularity, &cuda->granularity,
      &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  CUDA_TRY (error, fail, StreamCreate, &cuda->stream, CU_STREAM_NON_BLOCKING);
  interop.cu.CtxPopCurrent (NULL);
  find_acquire_release (cuda);
  return cuda;
fail:
  if (pushed)
    interop.cu.CtxPopCurrent (NULL);
  clf_cuda_free (cuda);
  return NULL;
}

void
clf_cuda_free (ClfCuda * cuda)
{
  if (!cuda)
    return;
  if (cuda->stream && interop.cu.CtxPushCurrent (cuda->context)
      == CUDA_SUCCESS) {
    interop.cu.StreamDestroy (cuda->stream);
    interop.cu.CtxPopCurrent (NULL);
  }
  clf_engine_unref (cuda->engine);
  g_free (cuda);
}

bool
clf_cuda_copy (ClfCuda * cuda, const ClfCudaCopy * planes, uint32_t n,
    GError ** error)
{
  bool ok = false;

  CUDA_TRY (error, out, CtxPushCurrent, cuda->context);
  for (uint32_t i = 0; i < n; i++) {
    CUDA_MEMCPY2D copy = { 0 };

    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = planes[i].src;
    copy.srcPitch = planes[i].src_stride;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = planes[i].dst;
    copy.dstPitch = planes[i].dst_stride;
    copy.WidthInBytes = planes[i].row_bytes;
    copy.Height = planes[i].rows;
    CUDA_TRY (error, pop, Memcpy2DAsync, &copy, cuda->stream);
  }
  /* Each copy waits for its predecessors on the stream: one wait. */
  CUDA_TRY (error, pop, StreamSynchronize, cuda->stream);
  ok = true;
pop:
  interop.cu.CtxPopCurrent (NULL);
out:
  return ok;
}

/* ---- frames ---- */

struct ClfCudaFrame
{
  ClfCuda *cuda;
  size_t size;                  /* as asked for */
  size_t allocated;             /* rounded up to the granularity */
  CUmemGenericAllocationHandle handle;
  CUdeviceptr address;
  cl_mem buffer;
};

/* The allocation, exported as file descriptor `fd`, as an OpenCL buffer of
 * the engine's device.  A successful import owns the descriptor: the
 * driver closes it when the buffer is released (seen on NVIDIA 580, and
 * as Vulkan's imports do); a failed one leaves it to us. */
static bool
import_frame (ClfCudaFrame * frame, int fd, GError ** error)
{
  ClfCuda *cuda = frame->cuda;
  const cl_properties props[] = {
    CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, (cl_properties) fd,
    CL_MEM_DEVICE_HANDLE_LIST_KHR,
    (cl_properties) clf_engine_device (cuda->engine),
    CL_MEM_DEVICE_HANDLE_LIST_END_KHR, 0
  };
  cl_int status;

  frame->buffer = interop.create_buffer_with_properties (clf_engine_context
      (cuda->engine), props, CL_MEM_READ_WRITE, frame->allocated, NULL,
      &status);
  if (status != CL_SUCCESS)
    close (fd);
  CLF_CHECK (error, fail, status, "clCreateBufferWithProperties");
  return true;
fail:
  return false;
}

ClfCudaFrame *
clf_cuda_frame_new (ClfCuda * cuda, size_t size, GError ** error)
{
  ClfCudaFrame *frame = g_new0 (ClfCudaFrame, 1);
  CUmemAllocationProp prop = allocation_properties (cuda);
  /* *INDENT-OFF* */
  CUmemAccessDesc access = { {CU_MEM_LOCATION_TYPE_DEVICE, cuda->device},
    CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
  /* *INDENT-ON* */
  bool pushed = false, created = false, reserved = false, mapped = false;
  int fd = -1;

  frame->cuda = cuda;
  if (size == 0 || size > SIZE_MAX - cuda->granularity) {
    clf_set_error (error, CLF_ERROR_INVALID, "a CUDA frame of %zu bytes", size);
    goto fail;
  }
  frame->size = size;
  frame->allocated = (size + cuda->granularity - 1) / cuda->granularity
      * cuda->granularity;
  CUDA_TRY (error, fail, CtxPushCurrent, cuda->context);
  pushed = true;
  CUDA_TRY (error, fail, MemCreate, &frame->handle, frame->allocated, &prop, 0);
  created = true;
  CUDA_TRY (error, fail, MemAddressReserve, &frame->address, frame->allocated,
      0, 0, 0);
  reserved = true;
  CUDA_TRY (error, fail, MemMap, frame->address, frame->allocated, 0,
      frame->handle, 0);
  mapped = true;
  CUDA_TRY (error, fail, MemSetAccess, frame->address, frame->allocated,
      &access, 1);
  CUDA_TRY (error, fail, MemExportToShareableHandle, &fd, frame->handle,
      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  /* OpenCL, which runs on CUDA itself, is called without our context. */
  interop.cu.CtxPopCurrent (NULL);
  pushed = false;
  if (!import_frame (frame, fd, error))
    goto fail;
  return frame;
fail:
  if (mapped)
    interop.cu.MemUnmap (frame->address, frame->allocated);
  if (reserved)
    interop.cu.MemAddressFree (frame->address, frame->allocated);
  if (created)
    interop.cu.MemRelease (frame->handle);
  if (pushed)
    interop.cu.CtxPopCurrent (NULL);
  g_free (frame);
  return NULL;
}

void
clf_cuda_frame_free (ClfCudaFrame * frame)
{
  if (!frame)
    return;
  clReleaseMemObject (frame->buffer);
  if (interop.cu.CtxPushCurrent (frame->cuda->context) == CUDA_SUCCESS) {
    interop.cu.MemUnmap (frame->address, frame->allocated);
    interop.cu.MemAddressFree (frame->address, frame->allocated);
    interop.cu.MemRelease (frame->handle);
    interop.cu.CtxPopCurrent (NULL);
  }
  g_free (frame);
}

cl_mem
clf_cuda_frame_buffer (const ClfCudaFrame * frame)
{
  return frame->buffer;
}

uint64_t
clf_cuda_frame_address (const ClfCudaFrame * frame)
{
  return frame->address;
}

size_t
clf_cuda_frame_size (const ClfCudaFrame * frame)
{
  return frame->size;
}

/* Acquire and release alike (the two commands have one signature): the
 * extension's command, or a marker where the driver has none. */
typedef clEnqueueAcquireExternalMemObjectsKHR_fn OwnershipFn;

static bool
enqueue_ownership (ClfCudaFrame * frame, OwnershipFn command,
    const char *name, const cl_event * wait, uint32_t n_wait,
    cl_event * done, GError ** error)
{
  cl_command_queue queue = clf_engine_queue (frame->cuda->engine);
  const cl_event *list = n_wait ? wait : NULL;
  const char *call = command ? name : "clEnqueueMarkerWithWaitList";
  cl_int status;

  *done = NULL;
  status = command ? command (queue, 1, &frame->buffer, n_wait, list, done)
      : clEnqueueMarkerWithWaitList (queue, n_wait, list, done);
  CLF_CHECK (error, fail, status, call);
  return true;
fail:
  return false;
}

bool
clf_cuda_frame_acquire (ClfCudaFrame * frame, const cl_event * wait,
    uint32_t n_wait, cl_event * done, GError ** error)
{
  return enqueue_ownership (frame, frame->cuda->acquire,
      "clEnqueueAcquireExternalMemObjectsKHR", wait, n_wait, done, error);
}

bool
clf_cuda_frame_release (ClfCudaFrame * frame, const cl_event * wait,
    uint32_t n_wait, cl_event * done, GError ** error)
{
  return enqueue_ownership (frame, frame->cuda->release,
      "clEnqueueReleaseExternalMemObjectsKHR", wait, n_wait, done, error);
}
