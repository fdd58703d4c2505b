/* Engine benchmark: the median kernel time of every mode and radius at
 * every size on every OpenCL device (or the ones named), with frames
 * resident on the device, and the frames per second of the same filter
 * from host memory (upload, kernels, download: what a pipeline of system
 * memory on a discrete GPU pays).  The first frame of every case is checked
 * byte for byte against the C reference, so a fast wrong kernel cannot
 * pass.
 *
 *   clf-bench [--devices all|SPEC,...] [--modes box,separable,sliding,laplace]
 *             [--radii 1,3,7,...] [--sizes 640x360,...] [--frames N]
 *             [--budget-ms MS] [--check-pixels N]
 *
 * One tab-separated line per case on stdout:
 *   device  mode  radius  size  kernel-median-ms  kernel-min-ms  frames
 *   host-fps  check
 * check is "exact" (the reference's bytes); where the reference would take
 * too long (width * height * (r + 1) above --check-pixels * 256) "same"
 * (the bytes of the blur mode run before it at that size and radius) or
 * "unchecked" (the first blur mode there); "MISMATCH"; or "skipped" (a
 * naive box whose estimated time is above --budget-ms per frame).
 * Exit status 1 when any case mismatched. */
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  const char *devices;
  const char *modes;
  const char *radii;
  const char *sizes;
  unsigned frames;
  double budget_ms;
  double check_pixels;
} Options;

typedef struct {
  ClfEngine *engine;
  ClfFrameFormat format;
  ClfPlan *plan;
  ClfHostFrame in, out;         /* host copies of the frames */
  cl_mem in_mem, out_mem;       /* the same frames on the device */
  uint8_t *exact;               /* bytes of the last blur, or NULL */
  uint32_t exact_radius;
  double last_box_ms_per_read;  /* for the naive box's time estimate */
} Bench;

static int mismatches;

static void
die (const char *what, const ClfError * err)
{
  fprintf (stderr, "clf-bench: %s: %s\n", what, err->message);
  if (err->detail)
    fprintf (stderr, "%s\n", err->detail);
  exit (2);
}

static double
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *v, unsigned n)
{
  qsort (v, n, sizeof *v, compare_doubles);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- frames ---------------------------------------------------------- */

static size_t
frame_bytes (const Bench * b)
{
  const ClfPlaneFormat *p = &b->format.planes[0];
  return (size_t) p->width * p->bpp * p->height;
}

static cl_mem
device_buffer (ClfEngine * engine, size_t size, void *init)
{
  cl_int status;
  cl_mem mem = clCreateBuffer (clf_engine_context (engine),
      CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), size, init,
      &status);
  if (status != CL_SUCCESS) {
    fprintf (stderr, "clf-bench: clCreateBuffer: %s\n",
        clf_cl_status_name (status));
    exit (2);
  }
  return mem;
}

/* RGBA frames of random bytes (alpha copied, colour filtered), packed. */
static void
bench_frames_init (Bench * b, uint32_t width, uint32_t height)
{
  ClfPlaneFormat *p = &b->format.planes[0];
  b->format.n_planes = 1;
  *p = (ClfPlaneFormat) {
  width, height, 4, 0x7, 0x7};
  size_t size = frame_bytes (b);
  b->in.data[0] = malloc (size);
  b->out.data[0] = malloc (size);
  b->in.stride[0] = b->out.stride[0] = (size_t) width * 4;
  b->in.size[0] = b->out.size[0] = size;
  uint64_t state = 0x9E3779B97F4A7C15ull ^ size;
  for (size_t i = 0; i < size; i++) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    b->in.data[0][i] = (uint8_t) (state >> 32);
  }
  b->in_mem = device_buffer (b->engine, size, b->in.data[0]);
  b->out_mem = device_buffer (b->engine, size, NULL);
  ClfError err = { 0 };
  if (!(b->plan = clf_plan_new (b->engine, &b->format, &err)))
    die ("clf_plan_new", &err);
}

static void
bench_frames_clear (Bench * b)
{
  clf_plan_free (b->plan);
  clReleaseMemObject (b->in_mem);
  clReleaseMemObject (b->out_mem);
  free (b->in.data[0]);
  free (b->out.data[0]);
  free (b->exact);
  b->exact = NULL;
}

/* ---- one case -------------------------------------------------------- */

