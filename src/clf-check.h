/* The engine's bottom layer: error helpers, the one OpenCL check macro
 * and OpenCL's strings (clf-error.c), which every other file of the
 * engine may use. */
#pragma once

#include "clf.h"

/* Records that OpenCL call `call` failed with `status`. */
void clf_error_set_cl (ClfError * err, const char *call, cl_int status);
/* Takes ownership of `detail` (malloc'd), replacing any earlier one. */
void clf_error_take_detail (ClfError * err, char *detail);
/* Sets `err` to a copy of `from` (an error several callers report). */
void clf_error_copy (ClfError * err, const ClfError * from);

/* Checks the status of OpenCL call `call`; on failure records the call's
 * name and the CL error in `err` and jumps to `label`. */
#define CLF_CHECK(status, call, err, label)               \
  do {                                                    \
    if ((status) != CL_SUCCESS) {                         \
      clf_error_set_cl ((err), (call), (status));         \
      goto label;                                         \
    }                                                     \
  } while (0)

/* Calls an OpenCL function returning cl_int and checks it. */
#define CLF_TRY(err, label, fn, ...)                      \
  do {                                                    \
    cl_int clf_status_ = fn (__VA_ARGS__);                \
    CLF_CHECK (clf_status_, #fn, err, label);             \
  } while (0)


char *clf_strdup_printf (const char *fmt, ...)
    __attribute__((format (printf, 1, 2)));

/* A platform's (or, with platform NULL, a device's) string property,
 * malloc'd; NULL when it cannot be read. */
char *clf_info_string (cl_platform_id platform, cl_device_id device,
    cl_uint param);
