/* Engine benchmark: the median kernel time of every mode and radius at
 * every size on every OpenCL device (or the ones named), with frames
 * resident on the device, and the frames per second of the same filter
 * from host memory (upload, kernels, download: what a pipeline of system
 * memory on a discrete GPU pays).  The first frame of every case is checked
 * byte for byte against the C reference, so a fast wrong kernel cannot
 * pass.  The host frames are in pinned memory (a mapped
 * CL_MEM_ALLOC_HOST_PTR buffer), as clfilter's pool gives producers on a
 * discrete device, so uploads and downloads are DMA; --host-memory
 * pageable puts them in malloc's memory instead, which the driver copies
 * through its own staging.
 *
 *   clf-bench [--devices all|SPEC,...] [--modes box,separable,sliding,laplace]
 *             [--radii 1,3,7,...]  (gaussian, unsharp: sigmas) [--sizes 640x360,...] [--frames N]
 *             [--budget-ms MS] [--check-pixels N] [--format[s] rgba,gray16,...]
 *             [--host-memory pinned|pageable]
 *
 * Formats (default rgba): gray8, gray16 (16 bits, little-endian), rgba
 * (8-bit, alpha copied), rgba64 (16-bit, alpha copied), i420, i420-10
 * (10 bits in the low bits of little-endian words), p010 (10 bits in the
 * high bits; interleaved chroma), yuy2 (packed 4:2:2).  A 16-bit format
 * holds twice the bytes of its 8-bit sibling.
 *
 * One tab-separated line per case on stdout:
 *   device  mode  radius  size  kernel-median-ms  kernel-min-ms  frames
 * (radius: sigma for gaussian and unsharp, whose amount is 1)
 *   host-fps  check  format
 * check is "exact" (the reference's bytes); where the reference would take
 * too long (width * height * (r + 1) above --check-pixels * 256) "same"
 * (the bytes of the blur mode run before it at that size and radius) or
 * "unchecked" (the first blur mode there); "MISMATCH"; or "skipped" (a
 * naive box whose estimated time is above --budget-ms per frame).
 * Exit status 1 when any case mismatched. */
#include "reference.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct
{
  const char *devices;
  const char *modes;
  const char *radii;
  const char *sizes;
  unsigned frames;
  double budget_ms;
  double check_pixels;
  const char *formats;
  const char *host_memory;
} Options;

/* A component of a benchmark format: plane, offset, pixel stride, depth,
 * shift, role, horizontal and vertical subsampling (little-endian). */
typedef struct
{
  uint32_t plane, offset, pstride, depth, shift;
  ClfComponentRole role;
  uint32_t sub_x, sub_y;
} BenchComponent;

typedef struct
{
  const char *name;
  uint32_t n_planes, n_components;
  BenchComponent c[4];
} BenchFormat;

#define SH CLF_COMPONENT_SHARPENED
#define BL CLF_COMPONENT_BLURRED
#define AL CLF_COMPONENT_COPIED

static const BenchFormat bench_formats[] = {
  {"gray8", 1, 1, {{0, 0, 1, 8, 0, SH, 1, 1}}},
  {"gray16", 1, 1, {{0, 0, 2, 16, 0, SH, 1, 1}}},
  {"rgba", 1, 4, {{0, 0, 4, 8, 0, SH, 1, 1}, {0, 1, 4, 8, 0, SH, 1, 1},
          {0, 2, 4, 8, 0, SH, 1, 1}, {0, 3, 4, 8, 0, AL, 1, 1}}},
  {"rgba64", 1, 4, {{0, 0, 8, 16, 0, SH, 1, 1}, {0, 2, 8, 16, 0, SH, 1, 1},
          {0, 4, 8, 16, 0, SH, 1, 1}, {0, 6, 8, 16, 0, AL, 1, 1}}},
  {"i420", 3, 3, {{0, 0, 1, 8, 0, SH, 1, 1}, {1, 0, 1, 8, 0, BL, 2, 2},
          {2, 0, 1, 8, 0, BL, 2, 2}}},
  {"i420-10", 3, 3, {{0, 0, 2, 10, 0, SH, 1, 1}, {1, 0, 2, 10, 0, BL, 2, 2},
          {2, 0, 2, 10, 0, BL, 2, 2}}},
  {"p010", 2, 3, {{0, 0, 2, 10, 6, SH, 1, 1}, {1, 0, 4, 10, 6, BL, 2, 2},
          {1, 2, 4, 10, 6, BL, 2, 2}}},
  {"yuy2", 1, 3, {{0, 0, 2, 8, 0, SH, 1, 1}, {0, 1, 4, 8, 0, BL, 2, 1},
          {0, 3, 4, 8, 0, BL, 2, 1}}},
};

