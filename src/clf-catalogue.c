/* The kernel catalogue: which kernels exist, which of them a program
 * (layout, mode, kind of device) holds and is built from and with, and
 * which passes each mode runs on CPUs and GPUs.  Tables and pure functions: no OpenCL call here. */
#include "clf-catalogue.h"
#include "clf-kernels.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

_Static_assert (N_KERNELS == CLF_N_KERNELS, "a name for every kernel");

const char *const clf_kernel_names[CLF_N_KERNELS] = {
  "box_2d", "rows_direct", "cols_direct", "column_sums", "row_means_scan",
  "laplace_words", "laplace_strips", "separable_strips", "sliding_strips",
  "sliding_tiles", "separable_tiles", "narrow_column_sums",
  "narrow_row_means", "convolve_tiles", "convolve_tiles_wide",
  "convolve_rank1_tiles", "convolve_rank1_tiles_wide", "convolve_strips",
  "convolve_strips_wide", "convolve_tiles_float",
  "convolve_tiles_float_tall", "convolve_strips_float", "convert_pixels",
  "gauss_tap_rows", "gauss_tap_columns", "gauss_box_rows",
  "gauss_box_rows_wide", "gauss_box_columns", "gauss_box_columns_wide",
  "gauss_box_starts", "gauss_box_scan",
};

/* The source that defines each kernel: its file, or its variant of a
 * body that several kernels share (kernels/meson.build). */
static const char *const kernel_source[N_KERNELS] = {
  [K_BOX] = clf_kernel_blur_naive,
  [K_ROWS_DIRECT] = clf_kernel_blur_separable_gpu,
  [K_COLS_DIRECT] = clf_kernel_blur_separable_gpu,
  [K_COLUMN_SUMS] = clf_kernel_column_sums,
  [K_ROW_MEANS_SCAN] = clf_kernel_blur_sliding_gpu,
  [K_LAPLACE_WORDS] = clf_kernel_laplace,
  [K_LAPLACE_STRIPS] = clf_kernel_laplace,
  [K_SEPARABLE_STRIPS] = clf_kernel_blur_strips_cpu,
  [K_SLIDING_STRIPS] = clf_kernel_blur_strips_cpu,
  [K_SLIDING_TILES] = clf_kernel_blur_tiles_gpu,
  [K_SEPARABLE_TILES] = clf_kernel_blur_tiles_gpu,
  [K_NARROW_COLUMN_SUMS] = clf_kernel_narrow_column_sums,
  [K_NARROW_ROW_MEANS] = clf_kernel_blur_sliding_gpu,
  [K_CONVOLVE_TILES] = clf_kernel_convolve_tiles,
  [K_CONVOLVE_TILES_WIDE] = clf_kernel_convolve_tiles_wide,
  [K_CONVOLVE_RANK1_TILES] = clf_kernel_convolve_rank1_tiles,
  [K_CONVOLVE_RANK1_TILES_WIDE] = clf_kernel_convolve_rank1_tiles_wide,
  [K_CONVOLVE_STRIPS] = clf_kernel_convolve_strips,
  [K_CONVOLVE_STRIPS_WIDE] = clf_kernel_convolve_strips_wide,
  [K_CONVOLVE_TILES_FLOAT] = clf_kernel_convolve_tiles_float,
  [K_CONVOLVE_TILES_FLOAT_TALL] = clf_kernel_convolve_tiles_float_tall,
  [K_CONVOLVE_STRIPS_FLOAT] = clf_kernel_convolve_strips_float,
  [K_CONVERT_PIXELS] = clf_kernel_convert,
  [K_GAUSS_TAP_ROWS] = clf_kernel_gaussian_taps,
  [K_GAUSS_TAP_COLUMNS] = clf_kernel_gaussian_taps,
  [K_GAUSS_BOX_ROWS] = clf_kernel_gauss_box_rows,
  [K_GAUSS_BOX_ROWS_WIDE] = clf_kernel_gauss_box_rows_wide,
  [K_GAUSS_BOX_COLUMNS] = clf_kernel_gauss_box_columns,
  [K_GAUSS_BOX_COLUMNS_WIDE] = clf_kernel_gauss_box_columns_wide,
  /* The scan is in its starts' variant (SCAN_NAME). */
  [K_GAUSS_BOX_STARTS] = clf_kernel_gauss_box_starts,
  [K_GAUSS_BOX_SCAN] = clf_kernel_gauss_box_starts,
};

