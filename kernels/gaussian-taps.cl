/* gauss_tap_rows and gauss_tap_columns: the taps (gaussian.cl), exact in
 * uint sums: a row's sum is below 65535 * 256, a column's below 65535 *
 * 2^16 - 32768.  Where every product and partial sum is an integer below
 * 2^24 they are exact in float too, whose fused multiply-adds cost CPUs
 * less than 32-bit integer multiplies: rows of any samples (a side tap is
 * at most 85, as the centre tap is the largest, so a tap times a pair of
 * samples is below 85 * 2 * 65536, and no partial sum exceeds the total),
 * and columns of 8-bit samples (H below 65536, taps at most 256). */

#if SAMPLE_BYTES == 1
#define COLUMN_ACC float
#define ACC_TO_UINT(v) RUNV(convert_uint)(v)
#else
#define COLUMN_ACC uint
#define ACC_TO_UINT(v) (v)
#endif

/* The tap at signed distance j from the centre, 0 past R, as type T,
 * from a table, table[TAP_REACH + j] for |j| <= TAP_REACH (the farthest a
 * column block's rows lie from its output rows, R <= 31), so that a sum
 * takes every row without a test.  CPUs keep it private; on GPUs, where a
 * private array indexed at run time lives in memory, a work-item each,
 * the work-group fills one in local memory that all its items read at
 * once (at kernel scope, before any item can leave). */
#define TAP_REACH (31 + GAUSS_TAP_BLOCK)
#if GAUSS_RUN == 16
#define TAP_SPACE
#else
#define TAP_SPACE __local
#endif
#define SIGNED_TAP_AT(T, j) (abs(j) <= r ? (T) t[abs(j)] : (T) 0)
#if GAUSS_RUN == 16
#define SIGNED_TAPS(T, table)                                             \
  T table[2 * TAP_REACH + 1];                                             \
  for (int j_ = -TAP_REACH; j_ <= TAP_REACH; j_++)                        \
    table[TAP_REACH + j_] = SIGNED_TAP_AT(T, j_)
#else
#define SIGNED_TAPS(T, table)                                             \
  __local T table[2 * TAP_REACH + 1];                                     \
  for (int j_ = (int) (get_local_id(1) * get_local_size(0)                \
          + get_local_id(0)) - TAP_REACH; j_ <= TAP_REACH;                \
      j_ += (int) (get_local_size(0) * get_local_size(1)))                \
    table[TAP_REACH + j_] = SIGNED_TAP_AT(T, j_);                         \
  barrier(CLK_LOCAL_MEM_FENCE)
#endif
#define SIGNED_TAP(table, j) (table[TAP_REACH + (j)])

#ifdef WANT_gauss_tap_rows
#if GAUSS_RUN == 16
#define FLOATS_AT(p) as_float16(uints16_at(p))
/* The row sums of RUNS runs from c, into float16 sums[RUNS], in a row
 * extended by R either side whose values are floats: each tap's loop
 * carries their independent sums at once. */
#define TAP_SUMS(sums, RUNS, c)                                           \
  do {                                                                    \
    _Pragma("unroll")                                                     \
    for (int i_ = 0; i_ < (RUNS); i_++)                                   \
      sums[i_] = ft[0] * FLOATS_AT((c) + 16 * i_);                        \
    for (int k_ = 1; k_ <= r; k_++) {                                     \
      const float16 t_ = ft[k_];                                          \
      _Pragma("unroll")                                                   \
      for (int i_ = 0; i_ < (RUNS); i_++)                                 \
        sums[i_] = fma(t_, FLOATS_AT((c) + 16 * i_ - k_ * BPP)            \
            + FLOATS_AT((c) + 16 * i_ + k_ * BPP), sums[i_]);             \
    }                                                                     \
  } while (0)

/* H of one run at c. */
uint16 taps_run(__global const uint *c, int r, const float *ft)
{
  float16 sum[1];
  TAP_SUMS(sum, 1, c);
  return convert_uint16(sum[0]);
}

