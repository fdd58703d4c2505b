/* kernels-werror: every program the engine can ask for builds with
 * warnings as errors.
 *
 * The programs: for each format clfilter takes (gst_cl_format_describe),
 * each view's layouts (the blurs', with 64-bit sums where the view's sums
 * can need them, and laplace's; 16-bit containers in either byte order, as
 * a device of the other order sees them), plus the layouts the engine
 * tests give it beyond those formats; each mode that runs on the layout
 * (convolve on the blurs' layouts without 64-bit sums), for both kinds of
 * device (the CPUs' kernels and the GPUs'); and the colour conversions:
 * each YUV format clfilter converts into BGRx, with each way of bringing
 * chroma to a pixel, in either byte order, for CPUs (runs) and GPUs, and
 * NV12 into each RGB format; each RGB format into I420, and BGRx into
 * each 4:2:0 format encoders take
 * (gst_cl_convert_for); and for YUV whose luma is a plane of its own,
 * the GPUs' sliding tiles that write the conversion.  Each is
 * built from the sources and options the engine uses (clf-catalogue.c),
 * with -Werror added, on the engine's device (CLFILTER_DEVICE picks it).
 *
 * First, a program with a planted #warning must fail to build: a driver
 * that ignores -Werror would let this test see nothing.
 *
 * CLF_TEST_TIER=quick builds a third of the programs, turned by
 * CLF_TEST_SEED (printed), and the first of each family (the programs of
 * one mode, kind of kernels, sample size and width of sums; the
 * conversions of one direction and kind), so that every source and every
 * family's options still meet the compiler.
 *
 * Usage: kernels-werror [--list]   (--list: print each program's options,
 * build nothing)
 */
#include "config.h"
#include "clf-private.h"
#include "clf-kernels.h"
#include "gstclconvert.h"
#include "gstclformat.h"

#include <gst/gst.h>
#include <gst/video/video.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Layouts the engine tests run beyond the element's formats: 6-bit values
 * shifted 2 in bytes (gray and four a pixel), 12-bit big-endian, 16-bit
 * packed 4:2:2 (Y210-like: luma and chroma). */
static const ClfLayout extra_layouts[] = {
  {1, 1, 1, 6, 2, false, false},
  {1, 4, 15, 6, 2, false, false},
  {2, 1, 1, 12, 0, true, false},
  {2, 1, 1, 12, 0, true, true},
  {2, 2, 1, 10, 6, false, false},
  {2, 4, 10, 10, 6, false, false},
};

static GArray *programs;        /* of ClfProgramSpec, each once */

/* The programs of `mode` over `layout` (one a set of passes). */
static void
add_program (const ClfLayout * layout, ClfMode mode, bool cpu_kernels)
{
  ClfProgramSpec specs[CLF_MAX_MODE_PROGRAMS];
  unsigned n = clf_mode_programs (cpu_kernels, layout, mode, specs);
  for (unsigned s = 0; s < n; s++) {
    bool known = false;
    for (guint i = 0; i < programs->len && !known; i++)
      known = clf_program_equal (&g_array_index (programs, ClfProgramSpec,
              i), &specs[s]);
    if (!known)
      g_array_append_val (programs, specs[s]);
  }
}

/* The programs of a layout: laplace's, or the three blurs' and (without
 * 64-bit window sums: its own sums' width is the kernel's, not the
 * layout's) convolve's. */
static void
add_layout (const ClfLayout * layout, bool laplace)
{
  for (int cpu = 0; cpu < 2; cpu++) {
    if (laplace) {
      add_program (layout, CLF_MODE_LAPLACE, cpu);
      add_program (layout, CLF_MODE_UNSHARP, cpu);
      continue;
    }
    add_program (layout, CLF_MODE_BOX, cpu);
    add_program (layout, CLF_MODE_SEPARABLE, cpu);
    add_program (layout, CLF_MODE_SLIDING, cpu);
    if (!layout->wide_sums) {
      add_program (layout, CLF_MODE_CONVOLVE, cpu);
      add_program (layout, CLF_MODE_GAUSSIAN, cpu);
    }
  }
}

static void
add_view (const ClfView * v)
{
  for (int swap = 0; swap < (v->sample_bytes == 2 ? 2 : 1); swap++) {
    ClfLayout blur = { v->sample_bytes, v->units, v->blur_mask, v->depth,
      v->shift, swap, false
    };
    ClfLayout laplace = blur;
    laplace.mask = v->laplace_mask;
    if (v->blur_mask) {
      add_layout (&blur, false);
      blur.wide_sums = true;
      if (clf_needs_wide_sums (v, CLF_MAX_RADIUS))
        add_layout (&blur, false);
    }
    if (v->laplace_mask)
      add_layout (&laplace, true);
  }
}