bool
clf_layout_has_kernel (const ClfLayout * layout, unsigned k)
{
  if (k == K_SEPARABLE_TILES)
    return clf_packed_tiles (layout);
  if (k == K_NARROW_COLUMN_SUMS || k == K_NARROW_ROW_MEANS)
    return clf_narrow_sums (layout);
  return true;
}

bool
clf_layout_equal (const ClfLayout * a, const ClfLayout * b)
{
  return a->sample_bytes == b->sample_bytes && a->units == b->units
      && a->mask == b->mask && a->depth == b->depth && a->shift == b->shift
      && a->swap == b->swap && a->wide_sums == b->wide_sums;
}

static bool
convert_sample_equal (const ClfConvertSample * a, const ClfConvertSample * b)
{
  return a->plane == b->plane && a->offset == b->offset
      && a->pstride == b->pstride && a->xsub == b->xsub && a->ysub == b->ysub
      && a->depth == b->depth && a->shift == b->shift && a->bytes == b->bytes
      && a->swap == b->swap;
}

static bool
convert_layout_equal (const ClfConvertLayout * a, const ClfConvertLayout * b)
{
  for (unsigned c = 0; c < 4; c++)
    if (!convert_sample_equal (&a->in[c], &b->in[c])
        || !convert_sample_equal (&a->out[c], &b->out[c])
        || a->out_pad[c] != b->out_pad[c]
        || a->out_pstride[c] != b->out_pstride[c])
      return false;
  return a->direction == b->direction && a->wide == b->wide
      && a->runs == b->runs && a->sharpen == b->sharpen
      && a->chroma_up == b->chroma_up && a->h_cosited == b->h_cosited
      && a->v_cosited == b->v_cosited;
}

bool
clf_program_equal (const ClfProgramSpec * a, const ClfProgramSpec * b)
{
  if (a->converts || b->converts)
    return a->converts == b->converts
        && convert_layout_equal (&a->convert, &b->convert);
  return clf_layout_equal (&a->layout, &b->layout) && a->mode == b->mode
      && a->cpu_kernels == b->cpu_kernels && a->passes == b->passes
      && a->converts_luma == b->converts_luma
      && (!a->converts_luma || convert_layout_equal (&a->convert, &b->convert));
}

unsigned
clf_program_kernels (const ClfProgramSpec * program,
    const char *names[CLF_N_KERNELS])
{
  unsigned n = 0;
  for (unsigned k = 0; k < CLF_N_KERNELS; k++)
    if (clf_program_has_kernel (program, k))
      names[n++] = clf_kernel_names[k];
  return n;
}

unsigned
clf_program_sources (const ClfProgramSpec * program, const char **sources)
{
  unsigned n = 0;
  sources[n++] = clf_kernel_border;
  if (program->converts || program->converts_luma)
    sources[n++] = clf_kernel_convert;
  if (program->converts)
    return n;
  for (unsigned i = 0; i < CLF_N_KERNEL_SOURCES; i++) {
    const char *source = clf_kernel_sources[i];
    if (source == clf_kernel_border)
      continue;
    bool wanted = source == clf_kernel_common
        || (source == clf_kernel_blur_common
        && program->mode <= CLF_MODE_SLIDING)
        || (source == clf_kernel_convolve && program->mode == CLF_MODE_CONVOLVE)
        || (source == clf_kernel_gaussian
        && program->mode == CLF_MODE_GAUSSIAN);
    for (unsigned k = 0; k < N_KERNELS && !wanted; k++)
      wanted = kernel_source[k] == source
          && clf_program_has_kernel (program, k);
    if (wanted)
      sources[n++] = source;
  }
  return n;
}

uint32_t
clf_convert_item_pixels (const ClfConvertLayout * layout)
{
  return layout->runs ? CLF_CONVERT_RUN : CLF_CONVERT_QUAD;
}

uint32_t
clf_convert_item_rows (const ClfConvertLayout * layout)
{
  return layout->runs ? CLF_CONVERT_RUN_ROWS : 1;
}

