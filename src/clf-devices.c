/* Device discovery: the OpenCL devices of every platform, listed once at
 * a time across the process, and the one a device spec names, with the
 * error that says what exists when none matches. */
#include "clf-devices.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool contains_ignoring_case (const char *haystack, const char *needle);

void
clf_device_list_clear (DeviceList * list)
{
  g_clear_pointer (&list->items, g_array_unref);
  if (list->empty)
    g_string_free (list->empty, TRUE);
  list->empty = NULL;
  list->pocl_empty = false;
}

static const DeviceEntry *
device_at (const DeviceList * list, unsigned i)
{
  return &g_array_index (list->items, DeviceEntry, i);
}

/* A platform without devices is skipped, and noted for the errors: a
 * driver may list none for a reason of its own (PoCL does when it cannot
 * use its cache directory). */
static void
note_empty_platform (DeviceList * list, cl_platform_id platform,
    unsigned platform_index, cl_int status)
{
  char *name = clf_info_string (platform, NULL, CL_PLATFORM_NAME);
  char *vendor = clf_info_string (platform, NULL, CL_PLATFORM_VENDOR);

  if (!list->empty)
    list->empty = g_string_new (NULL);
  g_string_append_printf (list->empty, "%s%u %s (%s)",
      list->empty->len ? "; " : "", platform_index, name ? name : "?",
      status == CL_SUCCESS ? "0 devices" : clf_cl_status_name (status));
  if ((name && (contains_ignoring_case (name, "pocl")
              || contains_ignoring_case (name, "Portable Computing Language")))
      || (vendor && contains_ignoring_case (vendor, "pocl")))
    list->pocl_empty = true;
  g_free (vendor);
  g_free (name);
}