static double
device_frame_ms (Bench * b, const ClfParams * params)
{
  ClfFrame src = {.mem = {b->in_mem}, .stride = {b->in.stride[0]} };
  ClfFrame dst = {.mem = {b->out_mem}, .stride = {b->out.stride[0]} };
  ClfFrameStats stats = { 0 };
  ClfError err = { 0 };
  if (!clf_plan_process (b->plan, params, &src, &dst, &stats, &err))
    die ("clf_plan_process", &err);
  return stats.kernel_ns / 1e6;
}

static double
host_frame_ms (Bench * b, const ClfParams * params)
{
  ClfFrameStats stats;
  ClfError err = { 0 };
  double start = now_ms ();
  if (!clf_plan_process_host (b->plan, params, &b->in, &b->out, &stats, &err))
    die ("clf_plan_process_host", &err);
  return now_ms () - start;
}

/* "exact", "same", "unchecked" or "MISMATCH" for the bytes in b->out. */
static const char *
check_output (Bench * b, const ClfParams * params, const Options * o)
{
  const ClfPlaneFormat *p = &b->format.planes[0];
  size_t size = frame_bytes (b);
  bool blur = params->mode != CLF_MODE_LAPLACE;
  double pixels = (double) p->width * p->height;
  bool reference_affordable = !blur
      || pixels * (params->radius + 1) <= o->check_pixels * 256;
  bool have_exact = blur && b->exact && b->exact_radius == params->radius;
  const char *verdict;

  if (!reference_affordable && have_exact) {
    verdict = memcmp (b->out.data[0], b->exact, size) ? "MISMATCH" : "same";
  } else if (!reference_affordable) {
    verdict = "unchecked";
  } else {
    uint8_t *want = malloc (size);
    ClfHostFrame ref = {.data = {want}, .stride = {b->out.stride[0]} };
    clf_ref_filter_frame (params, &b->format, &b->in, &ref);
    verdict = memcmp (b->out.data[0], want, size) ? "MISMATCH" : "exact";
    free (want);
  }
  if (blur && !have_exact && verdict[0] != 'M') {
    free (b->exact);
    b->exact = malloc (size);
    memcpy (b->exact, b->out.data[0], size);
    b->exact_radius = params->radius;
  }
  if (verdict[0] == 'M')
    mismatches++;
  return verdict;
}

static double
box_reads (const Bench * b, uint32_t radius)
{
  const ClfPlaneFormat *p = &b->format.planes[0];
  double side = 2.0 * radius + 1;
  return side * side * p->width * p->height;
}

static void
run_case (Bench * b, const char *device, const ClfParams * params,
    const Options * o)
{
  const ClfPlaneFormat *p = &b->format.planes[0];
  bool box = params->mode == CLF_MODE_BOX;
  printf ("%s\t%s\t%u\t%ux%u\t", device, clf_mode_name (params->mode),
      params->radius, p->width, p->height);
  if (box && b->last_box_ms_per_read > 0
      && b->last_box_ms_per_read * box_reads (b, params->radius) >
      o->budget_ms) {
    printf ("-\t-\t0\t-\tskipped\n");
    fflush (stdout);
    return;
  }

  /* The first frame, through host memory, is the one checked. */
  double first = host_frame_ms (b, params);
  const char *verdict = check_output (b, params, o);

  double *kernel = calloc (o->frames, sizeof *kernel);
  double *host = calloc (o->frames, sizeof *host);
  double start = now_ms ();
  unsigned n = 0;
  for (; n < o->frames && (n < 3 || now_ms () - start < o->budget_ms); n++)
    kernel[n] = device_frame_ms (b, params);
  unsigned n_host = 0;
  start = now_ms ();
  for (; n_host < o->frames && (n_host < 3
          || now_ms () - start < o->budget_ms); n_host++)
    host[n_host] = n_host ? host_frame_ms (b, params) : first;
  double kernel_min = kernel[0];
  for (unsigned i = 1; i < n; i++)
    kernel_min = kernel[i] < kernel_min ? kernel[i] : kernel_min;
  double kernel_median = median (kernel, n);
  if (box)
    b->last_box_ms_per_read = kernel_median / box_reads (b, params->radius);
  printf ("%.4f\t%.4f\t%u\t%.1f\t%s\n", kernel_median, kernel_min, n,
      1e3 / median (host, n_host), verdict);
  fflush (stdout);
  free (kernel);
  free (host);
}

/* ---- lists ----------------------------------------------------------- */

/* The next comma-separated item of *list, into buf; false at the end. */
static bool
next_item (const char **list, char *buf, size_t size)
{
  if (!**list)
    return false;
  size_t len = strcspn (*list, ",");
  snprintf (buf, size, "%.*s", (int) len, *list);
  *list += len + ((*list)[len] == ',');
  return true;
}

