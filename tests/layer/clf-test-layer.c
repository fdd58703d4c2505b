/* An OpenCL layer (loaded by the ICD loader through OPENCL_LAYERS) that
 * lets the tests make the real driver fail or look like another device,
 * so that the library they test is the one users get, with no test
 * switch of its own.  Every call goes on to the driver unless one of
 * these variables, read at the call, says otherwise:
 *
 *   CLF_TEST_FAIL_CALL=name:N[+][@tag]
 *                                     the Nth call of OpenCL function
 *                                     `name` that the caller library
 *                                     makes, counted from when this value
 *                                     or the caller was set last, is not
 *                                     made and fails with
 *                                     CL_OUT_OF_RESOURCES; with `+`, the
 *                                     Nth and every later one (a retry
 *                                     fails too); a new @tag counts again
 *                                     with the same name:N.  Any entry
 *                                     point wrapped below can fail; the
 *                                     releases are not wrapped (a failed
 *                                     release would be the fault's leak)
 *   CLF_TEST_FAIL_CALLER=library      the library whose calls are counted,
 *                                     by its file name without ".so":
 *                                     libclf (the engine, the default) or
 *                                     libgstcl-1.0 (the GStreamer memory,
 *                                     pool and ways in).  Other callers'
 *                                     calls (the plugin's, the tests')
 *                                     are not counted
 *   CLF_TEST_BAD_SOURCE=text          `text` is compiled after each
 *                                     program's sources, and binaries
 *                                     are refused (CL_INVALID_BINARY), so
 *                                     that the build fails with a log
 *   CLF_TEST_HOST_UNIFIED=0           devices say they have memory of
 *                                     their own (as a discrete GPU)
 *   CLF_TEST_DEVICE_TYPE=cpu|gpu      devices say they are of this type
 *                                     (the engine runs that family of
 *                                     kernels)
 *   CLF_TEST_LOCAL_MEM=bytes          devices say they have at most this
 *                                     much local memory, and a launch of
 *                                     a kernel that takes more fails with
 *                                     CL_OUT_OF_RESOURCES, as on such a
 *                                     device
 */
#define _GNU_SOURCE
/* The dispatch table's newer entries need their types. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl_icd.h>
#include <CL/cl_layer.h>

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct _cl_icd_dispatch next;
static struct _cl_icd_dispatch dispatch;

static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static char *counted_spec;
static unsigned long counted_calls;

/* CLF_TEST_FAIL_CALLER, or libclf. */
static const char *
fail_caller (void)
{
  const char *caller = getenv ("CLF_TEST_FAIL_CALLER");
  return caller && *caller ? caller : "libclf";
}

/* Whether the OpenCL call being made comes from `caller`: the first
 * caller outside this layer and the ICD loader is that library
 * (".../caller.so", or a versioned name after it). */
