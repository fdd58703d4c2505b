/* Errors and names for users: every failure says what failed and how. */
#include "clf-check.h"

#include <glib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* The callers' format: checked at their calls (clang warns otherwise). */
static char *vprintf_alloc (const char *fmt, va_list args)
    __attribute__((format (printf, 1, 0)));

static char *
vprintf_alloc (const char *fmt, va_list args)
{
  va_list copy;
  va_copy (copy, args);
  int len = vsnprintf (NULL, 0, fmt, copy);
  va_end (copy);
  if (len < 0)
    return NULL;
  char *text = malloc ((size_t) len + 1);
  if (text)
    vsnprintf (text, (size_t) len + 1, fmt, args);
  return text;
}

char *
clf_strdup_printf (const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  char *text = vprintf_alloc (fmt, args);
  va_end (args);
  return text;
}

/* Messages carry text from the environment, the properties and drivers:
 * valid UTF-8 whatever bytes those hold (GStreamer requires it), each
 * invalid byte shown as U+FFFD.  Takes `text`. */
static char *
valid_utf8 (char *text)
{
  if (!text || g_utf8_validate (text, -1, NULL))
    return text;
  char *valid = g_utf8_make_valid (text, -1);
  free (text);
  char *copy = clf_strdup_printf ("%s", valid);
  g_free (valid);
  return copy;
}

void
clf_error_clear (ClfError * err)
{
  if (!err)
    return;
  free (err->message);
  free (err->detail);
  err->code = CLF_ERROR_NONE;
  err->cl_status = CL_SUCCESS;
  err->message = NULL;
  err->detail = NULL;
}

void
clf_error_set (ClfError * err, ClfErrorCode code, const char *fmt, ...)
{
  if (!err)
    return;
  clf_error_clear (err);
  va_list args;
  va_start (args, fmt);
  err->message = valid_utf8 (vprintf_alloc (fmt, args));
  va_end (args);
  err->code = code;
}

void
clf_error_set_cl (ClfError * err, const char *call, cl_int status)
{
  clf_error_set (err, CLF_ERROR_OPENCL, "%s failed: %s (%d)", call,
      clf_cl_status_name (status), status);
  if (err)
    err->cl_status = status;
}

void
clf_error_take_detail (ClfError * err, char *detail)
{
  if (!err) {
    free (detail);
    return;
  }
  free (err->detail);
  err->detail = valid_utf8 (detail);
}

void
clf_error_copy (ClfError * err, const ClfError * from)
{
  if (!err)
    return;
  clf_error_clear (err);
  err->code = from->code;
  err->cl_status = from->cl_status;
  err->message = clf_strdup_printf ("%s", from->message ? from->message :
      "(no message)");
  err->detail = from->detail ? clf_strdup_printf ("%s", from->detail) : NULL;
}