static ClfMode
mode_from_name (const char *name)
{
  for (ClfMode m = CLF_MODE_BOX; m <= CLF_MODE_LAPLACE; m++)
    if (!strcmp (name, clf_mode_name (m)))
      return m;
  fprintf (stderr, "clf-bench: unknown mode '%s'\n", name);
  exit (2);
}

/* Every device as "P:D", comma-separated, into buf. */
static void
list_all_devices (char *buf, size_t size)
{
  cl_platform_id platforms[16];
  cl_uint n_platforms = 0;
  buf[0] = '\0';
  if (clGetPlatformIDs (16, platforms, &n_platforms) != CL_SUCCESS)
    return;
  for (cl_uint p = 0; p < n_platforms && p < 16; p++) {
    cl_uint n_devices = 0;
    if (clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL,
            &n_devices) != CL_SUCCESS)
      continue;
    for (cl_uint d = 0; d < n_devices; d++) {
      size_t len = strlen (buf);
      snprintf (buf + len, size - len, "%s%u:%u", len ? "," : "", p, d);
    }
  }
}

static void
bench_device (const char *spec, const Options * o)
{
  ClfError err = { 0 };
  Bench b = { 0 };
  if (!(b.engine = clf_engine_new (spec, &err)))
    die (spec, &err);
  fprintf (stderr, "device %s: %s\n", spec, clf_engine_device_name (b.engine));

  char size_text[32], mode_text[32], radius_text[16];
  const char *sizes = o->sizes;
  while (next_item (&sizes, size_text, sizeof size_text)) {
    unsigned w = 0, h = 0;
    if (sscanf (size_text, "%ux%u", &w, &h) != 2 || !w || !h) {
      fprintf (stderr, "clf-bench: bad size '%s'\n", size_text);
      exit (2);
    }
    bench_frames_init (&b, w, h);
    /* Radius by radius, every mode, so each blur's bytes can be compared
     * with the mode before it where the reference would be too slow. */
    const char *radii = o->radii;
    bool laplace_done = false;  /* laplace has no radius: once per size */
    while (next_item (&radii, radius_text, sizeof radius_text)) {
      const char *modes = o->modes;
      while (next_item (&modes, mode_text, sizeof mode_text)) {
        ClfParams params = {.mode = mode_from_name (mode_text),
          .radius = (uint32_t) atoi (radius_text),
          .border = CLF_BORDER_MIRROR
        };
        if (params.mode == CLF_MODE_LAPLACE) {
          if (laplace_done)
            continue;
          laplace_done = true;
          params.radius = 0;
        }
        run_case (&b, spec, &params, o);
      }
    }
    b.last_box_ms_per_read = 0;
    bench_frames_clear (&b);
  }
  clf_engine_unref (b.engine);
}

int
main (int argc, char **argv)
{
  Options o = {
    .devices = "all",
    .modes = "box,separable,sliding,laplace",
    .radii = "1,3,7,15,31,63,127,255",
    .sizes = "640x360,1280x720,1920x1080,3840x2160",
    .frames = 30,
    .budget_ms = 3000,
    .check_pixels = 1280 * 720,
  };
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *k = argv[i], *v = argv[i + 1];
    if (!strcmp (k, "--devices"))
      o.devices = v;
    else if (!strcmp (k, "--modes"))
      o.modes = v;
    else if (!strcmp (k, "--radii"))
      o.radii = v;
    else if (!strcmp (k, "--sizes"))
      o.sizes = v;
    else if (!strcmp (k, "--frames"))
      o.frames = (unsigned) atoi (v) > 0 ? (unsigned) atoi (v) : 1;
    else if (!strcmp (k, "--budget-ms"))
      o.budget_ms = atof (v);
    else if (!strcmp (k, "--check-pixels"))
      o.check_pixels = atof (v);
    else {
      fprintf (stderr, "clf-bench: unknown option '%s'\n", k);
      return 2;
    }
  }

  char all[1024];
  if (!strcmp (o.devices, "all")) {
    list_all_devices (all, sizeof all);
    o.devices = all;
  }
  printf ("device\tmode\tradius\tsize\tkernel-median-ms\tkernel-min-ms"
      "\tframes\thost-fps\tcheck\n");
  char spec[64];
  const char *devices = o.devices;
  while (next_item (&devices, spec, sizeof spec))
    bench_device (spec, &o);
  return mismatches ? 1 : 0;
}
