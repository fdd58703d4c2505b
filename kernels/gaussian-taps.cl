/* gauss_tap_rows and gauss_tap_columns: the taps (gaussian.cl), exact in
 * uint sums: a row's sum is below 65535 * 256, a column's below 65535 *
 * 2^16 - 32768.  Where every product and partial sum is an integer below
 * 2^24 they are exact in float too, whose fused multiply-adds cost less
 * than 32-bit integer multiplies: rows of any samples (a tap is at most
 * 256; a side tap at most 85, as the centre tap is the largest, so a tap
 * times a pair of samples is below 85 * 2 * 65536; no partial sum
 * exceeds the total), and columns of 8-bit samples (H below 65536).
 * CPUs take 8-bit samples' rows in ushorts (see ROW_T). */

#if SAMPLE_BYTES == 1
#define COLUMN_ACC float
#define ACC_TO_UINT(v) RUNV(convert_uint)(v)
#else
#define COLUMN_ACC uint
#define ACC_TO_UINT(v) (v)
#endif

#ifdef WANT_gauss_tap_columns
/* The output rows a work-item sums at once (GAUSS_TAP_BLOCK, -D from the
 * host): each row of H it loads goes into all of them, so it loads
 * (TAP_BLOCK + 2R) / TAP_BLOCK rows an output row rather than 2R + 1. */
#define TAP_BLOCK GAUSS_TAP_BLOCK

/* Rows yb .. yend - 1 (at most TAP_BLOCK) of the run at b, from their
 * column sums sums[]. */
#define STORE_TAP_RUNS(sums, yb, yend, b)                                 \
  for (int m_ = 0; m_ < TAP_BLOCK && (yb) + m_ < (yend); m_++)            \
    store_run(DST_ROW((yb) + m_) + (b), KEEP_ROW((yb) + m_) + (b),        \
        SRC_ROW((yb) + m_) + (b), RUNV(convert_int)((ACC_TO_UINT(         \
                  sums[m_]) + 32768) >> 16), b, runs_aligned, unsharp,    \
        amount, threshold)

/* Samples b .. row_units - 1 of rows ya .. yend - 1 (a row's last,
 * partial run), one at a time, from H's rows at LINE_AT. */
#define TAP_SAMPLES(b, ya, yend)                                          \
  for (int s_ = (b); s_ < row_units; s_++)                                \
    for (int y_ = (ya); y_ < (yend); y_++) {                              \
      uint sum_ = (uint) t[0] * LINE_AT(y_)[s_];                          \
      for (int k_ = 1; k_ <= r; k_++)                                     \
        sum_ += (uint) t[k_] * (LINE_AT(y_ - k_)[s_]                      \
            + LINE_AT(y_ + k_)[s_]);                                      \
      store_sample(OUT_ROWS(y_), (sum_ + 32768) >> 16, s_, unsharp,       \
          amount, threshold);                                             \
    }
#endif

#if GAUSS_RUN == 16
/* ---- CPUs: runs of 16 samples, whole rows a work-item -------------- */

/* The tap at signed distance j from the centre, 0 past R, as type T,
 * from a private table, table[TAP_REACH + j] for |j| <= TAP_REACH (the
 * farthest a column block's rows lie from its output rows), so that a
 * sum takes every row without a test. */
#define TAP_REACH (GAUSS_MAX_TAPS / 2 + GAUSS_TAP_BLOCK)
#define SIGNED_TAPS(T, table)                                             \
  T table[2 * TAP_REACH + 1];                                             \
  for (int j_ = -TAP_REACH; j_ <= TAP_REACH; j_++)                        \
    table[TAP_REACH + j_] = abs(j_) <= r ? (T) t[abs(j_)] : (T) 0
#define SIGNED_TAP(table, j) (table[TAP_REACH + (j)])

