/* gauss_box_starts and its scan (SCAN_NAME, gauss_box_scan): GPUs'
 * boxes down columns of wide sums (ACC ulong, kernels/meson.build's
 * kernel_variants), the running sums that each run of `seg` rows of
 * gaussian-box-columns.cl starts from, so that no run walks the 2R + 3
 * rows before it: at large radii (clf-gaussian.c) these cost less than
 * one more walk down the plane.  A column's states are a scan: the sums
 * of the first run's start, then each run's own sums (its combs'
 * running sums from 0) composed with those before it.
 *
 * The states of the row's whole runs of samples (a column of runs i)
 * take `starts + runs down` slots (COLUMN_STATE): slot t < starts, the
 * share of rows t seg .. t seg + seg - 1 of the first run's start
 * (these add up); slot starts + u, run u's own sums, which the scan
 * replaces with the sums run u starts from.  A row's last, partial run
 * walks its own start (gaussian-box-columns.cl). */

#if GAUSS_RUN != 16
/* PoCL's optimizer declines START_SUMS's unroll pragma (see
 * gaussian-box-columns.cl). */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpass-failed"

__kernel void KERNEL_NAME(GAUSS_ARGS)
{
  const int row_units = width * BPP, n_runs = row_units / GAUSS_RUN;
  const int i = get_global_id(0), t = get_global_id(1);
  if (i >= n_runs)
    return;
  const int b = i * GAUSS_RUN, r = (w1 + w2 + w3 - 3) / 2;
  const int span = w1 + w2 + w3;
  const bool h_aligned = row_units % GAUSS_RUN == 0;
#define RUN_VALUE(q) RUNV(as_int)(LOAD_RUN_H(H_ROW(border_index(q,      \
            height, border)) + b, h_aligned))
  RUNV(ACC) s1 = 0, s2 = 0, s3 = 0;
  if (t < starts) {
    /* The first run's start (row 0's sums at position r - 1). */
    const int start = r;
    START_SUMS(RUNV(ACC), RUNV(long), RUN_VALUE, t * seg,
        min(t * seg + seg, span));
  } else {
    const int p0 = r + (t - starts) * seg;
#undef AT
#define AT(T, VALUE, q, first) VALUE(q)
    for (int p = p0; p < p0 + seg; p++) {
      s1 += RUNV(PASTE(convert_, ACC))(COMB(RUNV(int), RUN_VALUE, p, 0));
      s2 += s1;
      s3 += s2;
    }
#undef AT
#define AT(T, VALUE, q, first) ((q) >= (first) ? VALUE(q) : (T) 0)
  }
#undef RUN_VALUE
  COLUMN_STATE(t, 0, i, n_runs) = s1;
  COLUMN_STATE(t, 1, i, n_runs) = s2;
  COLUMN_STATE(t, 2, i, n_runs) = s3;
}
#pragma clang diagnostic pop

/* A column of runs' scan down its `runs down` states, in place. */
__kernel void SCAN_NAME(GAUSS_ARGS)
{
  const int row_units = width * BPP, n_runs = row_units / GAUSS_RUN;
  const int i = get_global_id(0), down = (height + seg - 1) / seg;
  if (i >= n_runs)
    return;
  RUNV(ACC) s1 = 0, s2 = 0, s3 = 0;
  for (int t = 0; t < starts; t++) {
    s1 += COLUMN_STATE(t, 0, i, n_runs);
    s2 += COLUMN_STATE(t, 1, i, n_runs);
    s3 += COLUMN_STATE(t, 2, i, n_runs);
  }
  for (int t = starts; t < starts + down; t++) {
    /* The last run's own sums are not taken. */
    RUNV(ACC) a1 = 0, a2 = 0, a3 = 0;
    if (t + 1 < starts + down) {
      a1 = COLUMN_STATE(t, 0, i, n_runs);
      a2 = COLUMN_STATE(t, 1, i, n_runs);
      a3 = COLUMN_STATE(t, 2, i, n_runs);
    }
    COLUMN_STATE(t, 0, i, n_runs) = s1;
    COLUMN_STATE(t, 1, i, n_runs) = s2;
    COLUMN_STATE(t, 2, i, n_runs) = s3;
    COMPOSE(a1, a2, a3, s1, s2, s3, seg);
    s1 = a1;
    s2 = a2;
    s3 = a3;
  }
}
#endif
