/* Engine tests, group long (test-engine long): long frames: launches,
 * stops, the slow report. */
#include "engine-common.h"

/* ---- long frames: launches, stops, the slow report -------------------- */

/* Counts the launches of a long pass (the plan asks before each) and
 * cancels the frame at the `stop_at`th question (0: never); records the
 * slow reports. */
typedef struct
{
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
  ClfPlanCallbacks callbacks = { watch_cancelled, watch_slow, slow_ns, w };
  memset (w, 0, sizeof *w);
  if (plan)
    clf_plan_set_callbacks (plan, &callbacks);
  return plan;
}

/* Builds the programs a frame of `params` needs and forgets the questions
 * their wait asked (it asks the callbacks too), so that `w` counts the
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
  struct
  {
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
  /* *INDENT-OFF* */
  return (ClfFrameFormat) {
  1, 4, {component (0, 0, 8, w, h, 16, 0, false, SHARP),
          component (0, 2, 8, w, h, 16, 0, false, SHARP),
          component (0, 4, 8, w, h, 16, 0, false, SHARP),
          component (0, 6, 8, w, h, 16, 0, false, ALPHA)}};
  /* *INDENT-ON* */
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
  struct
  {
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
          KERNEL_LONG_SUMS ? KERNEL_SMALL : cases[c].kind, random_in)
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
    .kernel = random_kernel (15, KERNEL_SMALL, random_in)
  };
  ClfParams next = params;
  next.kernel = random_kernel (5, KERNEL_NEGATIVE, random_in);
  check_long_stops ("convolve 15x15", &format, &params, &next,
      "convolve 5x5 after a stop");
}

void
test_long (void)
{
  check_long_pass_exact ();
  check_long_pass_stops ();
  check_long_convolve_exact ();
  check_long_convolve_stops ();
}
