/* The engine's bottom layer: error helpers, the one OpenCL check macro
 * and OpenCL's strings (clf-error.c), which every other file of the
 * engine may use. */
#pragma once

#include "clf.h"

/* g_set_error for the engine's messages, which carry text from the
 * environment, the properties and drivers: made valid UTF-8 (see
 * CLF_ERROR). */
void clf_set_error (GError ** error, ClfErrorCode code, const char *format,
    ...) G_GNUC_PRINTF (3, 4);
/* Records that OpenCL call `call` failed with `status`:
 * CLF_ERROR_OPENCL, "call failed: CL_NAME (status)", and the status. */
void clf_set_cl_error (GError ** error, const char *call, cl_int status);

/* Checks the status of OpenCL call `call`; on failure records the call's
 * name and the CL error in `error` and jumps to `label`. */
#define CLF_CHECK(error, label, status, call)             \
  do {                                                    \
    if ((status) != CL_SUCCESS) {                         \
      clf_set_cl_error ((error), (call), (status));       \
      goto label;                                         \
    }                                                     \
  } while (0)

/* Calls an OpenCL function returning cl_int and checks it. */
#define CLF_TRY(error, label, fn, ...)                    \
  do {                                                    \
    cl_int clf_status_ = fn (__VA_ARGS__);                \
    CLF_CHECK (error, label, clf_status_, #fn);           \
  } while (0)

/* A platform's (or, with platform NULL, a device's) string property, for
 * g_free; NULL when it cannot be read. */
char *clf_info_string (cl_platform_id platform, cl_device_id device,
    cl_uint param);
