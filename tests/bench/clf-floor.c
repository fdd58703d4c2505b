/* The memory floor of a frame on a device: how long the device takes to
 * copy an RGBA frame (clEnqueueCopyBuffer), to run a kernel that reads
 * three rows per output row and writes one with 16-byte accesses and no
 * arithmetic beyond a sum, which is the memory traffic of a 3x3 filter,
 * and one that only writes the frame (16-byte stores of its position), the
 * floor of any kernel that writes such a frame (a conversion into RGBA).
 * clfilter's kernel times are read against these: a kernel near them is
 * limited by memory, one far above them by its own instructions.  Then the
 * round trip of the frame from host memory to the device and back
 * (clEnqueueWriteBuffer, clEnqueueReadBuffer, waited for; wall clock),
 * from pinned memory (a mapped CL_MEM_ALLOC_HOST_PTR buffer) and from
 * malloc's: the floor of clf-bench's host-fps.
 *
 *   clf-floor [--device SPEC] [--size WxH] [--reps N]
 *
 * One tab-separated line per measurement on stdout:
 *   device  size  what  median-us  min-us  GB/s (bytes read + written over
 *   the median) */
#include "clf.h"
#include "util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *stencil_source =
    "__kernel void three_rows(__global const uint4 *in, __global uint4 *out,\n"
    "    int width, int height)\n"
    "{\n"
    "  const int x = get_global_id(0), y = get_global_id(1);\n"
    "  if (x >= width || y >= height)\n"
    "    return;\n"
    "  const int up = max(y - 1, 0), down = min(y + 1, height - 1);\n"
    "  out[y * width + x] = in[up * width + x] + in[y * width + x]\n"
    "      + in[down * width + x];\n" "}\n"
    "__kernel void write_frame(__global uint4 *out, int width, int height)\n"
    "{\n"
    "  const int x = get_global_id(0), y = get_global_id(1);\n"
    "  if (x < width && y < height)\n"
    "    out[y * width + x] = (uint4) ((uint) x, (uint) y, 0u, 255u);\n" "}\n";

