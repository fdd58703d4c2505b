/* Engine tests, group devices (test-engine devices): device selection:
 * names, indices, types, and the errors for none. */
#include "engine-common.h"

static void
expect_device (const char *spec, bool found, const char *name_part)
{
  GError *err = NULL;
  ClfEngine *e = clf_engine_new (spec, &err);
  if (found) {
    CHECK (e, "device \"%s\": %s", spec, message_of (err));
    if (e && name_part)
      CHECK (strstr (clf_engine_device_name (e), name_part),
          "device \"%s\" chose %s", spec, clf_engine_device_name (e));
  } else {
    CHECK (!e && g_error_matches (err, CLF_ERROR, CLF_ERROR_NOT_FOUND),
        "device \"%s\" matched", spec);
    /* The message lists the devices that exist. */
    CHECK (err && strstr (err->message, clf_engine_device_name
            (engine)), "device \"%s\": message lacks the device list: %s",
        spec, message_of (err));
  }
  clf_engine_unref (e);
  g_clear_error (&err);
}

/* Whether "accelerator" selects a device here: the first of that type. */
static bool
clf_engine_new_would_find_accelerator (void)
{
  cl_uint n_platforms = 0;
  cl_platform_id platforms[16];
  bool found = false;
  if (clGetPlatformIDs (16, platforms, &n_platforms) != CL_SUCCESS)
    return false;
  for (cl_uint p = 0; p < n_platforms && p < 16 && !found; p++) {
    cl_uint n = 0;
    found = clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ACCELERATOR, 0,
        NULL, &n) == CL_SUCCESS && n > 0;
  }
  return found;
}

/* clf_engine_new (spec) fails with a message that is valid UTF-8 and
 * holds `part`. */
static void
expect_device_error (const char *spec, const char *part)
{
  GError *err = NULL;
  ClfEngine *e = clf_engine_new (spec, &err);
  CHECK (!e && err, "device \"%s\" matched", spec);
  if (err) {
    CHECK (g_utf8_validate (err->message, -1, NULL), "the message is not "
        "UTF-8: %s", err->message);
    CHECK (strstr (err->message, part), "device \"%s\": the message lacks "
        "'%s': %s", spec, part, err->message);
  }
  clf_engine_unref (e);
  g_clear_error (&err);
}

void
test_devices (void)
{
  const char *name = clf_engine_device_name (engine);
  const char *slash = strstr (name, " / ");
  char part[32] = { 0 };
  char upper[32] = { 0 };

  /* Part of the device's own name, in upper case: matching ignores case. */
  snprintf (part, sizeof part, "%s", slash ? slash + 3 : name);
  for (size_t i = 0; part[i] && i < 8; i++)
    upper[i] = (char) (part[i] >= 'a' && part[i] <= 'z' ?
        part[i] - 32 : part[i]);

  expect_device (upper, true, NULL);
  expect_device (device_is_cpu ? "cpu" : "gpu", true, NULL);
  expect_device ("0:0", true, NULL);
  expect_device ("no-such-device", false, NULL);
  expect_device ("9:9", false, NULL);
  expect_device ("0:0x", false, NULL);
  /* Indices beyond 32 bits do not wrap to 0:0. */
  expect_device ("4294967296:0", false, NULL);
  expect_device ("0:4294967296", false, NULL);
  expect_device ("18446744073709551616:0", false, NULL);
  expect_device ("-0:0", false, NULL);
  expect_device (" 0:0", false, NULL);
  expect_device ("accelerator", clf_engine_new_would_find_accelerator (), NULL);

  /* Engines are shared between users whose choices select one device. */
  CHECK (clf_engine_matches (engine, "auto"), "auto does not match");
  CHECK (clf_engine_matches (engine, upper), "%s does not match", upper);
  CHECK (!clf_engine_matches (engine, "no-such-device"),
      "no-such-device matches");

  /* CLFILTER_DEVICE applies to auto, not to an explicit choice, and an
   * error it causes names it. */
  const char *saved = getenv ("CLFILTER_DEVICE");
  char *saved_copy = saved ? strdup (saved) : NULL;
  setenv ("CLFILTER_DEVICE", "no-such-device", 1);
  expect_device ("auto", false, NULL);
  expect_device (NULL, false, NULL);
  expect_device ("0:0", true, NULL);
  expect_device_error (NULL, "\"no-such-device\" (the environment variable "
      "CLFILTER_DEVICE)");
  expect_device_error ("nope", "matches \"nope\". Devices");
  /* A spec that is not UTF-8 (from the environment, or a property set
   * from C) reaches the message as valid UTF-8. */
  setenv ("CLFILTER_DEVICE", "bad\xff\xfe-name", 1);
  expect_device_error (NULL, "bad\xef\xbf\xbd\xef\xbf\xbd-name");
  expect_device_error ("also\xc3(bad", "also\xef\xbf\xbd(bad");
  if (saved_copy)
    setenv ("CLFILTER_DEVICE", saved_copy, 1);
  else
    unsetenv ("CLFILTER_DEVICE");
  free (saved_copy);
}