/* The views of every format clfilter takes; false where one cannot be
 * described. */
static bool
add_element_formats (void)
{
  GstCaps *caps = gst_cl_format_supported_caps ();
  bool ok = true;
  unsigned n_formats = 0;
  for (guint s = 0; s < gst_caps_get_size (caps); s++) {
    const GValue *list = gst_structure_get_value (gst_caps_get_structure
        (caps, s), "format");
    for (guint f = 0; f < gst_value_list_get_size (list); f++) {
      const char *name = g_value_get_string (gst_value_list_get_value (list,
              f));
      GstVideoInfo info;
      ClfFrameFormat format;
      ClfViews views;
      GError *err = NULL;
      if (!gst_video_info_set_format (&info, gst_video_format_from_string
              (name), 64, 48) || !gst_cl_format_describe (&info, &format)
          || !clf_frame_format_check (&format, &err)) {
        fprintf (stderr, "FAIL: format %s cannot be described: %s\n", name,
            err ? err->message : "");
        g_clear_error (&err);
        ok = false;
        continue;
      }
      clf_frame_format_views (&format, &views);
      for (uint32_t i = 0; i < views.n; i++)
        add_view (&views.views[i]);
      n_formats++;
    }
  }
  gst_caps_unref (caps);
  printf ("%u formats\n", n_formats);
  return ok && n_formats > 0;
}

static void
add_spec (const ClfProgramSpec * spec)
{
  for (guint i = 0; i < programs->len; i++)
    if (clf_program_equal (&g_array_index (programs, ClfProgramSpec, i), spec))
      return;
  g_array_append_val (programs, *spec);
}

/* The GPUs' sliding blur that writes a conversion into RGB from the luma
 * it blurs (clf-plan.c's fused_luma_view), where the format's 8-bit luma
 * is its plane's one component. */
static void
add_fused_luma (const ClfFrameFormat * in, const ClfConversion * conversion,
    const ClfConvertLayout * convert)
{
  ClfViews views;
  clf_frame_format_views (in, &views);
  const ClfView *v = clf_views_lone_luma (in, &views);
  if (conversion->direction != CLF_CONVERT_YUV_TO_RGB || !v)
    return;
  ClfLayout layout = { 1, 1, v->blur_mask, v->depth, v->shift, false, false };
  ClfParams params = { CLF_MODE_SLIDING, 1, CLF_BORDER_CLAMP };
  ClfProgramSpec spec = clf_program_for (false, &layout, &params);
  spec.converts_luma = true;
  spec.convert = *convert;
  add_spec (&spec);
}

/* The conversion programs of `format` into `rgb`, where clfilter converts
 * it: each chroma rule, each byte order, with laplace's sharpening and
 * without. */
static void
add_conversions (GstVideoFormat format, GstVideoFormat rgb)
{
  GstVideoInfo in, out;
  ClfFrameFormat in_format;
  ClfConversion conversion;
  ClfProgramSpec spec;

  if (!gst_video_info_set_format (&in, format, 64, 48)
      || !gst_video_info_set_format (&out, rgb, 64, 48)
      || !gst_cl_format_describe (&in, &in_format)
      || !gst_cl_convert_for (&in, &in_format, &out, &conversion))
    return;
  /* (To YUV, no nearest rule.) */
  for (int rule = GST_VIDEO_INFO_IS_YUV (&in) ? 0 : 1; rule < 4; rule++)
    for (int kind = 0; kind < 8; kind++) {
      bool little = kind & 1, cpu = kind & 2, sharpen = kind & 4;
      conversion.chroma_up = rule == 0 ? CLF_CHROMA_UP_NEAREST :
          CLF_CHROMA_UP_FILTERED;
      conversion.h_cosited = rule >= 2;
      conversion.v_cosited = rule == 3;
      memset (&spec, 0, sizeof spec);
      spec.converts = true;
      clf_convert_layout (&in_format, &conversion, little, cpu, sharpen,
          &spec.convert);
      add_spec (&spec);
      if (!cpu && !sharpen)
        add_fused_luma (&in_format, &conversion, &spec.convert);
    }
}