#ifdef WANT_gauss_tap_rows
/* The rows' lanes, ROW_T: for 8-bit samples ushorts, exact (a side tap
 * is at most 85, so a tap times a pair of samples is below 85 * 510, and
 * no partial sum exceeds the total, at most 255 * 256), at twice the
 * lanes an instruction of floats; for 16-bit samples floats (see above).
 * LANES_AT(p) reads 16 of them from the scratch row, which
 * extend_row_lanes fills. */
#if SAMPLE_BYTES == 1
#define ROW_T ushort
#define LANES_AT(p) USHORTS16_AT(p)
#define ROW_MAD(a, b, c) ((a) * (b) + (c))
void extend_row_lanes(__global ushort *e, __global const S *row, int q0,
    int n, int width, int border)
{
  extend_row_ushort(e, row, q0, n / BPP, width, border);
}
#else
#define ROW_T float
#define LANES_AT(p) as_float16(uints16_at((__global const uint *) (p)))
#define ROW_MAD(a, b, c) fma(a, b, c)
void extend_row_lanes(__global float *e, __global const S *row, int q0,
    int n, int width, int border)
{
  __global uint *u = (__global uint *) e;
  extend_row(u, row, q0, n / BPP, width, border);
  for (int k = 0; k < n; k += 16)
    store_uints16(as_uint16(convert_float16(uints16_at(u + k))), u + k);
}
#endif
#define ROW_V PASTE(ROW_T, 16)

/* The row sums of RUNS runs from c, into sums[RUNS], in a row extended
 * by R either side: each tap's loop carries their independent sums at
 * once. */
#define TAP_SUMS(sums, RUNS, c)                                           \
  do {                                                                    \
    _Pragma("unroll")                                                     \
    for (int i_ = 0; i_ < (RUNS); i_++)                                   \
      sums[i_] = (ROW_V) rt[0] * LANES_AT((c) + 16 * i_);                 \
    for (int k_ = 1; k_ <= r; k_++) {                                     \
      const ROW_V t_ = rt[k_];                                            \
      _Pragma("unroll")                                                   \
      for (int i_ = 0; i_ < (RUNS); i_++)                                 \
        sums[i_] = ROW_MAD(t_, LANES_AT((c) + 16 * i_ - k_ * BPP)         \
            + LANES_AT((c) + 16 * i_ + k_ * BPP), sums[i_]);              \
    }                                                                     \
  } while (0)

/* H of one run at c. */
uint16 taps_run(__global const ROW_T *c, int r, const ROW_T *rt)
{
  ROW_V sum[1];
  TAP_SUMS(sum, 1, c);
  return convert_uint16(sum[0]);
}

/* H of TAP_RUNS runs from c into out. */
#define TAP_RUNS 4
void taps_runs(__global const ROW_T *c, int r, const ROW_T *rt,
    __global H_T *out)
{
  ROW_V sums[TAP_RUNS];
  TAP_SUMS(sums, TAP_RUNS, c);
#pragma unroll
  for (int i = 0; i < TAP_RUNS; i++)
    STORE_RUN_H(convert_uint16(sums[i]), out + 16 * i);
}
#undef TAP_SUMS

/* H of whole rows, each extended into the strip's scratch row first
 * (from pixel -R on), so that no run looks up the border. */
__kernel void gauss_tap_rows(GAUSS_ARGS)
{
  ITEM_RUNS_AND_ROWS;
  UNPACK_TAPS(t);
  const int r = n_taps / 2;
  __global ROW_T *e = (__global ROW_T *) SCRATCH_ROW(1);
  const int n = (row_units + 2 * r * BPP + 31) / 16 * 16;
  ROW_T rt[32];
  for (int k = 0; k < 32; k++)
    rt[k] = t[k];
  for (int y = y0; y < y1; y++) {
    __global H_T *out = H_ROW(y);
    extend_row_lanes(e, SRC_ROW(y), -r, n, width, border);
    int from = 0;
    for (; from + 16 * TAP_RUNS <= row_units; from += 16 * TAP_RUNS)
      taps_runs(e + from + r * BPP, r, rt, out + from);
#define TAPS_AT(B) (taps_run(e + (B) + r * BPP, r, rt))
    ROW_OF_RUNS(out, row_units, from, TAPS_AT(B));
#undef TAPS_AT
  }
}
#undef ROW_V
#undef ROW_MAD
#undef LANES_AT
#undef ROW_T
#endif