static const BenchFormat *
bench_format (const char *name)
{
  for (size_t i = 0; i < sizeof bench_formats / sizeof bench_formats[0]; i++)
    if (!strcmp (bench_formats[i].name, name))
      return &bench_formats[i];
  fprintf (stderr, "clf-bench: unknown format '%s'\n", name);
  exit (2);
}

static ClfFrameFormat
frame_format (const BenchFormat * f, uint32_t width, uint32_t height)
{
  ClfFrameFormat format = { f->n_planes, f->n_components };
  for (uint32_t i = 0; i < f->n_components; i++) {
    const BenchComponent *c = &f->c[i];
    /* *INDENT-OFF* */
    format.components[i] = (ClfComponent) {
    .plane = c->plane,.offset = c->offset,.pstride = c->pstride,
          .width = (width + c->sub_x - 1) / c->sub_x,
          .height = (height + c->sub_y - 1) / c->sub_y,.depth = c->depth,
          .shift = c->shift,.role = c->role};
    /* *INDENT-ON* */
  }
  return format;
}

typedef struct
{
  ClfEngine *engine;
  const BenchFormat *bench_format;
  ClfFrameFormat format;
  ClfPlan *plan;
  ClfHostFrame in, out;         /* host copies of the frames */
  bool pinned;                  /* in and out in host_blocks' mappings */
  cl_mem host_blocks[2];
  cl_mem in_mem, out_mem;       /* the same frames on the device */
  uint8_t *exact;               /* bytes of the last blur, or NULL */
  uint32_t exact_radius;
  double last_box_ms_per_read;  /* for the naive box's time estimate */
} Bench;

static int mismatches;

static void
die (const char *what, const GError * err)
{
  fprintf (stderr, "clf-bench: %s: %s\n", what, err->message);
  if (clf_error_get_detail (err))
    fprintf (stderr, "%s\n", clf_error_get_detail (err));
  exit (2);
}

static double
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* ---- frames ---------------------------------------------------------- */

/* The planes lie packed one after the other in one block (and one device
 * buffer), each at a multiple of 256 bytes. */
static size_t
plane_offset (const Bench * b, uint32_t plane)
{
  size_t offset = 0;
  for (uint32_t i = 0; i < plane; i++)
    offset += (clf_frame_format_row_bytes (&b->format, i)
        * clf_frame_format_rows (&b->format, i) + 255) / 256 * 256;
  return offset;
}

static size_t
frame_bytes (const Bench * b)
{
  return plane_offset (b, b->format.n_planes);
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

/* `size` zeroed bytes of host memory: pinned (the mapping of `*block`, a
 * CL_MEM_ALLOC_HOST_PTR buffer) or pageable (malloc's; *block NULL). */
static uint8_t *
host_block (Bench * b, size_t size, cl_mem * block)
{
  cl_int status = CL_SUCCESS;
  uint8_t *data = NULL;

  *block = NULL;
  if (!b->pinned)
    return calloc (1, size);
  *block = clCreateBuffer (clf_engine_context (b->engine),
      CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, NULL, &status);
  if (status == CL_SUCCESS)
    data = clEnqueueMapBuffer (clf_engine_queue (b->engine), *block, CL_TRUE,
        CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL, NULL, &status);
  if (status != CL_SUCCESS) {
    fprintf (stderr, "clf-bench: pinned host memory: %s\n",
        clf_cl_status_name (status));
    exit (2);
  }
  return memset (data, 0, size);
}

static void
host_block_free (Bench * b, uint8_t * data, cl_mem block)
{
  cl_event unmapped;

  if (!block) {
    free (data);
    return;
  }
  if (clEnqueueUnmapMemObject (clf_engine_queue (b->engine), block, data, 0,
          NULL, &unmapped) == CL_SUCCESS) {
    clWaitForEvents (1, &unmapped);
    clReleaseEvent (unmapped);
  }
  clReleaseMemObject (block);
}

/* Frames of random bytes in the bench's format, packed. */
static void
bench_frames_init (Bench * b, uint32_t width, uint32_t height)
{
  b->format = frame_format (b->bench_format, width, height);
  size_t size = frame_bytes (b);
  /* Zeroed: the gaps between planes compare equal. */
  uint8_t *in = host_block (b, size, &b->host_blocks[0]);
  uint8_t *out = host_block (b, size, &b->host_blocks[1]);
  for (uint32_t i = 0; i < b->format.n_planes; i++) {
    size_t offset = plane_offset (b, i);
    b->in.data[i] = in + offset;
    b->out.data[i] = out + offset;
    b->in.stride[i] = b->out.stride[i] =
        clf_frame_format_row_bytes (&b->format, i);
    b->in.size[i] = b->out.size[i] = size - offset;
  }
  uint64_t state = 0x9E3779B97F4A7C15ull ^ size;
  for (size_t i = 0; i < size; i++) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    b->in.data[0][i] = (uint8_t) (state >> 32);
  }
  b->in_mem = device_buffer (b->engine, size, b->in.data[0]);
  b->out_mem = device_buffer (b->engine, size, NULL);
  GError *err = NULL;
  if (!(b->plan = clf_plan_new (b->engine, &b->format, &err)))
    die ("clf_plan_new", err);
}

