/* Engine tests: every mode, border, radius and size on random bytes, byte
 * for byte against the C reference, on whatever OpenCL device "auto" (or
 * CLFILTER_DEVICE) picks.  Plain C: the engine needs no GStreamer.
 *
 *   test-engine [matrix|layouts|formats|oracle|devices|invalid|frames|cache|stats|long|faults|convolve]...
 * (default: all; faults needs the test layer, tests/layer/, in
 * OPENCL_LAYERS, as meson test sets it)
 *   test-engine cache-start   one start of an engine (the cache tests run
 *                             it as a child process)
 * CLF_TEST_SEED=<n> repeats a run's random data (and the quick tier's
 * sample).  CLF_TEST_TIER=quick runs a sample of the big matrices (every
 * size, radius, layout and format family still, each in fewer
 * combinations); unset or "full", all of them. */
/* flock */
#define _DEFAULT_SOURCE
#include "config.h"
#include "clf-private.h"        /* the cache's entries, to plant some */
#include "clf-kernels.h"         /* the kernels' sources, to run parts */
#include "reference.h"

#include <dirent.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The naive box reads (2r+1)^2 samples per pixel; on a CPU a case above
 * this many reads would take minutes (640x480 at r=1023 is 1.3e12). */
#define CPU_BOX_READ_BUDGET 4.0e10

static int failures;
static uint64_t rng_state;
/* The quick tier: which combinations of the matrices run (see sampled). */
static bool quick_tier;
static size_t sample_offset;
static ClfEngine *engine;
static bool device_is_cpu;

#define CHECK(cond, ...)                                            \
  do {                                                              \
    if (!(cond)) {                                                  \
      failures++;                                                   \
      fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__);          \
      fprintf (stderr, __VA_ARGS__);                                \
      fputc ('\n', stderr);                                         \
    }                                                               \
  } while (0)

/* The message of `err` for a failure's report, which may come without
 * one. */
static const char *
message_of (const GError * err)
{
  return err ? err->message : "(no error)";
}

static uint64_t
next_random (void)
{
  /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ull;
}

#define CANARY 0xA5

/* A host frame with padded rows: the padding holds a canary that must
 * survive, and the pixels random bytes. */
static void
test_frame_init (ClfHostFrame * t, const ClfFrameFormat * format, bool random)
{
  memset (t, 0, sizeof *t);
  for (uint32_t i = 0; i < format->n_planes; i++) {
    size_t row = clf_frame_format_row_bytes (format, i);
    uint32_t rows = clf_frame_format_rows (format, i);
    size_t size;
    t->stride[i] = row + next_random () % 19;
    size = t->stride[i] * rows;
    t->data[i] = malloc (size);
    t->size[i] = size;
    memset (t->data[i], CANARY, size);
    for (uint32_t y = 0; random && y < rows; y++)
      for (size_t x = 0; x < row; x++)
        t->data[i][y * t->stride[i] + x] =
            (uint8_t) (next_random () >> 56);
  }
}

static void
test_frame_clear (ClfHostFrame * t)
{
  for (int i = 0; i < CLF_MAX_PLANES; i++)
    free (t->data[i]);
}

/* Same pixels, same canaries: compares whole planes, padding included. */
static bool
frames_equal (const ClfFrameFormat * format, const ClfHostFrame * got,
    const ClfHostFrame * want, const char *what)
{
  for (uint32_t i = 0; i < format->n_planes; i++) {
    size_t row = clf_frame_format_row_bytes (format, i);
    for (uint32_t y = 0; y < clf_frame_format_rows (format, i); y++)
      for (size_t x = 0; x < got->stride[i]; x++) {
        uint8_t g = got->data[i][y * got->stride[i] + x];
        uint8_t w = x < row ?
            want->data[i][y * want->stride[i] + x] : CANARY;
        if (g != w) {
          CHECK (false, "%s: plane %u, row %u, byte %zu%s: got %u, want %u",
              what, i, y, x, x < row ? "" : " (padding)", g, w);
          return false;
        }
      }
  }
  return true;
}

static void
describe (char *buf, size_t size, const char *layout,
    const ClfFrameFormat * format, const ClfParams * params)
{
  if (params->mode == CLF_MODE_CONVOLVE)
    snprintf (buf, size, "%s %ux%u mode=convolve border=%s kernel %ux%u "
        "divisor=%d bias=%d", layout, format->components[0].width,
        format->components[0].height, clf_border_name (params->border),
        params->kernel.size, params->kernel.size, params->kernel.divisor,
        params->kernel.bias);
  else
    snprintf (buf, size, "%s %ux%u mode=%s border=%s radius=%u", layout,
        format->components[0].width, format->components[0].height,
        clf_mode_name (params->mode), clf_border_name (params->border),
        params->radius);
}

static double
box_reads (const ClfFrameFormat * format, uint32_t radius)
{
  double side = 2.0 * radius + 1, reads = 0;
  for (uint32_t i = 0; i < format->n_components; i++)
    reads += side * side * format->components[i].width
        * format->components[i].height;
  return reads;
}

static int skipped_box_cases;
/* The naive box cases a CPU device runs: those within this many reads. */
static double cpu_box_budget = CPU_BOX_READ_BUDGET;

/* A plan for `format`, or NULL with the failure recorded. */
static ClfPlan *
plan_for (const char *layout, const ClfFrameFormat * format)
{
  GError *err = NULL;
  ClfPlan *plan = clf_plan_new (engine, format, &err);
  CHECK (plan, "clf_plan_new (%s): %s", layout, message_of (err));
  g_clear_error (&err);
  return plan;
}

/* Runs one mode on `in` and compares the result with `want`; the output
 * is kept in `out` for the caller. */
static bool
run_and_compare (ClfPlan * plan, const ClfParams * params,
    const ClfFrameFormat * format, const char *what, const ClfHostFrame * in,
    ClfHostFrame * out, const ClfHostFrame * want)
{
  GError *err = NULL;
  ClfFrameStats stats;
  test_frame_init (out, format, false);
  bool ok = clf_plan_process_host (plan, params, in, out,
      &stats, &err);
  CHECK (ok, "%s: %s", what, message_of (err));
  g_clear_error (&err);
  if (!ok)
    return false;
  CHECK (stats.copies == 2, "%s: %u copies", what, stats.copies);
  CHECK (stats.kernel_ns > 0, "%s: no kernel time", what);
  return frames_equal (format, out, want, what);
}

/* Filters `in` with `params` and checks every byte against the C
 * reference's. */
static void
check_against_reference (ClfPlan * plan, const ClfParams * params,
    const ClfFrameFormat * format, const char *what, const ClfHostFrame * in)
{
  ClfHostFrame want, out;
  test_frame_init (&want, format, false);
  clf_ref_filter_frame (params, format, in, &want);
  if (run_and_compare (plan, params, format, what, in, &out, &want))
    test_frame_clear (&out);
  test_frame_clear (&want);
}

/* Runs every mode with both borders at `radius` on one random frame;
 * checks each against the reference and the blurs against each other. */
static void
check_format_at_radius (const char *layout, const ClfFrameFormat * format,
    uint32_t radius)
{
  ClfPlan *plan = plan_for (layout, format);
  if (!plan)
    return;

  ClfHostFrame in;
  test_frame_init (&in, format, true);
  for (ClfBorder border = CLF_BORDER_CLAMP; border <= CLF_BORDER_MIRROR;
      border++) {
    ClfParams blur = { CLF_MODE_SEPARABLE, radius, border };
    ClfParams sharpen = { CLF_MODE_LAPLACE, radius, border };
    ClfHostFrame want_blur, want_sharpen, first_blur, out;
    test_frame_init (&want_blur, format, false);
    test_frame_init (&want_sharpen, format, false);
    clf_ref_filter_frame (&blur, format, &in, &want_blur);
    clf_ref_filter_frame (&sharpen, format, &in, &want_sharpen);
    bool have_first_blur = false;

    for (ClfMode mode = CLF_MODE_BOX; mode <= CLF_MODE_LAPLACE; mode++) {
      ClfParams params = { mode, radius, border };
      bool is_blur = mode != CLF_MODE_LAPLACE;
      char what[160];
      describe (what, sizeof what, layout, format, &params);
      if (mode == CLF_MODE_BOX && device_is_cpu
          && box_reads (format, radius) > cpu_box_budget) {
        printf ("  skip %s: %.2g naive reads is too many for a CPU device\n",
            what, box_reads (format, radius));
        skipped_box_cases++;
        continue;
      }
      bool ok = run_and_compare (plan, &params, format, what, &in, &out,
          is_blur ? &want_blur : &want_sharpen);
      if (ok && is_blur && have_first_blur)
        frames_equal (format, &out, &first_blur, what);
      if (ok && is_blur && !have_first_blur) {
        first_blur = out;
        have_first_blur = true;
      } else {
        test_frame_clear (&out);
      }
    }
    if (have_first_blur)
      test_frame_clear (&first_blur);
    test_frame_clear (&want_blur);
    test_frame_clear (&want_sharpen);
  }
  test_frame_clear (&in);
  clf_plan_free (plan);
}

/* A frame of one plane of bpp 8-bit samples a pixel, the masks' samples
 * blurred and sharpened, the others copied. */
#define one_plane clf_ref_byte_plane

static const uint32_t radii[] = { 0, 1, 2, 7, 30, 1023 };

static const struct {
  uint32_t w, h;
} sizes[] = { {1, 1}, {1, 7}, {7, 1}, {13, 11}, {97, 61}, {640, 480} };

#define N_OF(a) (sizeof (a) / sizeof (a)[0])

/* Whether the case whose indices add up to `sum` runs: every case in the
 * full tier; in the quick tier one in `every`, turned by the seed.  With
 * one index that steps through `every` consecutive values, each value of
 * the others still runs once. */
static bool
sampled (size_t sum, size_t every)
{
  return !quick_tier || (sum + sample_offset) % every == 0;
}

/* A frame of n planes of 8-bit samples, each {width, height, bytes per
 * pixel, blur mask, laplace mask}. */
static ClfFrameFormat
byte_planes (uint32_t n, const uint32_t planes[][5])
{
  ClfFrameFormat f = { 0 };
  for (uint32_t i = 0; i < n; i++)
    clf_ref_add_byte_plane (&f, planes[i][0], planes[i][1], planes[i][2],
        (uint8_t) planes[i][3], (uint8_t) planes[i][4]);
  return f;
}

/* The issue's matrix: every mode x border x radius x size, one byte per
 * pixel. */
static void
test_matrix (void)
{
  for (size_t s = 0; s < N_OF (sizes); s++)
    for (size_t r = 0; r < N_OF (radii); r++) {
      if (!sampled (s + r, N_OF (radii)))
        continue;
      ClfFrameFormat f = one_plane (sizes[s].w, sizes[s].h, 1, 1, 1);
      check_format_at_radius ("gray", &f, radii[r]);
    }
  /* The CPUs' sliding blur takes 8-bit means in float, as it is up to a
   * window of 127^2 and with a correction beyond (cpu_means in blur-strips-cpu.cl):
   * frames at the windows either side (test_means checks the arithmetic),
   * on rows that end in less than a run of 16 samples. */
  ClfFrameFormat rgba = one_plane (333, 97, 4, 0x7, 0x7);
  check_format_at_radius ("rgba", &rgba, 63);
  check_format_at_radius ("rgba", &rgba, 64);
}

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
static void
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

/* A blur of `in` with both borders against the reference. */
static void
check_both_borders (ClfPlan * plan, const ClfFrameFormat * f,
    const ClfHostFrame * in, ClfMode mode, uint32_t radius,
    const char *layout)
{
  for (ClfBorder border = CLF_BORDER_CLAMP; border <= CLF_BORDER_MIRROR;
      border++) {
    ClfParams params = { mode, radius, border };
    char what[160];
    describe (what, sizeof what, layout, f, &params);
    check_against_reference (plan, &params, f, what, in);
  }
}

/* The bytes the blurs of `bpp` bytes a pixel filter: RGBA's alpha is
 * copied. */
static uint8_t
blurred_bytes (uint32_t bpp)
{
  return bpp == 4 ? 0x7 : (uint8_t) ((1u << bpp) - 1);
}

/* The sliding blur, and with `separable` the separable one, of a random
 * plane of w x h pixels of `bpp` bytes at each of n plane_radii, both
 * borders, against the reference. */
static void
check_plane_blurs (const char *what, uint32_t w, uint32_t h, uint32_t bpp,
    const uint32_t * plane_radii, size_t n, bool separable)
{
  ClfFrameFormat f = one_plane (w, h, bpp, blurred_bytes (bpp), 1);
  ClfPlan *plan = plan_for (what, &f);
  if (!plan)
    return;
  ClfHostFrame in;
  char layout[48];
  snprintf (layout, sizeof layout, "%u bytes a pixel (%s)", bpp, what);
  test_frame_init (&in, &f, true);
  for (size_t r = 0; r < n; r++) {
    check_both_borders (plan, &f, &in, CLF_MODE_SLIDING, plane_radii[r],
        layout);
    if (separable)
      check_both_borders (plan, &f, &in, CLF_MODE_SEPARABLE,
          plane_radii[r], layout);
  }
  test_frame_clear (&in);
  clf_plan_free (plan);
}

/* The separable and sliding blurs of rows several tiles of the GPUs'
 * one-pass kernels wide (a tile is `tile` pixels less 2r and less a run,
 * in whole runs) and several tiles tall, at radii they take (up to 15;
 * 8-bit RGBA's packed window sums up to 7) and the two-pass blurs' first,
 * both borders, against the reference. */
static void
check_rows_of_tiles (void)
{
  /* Staged rows of 2 tiles + 37 pixels are not 16-byte aligned, of + 48
   * they are (but RGB's): the kernel's aligned loads and stores. */
  static const uint32_t extra[] = { 37, 48 };
  static const uint32_t tile_radii[] = { 1, 2, 7, 8, 15, 16 };
  for (uint32_t bpp = 1; bpp <= 4; bpp++)
    for (size_t i = 0; i < N_OF (extra); i++) {
      ClfLayout pixels = {.units = bpp };
      uint32_t tile = CLF_TILE_GROUP * clf_tile_run_pixels (&pixels);
      check_plane_blurs ("tiles", tile * 2 + extra[i], 71, bpp, tile_radii,
          N_OF (tile_radii), true);
    }
}

/* The GPUs' sliding blur with 16-bit column sums (8-bit samples, past the
 * tiles up to CLF_NARROW_MAX_RADIUS) of rows of three chunks of
 * narrow_row_means at every radius here (a chunk's local memory holds
 * clf_narrow_pixels, r either side included), and at the first radius
 * past it, both borders, against the reference. */
static void
check_rows_of_chunks (void)
{
  static const uint32_t chunk_radii[] = { CLF_TILES_MAX_RADIUS + 1, 61,
    CLF_NARROW_MAX_RADIUS, CLF_NARROW_MAX_RADIUS + 1
  };
  for (uint32_t bpp = 1; bpp <= 4; bpp++) {
    ClfLayout pixels = {.sample_bytes = 1,.units = bpp };
    check_plane_blurs ("chunks", 2 * clf_narrow_pixels (&pixels) + 37, 9,
        bpp, chunk_radii, N_OF (chunk_radii), false);
  }
}

/* The CPUs' sliding strips take a row's windows from prefix sums in
 * three stretches (pixels 0..r, the inner ones, the last r) of runs of 16
 * samples, or a pixel at a time where a stretch is shorter than a run or
 * the row is narrower than the window; the strips seed at the frame's
 * edges, the last one going up.  Rows at each of those boundaries, frames
 * shorter and taller than the window. */
static void
check_strip_stretches (void)
{
  static const uint32_t strip_radii[] = { 3, 20 };
  for (uint32_t bpp = 1; bpp <= 4; bpp++)
    for (size_t r = 0; r < N_OF (strip_radii); r++) {
      uint32_t window = 2 * strip_radii[r] + 1, run = 16 / bpp;
      const uint32_t widths[] = { window - 2, window - 1, window,
        window + 1, window + run - 1, window + run, window + 2 * run + 3
      };
      const uint32_t heights[] = { strip_radii[r], 23 };
      for (size_t i = 0; i < N_OF (widths); i++)
        for (size_t j = 0; j < N_OF (heights); j++)
          check_plane_blurs ("stretches", widths[i], heights[j], bpp,
              &strip_radii[r], 1, false);
    }
}

/* Packed and multi-plane layouts: copied alpha/padding bytes, interleaved
 * chroma, subsampled planes copied under laplace. */
static void
test_layouts (void)
{
  check_rows_of_tiles ();
  check_rows_of_chunks ();
  check_strip_stretches ();
  static const uint32_t layout_radii[] = { 0, 1, 7, 30 };
  for (size_t s = 0; s < 5; s++) {
    uint32_t w = sizes[s].w, h = sizes[s].h;
    uint32_t cw = (w + 1) / 2, ch = (h + 1) / 2;
    struct {
      const char *name;
      ClfFrameFormat f;
    } layouts[] = {
      {"rgba", one_plane (w, h, 4, 0x7, 0x7)},
      {"argb", one_plane (w, h, 4, 0xE, 0xE)},
      {"rgb", one_plane (w, h, 3, 0x7, 0x7)},
      {"uv", one_plane (w, h, 2, 0x3, 0x3)},
      {"i420", byte_planes (3, (const uint32_t[][5]) {{w, h, 1, 1, 1},
                  {cw, ch, 1, 1, 0}, {cw, ch, 1, 1, 0}})},
      {"nv12", byte_planes (2, (const uint32_t[][5]) {{w, h, 1, 1, 1},
                  {cw, ch, 2, 3, 0}})},
    };
    for (size_t l = 0; l < N_OF (layouts); l++)
      for (size_t r = 0; r < N_OF (layout_radii); r++)
        if (sampled (s + l + r, N_OF (layout_radii)))
          check_format_at_radius (layouts[l].name, &layouts[l].f,
              layout_radii[r]);
  }
}

/* A component of w x h samples: plane, container offset, pixel stride,
 * depth, shift, byte order, role. */
static ClfComponent
component (uint32_t plane, uint32_t offset, uint32_t pstride, uint32_t w,
    uint32_t h, uint32_t depth, uint32_t shift, bool big_endian,
    ClfComponentRole role)
{
  return (ClfComponent) {
  plane, offset, pstride, w, h, depth, shift, big_endian, role};
}

