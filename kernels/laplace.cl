/* 3x3 Laplace sharpen: out = clamp(9 * centre - (sum of the 8 neighbours),
 * 0, 2^DEPTH - 1), neighbours under the border rule.  The radius does not
 * apply.
 *
 * Two shapes of the same arithmetic, picked per device class by the host:
 * laplace_words for GPUs, aligned 16-byte loads (below), and
 * laplace_strips for CPUs: a work-item takes a strip of whole rows.  The
 * arithmetic is 16-bit for values of up to 11 bits and 32-bit beyond.
 * Runs that touch a left or right edge, or would read past the row (never
 * into padding), take the sample-by-sample path. */

#define RUN 16

/* 9 * centre - ring lies within +-9 * (2^DEPTH - 1): 16 bits hold it up
 * to 11-bit values (10-bit video, as 8-bit), 32 bits beyond. */
#if DEPTH <= 11
#define TAP short16
#else
#define TAP int16
#endif
/* Values taken in the containers' own type, whose shifts are logical. */
#define TAP_VALUES(v) PASTE (convert_, TAP) (VALUE_AS (SN (16), (v)))

typedef struct {
  TAP left, centre, right;
} Taps;

TAP taps_sum(Taps t)
{
  return t.left + t.centre + t.right;
}

/* The value of a sample, as an int. */
#define SAMPLE_VALUE(s) ((int) VALUE_OF ((uint) (s)))

/* One output sample (pixel x, channel c) with every read under the border
 * rule: the edge and tail path. */
S laplace_sample(__global const S *up, __global const S *mid,
    __global const S *down, int x, int c, int width, int border)
{
  const int xl = border_index(x - 1, width, border) * BPP + c;
  const int xc = x * BPP + c;
  const int xr = border_index(x + 1, width, border) * BPP + c;
  if (!FILTERED(c))
    return mid[xc];
  const int ring = SAMPLE_VALUE(up[xl]) + SAMPLE_VALUE(up[xc])
      + SAMPLE_VALUE(up[xr]) + SAMPLE_VALUE(mid[xl]) + SAMPLE_VALUE(mid[xr])
      + SAMPLE_VALUE(down[xl]) + SAMPLE_VALUE(down[xc])
      + SAMPLE_VALUE(down[xr]);
  return (S) CONTAINER_OF((uint) clamp(9 * SAMPLE_VALUE(mid[xc]) - ring, 0,
          (int) VALUE_MAX));
}


/* Samples b .. end - 1 of rows y0 .. y1 - 1, one by one. */
void laplace_samples(__global const uchar *in, int src_stride,
    __global uchar *out, int dst_stride, int b, int end, int y0, int y1,
    int width, int height, int border)
{
  for (int y = y0; y < y1; y++) {
    __global const S *up = PLANE_ROW(in, src_stride,
        border_index(y - 1, height, border));
    __global const S *mid = PLANE_ROW(in, src_stride, y);
    __global const S *down = PLANE_ROW(in, src_stride,
        border_index(y + 1, height, border));
    __global S *row = PLANE_ROW(out, dst_stride, y);
    for (int i = b; i < end; i++)
      row[i] = laplace_sample(up, mid, down, i / BPP, i % BPP, width, border);
  }
}

/* Rows y0 .. y1 - 1 of the run of samples b .. b + 15, with rows' taps from
 * TAPS (row, b); the centre row's samples that are not filtered are copied
 * from the source (CENTRE (taps, row, b)), and the run is stored with
 * STORE (run, row + b). */
#define LAPLACE_RUN_ROWS(TAPS, CENTRE, STORE)                             \
  do {                                                                    \
    Taps above = TAPS (PLANE_ROW (in, src_stride,                         \
            border_index (y0 - 1, height, border)), b);                   \
    Taps here = TAPS (PLANE_ROW (in, src_stride, y0), b);                 \
    const LANES16 keep = filtered_lanes (b);                              \
    for (int y = y0; y < y1; y++) {                                       \
      const Taps below = TAPS (PLANE_ROW (in, src_stride,                 \
              border_index (y + 1, height, border)), b);                  \
      const TAP ring = taps_sum (above) + here.left + here.right          \
          + taps_sum (below);                                             \
      STORE (select (CENTRE (here, PLANE_ROW (in, src_stride, y), b),    \
              sharp_run ((TAP) (9) * here.centre - ring), keep),          \
          PLANE_ROW (out, dst_stride, y) + b);                            \
      above = here;                                                       \
      here = below;                                                       \
    }                                                                     \
  } while (0)

