/* Engine tests, group gaussian (test-engine gaussian): mode=gaussian and
 * mode=unsharp against the reference, at every kind of sigma (the
 * identity, taps, the edge between taps and boxes, boxes wider than the
 * frame), on odd sizes, every format family and the extremes of the
 * sums. */
#include "engine-common.h"

#include <math.h>

/* Sigmas: the identity (a kernel of one tap), taps of 3 to 49, either
 * side of the edge to boxes, boxes, and the largest (past
 * CLF_GAUSS_STATES_MIN_RADIUS). */
static const double sigmas[] = { 0.05, 0.3, 0.8, 1.7, 2.0, 3.3, 4.0, 6.5,
  8.0, 8.01, 13.0, 40.5, CLF_MAX_SIGMA
};

/* unsharp's settings: amount, threshold. */
static const struct
{
  double amount;
  uint32_t threshold;
} sharpenings[] = { {1.0, 0}, {-1.5, 0}, {7.3, 5}, {0.37, 1} };

static void
check_gauss (ClfPlan * plan, const char *layout,
    const ClfFrameFormat * format, const ClfHostFrame * in, ClfMode mode,
    double sigma, size_t sharpening)
{
  for (ClfBorder border = CLF_BORDER_CLAMP; border <= CLF_BORDER_MIRROR;
      border++) {
    ClfParams params = {.mode = mode,.border = border,.sigma = sigma,
      .amount = sharpenings[sharpening].amount,
      .threshold = sharpenings[sharpening].threshold
    };
    char what[200];
    snprintf (what, sizeof what, "%s %ux%u %s sigma=%g amount=%g "
        "threshold=%u border=%s", layout, format->components[0].width,
        format->components[0].height, clf_mode_name (mode), sigma,
        params.amount, params.threshold, clf_border_name (border));
    check_against_reference (plan, &params, format, what, in);
  }
}

/* Every sigma and mode on planes of odd sizes (1x1; a row; a column;
 * widths no multiple of 4 or 16; planes smaller than the kernel; columns
 * that GPUs take in several runs, narrow and wide) of gray,
 * RGB, RGBx, xRGB and pixels of 3 with the middle sample copied; in the
 * quick tier a share of size x layout x sigma, each sigma on every size. */
static void
check_gauss_sizes (void)
{
  static const struct
  {
    uint32_t w, h;
  } shapes[] = { {1, 1}, {7, 1}, {1, 7}, {13, 11}, {61, 37}, {150, 3},
  {3, 290}, {23, 150}
  };
  for (size_t s = 0; s < N_OF (shapes); s++) {
    uint32_t w = shapes[s].w, h = shapes[s].h;
    const char *names[N_COLOUR_LAYOUTS];
    ClfFrameFormat layouts[N_COLOUR_LAYOUTS];
    colour_layouts (w, h, names, layouts);
    for (size_t l = 0; l < N_OF (layouts); l++) {
      ClfPlan *plan = plan_for (names[l], &layouts[l]);
      if (!plan)
        continue;
      ClfHostFrame in;
      test_frame_init (&in, &layouts[l], true);
      for (size_t i = 0; i < N_OF (sigmas); i++) {
        if (!sampled (s + l + i, 4))
          continue;
        const ClfMode mode = (s + l + i) % 2 ? CLF_MODE_UNSHARP :
            CLF_MODE_GAUSSIAN;
        check_gauss (plan, names[l], &layouts[l], &in, mode,
            sigmas[i], (s + i) % N_OF (sharpenings));
      }
      test_frame_clear (&in);
      clf_plan_free (plan);
    }
  }
}

/* The deeper formats and the packed and planar families, each with a
 * random sigma of taps and of boxes, both modes. */
static void
check_gauss_formats (void)
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
    const double taps = (double) random_in (3, 800) / 100;
    const double boxes = (double) random_in (801, 6000) / 100;
    check_gauss (plan, names[i], &f[i], &in, CLF_MODE_GAUSSIAN,
        i % 2 ? taps : boxes, 0);
    check_gauss (plan, names[i], &f[i], &in, CLF_MODE_UNSHARP,
        i % 2 ? boxes : taps, i % N_OF (sharpenings));
    test_frame_clear (&in);
    clf_plan_free (plan);
  }
}

/* The largest sums: frames of the largest values and checkerboards of 0
 * and the largest, 8-bit and 16-bit, at the largest taps and boxes, and
 * either side of where the boxes' sums leave uint for ulong (8-bit rows
 * past 101.66, columns past 16; 16-bit rows past 16) and at 120, whose
 * 8-bit rows sum to more than 2^31. */