/* A conversion's options, after the n characters of buf: each sample's
 * geometry (as kernels/convert.cl reads it) and the output planes'
 * padding; and `what`, the kernel (-D WANT_convert_pixels) or the
 * functions another program takes (-D CONVERT_LUMA). */
static int
convert_options (const ClfConvertLayout * layout, const char *what,
    char buf[CLF_PROGRAM_OPTIONS_SIZE], int n)
{
  if (n > 0 && n < CLF_PROGRAM_OPTIONS_SIZE)
    n += snprintf (buf + n, CLF_PROGRAM_OPTIONS_SIZE - n,
        " -D DIRECTION=%d -D WIDE=%d -D CHROMA_UP=%d -D H_COSITED=%d "
        "-D V_COSITED=%d -D RUNS=%d -D CONVERT_GROUP=%u -D ITEM_PIXELS=%u "
        "-D ITEM_ROWS=%u -D SHARPEN=%u -D %s",
        (int) layout->direction, layout->wide ? 1 : 0,
        (int) layout->chroma_up, layout->h_cosited ? 1 : 0,
        layout->v_cosited ? 1 : 0, layout->runs ? 1 : 0, CLF_CONVERT_GROUP,
        clf_convert_item_pixels (layout), clf_convert_item_rows (layout),
        layout->sharpen, what);
  for (unsigned side = 0; side < 2; side++)
    for (unsigned c = 0; c < 4; c++) {
      const ClfConvertSample *k = side ? &layout->out[c] : &layout->in[c];
      if (n > 0 && n < CLF_PROGRAM_OPTIONS_SIZE)
        n += snprintf (buf + n, CLF_PROGRAM_OPTIONS_SIZE - n,
            " -D %s%u=(%u,%u,%u,%u,%u,%u,%u,%u,%d)", side ? "OUT" : "IN", c,
            k->plane, k->offset, k->pstride, k->xsub, k->ysub, k->depth,
            k->shift, k->bytes, k->swap ? 1 : 0);
    }
  for (unsigned p = 0; p < 4; p++)
    if (n > 0 && n < CLF_PROGRAM_OPTIONS_SIZE)
      n += snprintf (buf + n, CLF_PROGRAM_OPTIONS_SIZE - n,
          " -D OUT_PAD%u=%u -D OUT_PSTRIDE%u=%u", p, layout->out_pad[p], p,
          layout->out_pstride[p]);
  return n;
}