/* 9 * centre - ring, clamped to the values, as containers. */
SN(16) sharp_run(TAP v)
{
#if FULL_BYTES
  return convert_uchar16_sat(v);
#else
  return CONTAINER_AS(SN(16), PASTE(convert_, SN(16))(clamp(v, (TAP) 0,
              (TAP) VALUE_MAX)));
#endif
}

/* ---- GPUs: 16 samples of `seg` rows per work-item ----------------------
 * Neighbouring work-items take neighbouring runs, so each row is read in
 * coalesced 16-byte loads.
 *
 * 8-bit samples: WORD_RUN 4-byte words and a word either side.  The
 * arithmetic is short and packed: a word's even bytes and its odd bytes
 * each sit in the two 16-bit halves of a uint, so one 32-bit operation
 * serves two bytes.  Each row is split into halves once, the three rows'
 * halves are summed first (V), and each byte's 3x3 sum T is then the V of
 * its byte and of the bytes BPP either side, which lie in the same or the
 * other halves, cut from neighbouring words where they straddle two.
 *   out = 10 * centre - T, T the 3x3 sum (centre included): 9 * centre -
 *   ring.  T <= 2295 and 10 * centre <= 2550 stay within a half, and
 *   10 * centre + 2295 - T never borrows across halves.
 * (Faster on GPUs than with each row's left + centre + right taken first,
 * or in int4 or short4.)
 * 16-bit samples: two aligned runs of 8 and the runs either side, the
 * neighbours cut from them in registers, then laplace_runs' arithmetic.
 * Runs at a row's ends, and planes whose rows are not 16-byte aligned,
 * take the sample-by-sample path. */

#if SAMPLE_BYTES == 1
#define WORD_RUN 4
#define T_MAX 2295u                       /* 9 * 255 */

#define ROW_WORDS (WORD_RUN + 2)

/* A row's words from b - 4 to b + 4 * WORD_RUN + 3, split into halves:
 * index 0 is the word left of the run. */
void split_row(__global const uchar *row, int b, uint *even, uint *odd)
{
  __global const uint *p = (__global const uint *) (row + b);
  const uint4 run = *(__global const uint4 *) p;
  const uint w[ROW_WORDS] = {p[-1], run.s0, run.s1, run.s2, run.s3,
    p[WORD_RUN]};
#pragma unroll
  for (int k = 0; k < ROW_WORDS; k++) {
    even[k] = EVEN_BYTES(w[k]);
    odd[k] = ODD_BYTES(w[k]);
  }
}

/* The two halves of bytes p and p + 2 from byte 0 of word i (p = -4 .. 5,
 * known when compiled): halves with p's parity, from one word or cut from
 * two. */
uint halves_at(const uint *even, const uint *odd, int i, int p)
{
  const int parity = p & 1, halves = (p - parity) / 2;
  const int k = i + (halves >> 1);
  const uint lo = parity ? odd[k] : even[k];
  if (!(halves & 1))
    return lo;
  return (lo >> 16) | ((parity ? odd[k + 1] : even[k + 1]) << 16);
}

/* The sharpened bytes of two halves, 10 * centre + T_MAX - T, clamped to
 * T_MAX .. T_MAX + 255 and less T_MAX. */
uint sharp_halves(uint biased)
{
  const ushort2 h = min(max(as_ushort2(biased), (ushort2) (T_MAX)),
      (ushort2) (T_MAX + 255));
  return as_uint(h) - HALVES(T_MAX);
}

/* The words of 8-bit rows, in place of the runs of laplace_runs: the rows
 * above, here and below split into halves, and their sums.  (Spelt so as
 * it is faster on GPUs than with the clamp taking the centre and T, a
 * bitselect and the sums declared outside the row loop.) */