static void
bench_frames_clear (Bench * b)
{
  clf_plan_free (b->plan);
  clReleaseMemObject (b->in_mem);
  clReleaseMemObject (b->out_mem);
  /* the blocks of every plane */
  host_block_free (b, b->in.data[0], b->host_blocks[0]);
  host_block_free (b, b->out.data[0], b->host_blocks[1]);
  free (b->exact);
  b->exact = NULL;
}

/* ---- one case -------------------------------------------------------- */

/* The frame in the device buffer `mem`, laid out as the host's. */
static ClfFrame
device_frame (const Bench * b, cl_mem mem)
{
  ClfFrame frame = { {0} };
  for (uint32_t i = 0; i < b->format.n_planes; i++) {
    frame.mem[i] = mem;
    frame.offset[i] = plane_offset (b, i);
    frame.stride[i] = b->in.stride[i];
  }
  return frame;
}

static double
device_frame_ms (Bench * b, const ClfParams * params)
{
  ClfFrame src = device_frame (b, b->in_mem);
  ClfFrame dst = device_frame (b, b->out_mem);
  ClfFrameStats stats = { 0 };
  GError *err = NULL;
  if (!clf_plan_process (b->plan, params, &src, &dst, &stats, &err))
    die ("clf_plan_process", err);
  return stats.kernel_ns / 1e6;
}

static double
host_frame_ms (Bench * b, const ClfParams * params)
{
  ClfFrameStats stats;
  GError *err = NULL;
  double start = now_ms ();
  if (!clf_plan_process_host (b->plan, params, &b->in, &b->out, &stats, &err))
    die ("clf_plan_process_host", err);
  return now_ms () - start;
}

/* "exact", "same", "unchecked" or "MISMATCH" for the bytes in b->out. */
static const char *
check_output (Bench * b, const ClfParams * params, const Options * o)
{
  size_t size = frame_bytes (b);
  bool blur = params->mode != CLF_MODE_LAPLACE;
  double pixels = (double) b->format.components[0].width
      * b->format.components[0].height;
  bool gauss = params->mode == CLF_MODE_GAUSSIAN
      || params->mode == CLF_MODE_UNSHARP;
  /* The reference sums the Gaussian's 6 sigma + 1 weights a sample. */
  double reach = gauss ? 3 * params->sigma : params->radius;
  bool reference_affordable = !blur
      || pixels * (reach + 1) <= o->check_pixels * 256;
  bool have_exact = blur && !gauss && b->exact
      && b->exact_radius == params->radius;
  const char *verdict;

  if (!reference_affordable && have_exact) {
    verdict = memcmp (b->out.data[0], b->exact, size) ? "MISMATCH" : "same";
  } else if (!reference_affordable) {
    verdict = "unchecked";
  } else {
    uint8_t *want = calloc (1, size);
    ClfHostFrame ref = b->out;
    for (uint32_t i = 0; i < b->format.n_planes; i++)
      ref.data[i] = want + plane_offset (b, i);
    clf_ref_filter_frame (params, &b->format, &b->in, &ref);
    verdict = memcmp (b->out.data[0], want, size) ? "MISMATCH" : "exact";
    free (want);
  }
  if (blur && !gauss && !have_exact && verdict[0] != 'M') {
    free (b->exact);
    b->exact = malloc (size);
    memcpy (b->exact, b->out.data[0], size);
    b->exact_radius = params->radius;
  }
  if (verdict[0] == 'M')
    mismatches++;
  return verdict;
}