#define CHECK(call, ...)                                                  \
  do {                                                                    \
    cl_int status_ = call (__VA_ARGS__);                                  \
    if (status_ != CL_SUCCESS)                                            \
      fail_cl (#call, status_);                                           \
  } while (0)

static void
fail_cl (const char *call, cl_int status)
{
  fprintf (stderr, "clf-floor: %s failed: %s (%d)\n", call,
      clf_cl_status_name (status), status);
  exit (2);
}

/* Microseconds the event's command ran; releases the event. */
static double
event_us (cl_event event)
{
  cl_ulong start, end;
  CHECK (clWaitForEvents, 1, &event);
  CHECK (clGetEventProfilingInfo, event, CL_PROFILING_COMMAND_START,
      sizeof start, &start, NULL);
  CHECK (clGetEventProfilingInfo, event, CL_PROFILING_COMMAND_END,
      sizeof end, &end, NULL);
  CHECK (clReleaseEvent, event);
  return (double) (end - start) / 1e3;
}

static double
now_us (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

typedef struct
{
  cl_command_queue queue;
  cl_mem in, out;
  size_t bytes;
  cl_kernel stencil, write;
  size_t global[2];
  void *host[2];                /* pinned, pageable */
} Floor;

enum
{ COPY, STENCIL, WRITE, PINNED_ROUND_TRIP, PAGEABLE_ROUND_TRIP,
  N_MEASURES
};

static double
round_trip_us (const Floor * f, void *host)
{
  double start = now_us ();
  CHECK (clEnqueueWriteBuffer, f->queue, f->in, CL_FALSE, 0, f->bytes, host,
      0, NULL, NULL);
  CHECK (clEnqueueReadBuffer, f->queue, f->in, CL_TRUE, 0, f->bytes, host, 0,
      NULL, NULL);
  return now_us () - start;
}

/* One timed run of measurement `what`. */
static double
run_once (const Floor * f, int what)
{
  cl_event event;
  if (what >= PINNED_ROUND_TRIP)
    return round_trip_us (f, f->host[what - PINNED_ROUND_TRIP]);
  if (what == COPY)
    CHECK (clEnqueueCopyBuffer, f->queue, f->in, f->out, 0, 0, f->bytes, 0,
        NULL, &event);
  else
    CHECK (clEnqueueNDRangeKernel, f->queue, what == WRITE ? f->write :
        f->stencil, 2, NULL, f->global, NULL, 0, NULL, &event);
  return event_us (event);
}

static cl_kernel
new_kernel (cl_program program, const char *name)
{
  cl_int status;
  cl_kernel kernel = clCreateKernel (program, name, &status);
  if (status != CL_SUCCESS)
    fail_cl ("clCreateKernel", status);
  return kernel;
}

static void
build_kernels (ClfEngine * engine, cl_program * program, Floor * f)
{
  cl_int status;
  cl_device_id device = clf_engine_device (engine);
  *program = clCreateProgramWithSource (clf_engine_context (engine), 1,
      &stencil_source, NULL, &status);
  if (status != CL_SUCCESS)
    fail_cl ("clCreateProgramWithSource", status);
  CHECK (clBuildProgram, *program, 1, &device, "", NULL, NULL);
  f->stencil = new_kernel (*program, "three_rows");
  f->write = new_kernel (*program, "write_frame");
}

static cl_mem
new_frame_buffer (ClfEngine * engine, Floor * f)
{
  cl_int status;
  const cl_uchar pattern = 0x5a;
  cl_mem mem = clCreateBuffer (clf_engine_context (engine),
      CL_MEM_READ_WRITE, f->bytes, NULL, &status);
  if (status != CL_SUCCESS)
    fail_cl ("clCreateBuffer", status);
  /* Touch it once, so no run pays for first use. */
  CHECK (clEnqueueFillBuffer, f->queue, mem, &pattern, 1, 0, f->bytes, 0,
      NULL, NULL);
  return mem;
}

int
main (int argc, char **argv)
{
  const char *spec = "auto";
  unsigned width = 3840, height = 2160, reps = 50;
  for (int i = 1; i < argc; i += 2) {
    const char *value = i + 1 < argc ? argv[i + 1] : "";
    bool known = true;
    if (!strcmp (argv[i], "--device"))
      spec = value;
    else if (!strcmp (argv[i], "--size"))
      known = sscanf (value, "%ux%u", &width, &height) == 2;
    else if (!strcmp (argv[i], "--reps"))
      reps = (unsigned) strtoul (value, NULL, 10);
    else
      known = false;
    if (!known) {
      fprintf (stderr, "usage: clf-floor [--device SPEC] [--size WxH] "
          "[--reps N]\n");
      return 2;
    }
  }
  if (width % 4 || !height || !reps) {
    fprintf (stderr, "clf-floor: the width must be a multiple of 4, the "
        "height and reps above 0\n");
    return 2;
  }

  GError *err = NULL;
  ClfEngine *engine = clf_engine_new (spec, &err);
  if (!engine) {
    fprintf (stderr, "clf-floor: %s\n", err->message);
    return 2;
  }
  Floor f = {.queue = clf_engine_queue (engine),
    .bytes = (size_t) width * height * 4,
    .global = { width / 4, height }
  };
  cl_program program;
  cl_int status;
  build_kernels (engine, &program, &f);
  f.in = new_frame_buffer (engine, &f);
  f.out = new_frame_buffer (engine, &f);
  const cl_int words = (cl_int) (width / 4), rows = (cl_int) height;
  CHECK (clSetKernelArg, f.stencil, 0, sizeof f.in, &f.in);
  CHECK (clSetKernelArg, f.stencil, 1, sizeof f.out, &f.out);
  CHECK (clSetKernelArg, f.stencil, 2, sizeof words, &words);
  CHECK (clSetKernelArg, f.stencil, 3, sizeof rows, &rows);
  CHECK (clSetKernelArg, f.write, 0, sizeof f.out, &f.out);
  CHECK (clSetKernelArg, f.write, 1, sizeof words, &words);
  CHECK (clSetKernelArg, f.write, 2, sizeof rows, &rows);

  cl_mem pinned = clCreateBuffer (clf_engine_context (engine),
      CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, f.bytes, NULL, &status);
  if (status != CL_SUCCESS)
    fail_cl ("clCreateBuffer", status);
  f.host[0] = clEnqueueMapBuffer (f.queue, pinned, CL_TRUE,
      CL_MAP_READ | CL_MAP_WRITE, 0, f.bytes, 0, NULL, NULL, &status);
  if (status != CL_SUCCESS)
    fail_cl ("clEnqueueMapBuffer", status);
  f.host[1] = calloc (1, f.bytes);
  memset (f.host[0], 0x5a, f.bytes);

  static const char *const names[] = { "copy", "three-row-stencil",
    "write-only", "pinned-round-trip", "pageable-round-trip"
  };
  double *us = malloc (reps * sizeof *us);
  for (int what = 0; what < N_MEASURES; what++) {
    run_once (&f, what);        /* warm-up */
    for (unsigned r = 0; r < reps; r++)
      us[r] = run_once (&f, what);
    double median = clf_test_median (us, reps);
    printf ("%s\t%ux%u\t%s\t%.1f\t%.1f\t%.0f\n",
        clf_engine_device_name (engine), width, height, names[what], median,
        us[0], (what == WRITE ? 1.0 : 2.0) * (double) f.bytes / median / 1e3);
  }
  free (us);
  cl_event unmapped;
  CHECK (clEnqueueUnmapMemObject, f.queue, pinned, f.host[0], 0, NULL,
      &unmapped);
  CHECK (clWaitForEvents, 1, &unmapped);
  CHECK (clReleaseEvent, unmapped);
  CHECK (clReleaseMemObject, pinned);
  free (f.host[1]);
  CHECK (clReleaseMemObject, f.in);
  CHECK (clReleaseMemObject, f.out);
  CHECK (clReleaseKernel, f.stencil);
  CHECK (clReleaseKernel, f.write);
  CHECK (clReleaseProgram, program);
  clf_engine_unref (engine);
  return 0;
}