#ifdef WANT_gauss_tap_columns
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
   * span (y = yb - R + n) is rows_at[n] rows of H from `line`, looked up
   * once a block. */
  int rows_at[TAP_BLOCK + GAUSS_MAX_TAPS - 1];
  for (int yb = y0; yb < y1; yb += TAP_BLOCK) {
    const int yend = min(yb + TAP_BLOCK, y1), span = TAP_BLOCK + 2 * r;
    for (int n = 0; n < span; n++)
      rows_at[n] = border_index(yb - r + n, height, border);
    for (int b = b0; b < b1; b += GAUSS_RUN) {
      if (b + GAUSS_RUN <= row_units) {
        RUNV(COLUMN_ACC) sums[TAP_BLOCK];
        for (int m = 0; m < TAP_BLOCK; m++)
          sums[m] = 0;
#define SPAN_ROW(n) RUNV(PASTE(convert_, COLUMN_ACC))(                    \
    LOAD_RUN_H(H_ROW(rows_at[n]) + b, h_aligned))
        /* t0[n - m]: the tap between row n and output row m (0 unless
         * 0 <= n - m <= 2R). */
        const COLUMN_ACC *const t0 = &SIGNED_TAP(taps_at, -r);
        int n = 0, all_end = span;
        /* Where 2R >= TAP_BLOCK, the span's first TAP_BLOCK rows reach
         * outputs 0 .. n alone, its last TAP_BLOCK - 1 rows outputs n - 2R
         * on, so their other products (by 0) are left out.  The inner
         * loops run a constant count under a test, so that PoCL unrolls
         * both and keeps sums[] in registers (with `m <= i` as the bound
         * it kept them in memory). */
        const bool ends = 2 * r >= TAP_BLOCK;
        if (ends) {
#pragma unroll
          for (int i = 0; i < TAP_BLOCK; i++) {
            const RUNV(COLUMN_ACC) h = SPAN_ROW(i);
#pragma unroll
            for (int m = 0; m < TAP_BLOCK; m++)
              if (m <= i)
                sums[m] += t0[i - m] * h;
          }
          n = TAP_BLOCK;
          all_end = 2 * r + 1;
        }
        for (const COLUMN_ACC * tq = t0 + n; n < all_end; n++, tq++) {
          const RUNV(COLUMN_ACC) h = SPAN_ROW(n);
#pragma unroll
          for (int m = 0; m < TAP_BLOCK; m++)
            sums[m] += tq[-m] * h;
        }
        if (ends) {
          const COLUMN_ACC *const t2r = t0 + 2 * r;
#pragma unroll
          for (int j = 1; j < TAP_BLOCK; j++) {
            const RUNV(COLUMN_ACC) h = SPAN_ROW(2 * r + j);
#pragma unroll
            for (int m = 0; m < TAP_BLOCK; m++)
              if (m >= j)
                sums[m] += t2r[j - m] * h;
          }
        }
#undef SPAN_ROW
        STORE_TAP_RUNS(sums, yb, yend, b);
        continue;
      }
      TAP_SAMPLES(b, yb, yend);
    }
  }
#undef LINE_AT
}
#endif

#else
/* ---- GPUs: a window of outputs in registers ------------------------
 * A work-item sums N outputs at once, out[m] = sum_j g[j] v[m + j] for
 * m < N, holding v[j .. j + N - 1] in registers: each tap loads one value
 * and makes N multiply-adds.  The taps' loop is unrolled N steps at a
 * time, so that the window turns by renaming registers, not by moving
 * them: at step j, v[q] is in win[q % N].  The weights g[0 .. 2R], as
 * type T, come from a table the work-group fills in local memory (a
 * private array indexed at run time would live in memory, a copy a
 * work-item), 0 past 2R up to TAP_TABLE, so that the steps of the last N
 * need no test and their loads go out together. */
