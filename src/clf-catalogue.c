/* The kernel catalogue: which kernels exist, which of them a layout's
 * program holds and is built with, and which passes each mode runs on
 * CPUs and GPUs.  Tables and pure functions: no OpenCL call here. */
#include "clf-catalogue.h"

#include <glib.h>
#include <stdio.h>

_Static_assert (N_KERNELS == CLF_N_KERNELS, "a name for every kernel");

const char *const clf_kernel_names[CLF_N_KERNELS] = {
  "box_2d", "rows_direct", "cols_direct", "column_sums", "row_means_scan",
  "laplace_words", "laplace_strips", "separable_strips", "sliding_strips",
  "sliding_tiles", "separable_tiles", "narrow_column_sums",
  "narrow_row_means", "convolve_tiles", "convolve_tiles_wide",
  "convolve_rank1_tiles", "convolve_rank1_tiles_wide", "convolve_strips",
  "convolve_strips_wide",
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

unsigned
clf_layout_kernels (const ClfLayout * layout,
    const char *names[CLF_N_KERNELS])
{
  unsigned n = 0;
  for (unsigned k = 0; k < CLF_N_KERNELS; k++)
    if (clf_layout_has_kernel (layout, k))
      names[n++] = clf_kernel_names[k];
  return n;
}

bool
clf_layout_equal (const ClfLayout * a, const ClfLayout * b)
{
  return a->sample_bytes == b->sample_bytes && a->units == b->units
      && a->mask == b->mask && a->depth == b->depth && a->shift == b->shift
      && a->swap == b->swap && a->wide_sums == b->wide_sums;
}

void
clf_program_options (const ClfLayout * layout,
    char buf[CLF_PROGRAM_OPTIONS_SIZE])
{
  int n = snprintf (buf, CLF_PROGRAM_OPTIONS_SIZE, "-cl-std=CL1.2 "
      "-D BPP=%u -D MASK=%u -D SAMPLE_BYTES=%u -D DEPTH=%u -D SHIFT=%u -D SWAP=%d -D WIDE_SUMS=%d "
      "-D TILE_GROUP=%u -D TILE_RUN_PIXELS=%u -D TILE_MAX_RADIUS=%u "
      "-D PACKED_TILES=%d -D NARROW_PIXELS=%u -D NARROW_MAX_RADIUS=%u "
      "-D CONV_GROUP=%u -D CONV_MAX_RADIUS=%u",
      layout->units, layout->mask, layout->sample_bytes, layout->depth,
      layout->shift, layout->swap ? 1 : 0, layout->wide_sums ? 1 : 0,
      CLF_TILE_GROUP, clf_tile_run_pixels (layout), CLF_TILES_MAX_RADIUS,
      clf_packed_tiles (layout) ? 1 : 0, clf_narrow_pixels (layout),
      CLF_NARROW_MAX_RADIUS, CLF_CONV_GROUP, CLF_MAX_KERNEL_SIZE / 2);
  /* Cut short, they would build another program (one that dropped
   * PACKED_TILES, and the kernel it selects, unnoticed). */
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
static const ModePasses narrow_sliding_passes = {2,
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