static void
add_element_conversions (void)
{
  guint n = 0;
  const GstVideoFormat *all = gst_video_formats_raw (&n);
  static const GstVideoFormat rgb[] = {
    GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_ARGB,
    GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR,
  };

  static const GstVideoFormat yuv[] = {
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_YV12,
    GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_I420_10LE,
    GST_VIDEO_FORMAT_P010_10LE,
  };

  for (guint i = 0; i < n; i++) {
    add_conversions (all[i], GST_VIDEO_FORMAT_BGRx);
    add_conversions (all[i], GST_VIDEO_FORMAT_I420);
  }
  for (guint k = 0; k < G_N_ELEMENTS (yuv); k++)
    add_conversions (GST_VIDEO_FORMAT_BGRx, yuv[k]);
  for (guint i = 0; i < G_N_ELEMENTS (rgb); i++)
    add_conversions (GST_VIDEO_FORMAT_NV12, rgb[i]);
}

static void
describe (const ClfProgramSpec * spec, char *options)
{
  clf_program_options (spec, options);
  strcat (options, " -Werror");
}

static char *
build_log (cl_program program, cl_device_id device)
{
  size_t size = 0;
  char *log = NULL;
  if (clGetProgramBuildInfo (program, device, CL_PROGRAM_BUILD_LOG, 0, NULL,
          &size) == CL_SUCCESS) {
    log = g_malloc0 (size + 1);
    clGetProgramBuildInfo (program, device, CL_PROGRAM_BUILD_LOG, size, log,
        NULL);
  }
  return log ? log : g_strdup ("(no build log)");
}

/* Builds the program with -Werror, and `extra` source after its own
 * (NULL: none); returns the build's status, its log in `log`. */
static cl_int
build (ClfEngine * engine, const ClfProgramSpec * spec, const char *extra,
    char **log)
{
  const char *sources[CLF_N_KERNEL_SOURCES + 1];
  char options[CLF_PROGRAM_OPTIONS_SIZE + 16];
  cl_uint n = clf_program_sources (spec, sources);
  cl_device_id device = clf_engine_device (engine);
  cl_int status;
  if (extra)
    sources[n++] = extra;
  describe (spec, options);
  cl_program program = clCreateProgramWithSource (clf_engine_context
      (engine), n, sources, NULL, &status);
  if (status != CL_SUCCESS) {
    *log = g_strdup_printf ("clCreateProgramWithSource: %d", status);
    return status;
  }
  status = clBuildProgram (program, 1, &device, options, NULL, NULL);
  *log = build_log (program, device);
  clReleaseProgram (program);
  return status;
}

/* Whether the engine's device is a CPU: the engine gives the CPUs' kernels
 * to CPUs only (clf-plan.c), so a GPU builds the GPUs' alone, while a CPU
 * (PoCL in CI) builds both families. */
static bool
device_is_cpu (ClfEngine * engine)
{
  cl_device_type type = 0;
  cl_int status = clGetDeviceInfo (clf_engine_device (engine), CL_DEVICE_TYPE,
      sizeof type, &type, NULL);
  if (status != CL_SUCCESS) {
    fprintf (stderr, "clGetDeviceInfo (CL_DEVICE_TYPE): %d; building every "
        "program\n", status);
    return true;
  }
  return (type & CL_DEVICE_TYPE_CPU) != 0;
}

static bool
program_for_cpus (const ClfProgramSpec * spec)
{
  if (spec->converts || spec->converts_luma)
    return spec->convert.runs;
  return spec->cpu_kernels;
}

/* The programs of one family share their sources and most options. */
static guint
family_of (const ClfProgramSpec * spec)
{
  if (spec->converts || spec->converts_luma)
    return 1000 + 10 * (guint) spec->convert.direction
        + 2 * spec->convert.runs + spec->converts_luma;
  return 100 * (guint) spec->mode + 10 * spec->layout.sample_bytes
      + 2 * spec->cpu_kernels + spec->layout.wide_sums;
}

