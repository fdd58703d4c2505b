/* Errors and names for users: every failure says what failed and how. */
#include "clf-check.h"

#include <stdarg.h>

/* What an error of the CLF_ERROR domain holds besides its message. */
typedef struct
{
  cl_int cl_status;             /* with CLF_ERROR_OPENCL: the call's status */
  char *detail;                 /* build log, device list or hint; or NULL */
} ClfErrorPrivate;

/* GLib calls these with errors of this domain only, but its accessor ends
 * in a check that returns NULL, which GCC's -Wnull-dereference sees. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"

static void
clf_error_private_init (ClfErrorPrivate * priv)
{
  priv->cl_status = CL_SUCCESS;
  priv->detail = NULL;
}

static void
clf_error_private_copy (const ClfErrorPrivate * src, ClfErrorPrivate * dest)
{
  dest->cl_status = src->cl_status;
  dest->detail = g_strdup (src->detail);
}

static void
clf_error_private_clear (ClfErrorPrivate * priv)
{
  g_clear_pointer (&priv->detail, g_free);
}

/* *INDENT-OFF* */
G_DEFINE_EXTENDED_ERROR (ClfError, clf_error)
/* *INDENT-ON* */

#pragma GCC diagnostic pop

/* The private part of `error`, or NULL where it is not of our domain. */
static ClfErrorPrivate *
private_of (const GError * error)
{
  return error && error->domain == CLF_ERROR ? clf_error_get_private (error)
      : NULL;
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
  g_free (text);
  return valid;
}

void
clf_set_error (GError ** error, ClfErrorCode code, const char *format, ...)
{
  if (!error)
    return;
  va_list args;
  va_start (args, format);
  char *message = valid_utf8 (g_strdup_vprintf (format, args));
  va_end (args);
  g_set_error_literal (error, CLF_ERROR, (gint) code, message);
  g_free (message);
}

void
clf_set_cl_error (GError ** error, const char *call, cl_int status)
{
  if (!error)
    return;
  GError *failed = NULL;
  clf_set_error (&failed, CLF_ERROR_OPENCL, "%s failed: %s (%d)", call,
      clf_cl_status_name (status), status);
  ClfErrorPrivate *priv = private_of (failed);
  if (priv)
    priv->cl_status = status;
  g_propagate_error (error, failed);
}

cl_int
clf_error_get_cl_status (const GError * error)
{
  ClfErrorPrivate *priv = private_of (error);
  return priv ? priv->cl_status : CL_SUCCESS;
}

const char *
clf_error_get_detail (const GError * error)
{
  ClfErrorPrivate *priv = private_of (error);
  return priv ? priv->detail : NULL;
}

void
clf_error_set_detail (GError * error, const char *detail)
{
  ClfErrorPrivate *priv = private_of (error);
  if (!priv)
    return;
  g_free (priv->detail);
  priv->detail = valid_utf8 (g_strdup (detail));
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
  char *text = status == CL_SUCCESS ? g_try_malloc0 (size + 1) : NULL;
  if (!text)
    return NULL;
  status = platform ?
      clGetPlatformInfo (platform, param, size, text, NULL) :
      clGetDeviceInfo (device, param, size, text, NULL);
  if (status != CL_SUCCESS) {
    g_free (text);
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
    case CLF_MODE_GAUSSIAN:
      return "gaussian";
    case CLF_MODE_UNSHARP:
      return "unsharp";
  }
  return "unknown";
}

const char *
clf_border_name (ClfBorder border)
{
  return border == CLF_BORDER_MIRROR ? "mirror" : "clamp";
}