void laplace_word_rows(__global const uchar *in, int src_stride,
    __global uchar *out, int dst_stride, int b, int y0, int y1, int height,
    int border)
{
  uint keep[WORD_RUN];
#pragma unroll
  for (int k = 0; k < WORD_RUN; k++)
    keep[k] = filtered_word(b + 4 * k);
  uint up_even[ROW_WORDS], up_odd[ROW_WORDS];
  uint mid_even[ROW_WORDS], mid_odd[ROW_WORDS];
  uint down_even[ROW_WORDS], down_odd[ROW_WORDS];
  split_row(in + border_index(y0 - 1, height, border) * src_stride, b,
      up_even, up_odd);
  split_row(in + y0 * src_stride, b, mid_even, mid_odd);
  for (int y = y0; y < y1; y++) {
    split_row(in + border_index(y + 1, height, border) * src_stride, b,
        down_even, down_odd);
    uint sum_even[ROW_WORDS], sum_odd[ROW_WORDS];
#pragma unroll
    for (int k = 0; k < ROW_WORDS; k++) {
      sum_even[k] = up_even[k] + mid_even[k] + down_even[k];
      sum_odd[k] = up_odd[k] + mid_odd[k] + down_odd[k];
    }
    uint r[WORD_RUN];
#pragma unroll
    for (int k = 0; k < WORD_RUN; k++) {
      const int i = k + 1;
      const uint t_even = halves_at(sum_even, sum_odd, i, -BPP)
          + sum_even[i] + halves_at(sum_even, sum_odd, i, BPP);
      const uint t_odd = halves_at(sum_even, sum_odd, i, 1 - BPP)
          + sum_odd[i] + halves_at(sum_even, sum_odd, i, 1 + BPP);
      const uint sharp =
          sharp_halves(mid_even[i] * 10 + HALVES(T_MAX) - t_even)
          | sharp_halves(mid_odd[i] * 10 + HALVES(T_MAX) - t_odd) << 8;
      const uint centre = mid_even[i] | mid_odd[i] << 8;
      r[k] = (sharp & keep[k]) | (centre & ~keep[k]);
    }
    __global uint4 *row = (__global uint4 *) (out + y * dst_stride + b);
    row[0] = (uint4) (r[0], r[1], r[2], r[3]);
#pragma unroll
    for (int k = 0; k < ROW_WORDS; k++) {
      up_even[k] = mid_even[k];
      up_odd[k] = mid_odd[k];
      mid_even[k] = down_even[k];
      mid_odd[k] = down_odd[k];
    }
  }
}

#define WORD_ROWS() \
  laplace_word_rows (in, src_stride, out, dst_stride, b, y0, y1, height, border)
/* The neighbour run BPP bytes beyond: a word either side. */
#define WORD_REACH 4
/* Its halves hold bytes as they are: full bytes only. */
#define WORD_ROWS_TAKE FULL_BYTES

#else

/* The 16 elements of array w from constant index i on, as a vector: the
 * compiler keeps w in registers (a shuffle2 with such a mask is much
 * slower on GPUs). */
#define RUN16_AT(w, i) ((ushort16)((w)[(i)], (w)[(i) + 1], (w)[(i) + 2],   \
      (w)[(i) + 3], (w)[(i) + 4], (w)[(i) + 5], (w)[(i) + 6], (w)[(i) + 7], \
      (w)[(i) + 8], (w)[(i) + 9], (w)[(i) + 10], (w)[(i) + 11],             \
      (w)[(i) + 12], (w)[(i) + 13], (w)[(i) + 14], (w)[(i) + 15]))

/* Samples b..b+15 of a 16-byte aligned row and their neighbours BPP
 * samples to either side (BPP <= 4 < 8), from four aligned runs of 8. */
Taps aligned_row_taps(__global const S *row, int b)
{
  __global const ushort8 *run = (__global const ushort8 *) (row + b);
  ushort w[32];
  vstore8(run[-1], 0, w);
  vstore8(run[0], 1, w);
  vstore8(run[1], 2, w);
  vstore8(run[2], 3, w);
  Taps t;
  t.left = TAP_VALUES(RUN16_AT(w, 8 - BPP));
  t.centre = TAP_VALUES(RUN16_AT(w, 8));
  t.right = TAP_VALUES(RUN16_AT(w, 8 + BPP));
  return t;
}

/* The same from and to 16-byte aligned addresses: GPUs do not know it of
 * a vload16 and move single samples. */
SN(16) aligned_centre(Taps here, __global const S *row, int b)
{
  return aligned_load16(row + b);
}

#define STORE_ALIGNED_RUN(v, p) aligned_store16((v), (p))

#define WORD_ROWS() \
  LAPLACE_RUN_ROWS (aligned_row_taps, aligned_centre, STORE_ALIGNED_RUN)
/* The neighbour runs: 8 samples either side. */
#define WORD_REACH 8
#define WORD_ROWS_TAKE 1

#endif

#ifdef WANT_laplace_words
__kernel void laplace_words(PLANE_ARGS)
{
  const int b = get_global_id(0) * RUN, y0 = get_global_id(1) * seg;
  const int y1 = min(y0 + seg, height), row_units = width * BPP;
  if (b >= row_units)
    return;
  __global const uchar *in = src + src_off;
  __global uchar *out = dst + dst_off;
  const bool aligned = ((src_off | src_stride | dst_off | dst_stride) & 15) == 0;

  if (!WORD_ROWS_TAKE || !aligned || b == 0
      || b + RUN + WORD_REACH > row_units) {
    laplace_samples(in, src_stride, out, dst_stride, b,
        min(b + RUN, row_units), y0, y1, width, height, border);
    return;
  }
  WORD_ROWS();
}
#endif

