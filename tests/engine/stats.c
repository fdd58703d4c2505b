/* Engine tests, group stats (test-engine stats): the kernel-time
 * summary. */
#include "engine-common.h"

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
void
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
