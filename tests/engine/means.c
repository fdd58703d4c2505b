/* Engine tests, group means (test-engine means): the CPUs' means on the
 * critical sums of every radius. */
#include "engine-common.h"

/* The sums S of a window of area N whose mean floor((S + N/2) / N) is
 * nearest to changing, for every mean 0..255: S + N/2 = kN - 1, kN, kN + 1;
 * into `sums` (room for 3 * 257 + 15), padded to whole runs of 16 with 0.
 * Returns how many. */
static size_t
critical_sums (uint32_t area, cl_uint * sums)
{
  size_t n = 0;
  for (int64_t k = 0; k <= 256; k++)
    for (int64_t j = -1; j <= 1; j++) {
      int64_t s = k * area + j - area / 2;
      if (s >= 0 && s <= 255 * (int64_t) area)
        sums[n++] = (cl_uint) s;
    }
  while (n % 16)
    sums[n++] = 0;
  return n;
}

/* cpu_means (blur-strips-cpu.cl) on the critical sums of every radius of 8-bit
 * samples, against integer division: its float arithmetic is exact by a
 * bound on its roundings, which frames of random samples seldom test. */
void
test_means (void)
{
  static const char *kernel =
      "__kernel void means_of(__global const uint *sums,\n"
      "    __global uint *means, int radius, ulong mul, int shift)\n"
      "{\n"
      "  const int i = get_global_id(0);\n"
      "  vstore16(cpu_means(vload16(i, sums), mean_for(radius, mul, shift)),\n"
      "      i, means);\n" "}\n";
  const char *sources[CLF_N_KERNEL_SOURCES + 1];
  for (size_t i = 0; i < CLF_N_KERNEL_SOURCES; i++)
    sources[i] = clf_kernel_sources[i];
  sources[CLF_N_KERNEL_SOURCES] = kernel;
  const ClfLayout gray_layout = { 1, 1, 1, 8, 0, false };
  const ClfParams sliding = { CLF_MODE_SLIDING, 1, CLF_BORDER_CLAMP };
  const ClfProgramSpec gray = clf_program_for (true, &gray_layout, &sliding);
  char options[CLF_PROGRAM_OPTIONS_SIZE];
  clf_program_options (&gray, options);
  cl_context context = clf_engine_context (engine);
  cl_device_id device = clf_engine_device (engine);
  cl_int status;
  cl_program program = clCreateProgramWithSource (context,
      CLF_N_KERNEL_SOURCES + 1, sources, NULL, &status);
  if (status == CL_SUCCESS)
    status = clBuildProgram (program, 1, &device, options, NULL, NULL);
  cl_kernel means_of = status == CL_SUCCESS ?
      clCreateKernel (program, "means_of", &status) : NULL;
  size_t room = 3 * 257 + 15;
  cl_mem sums = status == CL_SUCCESS ? clCreateBuffer (context,
      CL_MEM_READ_ONLY, room * sizeof (cl_uint), NULL, &status) : NULL;
  cl_mem means = status == CL_SUCCESS ? clCreateBuffer (context,
      CL_MEM_WRITE_ONLY, room * sizeof (cl_uint), NULL, &status) : NULL;
  CHECK (status == CL_SUCCESS, "the means kernel: %d", status);

  cl_command_queue queue = clf_engine_queue (engine);
  cl_uint *s = g_new (cl_uint, room), *m = g_new (cl_uint, room);
  unsigned wrong = 0;
  for (cl_int radius = 0; status == CL_SUCCESS && radius <= CLF_MAX_RADIUS;
      radius++) {
    uint32_t area = (2 * radius + 1) * (2 * radius + 1);
    size_t n = critical_sums (area, s);
    cl_ulong mul;
    cl_int shift;
    clf_mean_divider (radius, 1, 8, &mul, &shift);
    size_t runs = n / 16;
    status = clEnqueueWriteBuffer (queue, sums, CL_TRUE, 0,
        n * sizeof (cl_uint), s, 0, NULL, NULL);
    if (status == CL_SUCCESS)
      status = clSetKernelArg (means_of, 0, sizeof sums, &sums)
          | clSetKernelArg (means_of, 1, sizeof means, &means)
          | clSetKernelArg (means_of, 2, sizeof radius, &radius)
          | clSetKernelArg (means_of, 3, sizeof mul, &mul)
          | clSetKernelArg (means_of, 4, sizeof shift, &shift);
    if (status == CL_SUCCESS)
      status = clEnqueueNDRangeKernel (queue, means_of, 1, NULL, &runs,
          NULL, 0, NULL, NULL);
    if (status == CL_SUCCESS)
      status = clEnqueueReadBuffer (queue, means, CL_TRUE, 0,
          n * sizeof (cl_uint), m, 0, NULL, NULL);
    for (size_t i = 0; status == CL_SUCCESS && i < n; i++) {
      uint32_t want = (uint32_t) ((s[i] + (uint64_t) area / 2) / area);
      if (m[i] != want && wrong++ < 5)
        CHECK (false, "r=%d: mean of %u is %u, want %u", radius, s[i], m[i],
            want);
    }
  }
  CHECK (status == CL_SUCCESS, "running the means kernel: %d", status);
  CHECK (wrong == 0, "%u means wrong", wrong);
  g_free (s);
  g_free (m);
  if (means)
    clReleaseMemObject (means);
  if (sums)
    clReleaseMemObject (sums);
  if (means_of)
    clReleaseKernel (means_of);
  if (program)
    clReleaseProgram (program);
}