#define TAP_TABLE ((GAUSS_MAX_TAPS + 15) / 16 * 16)
#define FILL_TAPS(T, table)                                               \
  __local T table[TAP_TABLE];                                             \
  for (int j_ = (int) (get_local_id(1) * get_local_size(0)                \
          + get_local_id(0)); j_ < TAP_TABLE;                             \
      j_ += (int) (get_local_size(0) * get_local_size(1)))                \
    table[j_] = j_ < n_taps ? (T) t[abs(j_ - r)] : (T) 0;                 \
  barrier(CLK_LOCAL_MEM_FENCE)

/* acc[m] (N of type T) = sum over j of g[j] VALUE(m + j), j from 0 to
 * n_taps rounded up to N (N <= 16).  Each N steps' values are read
 * first, so that their loads are in flight together. */
#define WINDOW_SUMS(T, N, acc, VALUE, g)                                  \
  do {                                                                    \
    T win_[N];                                                            \
    _Pragma("unroll")                                                     \
    for (int i_ = 0; i_ < (N) - 1; i_++)                                  \
      win_[i_] = VALUE(i_);                                               \
    _Pragma("unroll")                                                     \
    for (int m_ = 0; m_ < (N); m_++)                                      \
      acc[m_] = 0;                                                        \
    for (int j0_ = 0; j0_ < n_taps; j0_ += (N)) {                         \
      T next_[N];                                                         \
      _Pragma("unroll")                                                   \
      for (int s_ = 0; s_ < (N); s_++)                                    \
        next_[s_] = VALUE(j0_ + s_ + (N) - 1);                            \
      _Pragma("unroll")                                                   \
      for (int s_ = 0; s_ < (N); s_++) {                                  \
        win_[(s_ + (N) - 1) % (N)] = next_[s_];                           \
        const T w_ = g[j0_ + s_];                                         \
        _Pragma("unroll")                                                 \
        for (int m_ = 0; m_ < (N); m_++)                                  \
          acc[m_] += w_ * win_[(m_ + s_) % (N)];                          \
      }                                                                   \
    }                                                                     \
  } while (0)

#ifdef WANT_gauss_tap_rows
/* A work-group takes GAUSS_TAP_GROUP x TAP_PIXELS pixels of a row (-D
 * from the host), each work-item TAP_PIXELS of them side by side; the
 * pixels they read (R either side, and as far as the table's zeros
 * reach) are first loaded into local memory as floats, under the border
 * rule, STAGE_LOADS a work-item, all in flight at once.  Pixel i of the
 * stage lies at STAGED(i): one slot is left after every TAP_PIXELS, so
 * that the work-items' windows, TAP_PIXELS apart, fall in different
 * banks.  The sums go back through the stage, so that neighbouring
 * work-items store neighbouring pixels. */
#define TAP_PIXELS GAUSS_TAP_PIXELS
#define ROW_PIXELS (GAUSS_TAP_GROUP * TAP_PIXELS)
#define STAGE_PIXELS (ROW_PIXELS + TAP_TABLE + TAP_PIXELS)
#define STAGE_LOADS ((STAGE_PIXELS + GAUSS_TAP_GROUP - 1) / GAUSS_TAP_GROUP)
#define STAGED(i) ((i) + (i) / TAP_PIXELS)