static void
check_gauss_extremes (void)
{
  const char *names[N_EXTREME_FORMATS];
  ClfFrameFormat formats[N_EXTREME_FORMATS];
  extreme_formats (names, formats);
  for (size_t l = 0; l < N_OF (formats); l++) {
    ClfPlan *plan = plan_for (names[l], &formats[l]);
    if (!plan)
      continue;
    for (int checker = 0; checker < 2; checker++) {
      ClfHostFrame in;
      extreme_frame_init (&in, &formats[l], checker);
      static const double edges[] = { 16.0, 16.01, 101.66, 101.67, 120.0 };
      check_gauss (plan, names[l], &formats[l], &in,
          CLF_MODE_GAUSSIAN, checker ? CLF_GAUSS_TAPS_MAX_SIGMA :
          CLF_MAX_SIGMA, 0);
      check_gauss (plan, names[l], &formats[l], &in,
          CLF_MODE_UNSHARP, checker ? 1.0 : 120.0, 2);
      for (size_t e = 0; e < N_OF (edges); e++)
        check_gauss (plan, names[l], &formats[l], &in,
            e % 2 ? CLF_MODE_UNSHARP : CLF_MODE_GAUSSIAN, edges[e], 0);
      test_frame_clear (&in);
    }
    clf_plan_free (plan);
  }
}

/* The host's kernels: taps symmetric and summing to 256 (OpenCV's sizes),
 * boxes of odd widths whose variances add up to about sigma^2, and the
 * identity below 1/12. */
static void
check_gauss_kernels (void)
{
  for (double sigma = 0.05; sigma <= CLF_MAX_SIGMA; sigma *= 1.37) {
    ClfGaussKernel g;
    clf_gauss_kernel (sigma, &g);
    if (g.n_taps) {
      int32_t sum = 0;
      for (uint32_t i = 0; i < g.n_taps; i++)
        sum += g.taps[i];
      CHECK (sum == 256 && g.n_taps == ((uint32_t) lrint (6 * sigma + 1) | 1)
          && g.taps[0] == g.taps[g.n_taps - 1] && g.weight == 256,
          "sigma %g: %u taps summing to %d", sigma, g.n_taps, sum);
      CHECK ((g.n_taps == 1) == (sigma < 1.0 / 12), "sigma %g: identity "
          "below 1/12 only", sigma);
      CHECK (g.n_taps <= clf_gauss_max_span (), "sigma %g: taps spanning "
          "more than clf_gauss_max_span", sigma);
    } else {
      double var = 0;
      for (int i = 0; i < 3; i++)
        var += (g.widths[i] * (double) g.widths[i] - 1) / 12;
      CHECK (sigma > CLF_GAUSS_TAPS_MAX_SIGMA
          && fabs (sqrt (var) - sigma) < 0.5 && g.widths[0] % 2 == 1
          && g.weight == (uint64_t) g.widths[0] * g.widths[1] * g.widths[2],
          "sigma %g: boxes %u %u %u (sigma %g)", sigma, g.widths[0],
          g.widths[1], g.widths[2], sqrt (var));
      /* The CPUs' rows pass has scratch for this span at most. */
      CHECK (g.widths[0] + g.widths[1] + g.widths[2] <= clf_gauss_max_span (),
          "sigma %g: boxes spanning more than clf_gauss_max_span", sigma);
    }
  }
}

/* Settings the engine refuses. */
static void
check_gauss_refusals (void)
{
  ClfFrameFormat f = one_plane (5, 5, 1, 1, 1);
  ClfPlan *plan = plan_for ("gray", &f);
  if (!plan)
    return;
  static const ClfParams bad[] = {
    {.mode = CLF_MODE_GAUSSIAN,.sigma = -1},
    {.mode = CLF_MODE_GAUSSIAN,.sigma = CLF_MAX_SIGMA + 1},
    {.mode = CLF_MODE_GAUSSIAN,.sigma = NAN},
    {.mode = CLF_MODE_UNSHARP,.sigma = 1,.amount = CLF_MAX_AMOUNT * 2},
    {.mode = CLF_MODE_UNSHARP,.sigma = 1,.amount = NAN},
    {.mode = CLF_MODE_UNSHARP,.sigma = 1,.threshold = 65536},
  };
  ClfHostFrame in, out;
  test_frame_init (&in, &f, true);
  test_frame_init (&out, &f, false);
  for (size_t i = 0; i < N_OF (bad); i++) {
    GError *err = NULL;
    ClfFrame src = { 0 }, dst = { 0 };
    for (uint32_t p = 0; p < f.n_planes; p++) {
      src.data[p] = in.data[p];
      src.stride[p] = in.stride[p];
      src.size[p] = in.size[p];
      dst.data[p] = out.data[p];
      dst.stride[p] = out.stride[p];
      dst.size[p] = out.size[p];
    }
    ClfFrameStats stats;
    CHECK (!clf_plan_process (plan, &bad[i], &src, &dst, &stats, &err)
        && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID),
        "refused: sigma %g amount %g threshold %u (%s)", bad[i].sigma,
        bad[i].amount, bad[i].threshold, message_of (err));
    g_clear_error (&err);
  }
  test_frame_clear (&out);
  test_frame_clear (&in);
  clf_plan_free (plan);
}

void
test_gaussian (void)
{
  check_gauss_kernels ();
  check_gauss_refusals ();
  check_gauss_sizes ();
  check_gauss_formats ();
  check_gauss_extremes ();
}