#define SHARP CLF_COMPONENT_SHARPENED
#define BLUR CLF_COMPONENT_BLURRED
#define ALPHA CLF_COMPONENT_COPIED

/* The families of formats beyond 8-bit bytes, at w x h: 16-bit samples
 * (full, low and high bits, either byte order), packed 4:2:2 (odd widths
 * leave half the last pixel pair unused; YVYU lists its chroma in the
 * other order of their bytes), alpha copied in a packed pixel and as a
 * plane of its own (A420).  At most 16. */
static size_t
format_families (uint32_t w, uint32_t h, const char **names,
    ClfFrameFormat * f)
{
  const uint32_t cw = (w + 1) / 2, ch = (h + 1) / 2;
  const ClfFrameFormat families[] = {
    {1, 1, {component (0, 0, 2, w, h, 16, 0, false, SHARP)}},
    {3, 3, {component (0, 0, 2, w, h, 10, 0, false, SHARP),
            component (1, 0, 2, cw, ch, 10, 0, false, BLUR),
            component (2, 0, 2, cw, ch, 10, 0, false, BLUR)}},
    {2, 3, {component (0, 0, 2, w, h, 10, 6, false, SHARP),
            component (1, 0, 4, cw, ch, 10, 6, false, BLUR),
            component (1, 2, 4, cw, ch, 10, 6, false, BLUR)}},
    {1, 1, {component (0, 0, 2, w, h, 16, 0, true, SHARP)}},
    {1, 1, {component (0, 0, 2, w, h, 12, 4, true, SHARP)}},
    {1, 4, {component (0, 0, 8, w, h, 16, 0, true, SHARP),
            component (0, 2, 8, w, h, 16, 0, true, SHARP),
            component (0, 4, 8, w, h, 16, 0, true, SHARP),
            component (0, 6, 8, w, h, 16, 0, true, ALPHA)}},
    {1, 3, {component (0, 0, 2, w, h, 8, 0, false, SHARP),
            component (0, 1, 4, cw, h, 8, 0, false, BLUR),
            component (0, 3, 4, cw, h, 8, 0, false, BLUR)}},
    {1, 3, {component (0, 1, 2, w, h, 8, 0, false, SHARP),
            component (0, 0, 4, cw, h, 8, 0, false, BLUR),
            component (0, 2, 4, cw, h, 8, 0, false, BLUR)}},
    {1, 3, {component (0, 0, 2, w, h, 8, 0, false, SHARP),
            component (0, 3, 4, cw, h, 8, 0, false, BLUR),
            component (0, 1, 4, cw, h, 8, 0, false, BLUR)}},
    {1, 3, {component (0, 0, 4, w, h, 10, 6, false, SHARP),
            component (0, 2, 8, cw, h, 10, 6, false, BLUR),
            component (0, 6, 8, cw, h, 10, 6, false, BLUR)}},
    {1, 4, {component (0, 1, 4, w, h, 8, 0, false, SHARP),
            component (0, 2, 4, w, h, 8, 0, false, BLUR),
            component (0, 3, 4, w, h, 8, 0, false, BLUR),
            component (0, 0, 4, w, h, 8, 0, false, ALPHA)}},
    {4, 4, {component (0, 0, 1, w, h, 8, 0, false, SHARP),
            component (1, 0, 1, cw, ch, 8, 0, false, BLUR),
            component (2, 0, 1, cw, ch, 8, 0, false, BLUR),
            component (3, 0, 1, w, h, 8, 0, false, ALPHA)}},
  };
  static const char *const family_names[] = { "gray16", "i420-10",
    "p010", "gray16-be", "gray12-be", "rgba64-be", "yuy2", "uyvy", "yvyu",
    "y210", "ayuv", "a420"
  };
  G_STATIC_ASSERT (N_OF (families) == N_OF (family_names));
  for (size_t i = 0; i < N_OF (families); i++) {
    names[i] = family_names[i];
    f[i] = families[i];
  }
  return N_OF (families);
}

/* The largest sums a radius gives: every value at its maximum (every bit
 * of the container set) or a checkerboard of 0 and the maximum, at the
 * radii where the 16-bit mean changes method (r=90/91 for 16-bit values,
 * 723/724 for 10-bit) and where window sums pass 2^32 (127/128); the
 * separable and sliding blurs against the reference. */
static void
check_extreme_values (void)
{
  static const uint32_t edge_radii[] = { 90, 91, 127, 128, 723, 724 };
  const char *names[16];
  ClfFrameFormat f[16];
  format_families (61, 37, names, f);
  for (size_t family = 0; family < 2; family++)        /* gray16, i420-10 */
    for (int checker = 0; checker < 2; checker++) {
      ClfFrameFormat *format = &f[family];
      ClfPlan *plan = plan_for (names[family], format);
      if (!plan)
        return;
      ClfHostFrame in;
      test_frame_init (&in, format, false);
      for (uint32_t i = 0; i < format->n_planes; i++)
        for (uint32_t y = 0; y < clf_frame_format_rows (format, i); y++)
          for (size_t x = 0; x < clf_frame_format_row_bytes (format, i); x++)
            in.data[i][y * in.stride[i] + x] =
                checker && (x / 2 + y) % 2 ? 0 : 0xff;
      for (size_t r = 0; r < N_OF (edge_radii); r++)
        for (ClfMode mode = CLF_MODE_SEPARABLE; mode <= CLF_MODE_SLIDING;
            mode++) {
          ClfParams params = { mode, edge_radii[r], CLF_BORDER_MIRROR };
          char what[160];
          describe (what, sizeof what, checker ? "checkerboard" : "maximum",
              format, &params);
          check_against_reference (plan, &params, format, what, &in);
        }
      test_frame_clear (&in);
      clf_plan_free (plan);
    }
}

static void check_deep_frames (void);

/* Values of fewer than 8 bits in byte containers, above spare low bits
 * (the engine takes any depth and shift that fit a byte; no GStreamer
 * format has them): gray, and four samples a pixel, at radii of each GPU
 * path (the tiles, the 16-bit column sums, the 32-bit ones). */
static void
check_shifted_bytes (void)
{
  static const uint32_t shifted_radii[] = { 1, 9, 30, 140 };
  /* 48 pixels: rows of 16-byte multiples, which laplace_words takes in
   * aligned words. */
  for (uint32_t i = 0; i < 4; i++) {
    uint32_t bpp = i % 2 ? 4 : 1;
    ClfFrameFormat f = one_plane (i < 2 ? 37 : 48, 21, bpp,
        (uint8_t) ((1u << bpp) - 1), 1);
    for (uint32_t c = 0; c < bpp; c++) {
      f.components[c].depth = 6;
      f.components[c].shift = 2;
    }
    for (size_t r = 0; r < N_OF (shifted_radii); r++)
      check_format_at_radius (bpp == 1 ? "6 bits << 2, gray" :
          "6 bits << 2, 4 a pixel", &f, shifted_radii[r]);
  }
}

/* Every family at the issue's radii, both borders, every mode (the naive
 * box on a CPU within 2e8 reads a case), odd sizes and 720p: the GPUs'
 * 8-bit sliding blur takes 16-bit column sums at r=30 (narrow_row_means),
 * 16-bit window sums pass 2^32 above r=127. */
static void
test_formats (void)
{
  static const uint32_t format_radii[] = { 0, 1, 9, 30, 140, 1023 };
  static const struct {
    uint32_t w, h;
  } format_sizes[] = { {1, 1}, {7, 1}, {1, 7}, {13, 11}, {37, 21} };
  cpu_box_budget = 2e8;
  for (size_t s = 0; s < N_OF (format_sizes); s++) {
    const char *names[16];
    ClfFrameFormat f[16];
    size_t n = format_families (format_sizes[s].w, format_sizes[s].h, names,
        f);
    for (size_t i = 0; i < n; i++)
      for (size_t r = 0; r < N_OF (format_radii); r++)
        if (sampled (s + i + r, N_OF (format_radii)))
          check_format_at_radius (names[i], &f[i], format_radii[r]);
  }
  /* 720p, once each, at r=140: past the 32-bit sums (a quarter of the
   * families in the quick tier). */
  const char *names[16];
  ClfFrameFormat f[16];
  size_t n = format_families (1280, 720, names, f);
  for (size_t i = 0; i < n; i++)
    if (sampled (i, 4))
      check_format_at_radius (names[i], &f[i], 140);
  cpu_box_budget = CPU_BOX_READ_BUDGET;
  check_extreme_values ();
  check_deep_frames ();
  check_shifted_bytes ();
}

/* The oracle against the blur's definition on small planes. */
static void
test_oracle (void)
{
  for (size_t s = 0; s < 4; s++)
    for (size_t r = 0; r < 5; r++)
      for (ClfBorder b = CLF_BORDER_CLAMP; b <= CLF_BORDER_MIRROR; b++) {
        ClfFrameFormat f = one_plane (sizes[s].w, sizes[s].h, 4, 0xB, 0xB);
        ClfParams params = { CLF_MODE_SEPARABLE, radii[r], b };
        ClfHostFrame in, a, d;
        char what[160];
        describe (what, sizeof what, "oracle", &f, &params);
        test_frame_init (&in, &f, true);
        test_frame_init (&a, &f, false);
        test_frame_init (&d, &f, false);
        clf_ref_filter_frame (&params, &f, &in, &a);
        clf_ref_blur_by_definition (&params, &f, &in, &d);
        frames_equal (&f, &a, &d, what);
        test_frame_clear (&in);
        test_frame_clear (&a);
        test_frame_clear (&d);
      }
  /* Reflect-101 by hand, as DESIGN spells it. */
  CHECK (clf_ref_border (-1, 5, CLF_BORDER_MIRROR) == 1, "mirror -1");
  CHECK (clf_ref_border (-2, 5, CLF_BORDER_MIRROR) == 2, "mirror -2");
  CHECK (clf_ref_border (5, 5, CLF_BORDER_MIRROR) == 3, "mirror n");
  CHECK (clf_ref_border (9, 5, CLF_BORDER_MIRROR) == 1, "mirror twice");
  CHECK (clf_ref_border (-7, 1, CLF_BORDER_MIRROR) == 0, "mirror 1 wide");
  CHECK (clf_ref_border (-3, 5, CLF_BORDER_CLAMP) == 0, "clamp low");
  CHECK (clf_ref_border (8, 5, CLF_BORDER_CLAMP) == 4, "clamp high");
}

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

static void
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
  expect_device ("accelerator", clf_engine_new_would_find_accelerator (),
      NULL);

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

/* A 16-bit gray component, to be spoiled. */
static ClfComponent
gray16 (void)
{
  return (ClfComponent) {
  .plane = 0,.offset = 0,.pstride = 2,.width = 8,.height = 8,.depth = 16,
        .role = CLF_COMPONENT_SHARPENED};
}

/* Component descriptions the kernels cannot take, refused by the check
 * and by clf_plan_new with CLF_ERROR_INVALID. */
static void
check_invalid_formats (void)
{
  struct {
    const char *what;
    ClfFrameFormat f;
  } cases[] = {
    {"5 containers a pixel", clf_ref_byte_plane (8, 8, 5, 1, 1)},
    {"depth 0", {1, 1, {gray16 ()}}},
    {"depth 17", {1, 1, {gray16 ()}}},
    {"depth + shift 17", {1, 1, {gray16 ()}}},
    {"a 2-byte sample at an odd offset", {1, 1, {gray16 ()}}},
    {"a 2-byte sample past its pixel", {1, 1, {gray16 ()}}},
    {"RGB16's bit fields in one word", {1, 3, {gray16 (), gray16 (),
                gray16 ()}}},
    {"a plane with no component", {2, 1, {gray16 ()}}},
    {"one pixel, two depths", {1, 2, {gray16 (), gray16 ()}}},
    {"a component in no plane", {1, 1, {gray16 ()}}},
    {"planes of one row count apart", {1, 2, {gray16 (), gray16 ()}}},
    {"no component", {1, 0}},
  };
  cases[1].f.components[0].depth = 0;
  cases[2].f.components[0].depth = 17;
  cases[3].f.components[0].shift = 7;
  cases[3].f.components[0].depth = 10;
  cases[4].f.components[0].offset = 1;
  cases[4].f.components[0].pstride = 4;
  cases[5].f.components[0].offset = 2;
  for (int c = 0; c < 3; c++) {
    cases[6].f.components[c].depth = c == 1 ? 6 : 5;
    cases[6].f.components[c].shift = c == 0 ? 11 : c == 1 ? 5 : 0;
  }
  cases[8].f.components[1].offset = 2;
  cases[8].f.components[1].pstride = 4;
  cases[8].f.components[0].pstride = 4;
  cases[8].f.components[1].depth = 10;
  cases[9].f.components[0].plane = 1;
  cases[10].f.components[1].offset = 2;
  cases[10].f.components[1].pstride = 4;
  cases[10].f.components[0].pstride = 4;
  cases[10].f.components[1].height = 4;
  for (size_t c = 0; c < N_OF (cases); c++) {
    GError *err = NULL;
    ClfPlan *plan;
    CHECK (!clf_frame_format_check (&cases[c].f, &err)
        && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID),
        "%s: accepted by the check",
        cases[c].what);
    g_clear_error (&err);
    CHECK (!(plan = clf_plan_new (engine, &cases[c].f, &err))
        && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID), "%s: planned",
        cases[c].what);
    clf_plan_free (plan);
    g_clear_error (&err);
  }
  /* The same layouts put right are taken. */
  ClfFrameFormat good = { 1, 2, {gray16 (), gray16 ()} };
  good.components[0].pstride = good.components[1].pstride = 4;
  good.components[1].offset = 2;
  GError *err = NULL;
  CHECK (clf_frame_format_check (&good, &err), "two 16-bit samples a pixel: "
      "%s", message_of (err));
  g_clear_error (&err);
}

static void
test_invalid (void)
{
  GError *err = NULL;
  check_invalid_formats ();
  ClfFrameFormat bad = one_plane (0, 8, 1, 1, 1);
  CHECK (!clf_plan_new (engine, &bad, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID),
      "width 0 accepted");
  g_clear_error (&err);

  /* 1 GiB of GRAY8 (the size of RGBA 16384x16384): too large for the
   * blurs' sums (4 GiB), not for laplace where the device holds such a
   * buffer.  (One byte a pixel: the program the other cases use, which
   * matters under valgrind.) */
  cl_ulong max_alloc = 0;
  clGetDeviceInfo (clf_engine_device (engine), CL_DEVICE_MAX_MEM_ALLOC_SIZE,
      sizeof max_alloc, &max_alloc, NULL);
  ClfFrameFormat huge = one_plane (32768, 32768, 1, 1, 1);
  ClfPlan *big = clf_plan_new (engine, &huge, &err);
  if (max_alloc >= (cl_ulong) 32768 * 32768) {
    CHECK (big, "GRAY8 32768x32768 refused for laplace too: %s",
        message_of (err));
    CHECK (big && clf_plan_supports (big, CLF_MODE_LAPLACE, &err),
        "laplace refused: %s", message_of (err));
    CHECK (big && !clf_plan_supports (big, CLF_MODE_SLIDING, &err)
        && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID)
        && strstr (err->message, "too large to blur")
        && strstr (err->message, "laplace works"),
        "the blur's refusal: %s", message_of (err));
  } else {
    CHECK (!big && strstr (err->message, "allows at most"), "a %llu-byte "
        "frame on a device that allocates %llu: %s",
        (unsigned long long) 32768 * 32768,
        (unsigned long long) max_alloc, message_of (err));
  }
  g_clear_error (&err);
  clf_plan_free (big);

  ClfFrameFormat f = one_plane (8, 8, 1, 1, 1);
  ClfPlan *plan = clf_plan_new (engine, &f, &err);
  CHECK (plan, "8x8 plan: %s", message_of (err));
  g_clear_error (&err);
  ClfHostFrame in, out;
  test_frame_init (&in, &f, true);
  test_frame_init (&out, &f, false);
  ClfParams params = { CLF_MODE_SLIDING, CLF_MAX_RADIUS + 1,
    CLF_BORDER_CLAMP
  };
  ClfFrameStats stats;
  CHECK (!clf_plan_process_host (plan, &params, &in, &out,
          &stats, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID), "radius 1024");
  g_clear_error (&err);
  params.radius = 1;
  in.stride[0] = 7;
  CHECK (!clf_plan_process_host (plan, &params, &in, &out,
          &stats, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME), "short stride");
  g_clear_error (&err);
  /* A host plane whose last row would run past the memory it was given,
   * and strides whose products would wrap: refused before any copy. */
  in.stride[0] = out.stride[0];
  in.size[0] = in.stride[0] * 7 + 7;
  CHECK (!clf_plan_process_host (plan, &params, &in, &out,
          &stats, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME), "short host plane");
  g_clear_error (&err);
  in.size[0] = SIZE_MAX;
  in.stride[0] = (SIZE_MAX / 7) + 1;
  CHECK (!clf_plan_process_host (plan, &params, &in, &out,
          &stats, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME), "wrapping stride");
  g_clear_error (&err);
  in.stride[0] = (size_t) -64;
  CHECK (!clf_plan_process_host (plan, &params, &in, &out,
          &stats, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME), "negative stride");
  g_clear_error (&err);
  test_frame_clear (&in);
  test_frame_clear (&out);
  clf_plan_free (plan);
}

/* ---- frames in device buffers and wrapped host memory ---------------- */

/* A frame laid out in one block of memory, as a GStreamer buffer holds
 * it: planes at odd offsets with padded rows; every other byte a canary. */
typedef struct {
  uint8_t *bytes;
  size_t size;
  ClfFrame frame;               /* offsets and strides; data[] unset */
} Blob;

static void
blob_init (Blob * b, const ClfFrameFormat * format, const ClfHostFrame * from,
    uint8_t *storage)
{
  size_t offset = 3;
  memset (b, 0, sizeof *b);
  for (uint32_t i = 0; i < format->n_planes; i++) {
    /* Odd offsets and strides, but whole samples of 2 bytes. */
    size_t align = clf_frame_format_sample_bytes (format, i);
    offset = (offset + align - 1) / align * align;
    b->frame.offset[i] = offset;
    b->frame.stride[i] = clf_frame_format_row_bytes (format, i)
        + (1 + next_random () % 9) * align;
    offset += b->frame.stride[i] * clf_frame_format_rows (format, i) + 5;
  }
  b->size = offset;
  b->bytes = storage ? storage : malloc (b->size);
  memset (b->bytes, CANARY, b->size);
  for (uint32_t i = 0; from && i < format->n_planes; i++)
    for (uint32_t y = 0; y < clf_frame_format_rows (format, i); y++)
      memcpy (b->bytes + b->frame.offset[i] + y * b->frame.stride[i],
          from->data[i] + y * from->stride[i],
          clf_frame_format_row_bytes (format, i));
}