/* H of TAP_RUNS runs from c into out. */
#define TAP_RUNS 4
void taps_runs(__global const uint *c, int r, const float *ft,
    __global H_T *out)
{
  float16 sums[TAP_RUNS];
  TAP_SUMS(sums, TAP_RUNS, c);
#pragma unroll
  for (int i = 0; i < TAP_RUNS; i++)
    STORE_RUN_H(convert_uint16(sums[i]), out + 16 * i);
}
#undef TAP_SUMS
#undef FLOATS_AT
#endif

/* H of runs of samples of rows: the row's sum itself (W = 256); runs
 * whose taps reach past an edge, and a row's last, go sample by
 * sample. */
__kernel void gauss_tap_rows(GAUSS_ARGS)
{
  ITEM_RUNS_AND_ROWS;
  UNPACK_TAPS(t);
  const int r = n_taps / 2;
#if GAUSS_RUN == 16
  /* CPUs: whole rows, each extended into the strip's scratch row first
   * (from pixel -R on), so that no run looks up the border. */
  __global uint *e = SCRATCH_ROW(1);
  const int n = (row_units + 2 * r * BPP + 31) / 16 * 16;
  float ft[32];
  for (int k = 0; k < 32; k++)
    ft[k] = t[k];
  for (int y = y0; y < y1; y++) {
    __global H_T *out = H_ROW(y);
    extend_row(e, SRC_ROW(y), -r, n / BPP, width, border);
    for (int k = 0; k < n; k += 16)
      store_uints16(as_uint16(convert_float16(uints16_at(e + k))), e + k);
    int from = 0;
    for (; from + 16 * TAP_RUNS <= row_units; from += 16 * TAP_RUNS)
      taps_runs(e + from + r * BPP, r, ft, out + from);
#define TAPS_AT(B) (taps_run(e + (B) + r * BPP, r, ft))
    ROW_OF_RUNS(out, row_units, from, TAPS_AT(B));
#undef TAPS_AT
  }
#else
  SIGNED_TAPS(uint, taps_at);
  for (int y = y0; y < y1; y++) {
    __global const S *row = SRC_ROW(y);
    __global H_T *out = H_ROW(y);
    for (int b = b0; b < b1; b += GAUSS_RUN) {
      if (b >= r * BPP && b + GAUSS_RUN + r * BPP <= row_units) {
        RUNV(uint) sum = SIGNED_TAP(taps_at, 0) * run_values(row + b);
        for (int k = 1; k <= r; k++)
          sum += SIGNED_TAP(taps_at, k) * (run_values(row + b - k * BPP)
              + run_values(row + b + k * BPP));
        STORE_RUN_H(sum, out + b);
        continue;
      }
      for (int s = b; s < min(b + GAUSS_RUN, row_units); s++) {
        const int x = s / BPP, c = s % BPP;
        uint sum = SIGNED_TAP(taps_at, 0) * VALUE_OF((uint) row[s]);
        for (int k = 1; k <= r; k++)
          sum += SIGNED_TAP(taps_at, k) * (VALUE_OF((uint) row[border_index(x - k,
                          width, border) * BPP + c])
              + VALUE_OF((uint) row[border_index(x + k, width, border)
                      * BPP + c]));
        out[s] = sum;
      }
    }
  }
#endif
}
#endif

#ifdef WANT_gauss_tap_columns
/* The output rows a work-item sums at once (GAUSS_TAP_BLOCK, -D from the
 * host): each row of H it loads goes into all of them, so it loads
 * (TAP_BLOCK + 2R) / TAP_BLOCK rows an output row rather than 2R + 1. */
#define TAP_BLOCK GAUSS_TAP_BLOCK

/* G of runs of samples of rows y0 .. y0 + seg - 1, TAP_BLOCK rows at a
 * time. */