/* ---- CPUs: a strip of `seg` whole rows per work-item -------------------
 * A core walks its strip STRIP_ROWS rows at a time, each row in runs of 16
 * samples.  Each run's left + centre + right sum is taken once in each of
 * the STRIP_ROWS + 2 rows it spans (overlapping loads, from L1) and serves
 * up to three output rows: the 3x3 sum T, and out = 10 * centre - T.  The
 * lanes that are copied repeat every BPP runs (16 mod BPP), so their masks
 * are worked out once per strip.  (On PoCL a work-item per 16 samples of
 * a few rows, the taps slid down in registers, is slower: the work-item
 * loop and a mask per run cost more than the loads they save.  Two rows a
 * step gain about as much as more.) */

#define STRIP_ROWS 2

/* The sum of samples b .. b + 15 of a row and of their neighbours BPP
 * samples to either side. */
TAP three_taps(__global const S *row, int b)
{
  return TAP_VALUES(any_load16(row + b - BPP))
      + TAP_VALUES(any_load16(row + b)) + TAP_VALUES(any_load16(row + b + BPP));
}

/* Samples b .. b + 15 of rows in[1] .. in[STRIP_ROWS] into out[0] ..
 * out[STRIP_ROWS - 1]; in[0] and in[STRIP_ROWS + 1] are the rows above and
 * below. */
void laplace_run(__global const S *const *in, __global S *const *out,
    int b, LANES16 keep)
{
  TAP h[STRIP_ROWS + 2];
#pragma unroll
  for (int i = 0; i < STRIP_ROWS + 2; i++)
    h[i] = three_taps(in[i], b);
#pragma unroll
  for (int i = 0; i < STRIP_ROWS; i++) {
    const SN(16) centre = any_load16(in[i + 1] + b);
    const SN(16) sharp = sharp_run((TAP) (10) * TAP_VALUES(centre)
        - (h[i] + h[i + 1] + h[i + 2]));
#if MASK == (1 << BPP) - 1
    any_store16(sharp, out[i] + b);
#else
    any_store16(select(centre, sharp, keep), out[i] + b);
#endif
  }
}

#ifdef WANT_laplace_strips
__kernel void laplace_strips(PLANE_ARGS)
{
  const int y0 = get_global_id(0) * seg, y1 = min(y0 + seg, height);
  const int row_units = width * BPP;
  __global const uchar *in = src + src_off;
  __global uchar *out = dst + dst_off;
  LANES16 keep[BPP];                 /* of the runs from BPP + 16 k on */
  for (int k = 0; k < BPP; k++)
    keep[k] = filtered_lanes(BPP + k * RUN);

  if (y1 - y0 < STRIP_ROWS) {
    laplace_samples(in, src_stride, out, dst_stride, 0, row_units, y0, y1,
        width, height, border);
    return;
  }
  /* The last step of a strip of rows that STRIP_ROWS does not divide goes
   * back over rows already written, with the same bytes. */
  for (int y = y0; y < y1; y += STRIP_ROWS) {
    const int top = min(y, y1 - STRIP_ROWS);
    __global const S *rows_in[STRIP_ROWS + 2];
    __global S *rows_out[STRIP_ROWS];
#pragma unroll
    for (int i = 0; i < STRIP_ROWS + 2; i++)
      rows_in[i] = PLANE_ROW(in, src_stride,
          border_index(top - 1 + i, height, border));
#pragma unroll
    for (int i = 0; i < STRIP_ROWS; i++)
      rows_out[i] = PLANE_ROW(out, dst_stride, top + i);
    int b = BPP;
    for (; b + BPP + BPP * RUN <= row_units; b += BPP * RUN)
#pragma unroll
      for (int k = 0; k < BPP; k++)
        laplace_run(rows_in, rows_out, b + k * RUN, keep[k]);
    for (; b + BPP + RUN <= row_units; b += RUN)
      laplace_run(rows_in, rows_out, b, filtered_lanes(b));
    laplace_samples(in, src_stride, out, dst_stride, 0, min(BPP, row_units),
        top, top + STRIP_ROWS, width, height, border);
    laplace_samples(in, src_stride, out, dst_stride, max(b, BPP), row_units,
        top, top + STRIP_ROWS, width, height, border);
  }
}
#endif