/* An empty blob (all canary) with the layout of `like`. */
static void
blob_like (Blob * b, const Blob * like)
{
  *b = *like;
  b->bytes = malloc (b->size);
  memset (b->bytes, CANARY, b->size);
}

/* The blob's planes as a host frame, to compare with frames_equal
 * (which also checks the canaries at the end of each row). */
static ClfHostFrame
blob_planes (const Blob * b)
{
  ClfHostFrame h = { {0} };
  for (uint32_t i = 0; i < CLF_MAX_PLANES; i++) {
    h.data[i] = b->bytes + b->frame.offset[i];
    h.stride[i] = b->frame.stride[i];
    h.size[i] = b->size - b->frame.offset[i];
  }
  return h;
}

/* No byte outside the planes' rows changed: the gaps between planes. */
static void
check_blob_gaps (const ClfFrameFormat * format, const Blob * b,
    const char *what)
{
  size_t at = 0;
  for (uint32_t i = 0; i <= format->n_planes; i++) {
    size_t end = i < format->n_planes ? b->frame.offset[i] : b->size;
    for (; at < end; at++)
      if (b->bytes[at] != CANARY) {
        CHECK (false, "%s: byte %zu between planes changed", what, at);
        return;
      }
    if (i < format->n_planes)
      at = end + b->frame.stride[i] * clf_frame_format_rows (format, i);
  }
}

static cl_mem
device_copy (const Blob * b)
{
  cl_int status;
  cl_mem mem = clCreateBuffer (clf_engine_context (engine),
      CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b->size, b->bytes, &status);
  CHECK (status == CL_SUCCESS, "clCreateBuffer: %s",
      clf_cl_status_name (status));
  return mem;
}

static void
read_back (cl_mem mem, Blob * b)
{
  cl_int status = clEnqueueReadBuffer (clf_engine_queue (engine), mem,
      CL_TRUE, 0, b->size, b->bytes, 0, NULL, NULL);
  CHECK (status == CL_SUCCESS, "clEnqueueReadBuffer: %s",
      clf_cl_status_name (status));
}

/* The frame in `b` as seen from device buffer `mem`, or (mem NULL) from
 * host memory. */
static ClfFrame
frame_of (const Blob * b, cl_mem mem)
{
  ClfFrame f = b->frame;
  for (uint32_t i = 0; i < CLF_MAX_PLANES; i++) {
    f.mem[i] = mem;
    f.data[i] = mem ? NULL : b->bytes + b->frame.offset[i];
    f.size[i] = mem ? 0 : b->size - b->frame.offset[i];
  }
  return f;
}

static void
process_and_check (ClfPlan * plan, const ClfParams * params,
    const ClfFrameFormat * format, const ClfFrame * src, const ClfFrame * dst,
    uint32_t copies, const char *what)
{
  GError *err = NULL;
  ClfFrameStats stats;
  bool ok = clf_plan_process (plan, params, src, dst, &stats, &err);
  CHECK (ok, "%s: %s", what, message_of (err));
  CHECK (!ok || stats.copies == copies, "%s: %u copies, want %u", what,
      stats.copies, copies);
  g_clear_error (&err);
}

static void
check_blob (const ClfFrameFormat * format, const Blob * got,
    const ClfHostFrame * want, const char *what)
{
  ClfHostFrame planes = blob_planes (got);
  frames_equal (format, &planes, want, what);
  check_blob_gaps (format, got, what);
}

/* A frame of random pixels and an empty one (all canary), as blobs, with
 * their device buffers (mem NULL where there is none). */
typedef struct {
  Blob src, dst;
  cl_mem src_mem, dst_mem;
} BlobPair;

/* `in`'s pixels and an empty frame, each in a device buffer of its own. */
static void
device_blobs_init (BlobPair * b, const ClfFrameFormat * format,
    const ClfHostFrame * in)
{
  blob_init (&b->src, format, in, NULL);
  blob_init (&b->dst, format, NULL, NULL);
  b->src_mem = device_copy (&b->src);
  b->dst_mem = device_copy (&b->dst);
}

static void
blob_pair_clear (BlobPair * b)
{
  if (b->src_mem)
    clReleaseMemObject (b->src_mem);
  if (b->dst_mem)
    clReleaseMemObject (b->dst_mem);
  free (b->src.bytes);
  free (b->dst.bytes);
}

/* Every pairing of device and host frames on one format and mode. */
static void
check_frame_pairings (const char *layout, const ClfFrameFormat * format,
    const ClfParams * params)
{
  ClfPlan *plan = plan_for (layout, format);
  if (!plan)
    return;

  char what[200], pairing[160];
  ClfHostFrame in, want;
  BlobPair b;
  test_frame_init (&in, format, true);
  test_frame_init (&want, format, false);
  clf_ref_filter_frame (params, format, &in, &want);
  device_blobs_init (&b, format, &in);
  describe (pairing, sizeof pairing, layout, format, params);

  /* Each destination starts as canaries, so stale output cannot pass. */
  const struct {
    const char *name;
    bool from_device, to_device;
    uint32_t copies;
  } cases[] = {
    {"device->device", true, true, 0},
    {"device->host", true, false, 1},
    {"host->device", false, true, 1},
  };
  for (size_t c = 0; c < N_OF (cases) && b.src_mem; c++) {
    Blob out;
    blob_like (&out, &b.dst);
    cl_mem out_mem = cases[c].to_device ? device_copy (&out) : NULL;
    ClfFrame from = frame_of (&b.src, cases[c].from_device ? b.src_mem :
        NULL);
    ClfFrame to = frame_of (&out, out_mem);
    snprintf (what, sizeof what, "%s %s", pairing, cases[c].name);
    process_and_check (plan, params, format, &from, &to, cases[c].copies,
        what);
    if (out_mem) {
      read_back (out_mem, &out);
      clReleaseMemObject (out_mem);
    }
    check_blob (format, &out, &want, what);
    free (out.bytes);
  }

  /* Planes of one frame in different buffers: each plane its own. */
  if (format->n_planes > 1 && b.src_mem && b.dst_mem) {
    ClfFrame from = frame_of (&b.src, b.src_mem);
    ClfFrame to = frame_of (&b.dst, b.dst_mem);
    from.mem[1] = NULL;
    from.data[1] = b.src.bytes + b.src.frame.offset[1];
    from.size[1] = b.src.size - b.src.frame.offset[1];
    snprintf (what, sizeof what, "%s one plane from host", pairing);
    process_and_check (plan, params, format, &from, &to, 1, what);
    read_back (b.dst_mem, &b.dst);
    check_blob (format, &b.dst, &want, what);
  }

  blob_pair_clear (&b);
  test_frame_clear (&in);
  test_frame_clear (&want);
  clf_plan_free (plan);
}

/* `in`'s pixels and an empty frame in 4096-aligned host memory, each
 * wrapped in a device buffer when `wrap` and the device allow it (else its
 * mem stays NULL); `err` says why the first that failed was not. */
static void
host_blobs_init (BlobPair * h, const ClfFrameFormat * format,
    const ClfHostFrame * in, bool wrap, GError ** err)
{
  GError *dst_err = NULL;
  blob_init (&h->src, format, in, aligned_alloc (4096, 1 << 20));
  blob_init (&h->dst, format, NULL, aligned_alloc (4096, 1 << 20));
  h->src_mem = wrap ? clf_engine_wrap_host (engine, h->src.bytes,
      h->src.size, err) : NULL;
  h->dst_mem = wrap ? clf_engine_wrap_host (engine, h->dst.bytes,
      h->dst.size, &dst_err) : NULL;
  if (dst_err && err && !*err)
    g_propagate_error (err, dst_err);
  else
    g_clear_error (&dst_err);
  /* frame_of keeps these: the plan hands wrapped planes back. */
  for (uint32_t i = 0; i < CLF_MAX_PLANES; i++) {
    h->src.frame.wrapped[i] = h->src_mem != NULL;
    h->dst.frame.wrapped[i] = h->dst_mem != NULL;
  }
}

/* Host memory wrapped in device buffers: no copy where the device shares
 * host memory and the pointer is aligned; refused otherwise. */
static void
check_wrapped_host (const ClfFrameFormat * format, const ClfParams * params)
{
  GError *err = NULL;
  ClfPlan *plan = plan_for ("wrapped", format);
  if (!plan)
    return;

  ClfHostFrame in, want;
  BlobPair h;
  test_frame_init (&in, format, true);
  test_frame_init (&want, format, false);
  clf_ref_filter_frame (params, format, &in, &want);
  host_blobs_init (&h, format, &in, true, &err);
  CHECK (!err, "wrap: %s", message_of (err));
  g_clear_error (&err);
  CHECK (!h.src_mem == !clf_engine_host_unified (engine), "an aligned "
      "pointer was %swrapped on a device that is %shost-unified",
      h.src_mem ? "" : "not ", clf_engine_host_unified (engine) ? "" : "not ");
  if (h.src_mem && h.dst_mem) {
    ClfFrame from = frame_of (&h.src, h.src_mem);
    ClfFrame to = frame_of (&h.dst, h.dst_mem);
    process_and_check (plan, params, format, &from, &to, 0, "wrapped host");
    /* The result is in the host memory itself, nothing read back. */
    check_blob (format, &h.dst, &want, "wrapped host");
  }

  /* One byte past the aligned storage. */
  cl_mem unaligned = clf_engine_wrap_host (engine, h.src.bytes + 1, 4096,
      &err);
  CHECK (!unaligned && !err,
      "an unaligned pointer was wrapped");
  g_clear_error (&err);
  if (unaligned)
    clReleaseMemObject (unaligned);

  blob_pair_clear (&h);
  test_frame_clear (&in);
  test_frame_clear (&want);
  clf_plan_free (plan);
}

/* A plane that does not fit its device buffer is refused. */
static void
check_plane_outside_buffer (void)
{
  GError *err = NULL;
  ClfFrameFormat f = one_plane (16, 4, 1, 1, 1);
  ClfPlan *plan = clf_plan_new (engine, &f, &err);
  ClfHostFrame in;
  test_frame_init (&in, &f, true);
  Blob b;
  blob_init (&b, &f, &in, NULL);
  cl_mem mem = device_copy (&b);
  ClfFrame frame = frame_of (&b, mem);
  frame.offset[0] = b.size - 16;        /* the last row would run off */
  ClfParams params = { CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP };
  ClfFrameStats stats;
  CHECK (plan && !clf_plan_process (plan, &params, &frame, &frame, &stats,
          &err) && g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME),
      "a plane beyond its buffer was accepted");
  g_clear_error (&err);
  if (mem)
    clReleaseMemObject (mem);
  free (b.bytes);
  test_frame_clear (&in);
  clf_plan_free (plan);
}

/* Plane `plane` of `b`'s frame one byte off its 2-byte samples: at an odd
 * offset, or with an odd stride. */
static Blob
misplaced (const Blob * b, uint32_t plane, bool odd_stride)
{
  Blob m = *b;                  /* the same bytes */
  m.frame.offset[plane] += odd_stride ? 0 : 1;
  m.frame.stride[plane] += odd_stride ? 1 : 0;
  return m;
}

/* 2-byte samples in a device buffer must lie on their alignment: an odd
 * offset or stride of a plane (the last, so the planes before it could
 * have been filtered), in the source or the destination buffer, is refused
 * for that reason before anything is enqueued: the destination keeps its
 * bytes.  Host planes may lie anywhere: the same odd places in host memory
 * are filtered. */
static void
check_odd_sample_placement (void)
{
  const char *names[16];
  ClfFrameFormat f[16];
  format_families (16, 4, names, f);
  /* i420-10: one program of 10-bit samples (memcheck runs this group). */
  const ClfFrameFormat *format = &f[1];
  const uint32_t last = format->n_planes - 1;
  GError *err = NULL;
  ClfPlan *plan = plan_for (names[1], format);
  ClfHostFrame in;
  test_frame_init (&in, format, true);
  BlobPair b;
  device_blobs_init (&b, format, &in);
  ClfParams params = { CLF_MODE_SLIDING, 1, CLF_BORDER_CLAMP };
  ClfFrameStats stats;
  for (int in_dst = 0; plan && b.src_mem && b.dst_mem && in_dst < 2; in_dst++)
    for (int odd_stride = 0; odd_stride < 2; odd_stride++) {
      char what[120];
      snprintf (what, sizeof what, "10-bit samples at an odd %s of the %s",
          odd_stride ? "stride" : "offset", in_dst ? "destination" :
          "source");
      Blob src = in_dst ? b.src : misplaced (&b.src, last, odd_stride);
      Blob dst = in_dst ? misplaced (&b.dst, last, odd_stride) : b.dst;
      ClfFrame from = frame_of (&src, b.src_mem);
      ClfFrame to = frame_of (&dst, b.dst_mem);
      CHECK (!clf_plan_process (plan, &params, &from, &to, &stats, &err)
          && g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME)
          && strstr (err->message,
              "multiples of 2"), "%s in a device buffer: %s", what,
          err ? err->message : "accepted");
      g_clear_error (&err);
      Blob got;
      blob_like (&got, &b.dst);
      read_back (b.dst_mem, &got);
      CHECK (!memcmp (got.bytes, b.dst.bytes, got.size), "%s: the refused "
          "frame wrote its destination", what);
      free (got.bytes);

      /* In host memory: filtered from and to those places. */
      Blob host = misplaced (&b.src, last, odd_stride), out;
      ClfHostFrame view = blob_planes (&host), want;
      test_frame_init (&want, format, false);
      clf_ref_filter_frame (&params, format, &view, &want);
      blob_like (&out, &host);
      from = frame_of (&host, NULL);
      to = frame_of (&out, NULL);
      strcat (what, " in host memory");
      process_and_check (plan, &params, format, &from, &to, 2, what);
      check_blob (format, &out, &want, what);
      free (out.bytes);
      test_frame_clear (&want);
    }
  blob_pair_clear (&b);
  test_frame_clear (&in);
  clf_plan_free (plan);
}

static cl_int
event_state (cl_event event)
{
  cl_int state = CL_COMPLETE;
  if (event)
    clGetEventInfo (event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state,
        &state, NULL);
  return state;
}

/* Frames in flight: two frames enqueued behind a user event held open
 * here, the second before the first is finished, run only once it
 * completes; finished in the other order, each has its figures and the
 * reference's bytes. */
static void
check_frames_in_flight (void)
{
  const ClfFrameFormat format = one_plane (61, 37, 4, 7, 7);
  const ClfParams params[2] = {
    {CLF_MODE_SLIDING, 3, CLF_BORDER_MIRROR},
    {CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP},
  };
  ClfPlan *plan = plan_for ("rgba", &format);
  ClfHostFrame in, want[2];
  BlobPair b[2];
  ClfInFlight *frames[2] = { NULL, NULL };
  GError *err = NULL;
  cl_int status;
  cl_event gate = clCreateUserEvent (clf_engine_context (engine), &status);

  CHECK (status == CL_SUCCESS, "clCreateUserEvent: %s",
      clf_cl_status_name (status));
  test_frame_init (&in, &format, true);
  for (int f = 0; f < 2; f++) {
    test_frame_init (&want[f], &format, false);
    clf_ref_filter_frame (&params[f], &format, &in, &want[f]);
    device_blobs_init (&b[f], &format, &in);
  }
  for (int f = 0; plan && status == CL_SUCCESS && f < 2; f++) {
    ClfFrame from = frame_of (&b[f].src, b[f].src_mem);
    ClfFrame to = frame_of (&b[f].dst, b[f].dst_mem);
    frames[f] = clf_plan_enqueue (plan, &params[f], &from, &to, &gate, 1,
        &err);
    CHECK (frames[f] != NULL, "clf_plan_enqueue: %s", message_of (err));
    g_clear_error (&err);
  }
  if (frames[0] && frames[1]) {
    nanosleep (&(struct timespec) { 0, 50 * 1000 * 1000 }, NULL);
    for (int f = 0; f < 2; f++)
      CHECK (event_state (clf_in_flight_event (frames[f])) != CL_COMPLETE,
          "frame %d ran before the event it waits for", f);
    clSetUserEventStatus (gate, CL_COMPLETE);
  }
  for (int f = 2; f-- > 0;) {
    ClfFrameStats stats;
    if (!frames[f])
      continue;
    cl_event done = clf_in_flight_event (frames[f]);
    clRetainEvent (done);
    CHECK (clf_plan_finish (plan, frames[f], &stats, &err)
        && stats.kernel_ns > 0 && stats.copies == 0, "clf_plan_finish: %s",
        message_of (err));
    g_clear_error (&err);
    CHECK (event_state (done) == CL_COMPLETE, "frame %d's event did not "
        "complete with it", f);
    clReleaseEvent (done);
    Blob got;
    blob_like (&got, &b[f].dst);
    read_back (b[f].dst_mem, &got);
    check_blob (&format, &got, &want[f], f ? "rgba laplace in flight" :
        "rgba sliding in flight");
    free (got.bytes);
  }
  if (status == CL_SUCCESS)
    clReleaseEvent (gate);
  for (int f = 0; f < 2; f++) {
    blob_pair_clear (&b[f]);
    test_frame_clear (&want[f]);
  }
  test_frame_clear (&in);
  clf_plan_free (plan);
}

/* One plan, frame after frame with other parameters and other buffers
 * (their own offsets and strides): each frame must give the reference's
 * bytes, whatever the frame before set (kernels keep their arguments
 * between launches, and the plan sets only those that changed).  I420's
 * three planes share one kernel set, so its arguments also change within
 * a frame. */
