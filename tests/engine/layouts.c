/* Engine tests, group layouts (test-engine layouts): packed and multi-plane
 * layouts, rows of tiles, chunks and strips. */
#include "engine-common.h"

/* A blur of `in` with both borders against the reference. */
static void
check_both_borders (ClfPlan * plan, const ClfFrameFormat * f,
    const ClfHostFrame * in, ClfMode mode, uint32_t radius, const char *layout)
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
void
test_layouts (void)
{
  check_rows_of_tiles ();
  check_rows_of_chunks ();
  check_strip_stretches ();
  static const uint32_t layout_radii[] = { 0, 1, 7, 30 };
  for (size_t s = 0; s < 5; s++) {
    uint32_t w = sizes[s].w, h = sizes[s].h;
    uint32_t cw = (w + 1) / 2, ch = (h + 1) / 2;
    struct
    {
      const char *name;
      ClfFrameFormat f;
    } layouts[] = {
      {"rgba", one_plane (w, h, 4, 0x7, 0x7)},
      {"argb", one_plane (w, h, 4, 0xE, 0xE)},
      {"rgb", one_plane (w, h, 3, 0x7, 0x7)},
      {"uv", one_plane (w, h, 2, 0x3, 0x3)},
      {"i420", byte_planes (3, (const uint32_t[][5]) { {w, h, 1, 1, 1},
                  {cw, ch, 1, 1, 0}, {cw, ch, 1, 1, 0}})},
      {"nv12", byte_planes (2, (const uint32_t[][5]) { {w, h, 1, 1, 1},
                  {cw, ch, 2, 3, 0}})},
    };
    for (size_t l = 0; l < N_OF (layouts); l++)
      for (size_t r = 0; r < N_OF (layout_radii); r++)
        if (sampled (s + l + r, N_OF (layout_radii)))
          check_format_at_radius (layouts[l].name, &layouts[l].f,
              layout_radii[r]);
  }
}