static int
called_from (const char *caller)
{
  void *frames[16];
  int n = backtrace (frames, 16);
  size_t length = strlen (caller);

  for (int i = 1; i < n; i++) {
    Dl_info info;
    const char *base;

    if (!dladdr (frames[i], &info) || !info.dli_fname)
      continue;
    if (strstr (info.dli_fname, "clf-test-layer")
        || strstr (info.dli_fname, "libOpenCL"))
      continue;
    base = strrchr (info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    return strncmp (base, caller, length) == 0
        && strncmp (base + length, ".so", 3) == 0;
  }
  return 0;
}

/* Whether this call of `call` is one to fail. */
static int
fails (const char *call)
{
  const char *spec = getenv ("CLF_TEST_FAIL_CALL");
  const char *colon = spec ? strchr (spec, ':') : NULL;
  const char *caller = fail_caller ();
  char *key, *end;
  unsigned long nth;
  int fail = 0;

  if (!colon || strlen (call) != (size_t) (colon - spec)
      || strncmp (spec, call, (size_t) (colon - spec)) != 0
      || !called_from (caller))
    return 0;
  nth = strtoul (colon + 1, &end, 10);
  if (asprintf (&key, "%s from %s", spec, caller) < 0)
    return 0;
  pthread_mutex_lock (&count_lock);
  if (!counted_spec || strcmp (counted_spec, key) != 0) {
    free (counted_spec);
    counted_spec = key;
    key = NULL;
    counted_calls = 0;
  }
  counted_calls++;
  fail = *end == '+' ? counted_calls >= nth : counted_calls == nth;
  pthread_mutex_unlock (&count_lock);
  free (key);
  return fail;
}

#define FAULT_STATUS(name)                                \
  do {                                                    \
    if (fails (#name))                                    \
      return CL_OUT_OF_RESOURCES;                         \
  } while (0)

#define FAULT_OBJECT(name, errcode_ret)                   \
  do {                                                    \
    if (fails (#name)) {                                  \
      if (errcode_ret)                                    \
        *(errcode_ret) = CL_OUT_OF_RESOURCES;             \
      return NULL;                                        \
    }                                                     \
  } while (0)

static const char *
bad_source (void)
{
  const char *text = getenv ("CLF_TEST_BAD_SOURCE");
  return text && *text ? text : NULL;
}

/* ---- devices ---------------------------------------------------------- */

/* CLF_TEST_LOCAL_MEM's bytes, else 0. */
static cl_ulong
local_mem_limit (void)
{
  const char *limit = getenv ("CLF_TEST_LOCAL_MEM");
  return limit ? strtoull (limit, NULL, 10) : 0;
}

static cl_int CL_API_CALL
layer_clGetDeviceInfo (cl_device_id device, cl_device_info param,
    size_t size, void *value, size_t *size_ret)
{
  const char *unified = getenv ("CLF_TEST_HOST_UNIFIED");
  const char *type = getenv ("CLF_TEST_DEVICE_TYPE");
  cl_int status;

  FAULT_STATUS (clGetDeviceInfo);
  status = next.clGetDeviceInfo (device, param, size, value, size_ret);
  if (status != CL_SUCCESS || !value)
    return status;
  if (param == CL_DEVICE_HOST_UNIFIED_MEMORY && unified
      && strcmp (unified, "0") == 0 && size >= sizeof (cl_bool))
    *(cl_bool *) value = CL_FALSE;
  if (param == CL_DEVICE_LOCAL_MEM_SIZE && local_mem_limit ()
      && size >= sizeof (cl_ulong) && *(cl_ulong *) value > local_mem_limit ())
    *(cl_ulong *) value = local_mem_limit ();
  if (param == CL_DEVICE_TYPE && type && size >= sizeof (cl_device_type)) {
    if (strcmp (type, "gpu") == 0)
      *(cl_device_type *) value = CL_DEVICE_TYPE_GPU;
    else if (strcmp (type, "cpu") == 0)
      *(cl_device_type *) value = CL_DEVICE_TYPE_CPU;
  }
  return status;
}

static cl_int CL_API_CALL
layer_clGetPlatformInfo (cl_platform_id platform, cl_platform_info param,
    size_t size, void *value, size_t *size_ret)
{
  FAULT_STATUS (clGetPlatformInfo);
  return next.clGetPlatformInfo (platform, param, size, value, size_ret);
}

static cl_int CL_API_CALL
layer_clGetDeviceIDs (cl_platform_id platform, cl_device_type type,
    cl_uint n_entries, cl_device_id * devices, cl_uint * n_devices)
{
  FAULT_STATUS (clGetDeviceIDs);
  return next.clGetDeviceIDs (platform, type, n_entries, devices, n_devices);
}

static cl_context CL_API_CALL
layer_clCreateContext (const cl_context_properties * properties,
    cl_uint n_devices, const cl_device_id * devices,
    void (CL_CALLBACK * notify) (const char *, const void *, size_t, void *),
    void *data, cl_int * errcode_ret)
{
  FAULT_OBJECT (clCreateContext, errcode_ret);
  return next.clCreateContext (properties, n_devices, devices, notify, data,
      errcode_ret);
}

static cl_command_queue CL_API_CALL
layer_clCreateCommandQueue (cl_context context, cl_device_id device,
    cl_command_queue_properties properties, cl_int * errcode_ret)
{
  FAULT_OBJECT (clCreateCommandQueue, errcode_ret);
  return next.clCreateCommandQueue (context, device, properties, errcode_ret);
}

/* ---- programs and kernels --------------------------------------------- */

static cl_program CL_API_CALL
layer_clCreateProgramWithSource (cl_context context, cl_uint count,
    const char **strings, const size_t *lengths, cl_int * errcode_ret)
{
  const char *extra = bad_source ();
  const char **all;
  size_t *all_lengths;
  cl_program program;

  FAULT_OBJECT (clCreateProgramWithSource, errcode_ret);
  if (!extra)
    return next.clCreateProgramWithSource (context, count, strings,
        lengths, errcode_ret);
  all = calloc (count + 1, sizeof *all);
  all_lengths = calloc (count + 1, sizeof *all_lengths);
  if (!all || !all_lengths) {
    free (all);
    free (all_lengths);
    if (errcode_ret)
      *errcode_ret = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  for (cl_uint i = 0; i < count; i++) {
    all[i] = strings[i];
    all_lengths[i] = lengths && lengths[i] ? lengths[i] : strlen (strings[i]);
  }
  all[count] = extra;
  all_lengths[count] = strlen (extra);
  program = next.clCreateProgramWithSource (context, count + 1, all,
      all_lengths, errcode_ret);
  free (all);
  free (all_lengths);
  return program;
}

static cl_program CL_API_CALL
layer_clCreateProgramWithBinary (cl_context context, cl_uint n_devices,
    const cl_device_id * devices, const size_t *lengths,
    const unsigned char **binaries, cl_int * binary_status,
    cl_int * errcode_ret)
{
  FAULT_OBJECT (clCreateProgramWithBinary, errcode_ret);
  if (bad_source ()) {
    for (cl_uint i = 0; binary_status && i < n_devices; i++)
      binary_status[i] = CL_INVALID_BINARY;
    if (errcode_ret)
      *errcode_ret = CL_INVALID_BINARY;
    return NULL;
  }
  return next.clCreateProgramWithBinary (context, n_devices, devices,
      lengths, binaries, binary_status, errcode_ret);
}

static cl_int CL_API_CALL
layer_clBuildProgram (cl_program program, cl_uint n_devices,
    const cl_device_id * devices, const char *options,
    void (CL_CALLBACK * notify) (cl_program, void *), void *data)
{
  FAULT_STATUS (clBuildProgram);
  return next.clBuildProgram (program, n_devices, devices, options, notify,
      data);
}

static cl_int CL_API_CALL
layer_clGetProgramBuildInfo (cl_program program, cl_device_id device,
    cl_program_build_info param, size_t size, void *value, size_t *size_ret)
{
  FAULT_STATUS (clGetProgramBuildInfo);
  return next.clGetProgramBuildInfo (program, device, param, size, value,
      size_ret);
}

static cl_int CL_API_CALL
layer_clGetProgramInfo (cl_program program, cl_program_info param,
    size_t size, void *value, size_t *size_ret)
{
  FAULT_STATUS (clGetProgramInfo);
  return next.clGetProgramInfo (program, param, size, value, size_ret);
}

static cl_int CL_API_CALL
layer_clRetainProgram (cl_program program)
{
  FAULT_STATUS (clRetainProgram);
  return next.clRetainProgram (program);
}

static cl_kernel CL_API_CALL
layer_clCreateKernel (cl_program program, const char *name,
    cl_int * errcode_ret)
{
  FAULT_OBJECT (clCreateKernel, errcode_ret);
  return next.clCreateKernel (program, name, errcode_ret);
}

static cl_int CL_API_CALL
layer_clSetKernelArg (cl_kernel kernel, cl_uint index, size_t size,
    const void *value)
{
  FAULT_STATUS (clSetKernelArg);
  return next.clSetKernelArg (kernel, index, size, value);
}

static cl_int CL_API_CALL
layer_clGetKernelWorkGroupInfo (cl_kernel kernel, cl_device_id device,
    cl_kernel_work_group_info param, size_t size, void *value, size_t *size_ret)
{
  FAULT_STATUS (clGetKernelWorkGroupInfo);
  return next.clGetKernelWorkGroupInfo (kernel, device, param, size, value,
      size_ret);
}

/* ---- memory ----------------------------------------------------------- */

static cl_mem CL_API_CALL
layer_clCreateBuffer (cl_context context, cl_mem_flags flags, size_t size,
    void *host, cl_int * errcode_ret)
{
  FAULT_OBJECT (clCreateBuffer, errcode_ret);
  return next.clCreateBuffer (context, flags, size, host, errcode_ret);
}

static cl_mem CL_API_CALL
layer_clCreateBufferWithProperties (cl_context context,
    const cl_mem_properties * properties, cl_mem_flags flags, size_t size,
    void *host, cl_int * errcode_ret)
{
  FAULT_OBJECT (clCreateBufferWithProperties, errcode_ret);
  return next.clCreateBufferWithProperties (context, properties, flags, size,
      host, errcode_ret);
}

static cl_int CL_API_CALL
layer_clGetMemObjectInfo (cl_mem mem, cl_mem_info param, size_t size,
    void *value, size_t *size_ret)
{
  FAULT_STATUS (clGetMemObjectInfo);
  return next.clGetMemObjectInfo (mem, param, size, value, size_ret);
}

/* ---- commands and events ---------------------------------------------- */

static cl_int CL_API_CALL
layer_clEnqueueNDRangeKernel (cl_command_queue queue, cl_kernel kernel,
    cl_uint dims, const size_t *offset, const size_t *global,
    const size_t *local, cl_uint n_wait, const cl_event * wait,
    cl_event * event)
{
  cl_device_id device;
  cl_ulong used;

  FAULT_STATUS (clEnqueueNDRangeKernel);
  /* The kernel's local memory: its own and its __local arguments'. */
  if (local_mem_limit ()
      && next.clGetCommandQueueInfo (queue, CL_QUEUE_DEVICE, sizeof device,
          &device, NULL) == CL_SUCCESS
      && next.clGetKernelWorkGroupInfo (kernel, device,
          CL_KERNEL_LOCAL_MEM_SIZE, sizeof used, &used, NULL) == CL_SUCCESS
      && used > local_mem_limit ())
    return CL_OUT_OF_RESOURCES;
  return next.clEnqueueNDRangeKernel (queue, kernel, dims, offset, global,
      local, n_wait, wait, event);
}

static cl_int CL_API_CALL
layer_clEnqueueWriteBuffer (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking, size_t offset, size_t size, const void *ptr,
    cl_uint n_wait, const cl_event * wait, cl_event * event)
{
  FAULT_STATUS (clEnqueueWriteBuffer);
  return next.clEnqueueWriteBuffer (queue, buffer, blocking, offset, size,
      ptr, n_wait, wait, event);
}

static cl_int CL_API_CALL
layer_clEnqueueReadBuffer (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking, size_t offset, size_t size, void *ptr, cl_uint n_wait,
    const cl_event * wait, cl_event * event)
{
  FAULT_STATUS (clEnqueueReadBuffer);
  return next.clEnqueueReadBuffer (queue, buffer, blocking, offset, size,
      ptr, n_wait, wait, event);
}

static cl_int CL_API_CALL
layer_clEnqueueFillBuffer (cl_command_queue queue, cl_mem buffer,
    const void *pattern, size_t pattern_size, size_t offset, size_t size,
    cl_uint n_wait, const cl_event * wait, cl_event * event)
{
  FAULT_STATUS (clEnqueueFillBuffer);
  return next.clEnqueueFillBuffer (queue, buffer, pattern, pattern_size,
      offset, size, n_wait, wait, event);
}

static cl_int CL_API_CALL
layer_clEnqueueWriteBufferRect (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking, const size_t *buffer_origin, const size_t *host_origin,
    const size_t *region, size_t buffer_row_pitch, size_t buffer_slice_pitch,
    size_t host_row_pitch, size_t host_slice_pitch, const void *ptr,
    cl_uint n_wait, const cl_event * wait, cl_event * event)
{
  FAULT_STATUS (clEnqueueWriteBufferRect);
  return next.clEnqueueWriteBufferRect (queue, buffer, blocking,
      buffer_origin, host_origin, region, buffer_row_pitch,
      buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, n_wait, wait,
      event);
}

static cl_int CL_API_CALL
layer_clEnqueueReadBufferRect (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking, const size_t *buffer_origin, const size_t *host_origin,
    const size_t *region, size_t buffer_row_pitch, size_t buffer_slice_pitch,
    size_t host_row_pitch, size_t host_slice_pitch, void *ptr,
    cl_uint n_wait, const cl_event * wait, cl_event * event)
{
  FAULT_STATUS (clEnqueueReadBufferRect);
  return next.clEnqueueReadBufferRect (queue, buffer, blocking,
      buffer_origin, host_origin, region, buffer_row_pitch,
      buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, n_wait, wait,
      event);
}

static cl_int CL_API_CALL
layer_clEnqueueCopyBufferRect (cl_command_queue queue, cl_mem src,
    cl_mem dst, const size_t *src_origin, const size_t *dst_origin,
    const size_t *region, size_t src_row_pitch, size_t src_slice_pitch,
    size_t dst_row_pitch, size_t dst_slice_pitch, cl_uint n_wait,
    const cl_event * wait, cl_event * event)
{
  FAULT_STATUS (clEnqueueCopyBufferRect);
  return next.clEnqueueCopyBufferRect (queue, src, dst, src_origin,
      dst_origin, region, src_row_pitch, src_slice_pitch, dst_row_pitch,
      dst_slice_pitch, n_wait, wait, event);
}

static void *CL_API_CALL
layer_clEnqueueMapBuffer (cl_command_queue queue, cl_mem buffer,
    cl_bool blocking, cl_map_flags flags, size_t offset, size_t size,
    cl_uint n_wait, const cl_event * wait, cl_event * event,
    cl_int * errcode_ret)
{
  FAULT_OBJECT (clEnqueueMapBuffer, errcode_ret);
  return next.clEnqueueMapBuffer (queue, buffer, blocking, flags, offset,
      size, n_wait, wait, event, errcode_ret);
}

/* A failed unmap is made first: a driver that kept the mapping would keep
 * the buffer too (no caller can free a mapped buffer), which would be the
 * fault's leak, not the engine's.  Its event is not handed out. */
static cl_int CL_API_CALL
layer_clEnqueueUnmapMemObject (cl_command_queue queue, cl_mem mem,
    void *mapped, cl_uint n_wait, const cl_event * wait, cl_event * event)
{
  cl_int status = next.clEnqueueUnmapMemObject (queue, mem, mapped, n_wait,
      wait, event);

  if (status != CL_SUCCESS || !fails ("clEnqueueUnmapMemObject"))
    return status;
  if (event && *event) {
    next.clReleaseEvent (*event);
    *event = NULL;
  }
  return CL_OUT_OF_RESOURCES;
}

static cl_int CL_API_CALL
layer_clEnqueueMarkerWithWaitList (cl_command_queue queue, cl_uint n_wait,
    const cl_event * wait, cl_event * event)
{
  FAULT_STATUS (clEnqueueMarkerWithWaitList);
  return next.clEnqueueMarkerWithWaitList (queue, n_wait, wait, event);
}

static cl_int CL_API_CALL
layer_clFlush (cl_command_queue queue)
{
  FAULT_STATUS (clFlush);
  return next.clFlush (queue);
}

static cl_int CL_API_CALL
layer_clFinish (cl_command_queue queue)
{
  FAULT_STATUS (clFinish);
  return next.clFinish (queue);
}

static cl_int CL_API_CALL
layer_clWaitForEvents (cl_uint n, const cl_event * events)
{
  FAULT_STATUS (clWaitForEvents);
  return next.clWaitForEvents (n, events);
}

static cl_int CL_API_CALL
layer_clRetainEvent (cl_event event)
{
  FAULT_STATUS (clRetainEvent);
  return next.clRetainEvent (event);
}

static cl_int CL_API_CALL
layer_clGetEventInfo (cl_event event, cl_event_info param, size_t size,
    void *value, size_t *size_ret)
{
  FAULT_STATUS (clGetEventInfo);
  return next.clGetEventInfo (event, param, size, value, size_ret);
}

static cl_int CL_API_CALL
layer_clGetEventProfilingInfo (cl_event event, cl_profiling_info param,
    size_t size, void *value, size_t *size_ret)
{
  FAULT_STATUS (clGetEventProfilingInfo);
  return next.clGetEventProfilingInfo (event, param, size, value, size_ret);
}

/* ---- the layer -------------------------------------------------------- */

CL_API_ENTRY cl_int CL_API_CALL
clGetLayerInfo (cl_layer_info param, size_t size, void *value, size_t *size_ret)
{
  if (param != CL_LAYER_API_VERSION)
    return CL_INVALID_VALUE;
  if (value && size < sizeof (cl_layer_api_version))
    return CL_INVALID_VALUE;
  if (value)
    *(cl_layer_api_version *) value = CL_LAYER_API_VERSION_100;
  if (size_ret)
    *size_ret = sizeof (cl_layer_api_version);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL
clInitLayer (cl_uint num_entries, const struct _cl_icd_dispatch *target,
    cl_uint * num_entries_ret, const struct _cl_icd_dispatch **layer_dispatch)
{
  /* The loader's table may be shorter than these headers' (an older
   * loader): the entries past it stay empty, and are not wrapped. */
  const size_t entries = sizeof dispatch / sizeof (void *);
  const size_t n = num_entries < entries ? num_entries : entries;

  if (!target || !num_entries_ret || !layer_dispatch)
    return CL_INVALID_VALUE;
  memcpy (&next, target, n * sizeof (void *));
  dispatch = next;
#define WRAP(name) \
  if (offsetof (struct _cl_icd_dispatch, name) < n * sizeof (void *)) \
    dispatch.name = layer_##name
  WRAP (clGetPlatformInfo);
  WRAP (clGetDeviceIDs);
  WRAP (clGetDeviceInfo);
  WRAP (clCreateContext);
  WRAP (clCreateCommandQueue);
  WRAP (clCreateProgramWithSource);
  WRAP (clCreateProgramWithBinary);
  WRAP (clBuildProgram);
  WRAP (clGetProgramBuildInfo);
  WRAP (clGetProgramInfo);
  WRAP (clRetainProgram);
  WRAP (clCreateKernel);
  WRAP (clSetKernelArg);
  WRAP (clGetKernelWorkGroupInfo);
  WRAP (clCreateBuffer);
  WRAP (clCreateBufferWithProperties);
  WRAP (clGetMemObjectInfo);
  WRAP (clEnqueueNDRangeKernel);
  WRAP (clEnqueueWriteBuffer);
  WRAP (clEnqueueReadBuffer);
  WRAP (clEnqueueFillBuffer);
  WRAP (clEnqueueWriteBufferRect);
  WRAP (clEnqueueReadBufferRect);
  WRAP (clEnqueueCopyBufferRect);
  WRAP (clEnqueueMapBuffer);
  WRAP (clEnqueueUnmapMemObject);
  WRAP (clEnqueueMarkerWithWaitList);
  WRAP (clFlush);
  WRAP (clFinish);
  WRAP (clWaitForEvents);
  WRAP (clRetainEvent);
  WRAP (clGetEventInfo);
  WRAP (clGetEventProfilingInfo);
#undef WRAP
  *num_entries_ret = (cl_uint) n;
  *layer_dispatch = &dispatch;
  return CL_SUCCESS;
}
