/* Kernel times over a stream in bounded memory (see clf.h). */
#include "clf.h"

#include <stdlib.h>
#include <string.h>

void
clf_time_stats_reset (ClfTimeStats * stats)
{
  memset (stats, 0, sizeof *stats);
  /* A fixed seed: the same stream gives the same summary. */
  stats->rng = UINT64_C (0x9E3779B97F4A7C15);
}

/* xorshift64*: cheap, and plenty for picking reservoir slots. */
static uint64_t
next_random (uint64_t * state)
{
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * UINT64_C (2685821657736338717);
}

void
clf_time_stats_add (ClfTimeStats * stats, uint64_t ns)
{
  if (stats->count == 0 || ns < stats->min_ns)
    stats->min_ns = ns;
  if (ns > stats->max_ns)
    stats->max_ns = ns;
  stats->total_ns += ns;
  stats->count++;
  /* Reservoir sampling (Vitter's algorithm R): every frame so far is in
   * the sample with the same probability. */
  if (stats->count <= CLF_TIME_SAMPLES) {
    stats->sample[stats->count - 1] = ns;
  } else {
    uint64_t slot = next_random (&stats->rng) % stats->count;
    if (slot < CLF_TIME_SAMPLES)
      stats->sample[slot] = ns;
  }
}

static int
compare_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

bool
clf_time_stats_summary (const ClfTimeStats * stats, ClfTimeSummary * summary)
{
  memset (summary, 0, sizeof *summary);
  if (stats->count == 0)
    return true;
  size_t n = stats->count < CLF_TIME_SAMPLES ? (size_t) stats->count :
      CLF_TIME_SAMPLES;
  uint64_t *sorted = g_try_new (uint64_t, n);
  if (!sorted)
    return false;
  memcpy (sorted, stats->sample, n * sizeof *sorted);
  qsort (sorted, n, sizeof *sorted, compare_u64);
  summary->frames = stats->count;
  summary->mean_ns = stats->total_ns / stats->count;
  summary->min_ns = stats->min_ns;
  summary->max_ns = stats->max_ns;
  summary->median_ns = sorted[(n - 1) / 2];     /* the lower middle */
  summary->p95_ns = sorted[(n * 95 + 99) / 100 - 1];    /* nearest rank */
  g_free (sorted);
  return true;
}
