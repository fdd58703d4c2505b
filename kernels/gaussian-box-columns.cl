/* gauss_box_columns and gauss_box_columns_wide: the boxes down columns,
 * sums of type ACC (uint, exact modulo 2^32 where the window's sum stays
 * below 2^31, NARROW: their quotients in 32 bits; ulong), a work-item per
 * run of GAUSS_RUN samples of a row and `seg` rows on GPUs, per `lines`
 * runs down whole columns on CPUs (kernels/meson.build's
 * kernel_variants).
 *
 * A walk starts from the running sums just before its first output,
 * taken from the 2R + 3 rows of H they weigh (START_SUMS: the comb's
 * impulses summed once, twice and three times are the weights of s1, s2
 * and s3; s3's, the kernel g), so that a run costs its own combs and one
 * pass over its span, not a walk of the 2R positions before it; or on
 * GPUs, where `starts` is not 0, from the sums gaussian-box-starts.cl
 * leaves for it. */

/* PoCL's optimizer declines these unroll pragmas (NVIDIA's takes them,
 * 6-13 % of the blur at large sigma); its warning says so, and would
 * fail builds with -Werror. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpass-failed"

/* How far ahead (rows) the CPUs' walk fetches its first reads, and the
 * runs it takes side by side. */
#define COLUMN_PREFETCH_ROWS 3
#define COLUMN_BLOCK 8

__kernel void KERNEL_NAME(GAUSS_ARGS)
{
  ITEM_RUNS_AND_ROWS;
  const int r = (w1 + w2 + w3 - 3) / 2, span = w1 + w2 + w3;
  /* The first position whose s3 is an output's (row y0). */
  const int start = y0 + r;
  const long divisor = 256 * weight, rounding = 128 * weight;
#if NARROW
  const float inv = 1.0f / divisor;
#define G_OF(N, s) \
  PASTE(narrow_quotient, N)((s) + (uint) rounding, (uint) divisor, inv)
#else
  const INV_T inv = (INV_T) 1 / divisor;
#define G_OF(N, s) PASTE(convert_int, N)(PASTE(quotient, N)( \
        PASTE(convert_long, N)(s) + rounding, divisor, inv))
#endif
#define LINE_AT(q) H_ROW(border_index(q, height, border))
#define RUN_VALUE(q) RUNV(as_int)(LOAD_RUN_H(LINE_AT(q) + b, h_aligned))
#define SAMPLE_VALUE(q) ((int) LINE_AT(q)[s])
#undef AT
#define AT(T, VALUE, q, first) VALUE(q)
#if GAUSS_RUN == 16
  /* CPUs: the work-item's whole runs (`lines`, at most
   * GAUSS_COLUMN_LINES) down whole columns, COLUMN_BLOCK side by side a
   * row at a time, their sums in registers (the loops over the block
   * unrolled under a test). */
  const int n = clamp((row_units - b0) / GAUSS_RUN, 0, lines);
  for (int i0 = 0; i0 < n; i0 += COLUMN_BLOCK) {
    const int nb = min(n - i0, COLUMN_BLOCK), bb = b0 + i0 * GAUSS_RUN;
    RUNV(ACC) s1[COLUMN_BLOCK], s2[COLUMN_BLOCK], s3[COLUMN_BLOCK];
#pragma unroll
    for (int i = 0; i < COLUMN_BLOCK; i++)
      s1[i] = s2[i] = s3[i] = 0;
    int k2 = 0, k3 = 0;
    for (int j = 0; j < span; j++) {
      const int k1 = COMB_IMPULSE(j);
      __global const H_T *h = LINE_AT(start - 1 - j) + bb;
      k2 += k1;
      k3 += k2;
#pragma unroll
      for (int i = 0; i < COLUMN_BLOCK; i++)
        if (i < nb) {
          const RUNV(ACC) v = RUNV(PASTE(convert_, ACC))(LOAD_RUN_H(h
                  + i * GAUSS_RUN, h_aligned));
          s1[i] += (RUNV(ACC)) (ACC) k1 * v;
          s2[i] += (RUNV(ACC)) (ACC) k2 * v;
          s3[i] += (RUNV(ACC)) (ACC) k3 * v;
        }
    }
    for (int p = start; p < y1 + r; p++) {
      /* The comb's rows (COMB's corners). */
      __global const H_T *c[8] = { LINE_AT(p), LINE_AT(p - w1),
        LINE_AT(p - w2), LINE_AT(p - w3), LINE_AT(p - w1 - w2),
        LINE_AT(p - w1 - w3), LINE_AT(p - w2 - w3),
        LINE_AT(p - w1 - w2 - w3)
      };
      /* The rows read here first (H's leading row, the input's) fetched
       * ahead, as the prefetchers do not follow stretches this short. */
      {
        const int ahead = p + COLUMN_PREFETCH_ROWS;
        PREFETCH_STRETCH(LINE_AT(ahead) + bb, nb * GAUSS_RUN);
        if (ahead - r < y1) {
          PREFETCH_STRETCH(KEEP_ROW(ahead - r) + bb, nb * GAUSS_RUN);
          if (unsharp)
            PREFETCH_STRETCH(SRC_ROW(ahead - r) + bb, nb * GAUSS_RUN);
        }
      }
#pragma unroll
      for (int i = 0; i < COLUMN_BLOCK; i++)
        if (i < nb) {
          const int b = bb + i * GAUSS_RUN;
          /* The comb in int (exact, as below), 16 lanes an operation,
           * then of the sums' type. */
#define CORNER(k) RUNV(convert_int)(LOAD_RUN_H(c[k] + b, h_aligned))
          s1[i] += RUNV(PASTE(convert_, ACC))(CORNER(0) - CORNER(1)
              - CORNER(2) - CORNER(3) + CORNER(4) + CORNER(5) + CORNER(6)
              - CORNER(7));
#undef CORNER
          s2[i] += s1[i];
          s3[i] += s2[i];
          store_run(DST_ROW(p - r) + b, KEEP_ROW(p - r) + b,
              SRC_ROW(p - r) + b, G_OF(GAUSS_RUN, s3[i]), b, runs_aligned,
              unsharp, amount, threshold);
        }
    }
  }
  const int tail = b0 + n * GAUSS_RUN;