static void
run_case (Bench * b, const char *device, const ClfParams * params,
    const Options * o)
{
  bool box = params->mode == CLF_MODE_BOX;
  if (params->mode == CLF_MODE_GAUSSIAN || params->mode == CLF_MODE_UNSHARP)
    printf ("%s\t%s\t%g\t", device, clf_mode_name (params->mode),
        params->sigma);
  else
    printf ("%s\t%s\t%u\t", device, clf_mode_name (params->mode),
        params->radius);
  printf ("%ux%u\t", b->format.components[0].width,
      b->format.components[0].height);
  if (box && b->last_box_ms_per_read > 0
      && b->last_box_ms_per_read * clf_test_box_reads (&b->format,
          params->radius) > o->budget_ms) {
    printf ("-\t-\t0\t-\tskipped\t%s\n", b->bench_format->name);
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
  double kernel_median = clf_test_median (kernel, n);
  if (box)
    b->last_box_ms_per_read =
        kernel_median / clf_test_box_reads (&b->format, params->radius);
  printf ("%.4f\t%.4f\t%u\t%.1f\t%s\t%s\n", kernel_median, kernel_min, n,
      1e3 / clf_test_median (host, n_host), verdict, b->bench_format->name);
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
  for (ClfMode m = CLF_MODE_BOX; m <= CLF_MODE_UNSHARP; m++)
    if (m != CLF_MODE_CONVOLVE && !strcmp (name, clf_mode_name (m)))
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

/* Every size, radius and mode of the bench's format on one device. */
static void
bench_sizes (Bench * b, const char *spec, const Options * o)
{
  char size_text[32], mode_text[32], radius_text[16];
  const char *sizes = o->sizes;
  while (next_item (&sizes, size_text, sizeof size_text)) {
    unsigned w = 0, h = 0;
    if (sscanf (size_text, "%ux%u", &w, &h) != 2 || !w || !h) {
      fprintf (stderr, "clf-bench: bad size '%s'\n", size_text);
      exit (2);
    }
    bench_frames_init (b, w, h);
    /* Radius by radius, every mode, so each blur's bytes can be compared
     * with the mode before it where the reference would be too slow. */
    const char *radii = o->radii;
    bool laplace_done = false;  /* laplace has no radius: once per size */
    while (next_item (&radii, radius_text, sizeof radius_text)) {
      const char *modes = o->modes;
      while (next_item (&modes, mode_text, sizeof mode_text)) {
        ClfParams params = {.mode = mode_from_name (mode_text),
          .radius = (uint32_t) atoi (radius_text),
          .border = CLF_BORDER_MIRROR,.sigma = atof (radius_text),
          .amount = 1
        };
        if (params.mode == CLF_MODE_LAPLACE) {
          if (laplace_done)
            continue;
          laplace_done = true;
          params.radius = 0;
        }
        run_case (b, spec, &params, o);
      }
    }
    b->last_box_ms_per_read = 0;
    bench_frames_clear (b);
  }
}

static void
bench_device (const char *spec, const Options * o)
{
  GError *err = NULL;
  Bench b = {.pinned = strcmp (o->host_memory, "pageable") != 0 };
  if (!(b.engine = clf_engine_new (spec, &err)))
    die (spec, err);
  fprintf (stderr, "device %s: %s\n", spec, clf_engine_device_name (b.engine));

  char format_text[32];
  const char *formats = o->formats;
  while (next_item (&formats, format_text, sizeof format_text)) {
    b.bench_format = bench_format (format_text);
    bench_sizes (&b, spec, o);
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
    .formats = "rgba",
    .host_memory = "pinned",
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
    else if (!strcmp (k, "--formats") || !strcmp (k, "--format"))
      o.formats = v;
    else if (!strcmp (k, "--host-memory") && (!strcmp (v, "pinned")
            || !strcmp (v, "pageable")))
      o.host_memory = v;
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
      "\tframes\thost-fps\tcheck\tformat\n");
  char spec[64];
  const char *devices = o.devices;
  while (next_item (&devices, spec, sizeof spec))
    bench_device (spec, &o);
  return mismatches ? 1 : 0;
}