static void
check_changing_frames (void)
{
  const ClfParams params[] = {
    {CLF_MODE_SLIDING, 2, CLF_BORDER_MIRROR},
    {CLF_MODE_SLIDING, 5, CLF_BORDER_MIRROR},
    {CLF_MODE_SLIDING, 5, CLF_BORDER_CLAMP},
    {CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP},
    {CLF_MODE_SEPARABLE, 1, CLF_BORDER_CLAMP},
    {CLF_MODE_SLIDING, 2, CLF_BORDER_MIRROR},
    {CLF_MODE_BOX, 3, CLF_BORDER_MIRROR},
    {CLF_MODE_SLIDING, 0, CLF_BORDER_CLAMP},
    {CLF_MODE_LAPLACE, 0, CLF_BORDER_MIRROR},
  };
  const ClfFrameFormat i420 = byte_planes (3, (const uint32_t[][5]) {
        {29, 17, 1, 1, 1}, {15, 9, 1, 1, 0}, {15, 9, 1, 1, 0}});
  ClfPlan *plan = plan_for ("i420", &i420);
  BlobPair b[3];
  ClfHostFrame in[3];

  for (int k = 0; k < 3; k++) {
    test_frame_init (&in[k], &i420, true);
    device_blobs_init (&b[k], &i420, &in[k]);
  }
  for (size_t f = 0; plan && f < N_OF (params); f++) {
    /* Each frame's source and destination come from other pairs. */
    const BlobPair *from = &b[f % 3], *to = &b[(f + 1) % 3];
    ClfHostFrame want;
    char what[96];
    test_frame_init (&want, &i420, false);
    clf_ref_filter_frame (&params[f], &i420, &in[f % 3], &want);
    ClfFrame src = frame_of (&from->src, from->src_mem);
    ClfFrame dst = frame_of (&to->dst, to->dst_mem);
    snprintf (what, sizeof what, "frame %zu of changing frames (%s r=%u)", f,
        clf_mode_name (params[f].mode), params[f].radius);
    process_and_check (plan, &params[f], &i420, &src, &dst, 0, what);
    Blob got;
    blob_like (&got, &to->dst);
    read_back (to->dst_mem, &got);
    check_blob (&i420, &got, &want, what);
    free (got.bytes);
    test_frame_clear (&want);
  }
  for (int k = 0; k < 3; k++) {
    blob_pair_clear (&b[k]);
    test_frame_clear (&in[k]);
  }
  clf_plan_free (plan);
}

/* The threads of this process, and how many of them are an engine's
 * builds (named "clf-build" by the thread itself, once it runs). */
static unsigned
count_threads (unsigned *builds)
{
  unsigned n = 0;
  *builds = 0;
  DIR *d = opendir ("/proc/self/task");
  for (struct dirent * de; d && (de = readdir (d));) {
    char path[300], name[32] = "";
    if (de->d_name[0] == '.')
      continue;
    n++;
    snprintf (path, sizeof path, "/proc/self/task/%s/comm", de->d_name);
    FILE *f = fopen (path, "r");
    if (f && fgets (name, sizeof name, f)
        && strncmp (name, "clf-build", 9) == 0)
      (*builds)++;
    if (f)
      fclose (f);
  }
  if (d)
    closedir (d);
  return n;
}

/* Longer than a build from the cache takes under valgrind. */
#define BUILDS_END_S 600

/* Waits until the builds started since the process had `threads`
 * threads have ended: no thread named as a build, and no more threads
 * than then (a build's thread is named only once it runs). */
static bool
wait_builds_ended (unsigned threads)
{
  unsigned builds = 0;
  for (int i = 0; i < BUILDS_END_S * 100; i++) {
    if (count_threads (&builds) <= threads && builds == 0)
      return true;
    g_usleep (10 * 1000);
  }
  return false;
}

/* Waits until the engine's cache stats count `n` programs loaded or
 * stored, into `stats`. */
static bool
wait_programs_built (ClfEngine * e, unsigned n, ClfCacheStats * stats)
{
  for (int i = 0; i < BUILDS_END_S * 100; i++) {
    clf_engine_cache_stats (e, stats);
    if (stats->loads + stats->stores >= n)
      return true;
    g_usleep (10 * 1000);
  }
  return false;
}

/* Builds started with nobody waiting (clf_plan_start_builds): they end
 * by themselves and the engine keeps them, so that a plan's prepare takes
 * them without building again; and an engine let go while they run is
 * freed by the last of them (valgrind and LeakSanitizer see that every
 * thread is joined or let go, and every program released). */
static void
check_started_builds (void)
{
  const ClfFrameFormat nv12 = byte_planes (2, (const uint32_t[][5]) {
        {97, 61, 1, 1, 1}, {49, 31, 2, 3, 0}});
  const ClfParams params = { CLF_MODE_SLIDING, 2, CLF_BORDER_MIRROR };
  const ClfParams invalid = { CLF_MODE_SLIDING, CLF_MAX_RADIUS + 1 };
  ClfCacheStats built, prepared;
  GError *err = NULL;

  ClfEngine *e = clf_engine_new ("auto", &err);
  ClfPlan *plan = e ? clf_plan_new (e, &nv12, &err) : NULL;
  CHECK (plan, "started builds: no plan: %s", message_of (err));
  if (!plan) {
    g_clear_error (&err);
    clf_engine_unref (e);
    return;
  }
  CHECK (!clf_plan_start_builds (plan, &invalid, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID),
      "started builds: radius %u taken", invalid.radius);
  g_clear_error (&err);
  CHECK (clf_plan_start_builds (plan, &params, &err), "started builds: %s",
      message_of (err));
  clf_plan_free (plan);
  CHECK (wait_programs_built (e, 2, &built), "started builds: not built "
      "after %d s", BUILDS_END_S);
  /* NV12: a program for luma, one for the interleaved chroma. */
  CHECK (built.loads + built.stores == 2, "started builds: %u loaded and %u "
      "stored, want 2 in all", built.loads, built.stores);
  plan = clf_plan_new (e, &nv12, &err);
  CHECK (plan && clf_plan_prepare (plan, &params, &err), "the prepare after "
      "the started builds: %s", message_of (err));
  g_clear_error (&err);
  clf_engine_cache_stats (e, &prepared);
  CHECK (prepared.loads == built.loads && prepared.stores == built.stores,
      "the prepare built again what was started");
  clf_plan_free (plan);
  clf_engine_unref (e);

  e = clf_engine_new ("auto", &err);
  plan = e ? clf_plan_new (e, &nv12, &err) : NULL;
  unsigned builds, threads = count_threads (&builds);
  CHECK (plan && clf_plan_start_builds (plan, &params, &err), "builds of "
      "an engine let go: %s", message_of (err));
  g_clear_error (&err);
  clf_plan_free (plan);
  clf_engine_unref (e);
  CHECK (wait_builds_ended (threads), "builds of an engine let go: still "
      "running after %d s", BUILDS_END_S);
}

static void
test_frames (void)
{
  const ClfParams params[] = {
    {CLF_MODE_SLIDING, 2, CLF_BORDER_MIRROR},
    {CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP},
  };
  const ClfFrameFormat i420 = byte_planes (3, (const uint32_t[][5]) {
        {13, 11, 1, 1, 1}, {7, 6, 1, 1, 0}, {7, 6, 1, 1, 0}});
  const ClfFrameFormat nv12 = byte_planes (2, (const uint32_t[][5]) {
        {97, 61, 1, 1, 1}, {49, 31, 2, 3, 0}});
  const ClfFrameFormat rgb = one_plane (7, 1, 3, 7, 7);
  const ClfFrameFormat tiny = one_plane (1, 1, 4, 7, 7);
  for (size_t p = 0; p < N_OF (params); p++) {
    check_frame_pairings ("i420", &i420, &params[p]);
    check_frame_pairings ("nv12", &nv12, &params[p]);
    check_frame_pairings ("rgb", &rgb, &params[p]);
    check_frame_pairings ("rgba", &tiny, &params[p]);
    check_wrapped_host (&nv12, &params[p]);
  }
  check_plane_outside_buffer ();
  check_odd_sample_placement ();
  check_frames_in_flight ();
  check_changing_frames ();
  check_started_builds ();
}

/* The families of format_families in device buffers and wrapped host
 * memory, every pairing (in engine-formats: engine-frames runs under
 * valgrind, where each new layout's kernels compile for minutes). */
static void
check_deep_frames (void)
{
  const ClfParams params[] = {
    {CLF_MODE_SLIDING, 2, CLF_BORDER_MIRROR},
    {CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP},
  };
  const char *names[16];
  ClfFrameFormat deep[16];
  size_t n = format_families (13, 11, names, deep);
  for (size_t p = 0; p < N_OF (params); p++)
    for (size_t d = 0; d < n; d++)
      check_frame_pairings (names[d], &deep[d], &params[p]);
}

/* ---- mode=convolve ------------------------------------------------------ */

/* A random value in [lo, hi]. */
static int64_t
random_in (int64_t lo, int64_t hi)
{
  return lo + (int64_t) (next_random () % (uint64_t) (hi - lo + 1));
}

/* The kinds of kernels the convolve cases draw: small coefficients (int
 * sums, divisor their sum), a rank-1 kernel u v^T (the GPUs' two passes),
 * coefficients, divisor and bias anywhere in 32 bits (long sums), a
 * negative sum, a sum of 0 (divisor 1) with a bias, a rank-1 kernel
 * of large entries (two passes with long sums), and a sparse kernel (most
 * coefficients zero, as the seed's motion blur: the taps skip them). */
enum {
  KERNEL_SMALL, KERNEL_RANK1, KERNEL_HUGE, KERNEL_NEGATIVE, KERNEL_ZERO_SUM,
  KERNEL_HUGE_RANK1, KERNEL_SPARSE, N_KERNEL_KINDS
};

static const char *const kernel_kind_names[N_KERNEL_KINDS] = {
  "small", "rank-1", "huge", "negative", "zero-sum", "huge rank-1",
  "sparse",
};

static ClfKernel
random_kernel (uint32_t size, int kind)
{
  ClfKernel k = {.size = size };
  int32_t u[CLF_MAX_KERNEL_SIZE], v[CLF_MAX_KERNEL_SIZE];
  for (uint32_t i = 0; i < size; i++) {
    u[i] = (int32_t) (kind == KERNEL_HUGE_RANK1 ? random_in (-46340, 46340) :
        random_in (-6, 6));
    v[i] = (int32_t) (kind == KERNEL_HUGE_RANK1 ? random_in (-46340, 46340) :
        random_in (-6, 6));
  }
  int64_t sum = 0;
  for (uint32_t i = 0; i < size * size; i++) {
    int64_t c;
    switch (kind) {
      case KERNEL_RANK1:
      case KERNEL_HUGE_RANK1:
        c = (int64_t) u[i / size] * v[i % size];
        break;
      case KERNEL_HUGE:
        c = (int32_t) (uint32_t) next_random ();
        break;
      case KERNEL_NEGATIVE:
        c = random_in (-9, 2);
        break;
      case KERNEL_SPARSE:
        c = random_in (0, 3) == 0 ? random_in (-2000, 2000) : 0;
        break;
      default:
        c = random_in (-8, 8);
    }
    k.coeffs[i] = (int32_t) c;
    sum += c;
  }
  if (kind == KERNEL_ZERO_SUM) {
    k.coeffs[size * size / 2] -= (int32_t) sum;
    k.bias = (int32_t) random_in (0, 255);
  } else if (kind == KERNEL_HUGE) {
    k.divisor = (int32_t) (uint32_t) next_random ();
    k.bias = (int32_t) (uint32_t) next_random () >> (next_random () % 32);
  } else if (kind == KERNEL_NEGATIVE && sum > 0) {
    k.coeffs[0] -= (int32_t) sum + 1;
  }
  return k;
}

/* One kernel over one random frame, both borders, against the reference;
 * the plan is the caller's (kernels change between frames of one plan). */
static void
check_convolve (ClfPlan * plan, const char *layout,
    const ClfFrameFormat * format, const ClfHostFrame * in,
    const ClfKernel * kernel, const char *kind)
{
  for (ClfBorder border = CLF_BORDER_CLAMP; border <= CLF_BORDER_MIRROR;
      border++) {
    ClfParams params = {.mode = CLF_MODE_CONVOLVE,.border = border,
      .kernel = *kernel
    };
    char what[200];
    snprintf (what, sizeof what, "%s %ux%u convolve %ux%u %s divisor=%d "
        "bias=%d border=%s%s", layout, format->components[0].width,
        format->components[0].height, kernel->size, kernel->size, kind,
        kernel->divisor, kernel->bias, clf_border_name (border),
        kernel->chroma == CLF_CHROMA_NEUTRAL ? " chroma=neutral" : "");
    check_against_reference (plan, &params, format, what, in);
  }
}

/* Every odd K from 1 to 15 and every kind of kernel on planes of odd
 * sizes (widths no multiple of 4 or 16, planes smaller than the kernel,
 * a frame of several work-groups), gray, RGB, RGBx, xRGB and pixels of 3
 * samples with the middle one copied; in the quick
 * tier a sixth of size x K x kind, each K and kind still on every size. */
static void
check_convolve_sizes (void)
{
  static const struct {
    uint32_t w, h;
  } conv_sizes[] = { {1, 1}, {7, 1}, {1, 7}, {13, 11}, {61, 37} };
  for (size_t s = 0; s < N_OF (conv_sizes); s++) {
    uint32_t w = conv_sizes[s].w, h = conv_sizes[s].h;
    struct {
      const char *name;
      ClfFrameFormat f;
    } layouts[] = {
      {"gray", one_plane (w, h, 1, 1, 1)},
      {"rgb", one_plane (w, h, 3, 0x7, 0x7)},
      {"rgbx", one_plane (w, h, 4, 0x7, 0x7)},
      {"xrgb", one_plane (w, h, 4, 0xE, 0xE)},
      /* A copied sample in pixels of 3: runs of 16 samples start at
       * any sample of a pixel. */
      {"r-b", one_plane (w, h, 3, 0x5, 0x5)},
    };
    for (size_t l = 0; l < N_OF (layouts); l++) {
      ClfPlan *plan = plan_for (layouts[l].name, &layouts[l].f);
      if (!plan)
        continue;
      ClfHostFrame in;
      test_frame_init (&in, &layouts[l].f, true);
      for (uint32_t size = 1; size <= CLF_MAX_KERNEL_SIZE; size += 2)
        for (int kind = 0; kind < N_KERNEL_KINDS; kind++)
          if (sampled (s + l + size / 2 + kind, N_KERNEL_KINDS)) {
            ClfKernel k = random_kernel (size, kind);
            check_convolve (plan, layouts[l].name, &layouts[l].f, &in, &k,
                kernel_kind_names[kind]);
          }
      test_frame_clear (&in);
      clf_plan_free (plan);
    }
  }
}

/* The deeper formats and the packed and planar families (16-bit either
 * byte order, 10 and 12 bits with a shift, packed 4:2:2, alpha in the
 * pixel and as a plane), each with a random K and kind (every family in
 * both tiers: its kernels are drawn anew each run), and with neutral
 * chroma. */
static void
check_convolve_formats (void)
{
  const char *names[16];
  ClfFrameFormat f[16];
  size_t n = format_families (37, 21, names, f);
  for (size_t i = 0; i < n; i++) {
    ClfPlan *plan = plan_for (names[i], &f[i]);
    if (!plan)
      continue;
    ClfHostFrame in;
    test_frame_init (&in, &f[i], true);
    for (int kind = 0; kind < N_KERNEL_KINDS; kind++)
      if (sampled (i + kind, 2)) {
        uint32_t size = 1 + 2 * (uint32_t) random_in (0, 7);
        ClfKernel k = random_kernel (size, kind);
        check_convolve (plan, names[i], &f[i], &in, &k,
            kernel_kind_names[kind]);
      }
    /* Neutral chroma (emboss's): chroma planes, chroma beside luma in a
     * pixel (packed 4:2:2 and 4:4:4), and formats with none. */
    ClfKernel k = random_kernel (3, KERNEL_SMALL);
    k.bias = (int32_t) random_in (-300, 70000);
    k.chroma = CLF_CHROMA_NEUTRAL;
    check_convolve (plan, names[i], &f[i], &in, &k, "small");
    test_frame_clear (&in);
    clf_plan_free (plan);
  }
}

/* The extremes of the arithmetic: frames of the largest values (every
 * bit set) and of checkerboards of 0 and the largest, for 8-bit and
 * 16-bit samples, with divisors and biases at the ends of 32 bits
 * (INT_MIN, whose |d| is 2^31, among them) and coefficients at the ends
 * of 32 bits, where |S| reaches 65535 * 225 * 2^31. */
static void
check_convolve_extremes (void)
{
  const char *names[16];
  ClfFrameFormat f[16];
  format_families (23, 19, names, f);
  struct {
    const char *name;
    ClfFrameFormat f;
  } formats[] = {
    {"rgba", one_plane (23, 19, 4, 0x7, 0x7)},
    {names[0], f[0]},           /* gray16 */
    {names[3], f[3]},           /* gray16-be */
  };
  static const int32_t divisors[] = { 0, 1, -1, INT32_MIN, INT32_MAX, 3, -7 };
  static const int32_t biases[] = { 0, INT32_MIN, INT32_MAX, -255, 65535 };
  static const int32_t fills[] = { INT32_MAX, INT32_MIN, 1, -1 };
  for (size_t l = 0; l < N_OF (formats); l++) {
    ClfFrameFormat *format = &formats[l].f;
    ClfPlan *plan = plan_for (formats[l].name, format);
    if (!plan)
      continue;
    for (int checker = 0; checker < 2; checker++) {
      ClfHostFrame in;
      test_frame_init (&in, format, false);
      for (uint32_t i = 0; i < format->n_planes; i++)
        for (uint32_t y = 0; y < clf_frame_format_rows (format, i); y++)
          for (size_t x = 0; x < clf_frame_format_row_bytes (format, i); x++)
            in.data[i][y * in.stride[i] + x] =
                checker && (x / 2 + y) % 2 ? 0 : 0xff;
      for (size_t d = 0; d < N_OF (divisors); d++)
        for (size_t b = 0; b < N_OF (biases); b++) {
          if (!sampled (d + b + checker, 3))
            continue;
          /* 15x15 of one coefficient (rank 1), and a 15x15 of all four
           * (not rank 1). */
          ClfKernel k = {.size = CLF_MAX_KERNEL_SIZE,.divisor = divisors[d],
            .bias = biases[b]
          };
          const bool mixed = (d + b) % 2;
          for (uint32_t i = 0; i < k.size * k.size; i++)
            k.coeffs[i] = fills[mixed ? i % N_OF (fills) : (d + l) %
                N_OF (fills)];
          check_convolve (plan, formats[l].name, format, &in, &k,
              checker ? "extreme, checkerboard" : "extreme, maximum");
        }
      test_frame_clear (&in);
    }
    clf_plan_free (plan);
  }
}