__kernel void gauss_tap_columns(GAUSS_ARGS)
{
  ITEM_RUNS_AND_ROWS;
  UNPACK_TAPS(t);
  const int r = n_taps / 2;
  SIGNED_TAPS(COLUMN_ACC, taps_at);
#define LINE_AT(q) H_ROW(border_index(q, height, border))
  /* A block of rows at a time across the runs: the block's rows of H
   * stay in the cache from one run to the next.  Row n of a block's
   * span (y = yb - R + n) is BLOCK_ROW(n) rows of H from `line`: CPUs
   * look its border up once a block, GPUs (whose private arrays live in
   * memory) at each use. */
#if GAUSS_RUN == 16
  int rows_at[TAP_BLOCK + 2 * 31];
#define BLOCK_ROW(n) rows_at[n]
#else
#define BLOCK_ROW(n) border_index(yb - r + (n), height, border)
#endif
  for (int yb = y0; yb < y1; yb += TAP_BLOCK) {
    const int yend = min(yb + TAP_BLOCK, y1), span = TAP_BLOCK + 2 * r;
#if GAUSS_RUN == 16
    for (int n = 0; n < span; n++)
      rows_at[n] = border_index(yb - r + n, height, border);
#endif
    for (int b = b0; b < b1; b += GAUSS_RUN) {
      if (b + GAUSS_RUN <= row_units) {
        RUNV(COLUMN_ACC) sums[TAP_BLOCK];
        for (int m = 0; m < TAP_BLOCK; m++)
          sums[m] = 0;
#define SPAN_ROW(n) RUNV(PASTE(convert_, COLUMN_ACC))(                    \
    LOAD_RUN_H(H_ROW(BLOCK_ROW(n)) + b))
        /* t0[n - m]: the tap between row n and output row m (0 unless
         * 0 <= n - m <= 2R). */
        TAP_SPACE const COLUMN_ACC *const t0 = &SIGNED_TAP(taps_at, -r);
        int n = 0, all_end = span;
#if GAUSS_RUN == 16
        /* CPUs, where 2R >= TAP_BLOCK: the span's first TAP_BLOCK rows
         * reach outputs 0 .. n alone, its last TAP_BLOCK - 1 rows outputs
         * n - 2R on, so their other products (by 0) are left out. */
        const bool ends = 2 * r >= TAP_BLOCK;
        if (ends) {
#pragma unroll
          for (int i = 0; i < TAP_BLOCK; i++) {
            const RUNV(COLUMN_ACC) h = SPAN_ROW(i);
#pragma unroll
            for (int m = 0; m <= i; m++)
              sums[m] += t0[i - m] * h;
          }
          n = TAP_BLOCK;
          all_end = 2 * r + 1;
        }
#endif
        for (TAP_SPACE const COLUMN_ACC * tq = t0 + n; n < all_end;
            n++, tq++) {
          const RUNV(COLUMN_ACC) h = SPAN_ROW(n);
#pragma unroll
          for (int m = 0; m < TAP_BLOCK; m++)
            sums[m] += tq[-m] * h;
        }
#if GAUSS_RUN == 16
        if (ends) {
          TAP_SPACE const COLUMN_ACC *const t2r = t0 + 2 * r;
#pragma unroll
          for (int j = 1; j < TAP_BLOCK; j++) {
            const RUNV(COLUMN_ACC) h = SPAN_ROW(2 * r + j);
#pragma unroll
            for (int m = j; m < TAP_BLOCK; m++)
              sums[m] += t2r[j - m] * h;
          }
        }
#endif
#undef SPAN_ROW
        for (int m = 0; m < TAP_BLOCK && yb + m < yend; m++)
          store_run(DST_ROW(yb + m) + b, KEEP_ROW(yb + m) + b,
              SRC_ROW(yb + m) + b, RUNV(convert_int)((ACC_TO_UINT(sums[m])
                      + 32768) >> 16), b, unsharp, amount, threshold);
        continue;
      }
      for (int s = b; s < row_units; s++)
        for (int y = yb; y < yend; y++) {
          uint sum = (uint) t[0] * LINE_AT(y)[s];
          for (int k = 1; k <= r; k++)
            sum += (uint) t[k] * (LINE_AT(y - k)[s] + LINE_AT(y + k)[s]);
          store_sample(OUT_ROWS(y), (sum + 32768) >> 16, s, unsharp,
              amount, threshold);
        }
    }
  }
#undef LINE_AT
#undef BLOCK_ROW
}
#endif
