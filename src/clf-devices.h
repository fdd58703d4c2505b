/* Device discovery (clf-devices.c): which OpenCL devices exist and which
 * one a device spec names.  On the error helpers alone. */
#pragma once

#include "clf-check.h"

#include <glib.h>

typedef struct {
  cl_platform_id platform;
  cl_device_id device;
  cl_device_type type;
  unsigned platform_index;
  unsigned device_index;
  char name[512];               /* "platform / device" */
} DeviceEntry;

typedef struct {
  GArray *items;                /* of DeviceEntry */
  GString *empty;               /* "P name (status)" of each platform that
                                 * listed no device, for the errors */
  bool pocl_empty;              /* PoCL was one of them */
} DeviceList;

/* Lists every platform's devices into `list` (cleared with
 * clf_device_list_clear); false with `error` set (may be NULL) when OpenCL
 * cannot list them. */
bool clf_devices_list (DeviceList * list, GError ** error);
void clf_device_list_clear (DeviceList * list);
/* The device of `list` that `spec` names (auto, gpu, cpu, accelerator,
 * P:D or part of a name), or NULL. */
const DeviceEntry *clf_devices_match (const DeviceList * list,
    const char *spec);
/* The device asked for: `spec`, or with auto, CLFILTER_DEVICE when set
 * (then *from_env is true). */
const char *clf_devices_effective_spec (const char *spec, bool *from_env);
/* No device of `list` matches `spec`: says so in `error`, naming where the
 * spec came from, with the devices that exist and the platforms that
 * listed none. */
void clf_devices_no_match_error (GError ** error, const char *spec,
    bool from_env, const DeviceList * list);