void
clf_program_options (const ClfProgramSpec * program,
    char buf[CLF_PROGRAM_OPTIONS_SIZE])
{
  const ClfLayout *layout = &program->layout;
  if (program->converts) {
    int n = convert_options (&program->convert, "WANT_convert_pixels", buf,
        snprintf (buf, CLF_PROGRAM_OPTIONS_SIZE, "-cl-std=CL1.2"));
    g_assert (n > 0 && n < CLF_PROGRAM_OPTIONS_SIZE);
    return;
  }
  int n = snprintf (buf, CLF_PROGRAM_OPTIONS_SIZE, "-cl-std=CL1.2 "
      "-D BPP=%u -D MASK=%u -D SAMPLE_BYTES=%u -D DEPTH=%u -D SHIFT=%u -D SWAP=%d -D WIDE_SUMS=%d "
      "-D TILE_GROUP=%u -D TILE_RUN_PIXELS=%u -D TILE_MAX_RADIUS=%u "
      "-D PACKED_TILES=%d -D NARROW_PIXELS=%u -D NARROW_MAX_RADIUS=%u "
      "-D CONV_GROUP=%u -D CONV_MAX_RADIUS=%u -D CONV_TAP_ROW=%u "
      "-D CONV_FLOAT_GROUP_X=%u -D CONV_FLOAT_GROUP_Y=%u "
      "-D CONV_FLOAT_ROWS=%u -D CONV_TALL_GROUP_Y=%u -D CONV_TALL_ROWS=%u "
      "-D GAUSS_RUN=%u -D GAUSS_TAP_BLOCK=%u -D GAUSS_ROW_GROUP=%u "
      "-D GAUSS_ROW_STEPS=%u -D GAUSS_COLUMN_LINES=%u -D GAUSS_MAX_TAPS=%u "
      "-D GAUSS_TAP_GROUP=%u -D GAUSS_TAP_PIXELS=%u",
      layout->units, layout->mask, layout->sample_bytes, layout->depth,
      layout->shift, layout->swap ? 1 : 0, layout->wide_sums ? 1 : 0,
      CLF_TILE_GROUP, clf_tile_run_pixels (layout), CLF_TILES_MAX_RADIUS,
      clf_packed_tiles (layout) ? 1 : 0, clf_narrow_pixels (layout),
      CLF_NARROW_MAX_RADIUS, CLF_CONV_GROUP, CLF_MAX_KERNEL_SIZE / 2,
      CLF_CONV_TAP_ROW, CLF_CONV_FLOAT_GROUP_X, CLF_CONV_FLOAT_GROUP_Y,
      CLF_CONV_FLOAT_ROWS, CLF_CONV_TALL_GROUP_Y, CLF_CONV_TALL_ROWS,
      clf_gauss_run (program->cpu_kernels),
      CLF_GAUSS_TAP_BLOCK, CLF_GAUSS_ROW_GROUP,
      CLF_GAUSS_ROW_STEPS, CLF_GAUSS_COLUMN_LINES, CLF_GAUSS_MAX_TAPS,
      CLF_GAUSS_TAP_GROUP, CLF_GAUSS_TAP_PIXELS);
  for (unsigned k = 0; k < CLF_N_KERNELS; k++)
    if (n > 0 && n < CLF_PROGRAM_OPTIONS_SIZE
        && clf_program_has_kernel (program, k))
      n += snprintf (buf + n, CLF_PROGRAM_OPTIONS_SIZE - n, " -D WANT_%s",
          clf_kernel_names[k]);
  if (program->converts_luma)
    n = convert_options (&program->convert, "CONVERT_LUMA", buf, n);
  /* Cut short, they would build another program (one that dropped
   * PACKED_TILES, or a kernel, unnoticed). */
  g_assert (n > 0 && n < CLF_PROGRAM_OPTIONS_SIZE);
}

/* GPUs.  The samples of a laplace run are RUN in laplace.cl; two rows per
 * laplace work-item measured fastest (docs/performance/tuning.md). */
static const ModePasses mode_passes[] = {
  [CLF_MODE_BOX] = {1, {{K_BOX, ONE_PIXEL}}},
  [CLF_MODE_SEPARABLE] = {2, {{K_ROWS_DIRECT, ONE_PIXEL},
          {K_COLS_DIRECT, ONE_PIXEL}}, true},
  [CLF_MODE_SLIDING] = {2, {{K_COLUMN_SUMS, COLUMN_SEGMENT, 4},
          {K_ROW_MEANS_SCAN, ROW_GROUP}}, true},
  [CLF_MODE_LAPLACE] = {1, {{K_LAPLACE_WORDS, ROW_RUN, 16, 2}}},
};

/* GPUs' separable and sliding blurs in one pass, at small radii (see
 * CLF_TILES_MAX_RADIUS; the separable blur for clf_packed_tiles layouts
 * only); none for the other modes. */
static const ModePasses tile_mode_passes[CLF_MODE_LAPLACE + 1] = {
  [CLF_MODE_SEPARABLE] = {1, {{K_SEPARABLE_TILES, TILE}}},
  [CLF_MODE_SLIDING] = {1, {{K_SLIDING_TILES, TILE}}},
};

/* GPUs' sliding blur with 16-bit column sums, beyond the tiles, for the
 * layouts and radii whose column sums fit (CLF_NARROW_MAX_RADIUS). */
static const ModePasses narrow_sliding_passes = { 2,
  {{K_NARROW_COLUMN_SUMS, COLUMN_SEGMENT, 4},
      {K_NARROW_ROW_MEANS, ROW_CHUNKS}}, true
};

/* CPUs take strips of rows with vectors (see blur-strips-cpu.cl and laplace.cl). */
static const ModePasses cpu_mode_passes[] = {
  [CLF_MODE_BOX] = {1, {{K_BOX, ONE_PIXEL}}},
  [CLF_MODE_SEPARABLE] = {1, {{K_SEPARABLE_STRIPS, STRIP}}, true},
  [CLF_MODE_SLIDING] = {1, {{K_SLIDING_STRIPS, STRIP}}, true},
  [CLF_MODE_LAPLACE] = {1, {{K_LAPLACE_STRIPS, STRIP}}},
};