/* Which programs this run builds: all, or the quick tier's sample. */
static GArray *
sample_programs (void)
{
  GArray *picked = g_array_new (FALSE, FALSE, sizeof (gboolean));
  const char *tier = g_getenv ("CLF_TEST_TIER");
  bool quick = g_strcmp0 (tier, "quick") == 0;
  const char *seed_text = g_getenv ("CLF_TEST_SEED");
  guint32 seed = seed_text ? (guint32) g_ascii_strtoull (seed_text, NULL, 0)
      : g_random_int ();
  GHashTable *families = g_hash_table_new (NULL, NULL);
  if (quick)
    printf ("CLF_TEST_SEED=%u\nCLF_TEST_TIER=quick: a third of the programs "
        "and the first of each family, turned by the seed\n", seed);
  g_array_set_size (picked, programs->len);
  for (guint i = 0; i < programs->len; i++) {
    guint family = family_of (&g_array_index (programs, ClfProgramSpec, i));
    bool first = !g_hash_table_contains (families, GUINT_TO_POINTER (family));
    g_hash_table_add (families, GUINT_TO_POINTER (family));
    g_array_index (picked, gboolean, i) = !quick || first
        || (i + seed % 3) % 3 == 0;
  }
  g_hash_table_unref (families);
  return picked;
}

/* A planted warning fails the build: -Werror works on this driver. */
static bool
check_planted_warning (ClfEngine * engine)
{
  static const char planted[] = "#warning clfilter-planted-warning\n";
  char *log;
  const ClfProgramSpec *spec = &g_array_index (programs, ClfProgramSpec, 0);
  cl_int status = build (engine, spec, planted, &log);
  bool ok = status == CL_BUILD_PROGRAM_FAILURE
      && strstr (log, "clfilter-planted-warning");
  if (!ok)
    fprintf (stderr, "FAIL: a planted #warning did not fail the build "
        "(status %d); log:\n%s\n", status, log);
  g_free (log);
  return ok;
}

int
main (int argc, char **argv)
{
  bool list = argc == 2 && strcmp (argv[1], "--list") == 0;
  gst_init (NULL, NULL);
  programs = g_array_new (FALSE, FALSE, sizeof (ClfProgramSpec));
  bool ok = add_element_formats ();
  for (size_t i = 0; i < G_N_ELEMENTS (extra_layouts); i++)
    add_layout (&extra_layouts[i], false);
  for (size_t i = 0; i < G_N_ELEMENTS (extra_layouts); i++)
    if (!extra_layouts[i].wide_sums)
      add_layout (&extra_layouts[i], true);
  add_element_conversions ();
  printf ("%u programs\n", programs->len);
  if (list) {
    for (guint i = 0; i < programs->len; i++) {
      char options[CLF_PROGRAM_OPTIONS_SIZE + 16];
      describe (&g_array_index (programs, ClfProgramSpec, i), options);
      printf ("%s\n", options);
    }
    return ok ? 0 : 1;
  }

  GError *err = NULL;
  ClfEngine *engine = clf_engine_new ("auto", &err);
  if (!engine) {
    fprintf (stderr, "FAIL: clf_engine_new: %s\n", err->message);
    g_error_free (err);
    return 1;
  }
  printf ("device: %s\n", clf_engine_device_name (engine));
  ok = check_planted_warning (engine) && ok;
  bool cpu_device = device_is_cpu (engine);
  GArray *picked = sample_programs ();
  unsigned failed = 0, skipped = 0, unpicked = 0;
  for (guint i = 0; i < programs->len; i++) {
    const ClfProgramSpec *spec = &g_array_index (programs, ClfProgramSpec, i);
    char *log;
    if (!cpu_device && program_for_cpus (spec)) {
      skipped++;
      continue;
    }
    if (!g_array_index (picked, gboolean, i)) {
      unpicked++;
      continue;
    }
    cl_int status = build (engine, spec, NULL, &log);
    if (status != CL_SUCCESS) {
      char options[CLF_PROGRAM_OPTIONS_SIZE + 16];
      describe (spec, options);
      if (spec->converts || spec->converts_luma)
        fprintf (stderr, "FAIL: a conversion (status %d), options: %s\n%s\n",
            status, options, log);
      else
        fprintf (stderr, "FAIL: %s kernels of mode %s (status %d), options: "
            "%s\n%s\n", spec->cpu_kernels ? "the CPUs'" : "the GPUs'",
            clf_mode_name (spec->mode), status, options, log);
      failed++;
    }
    g_free (log);
  }
  g_array_unref (picked);
  printf ("%u of %u programs built with -Werror\n",
      programs->len - skipped - unpicked - failed,
      programs->len - skipped - unpicked);
  if (unpicked)
    printf ("%u programs not in the quick tier's sample\n", unpicked);
  if (skipped)
    printf ("%u programs of the CPUs' kernels left out: the engine runs "
        "them on CPUs only\n", skipped);
  clf_engine_unref (engine);
  return ok && failed == 0 ? 0 : 1;
}
