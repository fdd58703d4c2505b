/* Engine tests: every mode, border, radius and size on random bytes, byte
 * for byte against the C reference, on whatever OpenCL device "auto" (or
 * CLFILTER_DEVICE) picks.  Plain C: the engine needs no GStreamer.  Each
 * group is a file of its own (tests/engine/<group>.c); this one runs those
 * named on the command line.
 *
 *   test-engine [oracle|invalid|devices|layouts|matrix|means|formats|frames|
 *                cache|stats|long|faults|convolve|convert|gaussian]...
 * (default: all; faults needs the test layer, tests/layer/, in
 * OPENCL_LAYERS, as meson test sets it)
 *   test-engine cache-start   one start of an engine (the cache tests run
 *                             it as a child process)
 * CLF_TEST_SEED=<n> repeats a run's random data (and the quick tier's
 * sample).  CLF_TEST_TIER=quick runs a sample of the big matrices (every
 * size, radius, layout and format family still, each in fewer
 * combinations); unset or "full", all of them. */
#include "engine-common.h"

static const struct
{
  const char *name;
  void (*run) (void);
} tests[] = {
  {"oracle", test_oracle},
  {"invalid", test_invalid},
  {"devices", test_devices},
  {"layouts", test_layouts},
  {"matrix", test_matrix},
  {"means", test_means},
  {"formats", test_formats},
  {"frames", test_frames},
  {"cache", test_cache},
  {"stats", test_stats},
  {"long", test_long},
  {"faults", test_faults},
  {"convolve", test_convolve},
  {"convert", test_convert},
  {"gaussian", test_gaussian},
};

static bool
selected (const char *name, int argc, char **argv)
{
  if (argc < 2)
    return true;
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], name) == 0)
      return true;
  return false;
}

int
main (int argc, char **argv)
{
  const char *seed = getenv ("CLF_TEST_SEED");
  rng_state = seed ? strtoull (seed, NULL, 0) : (uint64_t) time (NULL);
  rng_state |= 1;
  printf ("CLF_TEST_SEED=%" PRIu64 "\n", rng_state);
  const char *tier = getenv ("CLF_TEST_TIER");
  if (tier && strcmp (tier, "quick") != 0 && strcmp (tier, "full") != 0) {
    fprintf (stderr, "CLF_TEST_TIER=%s: expected quick or full\n", tier);
    return 1;
  }
  quick_tier = tier && strcmp (tier, "quick") == 0;
  /* Bits above the lowest, which is always set. */
  sample_offset = (size_t) (rng_state >> 1) % 720720;
  if (quick_tier)
    printf ("CLF_TEST_TIER=quick: a sample of the matrices, turned by the "
        "seed\n");

  GError *err = NULL;
  engine = clf_engine_new ("auto", &err);
  if (!engine) {
    fprintf (stderr, "no OpenCL device: %s\n%s\n", message_of (err),
        clf_error_get_detail (err) ? clf_error_get_detail (err) : "");
    return 1;
  }
  /* The device's own type, for the cases too slow for a CPU: the test
   * layer may be telling the engine another (CLF_TEST_DEVICE_TYPE, read at
   * each call), not this question. */
  char *pretended = getenv ("CLF_TEST_DEVICE_TYPE") ?
      strdup (getenv ("CLF_TEST_DEVICE_TYPE")) : NULL;
  unsetenv ("CLF_TEST_DEVICE_TYPE");
  cl_device_type type = 0;
  clGetDeviceInfo (clf_engine_device (engine), CL_DEVICE_TYPE, sizeof type,
      &type, NULL);
  device_is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  /* Told to pretend the type the device has: the same kernels as without
   * the layer's pretence, which the plain groups run already. */
  bool own_type = pretended
      && ((strcmp (pretended, "cpu") == 0 && device_is_cpu)
      || (strcmp (pretended, "gpu") == 0 && (type & CL_DEVICE_TYPE_GPU)));
  if (pretended)
    setenv ("CLF_TEST_DEVICE_TYPE", pretended, 1);
  free (pretended);
  cl_uint units = 0;
  clGetDeviceInfo (clf_engine_device (engine), CL_DEVICE_MAX_COMPUTE_UNITS,
      sizeof units, &units, NULL);
  printf ("device: %s, %u compute units\n", clf_engine_device_name (engine),
      units);
  if (own_type) {
    printf ("CLF_TEST_DEVICE_TYPE=%s: the device is of that type already, "
        "so the groups without this setting run these kernels: skipped\n",
        getenv ("CLF_TEST_DEVICE_TYPE"));
    clf_engine_unref (engine);
    return 77;
  }
  if (argc == 2 && strcmp (argv[1], CACHE_START_ARG) == 0) {
    int status = cache_start_child ();
    clf_engine_unref (engine);
    return status;
  }

  for (size_t t = 0; t < N_OF (tests); t++) {
    if (!selected (tests[t].name, argc, argv))
      continue;
    int before = failures;
    clock_t start = clock ();
    tests[t].run ();
    printf ("%s %s (%.1f s cpu)\n", failures == before ? "ok  " : "FAIL",
        tests[t].name, (double) (clock () - start) / CLOCKS_PER_SEC);
  }
  if (skipped_box_cases)
    printf ("%d naive-box cases left out on this CPU device (budget %.0g "
        "reads); separable and sliding ran them\n", skipped_box_cases,
        CPU_BOX_READ_BUDGET);
  clf_engine_unref (engine);
  printf ("%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