__kernel __attribute__((reqd_work_group_size(GAUSS_TAP_GROUP, 1, 1)))
void gauss_tap_rows(GAUSS_ARGS)
{
  UNPACK_TAPS(t);
  const int r = n_taps / 2, y = get_global_id(1), row_units = width * BPP;
  const int x0 = get_group_id(0) * ROW_PIXELS, lid = get_local_id(0);
  const bool pixels_aligned = PIXELS_ALIGNED;
  __global const S *row = SRC_ROW(y);
  __local PIX(float) stage[STAGED(STAGE_PIXELS)];
  PIX(float) loaded[STAGE_LOADS];
#pragma unroll
  for (int k = 0; k < STAGE_LOADS; k++) {
    __global const S *p = row + border_index(x0 - r + lid
        + k * GAUSS_TAP_GROUP, width, border) * BPP;
    loaded[k] = CONVERT_PIX(float)(pixels_aligned ? ALIGNED_PIXEL_VALUES(p)
        : PIXEL_VALUES(p));
  }
#pragma unroll
  for (int k = 0; k < STAGE_LOADS; k++)
    if (lid + k * GAUSS_TAP_GROUP < STAGE_PIXELS)
      stage[STAGED(lid + k * GAUSS_TAP_GROUP)] = loaded[k];
  FILL_TAPS(float, g);

  const int first = lid * TAP_PIXELS;
  PIX(float) acc[TAP_PIXELS];
#define STAGE_AT(q) stage[STAGED(first + (q))]
  WINDOW_SUMS(PIX(float), TAP_PIXELS, acc, STAGE_AT, g);
#undef STAGE_AT
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int m = 0; m < TAP_PIXELS; m++)
    stage[STAGED(first + m)] = acc[m];
  barrier(CLK_LOCAL_MEM_FENCE);
  __global H_T *out = H_ROW(y);
#pragma unroll
  for (int k = 0; k < TAP_PIXELS; k++) {
    const int i = lid + k * GAUSS_TAP_GROUP;
    if (x0 + i < width)
      STORE_H_PIX(CONVERT_PIX(H_T)(stage[STAGED(i)]), x0 + i, out);
  }
}
#endif

#ifdef WANT_gauss_tap_columns
/* A work-item takes a run of samples down `seg` rows, TAP_BLOCK rows at
 * a time. */
/* H's values as COLUMN_ACC: floats from 8-bit samples' H (below 2^23) as
 * H's bits under the exponent of 2^23, less 2^23, which is exact and
 * costs GPUs two instructions at full rate where a conversion takes one
 * at a quarter of it. */
#if SAMPLE_BYTES == 1
#define H_AS_ACC(h) (RUNV(as_float)((h) | 0x4B000000u) - 8388608.0f)
#else
#define H_AS_ACC(h) (h)
#endif

__kernel void gauss_tap_columns(GAUSS_ARGS)
{
  ITEM_RUNS_AND_ROWS;
  UNPACK_TAPS(t);
  const int r = n_taps / 2;
  FILL_TAPS(COLUMN_ACC, g);
#define LINE_AT(q) H_ROW(border_index(q, height, border))
  /* The rows a block reads from yb - R on (WINDOW_SUMS's reach). */
  const int reach = (n_taps + TAP_BLOCK - 1) / TAP_BLOCK * TAP_BLOCK
      + TAP_BLOCK - 1;
  if (b0 + GAUSS_RUN <= row_units) {
    for (int yb = y0; yb < y1; yb += TAP_BLOCK) {
      RUNV(COLUMN_ACC) acc[TAP_BLOCK];
      if (yb - r >= 0 && yb - r + reach <= height) {
        /* Inside the plane: the rows straight from the block's first,
         * without the border's look-up a load. */
        __global const H_T *first = H_ROW(yb - r) + b0;
#define H_AT(q) H_AS_ACC(LOAD_RUN_H(first + (q) * row_units, h_aligned))
        WINDOW_SUMS(RUNV(COLUMN_ACC), TAP_BLOCK, acc, H_AT, g);
#undef H_AT
      } else {
#define H_AT(q) H_AS_ACC(LOAD_RUN_H(LINE_AT(yb - r + (q)) + b0, h_aligned))
        WINDOW_SUMS(RUNV(COLUMN_ACC), TAP_BLOCK, acc, H_AT, g);
#undef H_AT
      }
      STORE_TAP_RUNS(acc, yb, y1, b0);
    }
    return;
  }
  TAP_SAMPLES(b0, y0, y1);
#undef LINE_AT
}
#endif
#endif