#else
  /* The walk's loop unrolled for the same reason; `line` is restrict, so
   * a run's loads may pass its stores.  The comb is exact in int
   * (|comb| < 2^26). */
#define RUN_WALK(VALUE)                                                   \
  do {                                                                    \
    RUNV(ACC) s1 = 0, s2 = 0, s3 = 0;                                     \
    if (starts) {                                                         \
      const int i_ = b / GAUSS_RUN, t_ = starts + get_global_id(1);       \
      s1 = COLUMN_STATE(t_, 0, i_, row_units / GAUSS_RUN);                \
      s2 = COLUMN_STATE(t_, 1, i_, row_units / GAUSS_RUN);                \
      s3 = COLUMN_STATE(t_, 2, i_, row_units / GAUSS_RUN);                \
    } else                                                                \
      START_SUMS(RUNV(ACC), RUNV(long), VALUE, 0, span);                  \
    _Pragma("unroll 4")                                                   \
    for (int p = start; p < y1 + r; p++) {                                \
      s1 += RUNV(PASTE(convert_, ACC))(COMB(RUNV(int), VALUE, p, 0));     \
      s2 += s1;                                                           \
      s3 += s2;                                                           \
      store_run(DST_ROW(p - r) + b, KEEP_ROW(p - r) + b,                  \
          SRC_ROW(p - r) + b, G_OF(GAUSS_RUN, s3), b, runs_aligned,       \
          unsharp, amount, threshold);                                    \
    }                                                                     \
  } while (0)
  /* uint sums: where every row the run reads (start - span .. y1 + r - 1)
   * lies in the plane, straight from H, without the border's look-up a
   * load (the ulong sums' kernels came out slower with the second walk). */
#define INNER_RUN_VALUE(q) RUNV(as_int)(LOAD_RUN_H(H_ROW(q) + b, h_aligned))
#if NARROW
  const bool inside = start - span >= 0 && y1 + r <= height;
#endif
  int tail = b0;
  for (; tail + GAUSS_RUN <= b1; tail += GAUSS_RUN) {
    const int b = tail;
#if NARROW
    if (inside)
      RUN_WALK(INNER_RUN_VALUE);
    else
#endif
      RUN_WALK(RUN_VALUE);
  }
#undef INNER_RUN_VALUE
#undef RUN_WALK
#endif
  /* A row's last, partial run: sample by sample. */
  for (int s = tail; s < b1; s++) {
    ACC s1 = 0, s2 = 0, s3 = 0;
    START_SUMS(ACC, long, SAMPLE_VALUE, 0, span);
    for (int p = start; p < y1 + r; p++) {
      s1 += (ACC) COMB(int, SAMPLE_VALUE, p, 0);
      s2 += s1;
      s3 += s2;
      store_sample(OUT_ROWS(p - r), G_OF(, s3), s, unsharp, amount,
          threshold);
    }
  }
#undef AT
#define AT(T, VALUE, q, first) ((q) >= (first) ? VALUE(q) : (T) 0)
#undef G_OF
#undef SAMPLE_VALUE
#undef RUN_VALUE
#undef LINE_AT
}
#pragma clang diagnostic pop