static bool
passes_have (const ModePasses * passes, unsigned k)
{
  for (unsigned i = 0; i < passes->n; i++)
    if (passes->pass[i].kernel == k)
      return true;
  return false;
}

/* mode=convolve's kernels on the kind of device, any of which
 * clf-convolve.c may pick for a kernel (rank 1 or not, int or long sums). */
static bool
convolve_has_kernel (bool cpu_kernels, unsigned k)
{
  if (cpu_kernels)
    return k == K_CONVOLVE_STRIPS || k == K_CONVOLVE_STRIPS_WIDE
        || k == K_CONVOLVE_STRIPS_FLOAT;
  return k == K_CONVOLVE_TILES || k == K_CONVOLVE_TILES_WIDE
      || k == K_CONVOLVE_RANK1_TILES || k == K_CONVOLVE_RANK1_TILES_WIDE
      || k == K_CONVOLVE_TILES_FLOAT || k == K_CONVOLVE_TILES_FLOAT_TALL;
}

bool
clf_program_has_kernel (const ClfProgramSpec * program, unsigned k)
{
  if (program->converts || k == K_CONVERT_PIXELS)
    return program->converts && k == K_CONVERT_PIXELS;
  if (k >= N_KERNELS || !clf_layout_has_kernel (&program->layout, k))
    return false;
  if (program->mode == CLF_MODE_CONVOLVE)
    return convolve_has_kernel (program->cpu_kernels, k);
  if (program->mode == CLF_MODE_GAUSSIAN)
    return k >= K_GAUSS_TAP_ROWS && (k <= K_GAUSS_BOX_COLUMNS_WIDE
        || (!program->cpu_kernels && k <= K_GAUSS_BOX_SCAN));
  return program->passes && passes_have (program->passes, k);
}

const ModePasses *
clf_mode_passes (bool cpu_kernels, const ClfLayout * layout,
    const ClfParams * params)
{
  if (cpu_kernels)
    return &cpu_mode_passes[params->mode];
  const ModePasses *tiles = &tile_mode_passes[params->mode];
  if (params->radius <= CLF_TILES_MAX_RADIUS && tiles->n > 0
      && clf_layout_has_kernel (layout, tiles->pass[0].kernel))
    return tiles;
  if (params->mode == CLF_MODE_SLIDING
      && params->radius <= CLF_NARROW_MAX_RADIUS
      && clf_layout_has_kernel (layout, K_NARROW_ROW_MEANS))
    return &narrow_sliding_passes;
  return &mode_passes[params->mode];
}

ClfProgramSpec
clf_program_for (bool cpu_kernels, const ClfLayout * layout,
    const ClfParams * params)
{
  /* Convolve's and the Gaussian's programs hold their kernels without
   * passes; unsharp runs the Gaussian's. */
  if (params->mode >= CLF_MODE_CONVOLVE)
    return (ClfProgramSpec) {
    *layout, params->mode == CLF_MODE_UNSHARP ? CLF_MODE_GAUSSIAN :
        params->mode, cpu_kernels, NULL};
  return (ClfProgramSpec) {
  *layout, params->mode, cpu_kernels,
        clf_mode_passes (cpu_kernels, layout, params)};
}

unsigned
clf_mode_programs (bool cpu_kernels, const ClfLayout * layout, ClfMode mode,
    ClfProgramSpec programs[CLF_MAX_MODE_PROGRAMS])
{
  /* Radii that reach each set of passes clf_mode_passes picks from. */
  static const uint32_t radii[] = { 1, CLF_NARROW_MAX_RADIUS,
    CLF_MAX_RADIUS
  };
  unsigned n = 0;
  for (unsigned i = 0; i < G_N_ELEMENTS (radii); i++) {
    ClfParams params = { mode, radii[i], CLF_BORDER_CLAMP };
    ClfProgramSpec spec = clf_program_for (cpu_kernels, layout, &params);
    bool known = false;
    for (unsigned j = 0; j < n && !known; j++)
      known = clf_program_equal (&programs[j], &spec);
    if (!known)
      programs[n++] = spec;
  }
  return n;
}