/* The host's side: the divisor resolved, the division by a multiply and
 * a shift (every n < 2^31 the int sums can give, for divisors of every
 * size), and the rank-1 factors. */
static void
check_convolve_host (void)
{
  ClfKernel k = {.size = 3,.coeffs = {1, 2, 1, 2, 4, 2, 1, 2, 1} };
  CHECK (clf_convolve_divisor (&k) == 16, "divisor of the Gaussian");
  int32_t u[CLF_MAX_KERNEL_SIZE], v[CLF_MAX_KERNEL_SIZE];
  CHECK (clf_convolve_rank1 (&k, u, v) && u[0] * v[0] == 1
      && u[1] * v[1] == 4, "the Gaussian is rank 1");
  ClfKernel sharpen = {.size = 3,.coeffs = {0, -1, 0, -1, 5, -1, 0, -1, 0} };
  CHECK (!clf_convolve_rank1 (&sharpen, u, v), "sharpen is not rank 1");
  ClfKernel zero = {.size = 3,.coeffs = {1, -1, 0, 0, 0, 0, 0, 0, 0} };
  CHECK (clf_convolve_divisor (&zero) == 1, "a sum of 0 divides by 1");
  ClfKernel big = {.size = 15 };
  for (int i = 0; i < 225; i++)
    big.coeffs[i] = INT32_MAX;
  CHECK (clf_convolve_divisor (&big) == 225 * (int64_t) INT32_MAX,
      "a sum past 32 bits");
  ClfKernel minimum = {.size = 3,.coeffs = {INT32_MIN},.divisor = 0 };
  CHECK (clf_convolve_rank1 (&minimum, u, v), "a lone -2^31 is rank 1");
  ClfKernel even = {.size = 4 };
  GError *err = NULL;
  CHECK (!clf_kernel_check (&even, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID),
      "an even kernel is refused");
  g_clear_error (&err);
  for (int round = 0; round < 200000; round++) {
    ClfKernel one = {.size = 1,.coeffs = {1} };
    one.divisor = (int32_t) (uint32_t) next_random () >> (next_random () % 32);
    if (round % 1000 == 0)
      one.divisor = round % 2000 ? INT32_MIN : 1;
    ClfConvolveSetup s;
    clf_convolve_setup (&one, 8, false, &s);
    if (s.wide)
      continue;
    uint64_t n = next_random () >> (33 + next_random () % 31);
    if (round % 3 == 0)         /* next to a multiple of |d| */
      n = (n / s.abs_divisor * s.abs_divisor + s.abs_divisor - 1
          + next_random () % 3) % (UINT64_C (1) << 31);
    if (n >= UINT64_C (1) << 31)
      continue;
    CHECK ((n * s.mul) >> s.shift == n / s.abs_divisor, "%" PRIu64 " / %"
        PRIu64 " by multiply and shift", n, (uint64_t) s.abs_divisor);
  }
}

/* Sums next to 2^24, where the GPUs' tiles turn from float sums (exact
 * to 2^24) to int ones: 8-bit values of 255 at most and coefficients
 * whose sum of magnitudes is 65793 (255 * 65793 = 2^24 - 1, float sums)
 * or 65795 (an odd sum past 2^24, int sums), on a frame of 255s where
 * every window reaches that sum (divisor 1, the bias taking the sum back
 * to 128) and on a random one; 16-bit values with 256 (float) and 257
 * (int). */
static void
check_convolve_float_bound (void)
{
  static const struct {
    const char *name;
    uint32_t bytes;
    int64_t abs_sum;
  } cases[] = {
    {"gray", 1, 65793}, {"gray", 1, 65795}, {"gray16", 2, 256},
    {"gray16", 2, 257},
  };
  const char *names[16];
  ClfFrameFormat families[16];
  format_families (37, 29, names, families);
  for (size_t c = 0; c < N_OF (cases); c++) {
    /* (The first family is 16-bit gray.) */
    ClfFrameFormat f = cases[c].bytes == 1 ? one_plane (37, 29, 1, 1, 1) :
        families[0];
    ClfPlan *plan = plan_for (cases[c].name, &f);
    if (!plan)
      continue;
    for (int full = 0; full < 2; full++) {
      ClfHostFrame in;
      test_frame_init (&in, &f, !full);
      if (full)
        memset (in.data[0], 0xff, in.size[0]);
      /* 5x5, signs mixed, |k| summing to abs_sum. */
      ClfKernel k = {.size = 5,.divisor = 0 };
      int64_t left = cases[c].abs_sum;
      for (uint32_t i = 0; i < 25; i++) {
        int32_t m = (int32_t) (i < 24 ? left / (25 - i) : left);
        left -= m;
        k.coeffs[i] = full || i % 3 ? m : -m;
      }
      if (full) {
        /* S itself, less its exact value, around 128: an error of one
         * shows. */
        const int64_t max = cases[c].bytes == 1 ? 255 : 65535;
        k.divisor = 1;
        k.bias = (int32_t) (128 - max * cases[c].abs_sum);
      }
      check_convolve (plan, cases[c].name, &f, &in, &k,
          full ? "float bound, maximum" : "float bound, random");
      test_frame_clear (&in);
    }
    clf_plan_free (plan);
  }
}

/* A 5x5 of positive coefficients summing to abs_sum, not rank 1 (the
 * GPUs take it in one pass): their signs flipped every third one where
 * `mixed`. */
static ClfKernel
kernel_of_sum (int64_t abs_sum, bool mixed)
{
  ClfKernel k = {.size = 5 };
  for (uint32_t i = 0; i < 25; i++)
    k.coeffs[i] = (int32_t) (abs_sum / 25);
  k.coeffs[0] += (int32_t) (abs_sum % 25) + 7;
  k.coeffs[1] -= 7;
  for (uint32_t i = 0; mixed && i < 25; i += 3)
    k.coeffs[i] = -k.coeffs[i];
  return k;
}

/* The largest sum of |k| (a kernel_of_sum) whose 8-bit sums and their
 * rounding stay within 2^24, for divisor d: the float tiles' bound. */
static int64_t
float_tile_sum (int32_t d)
{
  return ((INT64_C (1) << 24) - llabs (d) / 2) / 255;
}

/* The largest sum of |k| whose 8-bit sums the strips divide as truncated
 * float products, for divisor d. */
static int64_t
strip_float_sum (int32_t d)
{
  const int64_t abs_d = llabs (d);
  return ((INT64_C (1) << 24) - 2 - abs_d - 3 * (abs_d / 2)) / (3 * 255);
}

/* S = -+(2^24 - 1), divisor 1, biases of +-2^24 (float sums) and one past
 * (int sums): 1 and 2, or clamped to 0 (on a frame of 255s). */
static void
check_float_bias (ClfPlan * plan, const char *name,
    const ClfFrameFormat * f, const ClfHostFrame * in)
{
  for (int sign = -1; sign <= 1; sign += 2)
    for (int past = 0; past < 2; past++) {
      ClfKernel k = kernel_of_sum (65793, false);
      for (uint32_t i = 0; i < 25; i++)
        k.coeffs[i] *= -sign;
      k.divisor = 1;
      k.bias = (int32_t) (sign * ((INT64_C (1) << 24) + past));
      check_convolve (plan, name, f, in, &k, "float quotient, bias");
    }
}

/* Kernels whose 8-bit sums sit at a float bound (`bound`: the largest sum
 * of |k| for a divisor), on gray and RGBA: for each divisor, one of that
 * sum on a random frame, signs mixed; and on a frame of 255s (the largest
 * sums) ones of that sum less o, o = 0..3, where the estimate rounds up
 * or down, less their quotient by a bias: 128 where exact.  `also`, where
 * given, adds its own kernels on the frame of 255s. */
static void
check_sums_at_bound (const char *what, const int32_t * divisors,
    size_t n_divisors, int64_t (*bound) (int32_t),
    void (*also) (ClfPlan *, const char *, const ClfFrameFormat *,
        const ClfHostFrame *))
{
  struct {
    const char *name;
    ClfFrameFormat f;
  } formats[] = {
    {"gray", one_plane (37, 29, 1, 1, 1)},
    {"rgba", one_plane (43, 19, 4, 0x7, 0x7)},
  };
  char random_what[64], maximum_what[64];
  snprintf (random_what, sizeof random_what, "%s, random", what);
  snprintf (maximum_what, sizeof maximum_what, "%s, maximum", what);
  for (size_t l = 0; l < N_OF (formats); l++) {
    ClfFrameFormat *f = &formats[l].f;
    ClfPlan *plan = plan_for (formats[l].name, f);
    if (!plan)
      continue;
    for (int full = 0; full < 2; full++) {
      ClfHostFrame in;
      test_frame_init (&in, f, !full);
      if (full)
        memset (in.data[0], 0xff, in.size[0]);
      for (size_t d = 0; d < n_divisors; d++) {
        const int64_t abs_d = llabs (divisors[d]);
        const int64_t largest = bound (divisors[d]);
        if (!full) {
          ClfKernel k = kernel_of_sum (largest, true);
          k.divisor = divisors[d];
          check_convolve (plan, formats[l].name, f, &in, &k, random_what);
          continue;
        }
        for (int o = 0; o < 4 && o < largest; o++) {
          ClfKernel k = kernel_of_sum (largest - o, false);
          k.divisor = divisors[d];
          const int64_t q = (255 * (largest - o) + abs_d / 2) / abs_d;
          k.bias = (int32_t) (128 - (divisors[d] < 0 ? -q : q));
          check_convolve (plan, formats[l].name, f, &in, &k, maximum_what);
        }
      }
      if (full && also)
        also (plan, formats[l].name, f, &in);
      test_frame_clear (&in);
    }
    clf_plan_free (plan);
  }
}

/* The float tiles' quotients (out_value_float in convolve.cl) where
 * floats just hold them: |S| + floor(|d| / 2) up to 2^24 for divisors of
 * every size below 2^23, either sign, on a random frame and on one of
 * 255s (the largest sums, a bias taking them back to 128); and biases of -+2^24 taking sums of about +-2^24
 * into 0..255.  The host takes the float tiles there and not a step past
 * (ClfConvolveSetup.float_sums). */
static void
check_convolve_float_quotient (void)
{
  static const int32_t divisors[] = { 1, 2, 3, 4, 5, 7, 255, 65535, -3,
    (1 << 23) - 1, -((1 << 23) - 1)
  };
  const int64_t limit = INT64_C (1) << 24;
  ClfConvolveSetup s;
  for (size_t d = 0; d < N_OF (divisors); d++) {
    ClfKernel k = kernel_of_sum (float_tile_sum (divisors[d]), false);
    k.divisor = divisors[d];
    clf_convolve_setup (&k, 8, false, &s);
    CHECK (s.float_sums, "float sums for divisor %d", divisors[d]);
    k = kernel_of_sum (float_tile_sum (divisors[d]) + 1, false);
    k.divisor = divisors[d];
    clf_convolve_setup (&k, 8, false, &s);
    CHECK (!s.float_sums, "no float sums past 2^24, divisor %d",
        divisors[d]);
  }
  ClfKernel k = kernel_of_sum (9, false);
  k.divisor = 1 << 23;
  clf_convolve_setup (&k, 8, false, &s);
  CHECK (!s.float_sums, "no float sums for a divisor of 2^23");
  k.divisor = 0;
  k.bias = (int32_t) limit;
  clf_convolve_setup (&k, 8, false, &s);
  CHECK (s.float_sums, "float sums for a bias of 2^24");
  k.bias = (int32_t) -limit - 1;
  clf_convolve_setup (&k, 8, false, &s);
  CHECK (!s.float_sums, "no float sums for a bias past -2^24");

  check_sums_at_bound ("float quotient", divisors, N_OF (divisors),
      float_tile_sum, check_float_bias);
}

/* The CPUs' strips' quotients (out_values_float16 in convolve.cl): n c
 * truncated, c = 1 / |d| rounded up (the host's), exact where 3 n + |d| +
 * 1 < 2^24 (ClfConvolveSetup.float_quotients).  On the host, the
 * arithmetic at both ends of every quotient's run of n up to that bound,
 * for every divisor up to 4096 and random ones up to 2^23, and the bound
 * itself; on the device, frames of 255s whose sums sit at the bound
 * (a bias taking each quotient back to 128), and random frames. */
static void
check_convolve_strip_quotients (void)
{
  const uint64_t limit = UINT64_C (1) << 24;
  ClfConvolveSetup s;
  uint64_t wrong = 0;
  for (uint32_t round = 0; round < 4096 + 20000; round++) {
    const uint32_t d = round < 4096 ? round + 1 :
        4097 + (uint32_t) (next_random () % ((1u << 23) - 4097));
    ClfKernel one = {.size = 1,.coeffs = {1},.divisor = (int32_t) d };
    clf_convolve_setup (&one, 8, true, &s);
    float c;
    memcpy (&c, &s.coeffs[s.n_coeffs - 1], sizeof c);
    const uint64_t n_max = (limit - d - 2) / 3;
    for (uint64_t q = 0; q * d <= n_max; q++) {
      const float first = (float) (q * d), last = (float) MIN (q * d + d - 1,
          n_max);
      wrong += (uint64_t) (first * c) != q || (uint64_t) (last * c) != q;
    }
  }
  CHECK (wrong == 0, "%" G_GUINT64_FORMAT " truncated float quotients "
      "wrong", wrong);

  static const int32_t divisors[] = { 1, 2, 3, 7, 255, 10000, 65535, -3,
    (1 << 22) + 1, -((1 << 22) + 1)
  };
  for (size_t d = 0; d < N_OF (divisors); d++) {
    ClfKernel k = kernel_of_sum (strip_float_sum (divisors[d]), false);
    k.divisor = divisors[d];
    clf_convolve_setup (&k, 8, true, &s);
    CHECK (s.float_quotients, "truncated quotients for divisor %d",
        divisors[d]);
    k = kernel_of_sum (strip_float_sum (divisors[d]) + 1, false);
    k.divisor = divisors[d];
    clf_convolve_setup (&k, 8, true, &s);
    CHECK (!s.float_quotients, "no truncated quotients a step past, "
        "divisor %d", divisors[d]);
  }

  check_sums_at_bound ("truncated quotient", divisors, N_OF (divisors),
      strip_float_sum, NULL);
}

/* A 720p RGBA frame, 7x7: many work-groups and strips. */
static void
check_convolve_720p (void)
{
  ClfFrameFormat f = one_plane (1280, 720, 4, 0x7, 0x7);
  ClfPlan *plan = plan_for ("rgba", &f);
  if (!plan)
    return;
  ClfHostFrame in;
  test_frame_init (&in, &f, true);
  ClfKernel k = random_kernel (7, sampled (0, 2) ? KERNEL_SMALL :
      KERNEL_RANK1);
  check_convolve (plan, "rgba", &f, &in, &k, "720p");
  test_frame_clear (&in);
  clf_plan_free (plan);
}

/* Frames in device buffers and in host memory, planes at odd offsets
 * with odd strides, where a pixel of 2 or 4 bytes lies unaligned (the
 * other cases stage frames, pixels aligned): a dense and a sparse kernel
 * on RGBA and on pixels of two samples. */
static void
check_convolve_frames (void)
{
  const struct {
    const char *name;
    ClfFrameFormat f;
  } layouts[] = {
    {"rgba", one_plane (37, 53, 4, 0x7, 0x7)},
    {"gray+alpha", one_plane (29, 61, 2, 0x1, 0x1)},
  };
  const struct {
    uint32_t size;
    int kind;
  } kernels[] = { {7, KERNEL_SMALL}, {15, KERNEL_SPARSE} };
  for (size_t l = 0; l < N_OF (layouts); l++)
    for (size_t i = 0; i < N_OF (kernels); i++) {
      ClfParams params = {.mode = CLF_MODE_CONVOLVE,
        .border = (ClfBorder) (i % 2),
        .kernel = random_kernel (kernels[i].size, kernels[i].kind)
      };
      check_frame_pairings (layouts[l].name, &layouts[l].f, &params);
    }
}

/* A device of 32 KiB of local memory, the least OpenCL grants, through
 * the test layer (tests/layer), whose launches it fails where their local
 * memory passes that, as the device would: RGBA's large kernels take the
 * float tiles that fit it, not the tall ones, and xRGB's (4 float lanes)
 * kernels the int tiles, not the float ones. */
static void
check_convolve_small_local_memory (void)
{
  struct {
    const char *name;
    ClfFrameFormat f;
  } formats[] = {
    {"rgba, 32 KiB of local memory", one_plane (61, 37, 4, 0x7, 0x7)},
    {"xrgb, 32 KiB of local memory", one_plane (45, 39, 4, 0xe, 0xe)},
  };
  setenv ("CLF_TEST_LOCAL_MEM", "32768", 1);
  for (size_t l = 0; l < N_OF (formats); l++) {
    ClfFrameFormat *f = &formats[l].f;
    ClfPlan *plan = plan_for (formats[l].name, f);
    if (!plan)
      continue;
    ClfHostFrame in;
    test_frame_init (&in, f, true);
    for (uint32_t size = 3; size <= CLF_MAX_KERNEL_SIZE; size += 6) {
      ClfKernel k = random_kernel (size, KERNEL_SMALL);
      check_convolve (plan, formats[l].name, f, &in, &k, "small");
    }
    test_frame_clear (&in);
    clf_plan_free (plan);
  }
  unsetenv ("CLF_TEST_LOCAL_MEM");
}

static void
test_convolve (void)
{
  check_convolve_host ();
  check_convolve_sizes ();
  check_convolve_formats ();
  check_convolve_extremes ();
  check_convolve_float_bound ();
  check_convolve_float_quotient ();
  check_convolve_strip_quotients ();
  check_convolve_720p ();
  check_convolve_frames ();
  check_convolve_small_local_memory ();
}

/* ---- the on-disk cache of program binaries ---------------------------- */

/* Two pixel layouts (set by test_cache): filtered with a blur and a
 * sharpen, three programs and three cache entries (the sharpen filters
 * the first plane only). */
static ClfFrameFormat cache_format;
#define CACHE_PROGRAMS 3u
/* The radius its blur has. */
#define CACHE_RADIUS 2
/* Its planes' layouts, as the engine builds them for the blurs. */
static const ClfLayout cache_y_layout = { 1, 1, 1, 8, 0, false };
static const ClfLayout cache_uv_layout = { 1, 2, 3, 8, 0, false };

