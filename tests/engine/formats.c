/* Engine tests, group formats (test-engine formats): the families of
 * formats beyond 8-bit bytes, extreme values, shifted bytes. */
#include "engine-common.h"

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
  for (size_t family = 0; family < 2; family++) /* gray16, i420-10 */
    for (int checker = 0; checker < 2; checker++) {
      ClfFrameFormat *format = &f[family];
      ClfPlan *plan = plan_for (names[family], format);
      if (!plan)
        return;
      ClfHostFrame in;
      extreme_frame_init (&in, format, checker);
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

/* Every family at the radii, both borders, every mode (the naive
 * box on a CPU within 2e8 reads a case), odd sizes and 720p: the GPUs'
 * 8-bit sliding blur takes 16-bit column sums at r=30 (narrow_row_means),
 * 16-bit window sums pass 2^32 above r=127. */
void
test_formats (void)
{
  static const uint32_t format_radii[] = { 0, 1, 9, 30, 140, 1023 };
  static const struct
  {
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