const char *
clf_cl_status_name (cl_int status)
{
#define NAME(s) case s: return #s
  switch (status) {
      NAME (CL_SUCCESS);
      NAME (CL_DEVICE_NOT_FOUND);
      NAME (CL_DEVICE_NOT_AVAILABLE);
      NAME (CL_COMPILER_NOT_AVAILABLE);
      NAME (CL_MEM_OBJECT_ALLOCATION_FAILURE);
      NAME (CL_OUT_OF_RESOURCES);
      NAME (CL_OUT_OF_HOST_MEMORY);
      NAME (CL_PROFILING_INFO_NOT_AVAILABLE);
      NAME (CL_MEM_COPY_OVERLAP);
      NAME (CL_IMAGE_FORMAT_MISMATCH);
      NAME (CL_IMAGE_FORMAT_NOT_SUPPORTED);
      NAME (CL_BUILD_PROGRAM_FAILURE);
      NAME (CL_MAP_FAILURE);
      NAME (CL_MISALIGNED_SUB_BUFFER_OFFSET);
      NAME (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      NAME (CL_COMPILE_PROGRAM_FAILURE);
      NAME (CL_LINKER_NOT_AVAILABLE);
      NAME (CL_LINK_PROGRAM_FAILURE);
      NAME (CL_DEVICE_PARTITION_FAILED);
      NAME (CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
      NAME (CL_INVALID_VALUE);
      NAME (CL_INVALID_DEVICE_TYPE);
      NAME (CL_INVALID_PLATFORM);
      NAME (CL_INVALID_DEVICE);
      NAME (CL_INVALID_CONTEXT);
      NAME (CL_INVALID_QUEUE_PROPERTIES);
      NAME (CL_INVALID_COMMAND_QUEUE);
      NAME (CL_INVALID_HOST_PTR);
      NAME (CL_INVALID_MEM_OBJECT);
      NAME (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
      NAME (CL_INVALID_IMAGE_SIZE);
      NAME (CL_INVALID_SAMPLER);
      NAME (CL_INVALID_BINARY);
      NAME (CL_INVALID_BUILD_OPTIONS);
      NAME (CL_INVALID_PROGRAM);
      NAME (CL_INVALID_PROGRAM_EXECUTABLE);
      NAME (CL_INVALID_KERNEL_NAME);
      NAME (CL_INVALID_KERNEL_DEFINITION);
      NAME (CL_INVALID_KERNEL);
      NAME (CL_INVALID_ARG_INDEX);
      NAME (CL_INVALID_ARG_VALUE);
      NAME (CL_INVALID_ARG_SIZE);
      NAME (CL_INVALID_KERNEL_ARGS);
      NAME (CL_INVALID_WORK_DIMENSION);
      NAME (CL_INVALID_WORK_GROUP_SIZE);
      NAME (CL_INVALID_WORK_ITEM_SIZE);
      NAME (CL_INVALID_GLOBAL_OFFSET);
      NAME (CL_INVALID_EVENT_WAIT_LIST);
      NAME (CL_INVALID_EVENT);
      NAME (CL_INVALID_OPERATION);
      NAME (CL_INVALID_GL_OBJECT);
      NAME (CL_INVALID_BUFFER_SIZE);
      NAME (CL_INVALID_MIP_LEVEL);
      NAME (CL_INVALID_GLOBAL_WORK_SIZE);
      NAME (CL_INVALID_PROPERTY);
      NAME (CL_INVALID_IMAGE_DESCRIPTOR);
      NAME (CL_INVALID_COMPILER_OPTIONS);
      NAME (CL_INVALID_LINKER_OPTIONS);
      NAME (CL_INVALID_DEVICE_PARTITION_COUNT);
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "unknown OpenCL error";
  }
#undef NAME
}

char *
clf_info_string (cl_platform_id platform, cl_device_id device, cl_uint param)
{
  size_t size = 0;
  cl_int status = platform ?
      clGetPlatformInfo (platform, param, 0, NULL, &size) :
      clGetDeviceInfo (device, param, 0, NULL, &size);
  char *text = status == CL_SUCCESS ? calloc (1, size + 1) : NULL;
  if (!text)
    return NULL;
  status = platform ?
      clGetPlatformInfo (platform, param, size, text, NULL) :
      clGetDeviceInfo (device, param, size, text, NULL);
  if (status != CL_SUCCESS) {
    free (text);
    return NULL;
  }
  return text;
}

const char *
clf_mode_name (ClfMode mode)
{
  switch (mode) {
    case CLF_MODE_BOX:
      return "box";
    case CLF_MODE_SEPARABLE:
      return "separable";
    case CLF_MODE_SLIDING:
      return "sliding";
    case CLF_MODE_LAPLACE:
      return "laplace";
    case CLF_MODE_CONVOLVE:
      return "convolve";
  }
  return "unknown";
}

const char *
clf_border_name (ClfBorder border)
{
  return border == CLF_BORDER_MIRROR ? "mirror" : "clamp";
}