/* A new engine (its programs from the cache or from source) filters one
 * random frame with a blur and a sharpen, checked against the reference;
 * returns what the cache did for it. */
static ClfCacheStats
filter_with_new_engine (const char *what)
{
  ClfCacheStats stats = { 0 };
  GError *err = NULL;
  ClfEngine *e = clf_engine_new ("auto", &err);
  CHECK (e, "%s: clf_engine_new: %s", what, message_of (err));
  ClfPlan *plan = e ? clf_plan_new (e, &cache_format, &err) : NULL;
  CHECK (!e || plan, "%s: clf_plan_new: %s", what, message_of (err));
  g_clear_error (&err);

  const ClfParams params[] = {
    {CLF_MODE_SLIDING, CACHE_RADIUS, CLF_BORDER_MIRROR},
    {CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP},
  };
  for (size_t p = 0; plan && p < N_OF (params); p++) {
    ClfHostFrame in, want, out;
    char desc[200];
    snprintf (desc, sizeof desc, "%s %s", what, clf_mode_name (params[p].mode));
    test_frame_init (&in, &cache_format, true);
    test_frame_init (&want, &cache_format, false);
    clf_ref_filter_frame (&params[p], &cache_format, &in, &want);
    run_and_compare (plan, &params[p], &cache_format, desc, &in, &out,
        &want);
    test_frame_clear (&out);
    test_frame_clear (&in);
    test_frame_clear (&want);
  }
  clf_plan_free (plan);
  if (e)
    clf_engine_cache_stats (e, &stats);
  clf_engine_unref (e);
  return stats;
}

#define CHECK_STATS(s, want_loads, want_stores, want_rejects, what)       \
  CHECK ((s).loads == (want_loads) && (s).stores == (want_stores)         \
      && (s).rejects == (want_rejects), "%s: loads %u stores %u rejects " \
      "%u, want %u %u %u", (what), (s).loads, (s).stores, (s).rejects,    \
      (want_loads), (want_stores), (want_rejects))

/* The names of the files in `dir`: up to CACHE_PROGRAMS entries ("*.bin")
 * into `entries`; returns the number of entries, other files in
 * `others`. */
static unsigned
list_cache (const char *dir, char entries[CACHE_PROGRAMS][512],
    unsigned *others)
{
  unsigned n = 0;
  *others = 0;
  DIR *d = opendir (dir);
  for (struct dirent * de; d && (de = readdir (d));) {
    size_t len = strlen (de->d_name);
    if (de->d_name[0] == '.')
      continue;
    if (len > 4 && strcmp (de->d_name + len - 4, ".bin") == 0) {
      if (n < CACHE_PROGRAMS)
        snprintf (entries[n], sizeof entries[n], "%s/%s", dir, de->d_name);
      n++;
    } else {
      (*others)++;
    }
  }
  if (d)
    closedir (d);
  return n;
}

static void
check_entry_count (const char *dir, unsigned want, const char *what)
{
  char entries[CACHE_PROGRAMS][512];
  unsigned others;
  unsigned n = list_cache (dir, entries, &others);
  CHECK (n == want && others == 0, "%s: %u entries and %u other files in "
      "%s, want %u entries", what, n, others, dir, want);
}

/* Overwrites `size` bytes at `offset` of the file with random bytes. */
static void
scribble (const char *path, long offset, size_t size)
{
  FILE *f = fopen (path, "r+b");
  CHECK (f && fseek (f, offset, SEEK_SET) == 0, "cannot open %s", path);
  for (size_t i = 0; f && i < size; i++)
    fputc ((int) (next_random () >> 56), f);
  if (f)
    fclose (f);
}

static long
file_size (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0 ? (long) st.st_size : -1;
}

/* After damage to one entry: a new engine rejects it (and, where the
 * damage removed another entry, misses that), builds `rebuilt` programs
 * from source and writes them; the next engine loads them all. */
static void
check_rebuilt (const char *dir, uint32_t rebuilt, const char *what)
{
  char again[160];
  ClfCacheStats s = filter_with_new_engine (what);
  CHECK_STATS (s, CACHE_PROGRAMS - rebuilt, rebuilt, 1u, what);
  check_entry_count (dir, CACHE_PROGRAMS, what);
  snprintf (again, sizeof again, "after %s", what);
  s = filter_with_new_engine (again);
  CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u, again);
}

/* Removes `path` and, for a directory, everything under it. */
static void
remove_tree (const char *path)
{
  struct stat st;
  if (lstat (path, &st) != 0)
    return;
  DIR *d = S_ISDIR (st.st_mode) ? opendir (path) : NULL;
  for (struct dirent * de; d && (de = readdir (d));) {
    if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
      continue;
    char child[1024];
    snprintf (child, sizeof child, "%s/%s", path, de->d_name);
    remove_tree (child);
  }
  if (d)
    closedir (d);
  remove (path);
}

/* An environment variable's value to put back later (NULL: unset). */
static char *
save_env (const char *name)
{
  const char *value = getenv (name);
  return value ? strdup (value) : NULL;
}

static void
restore_env (const char *name, char *saved)
{
  if (saved)
    setenv (name, saved, 1);
  else
    unsetenv (name);
  free (saved);
}

/* ---- a cache that is not trusted ---- */

/* Another user for files and directories that are not ours (nobody). */
#define OTHER_UID 65534
/* The size of the sparse entry: read whole, it took 81 s and 8.4 GB. */
#define SPARSE_ENTRY_BYTES (8ull << 30)
/* What a rejected entry may add to the peak resident memory: it is not
 * read (a build from source stays well below this). */
#define REJECT_RSS_BUDGET_KIB (256 * 1024)
/* Longer than any case takes; a case that blocks (a FIFO opened for
 * reading waits for a writer) fails instead of hanging the test. */
#define HANG_GUARD_S 120

static char hang_message[256];

static void
on_hang (int sig)
{
  ssize_t ignored = write (STDERR_FILENO, hang_message, strlen (hang_message));
  (void) ignored;
  _exit (1);
}

static void
hang_guard_start (const char *what)
{
  snprintf (hang_message, sizeof hang_message, "FAIL cache: %s: still "
      "running after %d s: the engine blocks on the cache\n", what,
      HANG_GUARD_S);
  signal (SIGALRM, on_hang);
  alarm (HANG_GUARD_S);
}

static void
hang_guard_stop (void)
{
  alarm (0);
  signal (SIGALRM, SIG_DFL);
}

/* The directory is refused: no entry is read, written or removed (both
 * are still there), and the frames are still exact. */
static void
check_dir_refused (const char *dir, const char *what)
{
  ClfCacheStats s = filter_with_new_engine (what);
  CHECK_STATS (s, 0u, 0u, 0u, what);
  check_entry_count (dir, CACHE_PROGRAMS, what);
}

/* A directory that others can write, or that is not ours, or that is a
 * symbolic link: its entries (valid ones here) are not used. */
static void
check_untrusted_dirs (const char *root, const char *dir)
{
  static const struct {
    mode_t mode;
    const char *what;
  } modes[] = {
    {0777, "directory writable by all"},
    {0770, "directory writable by its group"},
    {0702, "directory writable by others"},
  };
  for (size_t i = 0; i < N_OF (modes); i++) {
    CHECK (chmod (dir, modes[i].mode) == 0, "chmod %s failed", dir);
    check_dir_refused (dir, modes[i].what);
  }
  CHECK (chmod (dir, 0700) == 0, "chmod %s failed", dir);

  if (geteuid () == 0) {
    /* Root could write there still: the owner alone must refuse it. */
    CHECK (chown (dir, OTHER_UID, OTHER_UID) == 0, "chown %s failed", dir);
    check_dir_refused (dir, "directory of another user");
    CHECK (chown (dir, 0, 0) == 0, "chown %s failed", dir);
  } else {
    printf ("(not root: the directory of another user is left out)\n");
  }

  char real[600];
  snprintf (real, sizeof real, "%s/elsewhere", root);
  CHECK (rename (dir, real) == 0 && symlink (real, dir) == 0,
      "cannot link %s to %s", dir, real);
  check_dir_refused (dir, "directory behind a symbolic link");
  CHECK (unlink (dir) == 0 && rename (real, dir) == 0, "cannot put %s back",
      dir);

  ClfCacheStats s = filter_with_new_engine ("trusted again");
  CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u, "trusted again");
}

static cl_platform_id
engine_platform (void)
{
  cl_platform_id platform = NULL;
  cl_int status = clGetDeviceInfo (clf_engine_device (engine),
      CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
  CHECK (status == CL_SUCCESS, "CL_DEVICE_PLATFORM: %d", status);
  return platform;
}

/* Whether the engine's device runs the CPUs' kernels, as its plans ask. */
static bool
engine_cpu_kernels (void)
{
  cl_device_type type = 0;
  cl_int status = clGetDeviceInfo (clf_engine_device (engine),
      CL_DEVICE_TYPE, sizeof type, &type, NULL);
  CHECK (status == CL_SUCCESS, "CL_DEVICE_TYPE: %d", status);
  return (type & CL_DEVICE_TYPE_CPU) != 0;
}

/* The program of `mode` (at CACHE_RADIUS) over `layout` with one kind
 * of kernels. */
static ClfProgramSpec
program_on (const ClfLayout * layout, ClfMode mode, bool cpu_kernels)
{
  const ClfParams params = { mode, CACHE_RADIUS, CLF_BORDER_CLAMP };
  return clf_program_for (cpu_kernels, layout, &params);
}

/* The program of `mode` over `layout` on the engine's device. */
static ClfProgramSpec
program_of (const ClfLayout * layout, ClfMode mode)
{
  return program_on (layout, mode, engine_cpu_kernels ());
}

/* The cache entry of a program; false where there is no cache. */
static bool
program_entry_init (ClfCacheEntry * entry, const ClfProgramSpec * program)
{
  char options[CLF_PROGRAM_OPTIONS_SIZE];
  clf_program_options (program, options);
  return clf_cache_entry_init (entry, engine_platform (),
      clf_engine_device (engine), options);
}

/* Writes `program`'s binary as the cache entry of `spec`,
 * with the header and checksum the engine writes: a planted entry that
 * only the directory's checks or the kernels can tell from ours. */
static void
plant_entry (cl_program program, const ClfProgramSpec * spec,
    const char *what)
{
  ClfCacheEntry entry;
  ClfCacheStats stats = { 0 };
  bool ok = program_entry_init (&entry, spec);
  if (ok) {
    clf_cache_store (&entry, program, &stats);
    clf_cache_entry_clear (&entry);
  }
  CHECK (ok && stats.stores == 1, "%s: could not plant the entry", what);
}

/* Removes the entry of a program, so that the directory holds those of
 * cache_format again. */
static void
remove_entry (const ClfProgramSpec * spec)
{
  ClfCacheEntry entry;
  if (!program_entry_init (&entry, spec))
    return;
  CHECK (unlinkat (entry.dir_fd, entry.name, 0) == 0, "cannot remove %s",
      entry.name);
  clf_cache_entry_clear (&entry);
}

/* The program of `mode` for another layout (samples per pixel and mask)
 * and kind of device (`cpu_kernels`), built from source without the
 * cache: it has every kernel it names, but filters other bytes. */
static cl_program
other_layout_program (uint32_t units, uint32_t mask, ClfMode mode,
    bool cpu_kernels)
{
  GError *err = NULL;
  char *saved_off = save_env ("CLFILTER_NO_CACHE");
  const ClfLayout layout = { 1, units, mask, 8, 0, false };
  const ClfProgramSpec spec = program_on (&layout, mode, cpu_kernels);
  setenv ("CLFILTER_NO_CACHE", "1", 1);
  cl_program program = clf_engine_program (engine, &spec, NULL, &err);
  restore_env ("CLFILTER_NO_CACHE", saved_off);
  CHECK (program, "program of another layout: %s", message_of (err));
  g_clear_error (&err);
  return program;
}

/* A program that the driver builds but that holds none of our kernels. */
static cl_program
foreign_program (void)
{
  static const char *source =
      "kernel void not_a_clfilter_kernel (global uchar *p) { p[0] = 0x42; }\n";
  cl_device_id device = clf_engine_device (engine);
  cl_int status;
  cl_program program = clCreateProgramWithSource (clf_engine_context
      (engine), 1, &source, NULL, &status);
  if (status == CL_SUCCESS)
    status = clBuildProgram (program, 1, &device, "-cl-std=CL1.2", NULL,
        NULL);
  CHECK (status == CL_SUCCESS, "the foreign program: %d", status);
  if (status != CL_SUCCESS && program) {
    clReleaseProgram (program);
    program = NULL;
  }
  return program;
}

/* A binary that does what ours does not, planted with a valid header in a
 * directory others can write: never run (the frames are exact). */
static void
check_planted_in_open_dir (const char *dir)
{
  const ClfProgramSpec uv = program_of (&cache_uv_layout, CLF_MODE_SLIDING);
  cl_program program = other_layout_program (2, 1, CLF_MODE_SLIDING,
      uv.cpu_kernels);
  if (!program)
    return;
  plant_entry (program, &uv, "planted in an open directory");
  clReleaseProgram (program);
  CHECK (chmod (dir, 0777) == 0, "chmod %s failed", dir);
  check_dir_refused (dir, "planted in an open directory");
  /* Ours again, the planted entry would be ours to run: start afresh. */
  remove_tree (dir);
  ClfCacheStats s = filter_with_new_engine ("after the planted entry");
  CHECK_STATS (s, 0u, CACHE_PROGRAMS, 0u, "after the planted entry");
}

/* An entry the driver accepts, with our key, header and checksum, but
 * another program's kernels: evicted and built from source. */
static void
check_foreign_binary (const char *dir)
{
  cl_program program = foreign_program ();
  if (!program)
    return;
  const ClfProgramSpec uv = program_of (&cache_uv_layout, CLF_MODE_SLIDING);
  plant_entry (program, &uv, "another program's binary");
  clReleaseProgram (program);
  check_rebuilt (dir, 1, "another program's binary");
}

/* The GPUs' separable blur of a layout without separable_tiles (its
 * tiles are not packed), planted under the key of one whose program has
 * it: evicted and built from source, not run without it. */
static void
check_binary_without_layout_kernel (void)
{
  const ClfLayout rgba_layout = { 1, 4, 7, 8, 0, false };
  const ClfProgramSpec rgba = program_on (&rgba_layout, CLF_MODE_SEPARABLE,
      false);
  cl_program program = other_layout_program (2, 3, CLF_MODE_SEPARABLE,
      false);
  if (!program)
    return;
  plant_entry (program, &rgba, "a binary without separable_tiles");
  clReleaseProgram (program);

  GError *err = NULL;
  ClfCacheStats stats = { 0 };
  ClfEngine *fresh = clf_engine_new ("auto", &err);
  program = fresh ? clf_engine_program (fresh, &rgba, NULL, &err) : NULL;
  CHECK (program, "a binary without separable_tiles: %s", message_of (err));
  g_clear_error (&err);
  if (program) {
    cl_int status;
    cl_kernel kernel = clCreateKernel (program, "separable_tiles", &status);
    CHECK (status == CL_SUCCESS, "a binary without separable_tiles: the "
        "program has no separable_tiles (%d)", status);
    if (kernel)
      clReleaseKernel (kernel);
    clReleaseProgram (program);
    clf_engine_cache_stats (fresh, &stats);
    CHECK_STATS (stats, 0u, 1u, 1u, "a binary without separable_tiles");
  }
  clf_engine_unref (fresh);
  remove_entry (&rgba);
}

static long
peak_rss_kib (void)
{
  struct rusage usage;
  return getrusage (RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : -1;
}

/* Makes `path` an entry whose header claims SPARSE_ENTRY_BYTES in all, and
 * that is as long: sparse, so it costs no disk. */
static void
make_sparse_entry (const char *path)
{
  ClfCacheHeader header;
  int fd = open (path, O_RDWR);
  bool ok = fd >= 0 && pread (fd, &header, sizeof header, 0)
      == (ssize_t) sizeof header;
  header.payload_size = SPARSE_ENTRY_BYTES - sizeof header;
  ok = ok && pwrite (fd, &header, sizeof header, 0)
      == (ssize_t) sizeof header
      && ftruncate (fd, (off_t) SPARSE_ENTRY_BYTES) == 0;
  CHECK (ok, "cannot make %s sparse", path);
  if (fd >= 0)
    close (fd);
}

/* Entries that are not plain files of ours, one too large to read, and one
 * with another program's binary: each is removed and rebuilt. */
static void
check_untrusted_entries (const char *root, const char *dir,
    const char *entry)
{
  char elsewhere[600];
  snprintf (elsewhere, sizeof elsewhere, "%s/elsewhere.bin", root);
  CHECK (rename (entry, elsewhere) == 0 && symlink (elsewhere, entry) == 0,
      "cannot link %s", entry);
  check_rebuilt (dir, 1, "entry behind a symbolic link");
  CHECK (access (elsewhere, F_OK) == 0, "the link's target was removed");
  unlink (elsewhere);

  CHECK (unlink (entry) == 0 && mkfifo (entry, 0600) == 0,
      "cannot make a FIFO at %s", entry);
  hang_guard_start ("FIFO entry");
  check_rebuilt (dir, 1, "FIFO entry");
  hang_guard_stop ();

  CHECK (chmod (entry, 0666) == 0, "chmod %s failed", entry);
  check_rebuilt (dir, 1, "entry writable by others");
  if (geteuid () == 0) {
    CHECK (chown (entry, OTHER_UID, OTHER_UID) == 0, "chown failed");
    check_rebuilt (dir, 1, "entry of another user");
  }

  make_sparse_entry (entry);
  long rss_before = peak_rss_kib ();
  time_t start = time (NULL);
  hang_guard_start ("8 GiB sparse entry");
  check_rebuilt (dir, 1, "8 GiB sparse entry");
  hang_guard_stop ();
  long grown = peak_rss_kib () - rss_before;
  CHECK (grown < REJECT_RSS_BUDGET_KIB, "8 GiB sparse entry: the peak "
      "resident memory grew by %ld MiB in %lld s: it was read",
      grown / 1024, (long long) (time (NULL) - start));

  check_foreign_binary (dir);
  check_binary_without_layout_kernel ();
}

/* The test layer (tests/layer/) fails the call `spec` names
 * ("clCreateBuffer:3": the third one from now), or none (NULL).  Each
 * spec gets a tag of its own, so that the layer counts again. */
static void
fail_call (const char *spec)
{
  static unsigned tag;
  char tagged[128];
  if (!spec) {
    unsetenv ("CLF_TEST_FAIL_CALL");
    return;
  }
  snprintf (tagged, sizeof tagged, "%s@%u", spec, ++tag);
  setenv ("CLF_TEST_FAIL_CALL", tagged, 1);
}

/* The process's open file descriptors; -1 where /proc cannot say. */
static int
count_open_fds (void)
{
  DIR *d = opendir ("/proc/self/fd");
  if (!d)
    return -1;
  int n = 0;
  for (struct dirent * de; (de = readdir (d));)
    n += de->d_name[0] != '.';
  closedir (d);
  return n - 1;                 /* less the one reading the list */
}

/* A failure of the driver after the binary was read (building it, making
 * its kernels): the entry is evicted and built from source, once. */
static void
check_failure_after_load (const char *dir, const char *call)
{
  char spec[64], what[96];
  snprintf (spec, sizeof spec, "%s:1", call);
  snprintf (what, sizeof what, "%s fails after a load", call);
  fail_call (spec);
  ClfCacheStats s = filter_with_new_engine (what);
  fail_call (NULL);
  CHECK_STATS (s, CACHE_PROGRAMS - 1, 1u, 1u, what);
  check_entry_count (dir, CACHE_PROGRAMS, what);
}

/* ---- a binary that crashes the driver ---- */

/* The argument that makes test-engine one start of an engine in a process
 * of its own, so that a driver crashing on a cached binary takes that
 * process only. */
#define CACHE_START_ARG "cache-start"

static void
cache_format_init (void)
{
  cache_format = byte_planes (2, (const uint32_t[][5]) {{13, 11, 1, 1, 1},
      {7, 6, 2, 3, 0}});
}

/* test-engine cache-start: one start, and what the cache did for it. */
static int
cache_start_child (void)
{
  cache_format_init ();
  ClfCacheStats s = filter_with_new_engine ("a start of its own");
  printf ("cache-start: loads %u stores %u rejects %u\n", s.loads,
      s.stores, s.rejects);
  return failures ? 1 : 0;
}

/* Runs one start in a child process (the cache is the one the environment
 * names): true when it exited with success and said what the cache did,
 * into `stats`; else how it ended, into `how`.  The driver's own caches
 * stay as the environment has them (PoCL's kernel cache on, under the
 * same XDG_CACHE_HOME): a driver dying on a cut binary may write what it
 * read past its end there, and the next start must not read it back. */
static bool
start_in_child (ClfCacheStats * stats, char *how, size_t how_size)
{
  char *argv[] = { (char *) "/proc/self/exe", (char *) CACHE_START_ARG,
    NULL
  };
  char **env = g_get_environ ();
  char *out = NULL;
  int wait_status = 0;
  GError *error = NULL;
  const char *line;
  bool ok = false;

  fflush (stdout);
  if (!g_spawn_sync (NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out,
          NULL, &wait_status, &error))
    snprintf (how, how_size, "could not start: %s", error->message);
  else if (WIFSIGNALED (wait_status))
    snprintf (how, how_size, "was killed by signal %d (%s)",
        WTERMSIG (wait_status), g_strsignal (WTERMSIG (wait_status)));
  else if (!WIFEXITED (wait_status) || WEXITSTATUS (wait_status) != 0)
    snprintf (how, how_size, "exited with status %d",
        WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1);
  else if (!(line = strstr (out, "cache-start: "))
      || sscanf (line, "cache-start: loads %u stores %u rejects %u",
          &stats->loads, &stats->stores, &stats->rejects) != 3)
    snprintf (how, how_size, "did not say what the cache did");
  else
    ok = true;
  if (!ok && out)
    printf ("%s", out);
  g_clear_error (&error);
  g_free (out);
  g_strfreev (env);
  return ok;
}

/* Cuts the payload of the entry at `path` to `keep` bytes and makes its
 * header agree (size and checksum): only the driver can tell. */
static void
cut_payload (const char *path, size_t keep)
{
  ClfCacheHeader header;
  unsigned char *payload = malloc (keep);
  int fd = open (path, O_RDWR);
  bool ok = payload && fd >= 0
      && pread (fd, &header, sizeof header, 0) == (ssize_t) sizeof header
      && pread (fd, payload, keep, sizeof header) == (ssize_t) keep;
  if (ok) {
    GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
    gsize size = sizeof header.checksum;
    g_checksum_update (sum, payload, (gssize) keep);
    g_checksum_get_digest (sum, header.checksum, &size);
    g_checksum_free (sum);
    header.payload_size = keep;
    ok = pwrite (fd, &header, sizeof header, 0) == (ssize_t) sizeof header
        && ftruncate (fd, (off_t) (sizeof header + keep)) == 0;
  }
  CHECK (ok, "cannot cut the payload of %s", path);
  if (fd >= 0)
    close (fd);
  free (payload);
}

/* The entry at `path` (`which` says whose) with its binary cut to 1000
 * bytes, its header made to agree: PoCL crashes loading it, and loading
 * another program first leaves it heap to read past the cut and store in
 * its own kernel cache.  It may take the start that loads it, but the
 * next start builds the program, stores a whole entry and removes the bad
 * one, twice over; the start after that loads both. */
static void
check_binary_that_crashes (const char *dir, const char *path,
    const char *which)
{
  char how[160];
  ClfCacheStats s = { 0 };
  cut_payload (path, 1000);

  bool first = start_in_child (&s, how, sizeof how);
  printf ("%s cut to 1000 bytes: the start that loads it %s\n", which,
      first ? "rejects it" : how);
  if (first)
    CHECK_STATS (s, CACHE_PROGRAMS - 1, 1u, 1u,
        "the start that loads a cut binary");

  bool second = start_in_child (&s, how, sizeof how);
  CHECK (second, "%s cut: the start after the cut binary %s", which, how);
  if (second) {
    if (first)
      CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u, "the start after a cut binary");
    else
      CHECK_STATS (s, CACHE_PROGRAMS - 1, 1u, 1u, "the start after the crash");
    second = start_in_child (&s, how, sizeof how);
    CHECK (second, "%s cut: the second start after the cut binary %s",
        which, how);
    if (second)
      CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u,
          "the second start after a cut binary");
  }
  if (!second) {
    /* It would take this process too: rebuilt here for the next cases. */
    unlink (path);
    filter_with_new_engine ("the cut binary removed by hand");
    return;
  }
  check_entry_count (dir, CACHE_PROGRAMS, "after the cut binary");
  CHECK (file_size (path) > (long) (sizeof (ClfCacheHeader) + 1000),
      "after the cut binary: %s is %ld bytes, not stored anew", path,
      file_size (path));
  s = filter_with_new_engine ("after the cut binary");
  CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u, "after the cut binary");
}