static bool
append_platform_devices (DeviceList * list, cl_platform_id platform,
    unsigned platform_index, GError ** error)
{
  cl_uint n = 0;
  cl_int status = clGetDeviceIDs (platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
  if (status == CL_DEVICE_NOT_FOUND || (status == CL_SUCCESS && n == 0)) {
    note_empty_platform (list, platform, platform_index, status);
    return true;
  }
  CLF_CHECK (error, fail, status, "clGetDeviceIDs");

  cl_device_id *ids = g_new0 (cl_device_id, n);
  status = clGetDeviceIDs (platform, CL_DEVICE_TYPE_ALL, n, ids, NULL);
  if (status != CL_SUCCESS) {
    g_free (ids);
    CLF_CHECK (error, fail, status, "clGetDeviceIDs");
  }

  char *platform_name = clf_info_string (platform, NULL, CL_PLATFORM_NAME);
  for (cl_uint d = 0; d < n; d++) {
    DeviceEntry e = { 0 };
    char *device_name = clf_info_string (NULL, ids[d], CL_DEVICE_NAME);
    e.platform = platform;
    e.device = ids[d];
    e.platform_index = platform_index;
    e.device_index = d;
    /* A device whose type cannot be read is listed as "other". */
    if (clGetDeviceInfo (ids[d], CL_DEVICE_TYPE, sizeof e.type, &e.type,
            NULL) != CL_SUCCESS)
      e.type = 0;
    snprintf (e.name, sizeof e.name, "%s / %s",
        platform_name ? platform_name : "?", device_name ? device_name : "?");
    g_free (device_name);
    g_array_append_val (list->items, e);
  }
  g_free (platform_name);
  g_free (ids);
  return true;

fail:
  return false;
}

static bool
list_devices_unlocked (DeviceList * list, GError ** error)
{
  cl_uint n = 0;
  cl_int status = clGetPlatformIDs (0, NULL, &n);
  if (status == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */  || (status == CL_SUCCESS
          && n == 0)) {
    clf_set_error (error, CLF_ERROR_NOT_FOUND,
        "No OpenCL platform found: no OpenCL driver (ICD) is installed or "
        "registered");
    if (error)
      clf_error_set_detail (*error, "Install an OpenCL driver, e.g. the "
          "package pocl-opencl-icd for the CPU, and check that "
          "/etc/OpenCL/vendors (or OCL_ICD_VENDORS) lists it; `clinfo -l` "
          "shows what the ICD loader finds.");
    return false;
  }
  CLF_CHECK (error, fail, status, "clGetPlatformIDs");

  cl_platform_id *platforms = g_new0 (cl_platform_id, n);
  status = clGetPlatformIDs (n, platforms, NULL);
  bool ok = status == CL_SUCCESS;
  if (!ok)
    clf_set_cl_error (error, "clGetPlatformIDs", status);
  for (cl_uint p = 0; ok && p < n; p++)
    ok = append_platform_devices (list, platforms[p], p, error);
  g_free (platforms);
  return ok;

fail:
  return false;
}

/* PoCL sets its devices up on the first clGetDeviceIDs without a lock:
 * threads listing at the same moment (pipelines starting together) get
 * CL_DEVICE_NOT_FOUND.  Listing is serialised across the process. */
static GMutex list_lock;

bool
clf_devices_list (DeviceList * list, GError ** error)
{
  list->items = g_array_new (FALSE, TRUE, sizeof (DeviceEntry));
  g_mutex_lock (&list_lock);
  bool ok = list_devices_unlocked (list, error);
  g_mutex_unlock (&list_lock);
  if (!ok)
    clf_device_list_clear (list);
  return ok;
}

static const char *
device_type_name (cl_device_type type)
{
  if (type & CL_DEVICE_TYPE_GPU)
    return "GPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR)
    return "accelerator";
  if (type & CL_DEVICE_TYPE_CPU)
    return "CPU";
  return "other";
}

/* "  P:D  platform / device (type)" lines, for error messages. */
static char *
describe_devices (const DeviceList * list)
{
  GString *text = g_string_new (NULL);
  for (unsigned i = 0; i < list->items->len; i++) {
    const DeviceEntry *e = device_at (list, i);
    g_string_append_printf (text, "%s%u:%u %s (%s)", i ? "; " : "",
        e->platform_index, e->device_index, e->name,
        device_type_name (e->type));
  }
  return g_string_free (text, FALSE);
}

static const DeviceEntry *
first_of_type (const DeviceList * list, cl_device_type type)
{
  for (unsigned i = 0; i < list->items->len; i++)
    if (device_at (list, i)->type & type)
      return device_at (list, i);
  return NULL;
}

/* ASCII letters only: the device spec and names compare as bytes
 * otherwise. */
static bool
contains_ignoring_case (const char *haystack, const char *needle)
{
  char *hay = g_ascii_strdown (haystack, -1);
  char *part = g_ascii_strdown (needle, -1);
  bool found = strstr (hay, part) != NULL;
  g_free (part);
  g_free (hay);
  return found;
}

/* Reads decimal digits into `*value`; false when there are none or the
 * number does not fit an unsigned int (it never wraps). */
static bool
parse_index (const char **text, unsigned *value)
{
  uint64_t n = 0;
  const char *s = *text;
  for (; *s >= '0' && *s <= '9'; s++) {
    n = n * 10 + (uint64_t) (*s - '0');
    if (n > UINT_MAX)
      return false;
  }
  if (s == *text)
    return false;
  *value = (unsigned) n;
  *text = s;
  return true;
}

/* "P:D", platform and device indices, digits only. */
static bool
parse_indices (const char *spec, unsigned *p, unsigned *d)
{
  return parse_index (&spec, p) && *spec++ == ':' && parse_index (&spec, d)
      && *spec == '\0';
}

const DeviceEntry *
clf_devices_match (const DeviceList * list, const char *spec)
{
  if (g_ascii_strcasecmp (spec, "auto") == 0) {
    const DeviceEntry *e = first_of_type (list, CL_DEVICE_TYPE_GPU);
    if (!e)
      e = first_of_type (list, CL_DEVICE_TYPE_ACCELERATOR);
    return e ? e : (list->items->len ? device_at (list, 0) : NULL);
  }
  if (g_ascii_strcasecmp (spec, "gpu") == 0)
    return first_of_type (list, CL_DEVICE_TYPE_GPU);
  if (g_ascii_strcasecmp (spec, "cpu") == 0)
    return first_of_type (list, CL_DEVICE_TYPE_CPU);
  if (g_ascii_strcasecmp (spec, "accelerator") == 0)
    return first_of_type (list, CL_DEVICE_TYPE_ACCELERATOR);

  unsigned p, d;
  if (parse_indices (spec, &p, &d)) {
    for (unsigned i = 0; i < list->items->len; i++)
      if (device_at (list, i)->platform_index == p
          && device_at (list, i)->device_index == d)
        return device_at (list, i);
    return NULL;
  }

  for (unsigned i = 0; i < list->items->len; i++)
    if (contains_ignoring_case (device_at (list, i)->name, spec))
      return device_at (list, i);
  return NULL;
}

/* The device asked for: `spec`, or with auto, CLFILTER_DEVICE when set
 * (then *from_env is true). */
const char *
clf_devices_effective_spec (const char *spec, bool *from_env)
{
  *from_env = false;
  if (spec && *spec && g_ascii_strcasecmp (spec, "auto") != 0)
    return spec;
  const char *env = getenv ("CLFILTER_DEVICE");
  *from_env = env && *env;
  return *from_env ? env : "auto";
}

/* No device matches `spec`: says so, naming where the spec came from, with
 * the devices that exist and the platforms that listed none. */
void
clf_devices_no_match_error (GError ** error, const char *spec, bool from_env,
    const DeviceList * list)
{
  if (!error)
    return;
  char *devices = describe_devices (list);
  clf_set_error (error, CLF_ERROR_NOT_FOUND,
      "No OpenCL device matches \"%s\"%s. Devices found: %s%s%s", spec,
      from_env ? " (the environment variable CLFILTER_DEVICE)" : "",
      devices && *devices ? devices : "(none)",
      list->empty ? ". Platforms that listed no device: " : "",
      list->empty ? list->empty->str : "");
  GString *detail = g_string_new (NULL);
  if (list->pocl_empty) {
    /* PoCL's own order: POCL_CACHE_DIR, else XDG_CACHE_HOME/pocl, else
     * ~/.cache/pocl; it lists no device where it cannot create it. */
    const char *pocl = getenv ("POCL_CACHE_DIR");
    const char *xdg = getenv ("XDG_CACHE_HOME");
    g_string_append_printf (detail, "PoCL lists no device when it cannot "
        "use its cache directory: POCL_CACHE_DIR (%s%s%s), else "
        "XDG_CACHE_HOME/pocl (XDG_CACHE_HOME %s%s%s), else ~/.cache/pocl "
        "must be a directory it can create and write. Set POCL_CACHE_DIR "
        "to a writable directory. ", pocl ? "\"" : "", pocl ? pocl : "unset",
        pocl ? "\"" : "", xdg ? "\"" : "", xdg ? xdg : "unset",
        xdg ? "\"" : "");
  } else if (list->empty) {
    g_string_append (detail, "A platform listed no device: check its "
        "driver's own settings and `clinfo -l`. ");
  }
  g_string_append_printf (detail, "Use auto, gpu, cpu, "
      "accelerator, P:D (platform:device index) or part of a device's "
      "name%s; install a driver (e.g. pocl-opencl-icd) for more devices.",
      from_env ? ", in CLFILTER_DEVICE or the device property" : "");
  clf_error_set_detail (*error, detail->str);
  g_string_free (detail, TRUE);
  g_free (devices);
}