/* A whole entry under the name a start sets it aside by while loading it:
 * left alone while a start beside holds its lock, removed (and never
 * loaded) by the first start after the lock goes, as after a crash. */
static void
check_leftover_set_aside (const char *dir)
{
  ClfCacheEntry entry;
  char path[640], leftover[640];
  char *contents = NULL;
  gsize length = 0;
  const ClfProgramSpec uv = program_of (&cache_uv_layout, CLF_MODE_SLIDING);
  if (!program_entry_init (&entry, &uv)) {
    CHECK (false, "the entry of the second plane has no name");
    return;
  }
  snprintf (path, sizeof path, "%s/%s", dir, entry.name);
  snprintf (leftover, sizeof leftover, "%s/%.*s.0123abcd.loading", dir,
      2 * CLF_CACHE_HASH_BYTES, entry.name);
  clf_cache_entry_clear (&entry);
  bool ok = g_file_get_contents (path, &contents, &length, NULL)
      && g_file_set_contents_full (leftover, contents, (gssize) length,
      G_FILE_SET_CONTENTS_CONSISTENT, 0600, NULL);
  g_free (contents);
  CHECK (ok, "cannot copy %s to %s", path, leftover);
  if (!ok)
    return;

  int held = open (leftover, O_RDONLY | O_CLOEXEC);
  CHECK (held >= 0 && flock (held, LOCK_EX) == 0, "cannot lock %s",
      leftover);
  ClfCacheStats s = filter_with_new_engine ("an entry being loaded beside");
  CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u, "an entry being loaded beside");
  CHECK (access (leftover, F_OK) == 0, "an entry being loaded beside: "
      "removed while its lock was held");
  if (held >= 0)
    close (held);

  s = filter_with_new_engine ("an entry left set aside");
  CHECK_STATS (s, CACHE_PROGRAMS, 0u, 1u, "an entry left set aside");
  check_entry_count (dir, CACHE_PROGRAMS, "an entry left set aside");
  if (access (leftover, F_OK) == 0)
    unlink (leftover);
}

/* The key changes with each part of the driver's library file it covers:
 * a driver rebuilt or replaced under the same version strings gets
 * entries of its own. */
static void
check_key_covers_driver_file (void)
{
  static const char *const parts[] = { "path", "device", "inode", "size",
    "modification time (s)", "modification time (ns)"
  };
  cl_platform_id platform = engine_platform ();
  cl_device_id device = clf_engine_device (engine);
  char options[CLF_PROGRAM_OPTIONS_SIZE];
  uint8_t want[CLF_CACHE_HASH_BYTES], key[CLF_CACHE_HASH_BYTES];
  ClfDriverFile driver;

  const ClfProgramSpec uv = program_of (&cache_uv_layout, CLF_MODE_SLIDING);
  clf_program_options (&uv, options);
  if (!clf_cache_driver_file (platform, &driver)) {
    CHECK (false, "the driver's library file was not found");
    return;
  }
  printf ("driver library: %s\n", driver.path);
  CHECK (driver.path[0] == '/' && driver.size > 0, "the driver's library "
      "file: %s, %" PRIu64 " bytes", driver.path, driver.size);
  CHECK (clf_cache_key (platform, device, &driver, options, want)
      && clf_cache_key (platform, device, &driver, options, key)
      && memcmp (key, want, sizeof key) == 0, "the same key twice differs");
  for (size_t i = 0; i < N_OF (parts); i++) {
    ClfDriverFile other = driver;
    other.path = i == 0 ? "/usr/lib/elsewhere/libdriver.so" : driver.path;
    other.device += i == 1;
    other.inode += i == 2;
    other.size += i == 3;
    other.mtime_sec += i == 4;
    other.mtime_nsec += i == 5;
    CHECK (clf_cache_key (platform, device, &other, options, key)
        && memcmp (key, want, sizeof key) != 0, "the key does not change "
        "with the driver file's %s", parts[i]);
  }
}

/* Cold, warm, corrupt, truncated, stale, untrusted and switched off, in a
 * cache directory of its own.  Every engine's bytes are checked against
 * the reference; the counters say whether the cache was used. */
static void
test_cache (void)
{
  char root[] = "/tmp/clf-test-cache-XXXXXX";
  cache_format_init ();
  if (!mkdtemp (root)) {
    CHECK (false, "mkdtemp failed");
    return;
  }
  char *saved_home = save_env ("XDG_CACHE_HOME");
  char *saved_off = save_env ("CLFILTER_NO_CACHE");
  char dir[512], entries[CACHE_PROGRAMS][512];
  unsigned others;
  snprintf (dir, sizeof dir, "%s/gst-clfilter", root);
  setenv ("XDG_CACHE_HOME", root, 1);
  setenv ("CLFILTER_NO_CACHE", "0", 1);   /* "0" leaves the cache on */
  int fds_before = count_open_fds ();

  ClfCacheStats s = filter_with_new_engine ("cold");
  CHECK_STATS (s, 0u, CACHE_PROGRAMS, 0u, "cold");
  check_entry_count (dir, CACHE_PROGRAMS, "cold");

  s = filter_with_new_engine ("warm");
  CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u, "warm");
  check_entry_count (dir, CACHE_PROGRAMS, "warm");

  /* Garbage in the middle of the binary, a file cut short in the binary
   * and in the header, another key's file under this key's name: each is
   * removed, rebuilt from source and written anew, whole. */
  if (list_cache (dir, entries, &others) == CACHE_PROGRAMS) {
    long size = file_size (entries[0]);
    scribble (entries[0], size / 2, 64);
    check_rebuilt (dir, 1, "corrupt");
    CHECK (truncate (entries[0], size / 2) == 0, "truncate failed");
    check_rebuilt (dir, 1, "truncated");
    CHECK (truncate (entries[0], 20) == 0, "truncate failed");
    check_rebuilt (dir, 1, "truncated header");
    CHECK (rename (entries[1], entries[0]) == 0, "rename failed");
    check_rebuilt (dir, 2, "stale");
    check_untrusted_entries (root, dir, entries[0]);
    check_failure_after_load (dir, "clBuildProgram");
    check_failure_after_load (dir, "clCreateKernel");
    /* Each program's entry: the one loaded first, and the one loaded
     * after another program. */
    char y[640], uv[640];
    ClfCacheEntry y_entry, uv_entry;
    const ClfProgramSpec y_blur = program_of (&cache_y_layout,
        CLF_MODE_SLIDING);
    const ClfProgramSpec uv_blur = program_of (&cache_uv_layout,
        CLF_MODE_SLIDING);
    bool named = program_entry_init (&uv_entry, &uv_blur);
    CHECK (named, "the entry of the second plane has no name");
    if (named) {
      snprintf (uv, sizeof uv, "%s/%s", dir, uv_entry.name);
      clf_cache_entry_clear (&uv_entry);
      check_binary_that_crashes (dir, uv, "the second plane's binary");
    }
    named = program_entry_init (&y_entry, &y_blur);
    CHECK (named, "the entry of the first plane has no name");
    if (named) {
      snprintf (y, sizeof y, "%s/%s", dir, y_entry.name);
      clf_cache_entry_clear (&y_entry);
      check_binary_that_crashes (dir, y, "the first plane's binary");
    }
    check_leftover_set_aside (dir);
  }
  check_untrusted_dirs (root, dir);
  check_planted_in_open_dir (dir);
  check_key_covers_driver_file ();

  /* Switched off: valid entries are not read, and nothing is written. */
  setenv ("CLFILTER_NO_CACHE", "1", 1);
  s = filter_with_new_engine ("no cache, entries present");
  CHECK_STATS (s, 0u, 0u, 0u, "no cache, entries present");
  remove_tree (dir);
  s = filter_with_new_engine ("no cache");
  CHECK_STATS (s, 0u, 0u, 0u, "no cache");
  CHECK (access (dir, F_OK) != 0, "no cache: %s was created", dir);
  /* Every directory and entry opened was closed, on every path. */
  CHECK (count_open_fds () == fds_before, "%d file descriptors open after "
      "the cache's tests, %d before", count_open_fds (), fds_before);

  restore_env ("XDG_CACHE_HOME", saved_home);
  restore_env ("CLFILTER_NO_CACHE", saved_off);
  remove_tree (root);
}

/* ---- the kernel-time summary ----------------------------------------- */

/* Times 0..n-1 in a scrambled order (a stride coprime with n). */
static ClfTimeSummary
summary_of_permutation (ClfTimeStats * stats, uint64_t n)
{
  ClfTimeSummary summary;
  clf_time_stats_reset (stats);
  for (uint64_t i = 0; i < n; i++)
    clf_time_stats_add (stats, (i * 7919) % n);
  CHECK (clf_time_stats_summary (stats, &summary), "summary: no memory");
  return summary;
}

/* Exact up to CLF_TIME_SAMPLES frames; beyond, count, mean, min and max
 * stay exact and the median and p95 come close, in the same memory. */
static void
test_stats (void)
{
  ClfTimeStats *stats = malloc (sizeof *stats);
  const uint64_t exact[] = { 1, 2, 3, 20, 101, CLF_TIME_SAMPLES };
  for (size_t i = 0; i < N_OF (exact); i++) {
    uint64_t n = exact[i];
    ClfTimeSummary s = summary_of_permutation (stats, n);
    CHECK (s.frames == n && s.min_ns == 0 && s.max_ns == n - 1
        && s.mean_ns == (n - 1) / 2 && s.median_ns == (n - 1) / 2
        && s.p95_ns == (n * 95 + 99) / 100 - 1, "%" PRIu64 " frames: "
        "mean %" PRIu64 " median %" PRIu64 " p95 %" PRIu64, n, s.mean_ns,
        s.median_ns, s.p95_ns);
  }
  const uint64_t n = 1000003;   /* prime: 7919 is coprime with it */
  ClfTimeSummary s = summary_of_permutation (stats, n);
  double median_error = ((double) s.median_ns - (n - 1) / 2.0) / n;
  double p95_error = ((double) s.p95_ns - 0.95 * n) / n;
  CHECK (s.frames == n && s.min_ns == 0 && s.max_ns == n - 1
      && s.mean_ns == (n - 1) / 2, "%" PRIu64 " frames: count, min, max or "
      "mean wrong", n);
  CHECK (median_error > -0.02 && median_error < 0.02
      && p95_error > -0.02 && p95_error < 0.02, "%" PRIu64 " frames: "
      "median %" PRIu64 ", p95 %" PRIu64 " off by more than 2%%", n,
      s.median_ns, s.p95_ns);
  ClfTimeSummary empty = summary_of_permutation (stats, 0);
  CHECK (empty.frames == 0 && empty.median_ns == 0, "no frames");
  free (stats);
}

/* ---- injected faults (the test layer: tests/layer/) ------------------- */

/* An I420 frame (set by test_faults). */
static ClfFrameFormat fault_format;

/* One frame from host memory to host memory (uploads, kernels, downloads,
 * a wait, the profiling), or between buffers wrapping host memory (map
 * and unmap); checked against `want` when it succeeds. */
static bool
fault_frame (ClfPlan * plan, const ClfParams * params, Blob * src,
    Blob * dst, cl_mem src_mem, cl_mem dst_mem, const ClfHostFrame * want,
    GError ** err, const char *what)
{
  ClfFrameStats stats;
  memset (dst->bytes, CANARY, dst->size);
  ClfFrame from = frame_of (src, src_mem), to = frame_of (dst, dst_mem);
  if (!clf_plan_process (plan, params, &from, &to, &stats, err))
    return false;
  check_blob (&fault_format, dst, want, what);
  return true;
}

/* The Nth call of `call` fails: the frame that makes it reports the call
 * and CL_OUT_OF_RESOURCES, the frames before it are exact, and so is the
 * next frame once the fault is gone (nothing left half-done). */
static void
check_fault (const char *call, unsigned nth, bool wrapped)
{
  char spec[96], what[160];
  snprintf (spec, sizeof spec, "%s:%u", call, nth);
  snprintf (what, sizeof what, "fault %s (%s frames)", spec,
      wrapped ? "wrapped" : "host");
  /* A radius past the GPUs' one-pass tiles, so that both kernel families
   * make a buffer of sums (the third clCreateBuffer of a frame). */
  ClfParams params = { CLF_MODE_SLIDING, CLF_TILES_MAX_RADIUS + 1,
    CLF_BORDER_MIRROR
  };
  ClfHostFrame in, want;
  test_frame_init (&in, &fault_format, true);
  test_frame_init (&want, &fault_format, false);
  clf_ref_filter_frame (&params, &fault_format, &in, &want);
  GError *err = NULL;
  BlobPair h;
  host_blobs_init (&h, &fault_format, &in, wrapped, &err);
  CHECK (!err, "%s: wrap: %s", what, message_of (err));
  g_clear_error (&err);
  ClfPlan *plan = plan_for (what, &fault_format);

  fail_call (spec);
  unsigned frame = 0;
  bool failed = false;
  for (; plan && frame < 8 && !failed; frame++)
    failed = !fault_frame (plan, &params, &h.src, &h.dst, h.src_mem,
        h.dst_mem, &want, &err, what);
  fail_call (NULL);

  CHECK (failed, "%s: no frame failed in %u", what, frame);
  if (failed) {
    CHECK (g_error_matches (err, CLF_ERROR, CLF_ERROR_OPENCL)
        && clf_error_get_cl_status (err) == CL_OUT_OF_RESOURCES
        && strstr (err->message, call)
        && strstr (err->message, "CL_OUT_OF_RESOURCES"),
        "%s: frame %u failed with \"%s\"", what, frame, message_of (err));
    g_clear_error (&err);
    CHECK (fault_frame (plan, &params, &h.src, &h.dst, h.src_mem,
            h.dst_mem, &want, &err, what), "%s: the frame after the fault "
        "failed: %s", what, message_of (err));
  }
  g_clear_error (&err);
  clf_plan_free (plan);
  blob_pair_clear (&h);
  test_frame_clear (&in);
  test_frame_clear (&want);
}

/* Source that does not compile: the plan's kernels are refused with the
 * build log, nothing goes into the binary cache, and the next plan
 * builds. */
static void
check_bad_source (void)
{
  static const char injected[] = "#error clfilter-injected-build-error\n";
  const ClfParams params = { CLF_MODE_SLIDING, 2, CLF_BORDER_CLAMP };
  GError *err = NULL;
  ClfEngine *fresh = clf_engine_new ("auto", &err);
  CHECK (fresh, "clf_engine_new: %s", message_of (err));
  if (!fresh)
    return;
  setenv ("CLF_TEST_BAD_SOURCE", injected, 1);
  ClfPlan *plan = clf_plan_new (fresh, &fault_format, &err);
  CHECK (plan, "the plan before its kernels: %s", message_of (err));
  bool built = plan && clf_plan_prepare (plan, &params, &err);
  unsetenv ("CLF_TEST_BAD_SOURCE");
  CHECK (!built && g_error_matches (err, CLF_ERROR, CLF_ERROR_BUILD)
      && clf_error_get_detail (err)
      && strstr (clf_error_get_detail (err), "clfilter-injected-build-error"),
      "bad source: %s / log: %s", built ? "built" : message_of (err),
      clf_error_get_detail (err) ? clf_error_get_detail (err) : "(none)");
  ClfCacheStats stats;
  clf_engine_cache_stats (fresh, &stats);
  CHECK (stats.stores == 0, "bad source: %u binaries cached", stats.stores);
  clf_plan_free (plan);
  g_clear_error (&err);

  plan = clf_plan_new (fresh, &fault_format, &err);
  CHECK (plan && clf_plan_prepare (plan, &params, &err), "the plan after "
      "the bad source: %s", message_of (err));
  g_clear_error (&err);
  clf_plan_free (plan);
  clf_engine_unref (fresh);
}

static void
test_faults (void)
{
  static const char *const host_calls[] = {
    "clCreateBuffer", "clEnqueueWriteBufferRect", "clSetKernelArg",
    "clEnqueueNDRangeKernel", "clEnqueueReadBufferRect", "clWaitForEvents",
    "clGetEventProfilingInfo",
  };
  static const char *const wrapped_calls[] = {
    "clGetMemObjectInfo", "clEnqueueMapBuffer", "clEnqueueUnmapMemObject",
  };
  static const unsigned nths[] = { 1, 2, 3 };
  /* The faults come from the test layer: without it, nothing would
   * fail and every check below would say so. */
  const char *layers = getenv ("OPENCL_LAYERS");
  CHECK (layers && strstr (layers, "clf-test-layer"), "faults: the test "
      "layer is not loaded (OPENCL_LAYERS=%s); meson test sets it",
      layers ? layers : "");
  if (!layers || !strstr (layers, "clf-test-layer"))
    return;
  fault_format = byte_planes (3, (const uint32_t[][5]) {{13, 11, 1, 1, 1},
      {7, 6, 1, 1, 0}, {7, 6, 1, 1, 0}});
  for (size_t n = 0; n < N_OF (nths); n++) {
    for (size_t c = 0; c < N_OF (host_calls); c++)
      check_fault (host_calls[c], nths[n], false);
    /* Only a device that shares host memory wraps it. */
    for (size_t c = 0; c < N_OF (wrapped_calls)
        && clf_engine_host_unified (engine); c++)
      check_fault (wrapped_calls[c], nths[n], true);
  }
  /* A fault after four good frames: one wait per frame. */
  check_fault ("clWaitForEvents", 5, false);
  check_bad_source ();
}

/* ---- long frames: launches, stops, the slow report -------------------- */

/* Counts the launches of a long pass (the plan asks before each) and
 * cancels the frame at the `stop_at`th question (0: never); records the
 * slow reports. */
typedef struct {
  unsigned asked, stop_at, slow_reports;
  uint64_t estimate;
  ClfParams reported;           /* the settings the last report gave */
} LongWatch;

static bool
watch_cancelled (void *data)
{
  LongWatch *w = data;
  return ++w->asked == w->stop_at;
}

static void
watch_slow (const ClfParams * params, uint64_t estimated_ns, void *data)
{
  LongWatch *w = data;
  w->slow_reports++;
  w->estimate = estimated_ns;
  w->reported = *params;
}

/* A fresh plan (no kernel timed yet) for `format`, watched by `w`. */
static ClfPlan *
watched_plan (const char *what, const ClfFrameFormat * format, LongWatch * w,
    uint64_t slow_ns)
{
  ClfPlan *plan = plan_for (what, format);
  ClfInterrupt interrupt = { watch_cancelled, watch_slow, slow_ns, w };
  memset (w, 0, sizeof *w);
  if (plan)
    clf_plan_set_interrupt (plan, &interrupt);
  return plan;
}

/* Builds the programs a frame of `params` needs and forgets the questions
 * their wait asked (it asks the interrupt too), so that `w` counts the
 * frame's launches only. */
static void
prepare_watched (ClfPlan * plan, const ClfParams * params, LongWatch * w,
    const char *what)
{
  GError *err = NULL;
  CHECK (clf_plan_prepare (plan, params, &err), "%s: %s", what,
      message_of (err));
  g_clear_error (&err);
  w->asked = 0;
}

/* Rows enough that a long pass takes several launches on this device: a
 * launch holds at least a work-group per compute unit (up to 128 pixels
 * each with the GPU kernels), so the frame grows with the units. */
static uint32_t
rows_for_launches (uint32_t at_least)
{
  cl_uint units = 1;
  clGetDeviceInfo (clf_engine_device (engine), CL_DEVICE_MAX_COMPUTE_UNITS,
      sizeof units, &units, NULL);
  return 8 * units > at_least ? 8 * units : at_least;
}

/* A random frame of `format` filtered by `params` with `plan` (fresh,
 * watched by `w`): exactly the reference's bytes, in 2 launches or more. */
static void
check_long_exact (ClfPlan * plan, LongWatch * w, const char *what,
    const ClfFrameFormat * format, const ClfParams * params)
{
  prepare_watched (plan, params, w, what);
  ClfHostFrame in, want, out;
  test_frame_init (&in, format, true);
  test_frame_init (&want, format, false);
  clf_ref_filter_frame (params, format, &in, &want);
  run_and_compare (plan, params, format, what, &in, &out, &want);
  printf ("%s %ux%u: %u launches\n", what, format->components[0].width,
      format->components[0].height, w->asked);
  CHECK (w->asked >= 2, "%s ran in %u launch(es)", what, w->asked);
  test_frame_clear (&in);
  test_frame_clear (&want);
  test_frame_clear (&out);
}

/* A pass estimated above 50 ms runs in several launches over parts of the
 * plane (rectangles of pixels; the CPUs' separable: one-row strips), and
 * the bytes are exactly the reference's: the naive box at radius 127 on
 * GRAY8 64 wide and RGBA 48 wide, the separable blur at 1023 on RGBA 160
 * wide (the matrix has the box at 1023), each with rows enough for the
 * device (16 on 2 PoCL cores, 1056 on an H200).  A fresh plan has timed no
 * kernel, so it assumes the slowest speed seen and splits even on a fast
 * device. */
static void
check_long_pass_exact (void)
{
  uint32_t rows = rows_for_launches (16);
  struct {
    const char *what;
    ClfFrameFormat format;
    ClfParams params;
  } cases[] = {
    {"box r=127 GRAY8", one_plane (64, rows, 1, 1, 1),
        {CLF_MODE_BOX, 127, CLF_BORDER_MIRROR}},
    {"box r=127 RGBA", one_plane (48, rows, 4, 7, 7),
        {CLF_MODE_BOX, 127, CLF_BORDER_CLAMP}},
    {"separable r=1023 RGBA", one_plane (160, rows_for_launches (100), 4, 7,
            7), {CLF_MODE_SEPARABLE, 1023, CLF_BORDER_MIRROR}},
  };
  for (size_t c = 0; c < N_OF (cases); c++) {
    LongWatch w;
    ClfPlan *plan = watched_plan (cases[c].what, &cases[c].format, &w, 0);
    if (!plan)
      continue;
    check_long_exact (plan, &w, cases[c].what, &cases[c].format,
        &cases[c].params);
    clf_plan_free (plan);
  }
}

/* Cancelled between two launches, a frame of `params` (`what`) ends with
 * CLF_ERROR_CANCELLED after the launches before; its slow report comes
 * once, after the first launch, with the frame's estimate and its
 * settings (the radius and border; for convolve, the kernel).  The plan
 * then filters a frame of `next` (`next_what`) whole and exactly. */
static void
check_long_stops (const char *what, const ClfFrameFormat * format,
    const ClfParams * params, const ClfParams * next, const char *next_what)
{
  LongWatch w;
  ClfPlan *plan = watched_plan (what, format, &w, 1);
  if (!plan)
    return;
  ClfHostFrame in, out;
  GError *err = NULL;
  ClfFrameStats stats;
  test_frame_init (&in, format, true);
  test_frame_init (&out, format, false);
  prepare_watched (plan, params, &w, what);
  w.stop_at = 2;
  CHECK (!clf_plan_process_host (plan, params, &in, &out, &stats, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_CANCELLED),
      "%s not cancelled: %s", what, err ? err->message : "it finished");
  CHECK (w.asked == 2, "%s: asked %u times before the stop", what, w.asked);
  CHECK (w.slow_reports == 1 && w.estimate > 0, "%s: %u slow reports, "
      "estimate %" PRIu64 " ns", what, w.slow_reports, w.estimate);
  CHECK (w.reported.mode == params->mode
      && (params->mode == CLF_MODE_CONVOLVE
          ? memcmp (&w.reported.kernel, &params->kernel,
              sizeof params->kernel) == 0
          : w.reported.radius == params->radius
          && w.reported.border == params->border),
      "%s: the report gave %s r=%u, kernel %ux%u", what,
      clf_mode_name (w.reported.mode), w.reported.radius,
      w.reported.kernel.size, w.reported.kernel.size);
  printf ("%s %ux%u: estimated %.3g s a frame\n", what,
      format->components[0].width, clf_frame_format_rows (format, 0),
      w.estimate / 1e9);
  g_clear_error (&err);

  /* The next frame, small enough to check, is whole and exact. */
  ClfHostFrame want, again;
  test_frame_init (&want, format, false);
  clf_ref_filter_frame (next, format, &in, &want);
  w.stop_at = 0;
  run_and_compare (plan, next, format, next_what, &in, &again, &want);
  test_frame_clear (&want);
  test_frame_clear (&again);
  test_frame_clear (&in);
  test_frame_clear (&out);
  clf_plan_free (plan);
}

/* The box at 1023, stopped; then the box at 40. */
static void
check_long_pass_stops (void)
{
  ClfFrameFormat format = one_plane (64, rows_for_launches (48), 1, 1, 1);
  ClfParams box = { CLF_MODE_BOX, 1023, CLF_BORDER_CLAMP };
  ClfParams smaller = { CLF_MODE_BOX, 40, CLF_BORDER_MIRROR };
  check_long_stops ("box r=1023", &format, &box, &smaller,
      "box r=40 after a stop");
}

/* RGBA64_LE at w x h: three 16-bit colour samples and alpha, copied. */
static ClfFrameFormat
rgba64 (uint32_t w, uint32_t h)
{
  return (ClfFrameFormat) {
  1, 4, {component (0, 0, 8, w, h, 16, 0, false, SHARP),
          component (0, 2, 8, w, h, 16, 0, false, SHARP),
          component (0, 4, 8, w, h, 16, 0, false, SHARP),
          component (0, 6, 8, w, h, 16, 0, false, ALPHA)}};
}

/* mode=convolve's frames estimated above 50 ms run in launches too (the
 * CPUs' strips: one-row strips; the GPUs' tiles: rows of work-groups, or
 * runs of them), and the bytes are exactly the reference's, for each
 * kernel of the device's family: 15x15 on RGBA (CPUs: truncated float
 * quotients; GPUs: the tall float tiles), 7x7 on RGBA (the 4-row float
 * tiles), 15x15 on RGBA64 (int sums, int tiles; and coefficients x 1000:
 * long sums), a 7x7 rank-1 kernel on RGBA64 (the GPUs'
 * rank-1 tiles) and I420 (three planes, a report for the frame, not
 * for each).  A fresh plan assumes the slowest speed seen, so each
 * first launch is short on any device: on the 2048-wide frames, part of
 * a row of work-groups (a launch from a column other than 0); on the
 * frame of 65546 pixels a row, part of a row (the CPUs' strips take 4096
 * pixels of a row in launches, the last 10).  Each frame's rows are
 * enough for a launch of a work-group per compute unit to leave some. */
#define KERNEL_LONG_SUMS N_KERNEL_KINDS

static void
check_long_convolve_exact (void)
{
  uint32_t rows = rows_for_launches (480);
  struct {
    const char *what;
    ClfFrameFormat format;
    uint32_t size;
    int kind;
  } cases[] = {
    {"convolve 15x15 RGBA", one_plane (2048, rows / 8, 4, 7, 7), 15,
        KERNEL_SMALL},
    {"convolve 7x7 RGBA", one_plane (512, 2 * rows, 4, 7, 7), 7,
        KERNEL_SMALL},
    {"convolve 15x15 RGBA 64 Ki wide", one_plane (65546, 4, 4, 7, 7), 15,
        KERNEL_SMALL},
    {"convolve 15x15 RGBA64", rgba64 (2048, rows / 4), 15, KERNEL_SMALL},
    {"convolve 15x15 long sums RGBA64", rgba64 (256, rows), 15,
        KERNEL_LONG_SUMS},
    {"convolve 7x7 rank-1 RGBA64", rgba64 (1024, 2 * rows), 7, KERNEL_RANK1},
    {"convolve 15x15 I420", byte_planes (3, (const uint32_t[][5]) {
                {512, 2 * rows, 1, 1, 1}, {256, rows, 1, 1, 0},
                {256, rows, 1, 1, 0}}), 15, KERNEL_SMALL},
  };
  for (size_t c = 0; c < N_OF (cases); c++) {
    LongWatch w;
    ClfPlan *plan = watched_plan (cases[c].what, &cases[c].format, &w, 0);
    if (!plan)
      continue;
    ClfParams params = {.mode = CLF_MODE_CONVOLVE,
      .border = (ClfBorder) (c % 2),
      .kernel = random_kernel (cases[c].size, cases[c].kind ==
          KERNEL_LONG_SUMS ? KERNEL_SMALL : cases[c].kind)
    };
    /* Sums past 2^31 of 16-bit values, quotients as the small kernel's
     * (huge coefficients would clamp every sample to one end). */
    for (uint32_t i = 0; cases[c].kind == KERNEL_LONG_SUMS
        && i < cases[c].size * cases[c].size; i++)
      params.kernel.coeffs[i] *= 1000;
    check_long_exact (plan, &w, cases[c].what, &cases[c].format, &params);
    CHECK (w.slow_reports == 1, "%s: %u slow reports for one frame",
        cases[c].what, w.slow_reports);
    clf_plan_free (plan);
  }
}

/* A convolve frame cancelled between two launches ends with
 * CLF_ERROR_CANCELLED, its slow report given once with its kernel; the
 * next frame, of another kernel, is whole and exact. */
static void
check_long_convolve_stops (void)
{
  ClfFrameFormat format = rgba64 (256, rows_for_launches (480));
  ClfParams params = {.mode = CLF_MODE_CONVOLVE,.border = CLF_BORDER_MIRROR,
    .kernel = random_kernel (15, KERNEL_SMALL)
  };
  ClfParams next = params;
  next.kernel = random_kernel (5, KERNEL_NEGATIVE);
  check_long_stops ("convolve 15x15", &format, &params, &next,
      "convolve 5x5 after a stop");
}

static void
test_long (void)
{
  check_long_pass_exact ();
  check_long_pass_stops ();
  check_long_convolve_exact ();
  check_long_convolve_stops ();
}

static const struct {
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
  if (pretended)
    setenv ("CLF_TEST_DEVICE_TYPE", pretended, 1);
  free (pretended);
  printf ("device: %s\n", clf_engine_device_name (engine));
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
