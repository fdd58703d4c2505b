/* mode=gaussian and mode=unsharp (docs/gaussian.md): a separable integer
 * kernel g of 2R + 1 weights summing to W, in two passes, a row pass into
 * `line` (a uint a sample, rows of width * BPP) and a column pass into the
 * frame:
 *
 *   H = floor((256 * sum_j g[j] in[x + j] + floor(W / 2)) / W)
 *   G = floor((sum_i g[i] H[y + i] + 128 W) / (256 W))
 *
 * and unsharp's step on G in the column pass (`line` holds H as H_T).  g is either taps
 * (gaussian-taps.cl: n_taps = 2R + 1 <= 49, W = 256, given from the
 * centre out in `taps` and `taps2`), or three boxes of odd widths w1, w2,
 * w3 (gaussian-box-rows.cl, gaussian-box-columns.cl: W = w1 w2 w3), whose
 * sums cost the same at every width: the comb of the boxes' 8 corners (a
 * tap at each sum of a subset of the widths, sign (-1)^size), then three
 * running sums.  A work-item walks a run of `seg` positions along its
 * line, first the 2R before it, reading positions ahead of its support
 * as 0, so every sum it keeps is the exact sum of a finite window (GPUs'
 * rows: a work-group walks the row, see gaussian-box-rows.cl; columns
 * start from those sums taken directly, see gaussian-box-columns.cl).  The
 * boxes' kernels come in two widths: uint sums, exact modulo 2^32 along
 * the way, where the window's sum stays below 2^31, else ulong.
 *
 * Columns, and CPUs' rows of taps, take runs of GAUSS_RUN samples of a
 * row (-D from the host: 16 on CPUs, a vector's worth; 4 on GPUs), every
 * lane computed, the copied ones (alpha) not stored; a row's last,
 * partial run goes sample by sample (GPUs' rows take pixels: see
 * gaussian-taps.cl and gaussian-box-rows.cl).  A work-item takes `lines`
 * of them side by side (runs of a row; the boxes' rows: rows), each
 * `seg` positions along its walk: on GPUs one run or row, on CPUs, whose
 * work-groups are one work-item, a strip of the frame (the boxes'
 * columns: up to GAUSS_COLUMN_LINES runs down whole columns). */

#define GAUSS_ARGS                                                        \
  __global const uchar *src, uint src_off, uint src_stride,               \
  __global uchar *dst, uint dst_off, uint dst_stride, int keep_dst,       \
  __global uint *restrict line, int width, int height, int border,        \
  int seg, int lines,                                                     \
  int16 taps, int16 taps2, int n_taps, int w1, int w2, int w3,            \
  long weight, int unsharp, int amount, int threshold, ulong scratch_off, \
  int scratch_pitch, int starts

/* A work-item's runs of a row's samples, b0 .. b1 - 1, and its rows, y0 ..
 * y1 - 1 (dimension 0: `lines` runs; 1: `seg` rows); whether the runs of
 * the frame's rows and of H lie at multiples of their size (see
 * LOAD_RUN). */
#define ITEM_RUNS_AND_ROWS                                                \
  const int row_units = width * BPP;                                      \
  const int b0 = get_global_id(0) * lines * GAUSS_RUN;                    \
  const int b1 = min(b0 + lines * GAUSS_RUN, row_units);                  \
  const int y0 = get_global_id(1) * seg, y1 = min(y0 + seg, height);      \
  const bool runs_aligned = ((src_off | src_stride | dst_off | dst_stride) \
      % (GAUSS_RUN * SAMPLE_BYTES)) == 0;                                 \
  const bool h_aligned = row_units % GAUSS_RUN == 0

/* The weights from the centre out: t[k] = g[R + k] = g[R - k]. */
#define UNPACK_TAPS(t)                                                    \
  int t[32];                                                              \
  vstore16(taps, 0, t);                                                   \
  vstore16(taps2, 1, t)

#define RUNV(T) PASTE(T, GAUSS_RUN)
#if GAUSS_RUN == 16
#define RUN_INDEX ((int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,  \
        14, 15))
#else
#define RUN_INDEX ((int4)(0, 1, 2, 3))
#endif

/* H, a sample's row sum, in `line`: below 65536 for 8-bit samples, so a
 * ushort (half the traffic of the passes between them), else a uint. */
#if SAMPLE_BYTES == 1
#define H_T ushort
#else
#define H_T uint
#endif
#define H_ROW(y) ((__global H_T *) line + (size_t) (y) * row_units)

/* CPUs: `count` elements from `at` fetched into the caches ahead of their
 * reads (the hardware's prefetchers follow few streams, and only long
 * ones). */
#define PREFETCH_STRETCH(at, count)                                       \
  for (int i_ = 0; i_ < (count) * (int) sizeof *(at); i_ += 64)           \
    __builtin_prefetch((__global const char *) (at) + i_)

/* A run's containers and H values, in one vector access each, given
 * whether the address is a multiple of the run's size: CPUs' (PoCL
 * splits a vload16 in pieces; see common.cl) take any; NVIDIA's driver
 * makes a vload4 or vstore4 whose address it does not know to be aligned
 * single samples' accesses, so GPUs go through the vector type where the
 * rows allow. */
#if GAUSS_RUN == 16
typedef ushort16 __attribute__((aligned(2))) AnyUshort16;
#define USHORTS16_AT(p) (*(__global const AnyUshort16 *) (p))
#define STORE_USHORTS16(v, p)                                             \
  (*(__global AnyUshort16 *) (p) = convert_ushort16(v))
#define LOAD_RUN(p, aligned) any_load16(p)
#define STORE_RUN(v, p, aligned) any_store16(v, p)
#if SAMPLE_BYTES == 1
#define LOAD_RUN_H(p, aligned) convert_uint16(USHORTS16_AT(p))
#define STORE_RUN_H(v, p) STORE_USHORTS16(v, p)
#else
#define LOAD_RUN_H(p, aligned) uints16_at(p)
#define STORE_RUN_H(v, p) store_uints16(v, p)
#endif
#else
#define LOAD_RUN(p, aligned)                                              \
  ((aligned) ? *(__global const RUNV(S) *) (p) : RUNV(vload)(0, p))
#define STORE_RUN(v, p, aligned)                                          \
  do {                                                                    \
    if (aligned)                                                          \
      *(__global RUNV(S) *) (p) = (v);                                    \
    else                                                                  \
      RUNV(vstore)(v, 0, p);                                              \
  } while (0)
#define LOAD_RUN_H(p, aligned) RUNV(convert_uint)((aligned) ?             \
    *(__global const RUNV(H_T) *) (p) : RUNV(vload)(0, p))
#endif

#if GAUSS_RUN != 16
/* GPUs: a pixel's values in one vector access where the frame's rows put
 * pixels at multiples of their size (BPP 1, 2 or 4: see LOAD_RUN), which
 * H's pixels always are. */
#define PIXELS_ALIGNED                                                    \
  (BPP != 3 && ((src_off | src_stride) % (BPP * SAMPLE_BYTES)) == 0)
#define ALIGNED_PIXEL_VALUES(p)                                           \
  VALUE_OF(CONVERT_PIX(uint)(*(__global const PIX(S) *) (p)))
#if BPP == 3
#define STORE_H_PIX(v, x, out) STORE_PIX(v, x, out)
#else
#define STORE_H_PIX(v, x, out) (((__global PIX(H_T) *) (out))[x] = (v))
#endif
#endif

/* The values of a run of containers at p (`aligned`: see LOAD_RUN). */
RUNV(uint) run_values(__global const S *p, bool aligned)
{
  return VALUE_OF(RUNV(convert_uint)(LOAD_RUN(p, aligned)));
}

#if GAUSS_RUN == 16
/* ---- CPUs: rows through the strip's scratch row -----------------------
 * A row's values, extended under the border rule (the pixels from q0 on,
 * n of them), go into the work-item's scratch row in the sums, so that
 * every run of the row reads them without a border look-up: as uints
 * (extend_row), or for 8-bit samples as ushorts (extend_row_ushort). */
#if LANE_PREFIX
/* Whole runs of the extension in one vector each where the border rule
 * makes them one (pixels of 1, 2 or 4 samples): the edge pixel spread
 * (clamp), or a run of the row reversed (mirror, within one reflection:
 * position q reads pixel -q on the left, 2 (width - 1) - q on the right).
 * i, the first pixel left, moves on past them. */
#define EXTEND_RUNS(STORE16, end, edge, mirror_first)                     \
  do {                                                                    \
    const int np_ = 16 / BPP;                                             \
    if (border == BORDER_CLAMP) {                                         \
      const uint16 edge_ = PIXEL_SPREAD(PIXEL_VALUES(row + (edge) * BPP)); \
      for (; i + np_ <= (end); i += np_)                                  \
        STORE16(edge_, e + i * BPP);                                      \
    } else                                                                \
      for (; i + np_ <= (end) && mirror_first >= 0                        \
          && mirror_first + np_ <= width; i += np_)                       \
        STORE16(PIXELS_REVERSED(run_values(row + mirror_first * BPP,      \
                    false)), e + i * BPP);                                \
  } while (0)
#else
#define EXTEND_RUNS(STORE16, end, edge, mirror_first)
#endif
#define DEFINE_EXTEND_ROW(NAME, T, STORE16)                               \
void NAME(__global T *e, __global const S *row, int q0, int n, int width, \
    int border)                                                           \
{                                                                         \
  const int inner_first = clamp(-q0, 0, n), inner_end = clamp(width - q0, \
      inner_first, n);                                                    \
  int i = 0;                                                              \
  /* The run of pixels i .. i + np - 1 reads -(q0 + i + np - 1) on. */    \
  EXTEND_RUNS(STORE16, inner_first, 0, (-(q0 + i) - np_ + 1));           \
  for (Walk w = walk_from(q0 + i, width, border); i < inner_first;        \
      i++, w = walk_next(w))                                              \
    STORE_PIX(CONVERT_PIX(T)(PIXEL_VALUES(row + walk_index(w) * BPP)),    \
        i, e);                                                            \
  int k = inner_first * BPP;                                              \
  for (; k + 16 <= inner_end * BPP; k += 16)                              \
    STORE16(run_values(row + (q0 * BPP + k), false), e + k);              \
  for (i = k / BPP; i < inner_end; i++)                                   \
    STORE_PIX(CONVERT_PIX(T)(PIXEL_VALUES(row + (q0 + i) * BPP)), i, e);  \
  /* ... and 2 (width - 1) - (q0 + i + np - 1) on. */                     \
  EXTEND_RUNS(STORE16, n, width - 1,                                      \
      (2 * (width - 1) - (q0 + i + np_ - 1)));                            \
  for (Walk w = walk_from(q0 + i, width, border); i < n;                  \
      i++, w = walk_next(w))                                              \
    STORE_PIX(CONVERT_PIX(T)(PIXEL_VALUES(row + walk_index(w) * BPP)),    \
        i, e);                                                            \
}
DEFINE_EXTEND_ROW(extend_row, uint, store_uints16)
#if SAMPLE_BYTES == 1
DEFINE_EXTEND_ROW(extend_row_ushort, ushort, STORE_USHORTS16)
#endif
#undef DEFINE_EXTEND_ROW
#undef EXTEND_RUNS

/* H of a row's runs, out[B .. B + 15] = RUN_OF (an expression of B), in
 * runs from sample `from` (a multiple of 16); the last one ends at the
 * row's end (or, in a row shorter than a run, goes sample by sample). */
#define ROW_OF_RUNS(out, row_units, from, RUN_OF)                         \
  do {                                                                    \
    int B = (from);                                                       \
    for (; B + 16 <= (row_units); B += 16)                                \
      STORE_RUN_H(RUN_OF, (out) + B);                                     \
    if (B < (row_units) && (row_units) >= 16) {                           \
      B = (row_units) - 16;                                               \
      STORE_RUN_H(RUN_OF, (out) + B);                                     \
    } else if (B < (row_units)) {                                         \
      B = 0;                                                              \
      uint h_[16];                                                        \
      vstore16(RUN_OF, 0, h_);                                            \
      for (int k_ = 0; k_ < (row_units); k_++)                            \
        (out)[k_] = h_[k_];                                               \
    }                                                                     \
  } while (0)

/* The strip's scratch row (get_global_id(dim) numbers the strips). */
#define SCRATCH_ROW(dim)                                                  \
  (line + scratch_off + get_global_id(dim) * (size_t) scratch_pitch)
#endif

/* floor(n / d) for 0 <= n < 2^53, d < 2^36 and quotients below 2^24: a
 * double's estimate, within 1 of it, then the remainder's correction (a
 * 64-bit division per sample cost more than the rest of the boxes'
 * sums); the division itself where the device has no doubles.  quotient,
 * quotient2 .. quotient16 for each width.  CPUs take the remainder in
 * doubles, where it is exact too (n, q d and their difference are
 * integers below 2^53): their 64-bit products are several instructions a
 * vector. */
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define INV_T double
#if GAUSS_RUN == 16
#define DEFINE_QUOTIENT(N)                                                \
  PASTE(long, N) PASTE(quotient, N)(PASTE(long, N) n, long d, double inv) \
  {                                                                       \
    const PASTE(double, N) nd = PASTE(convert_double, N)(n);             \
    const PASTE(int, N) q = PASTE(convert_int, N)(nd * inv);              \
    const PASTE(double, N) r = nd - PASTE(convert_double, N)(q) * (double) d; \
    const PASTE(long, N) one = 1, zero = 0;                               \
    return PASTE(convert_long, N)(q) + (r >= (double) d ? one : zero)    \
        - (r < 0 ? one : zero);                                           \
  }
#else
#define DEFINE_QUOTIENT(N)                                                \
  PASTE(long, N) PASTE(quotient, N)(PASTE(long, N) n, long d, double inv) \
  {                                                                       \
    const PASTE(long, N) q =                                              \
        PASTE(convert_long, N)(PASTE(convert_double, N)(n) * inv);        \
    const PASTE(long, N) r = n - q * d, one = 1, zero = 0;                \
    return q + (r >= d ? one : zero) - (r < 0 ? one : zero);              \
  }
#endif
#else
#define INV_T float
#define DEFINE_QUOTIENT(N)                                                \
  PASTE(long, N) PASTE(quotient, N)(PASTE(long, N) n, long d, float inv)  \
  {                                                                       \
    return n / d;                                                         \
  }
#endif
DEFINE_QUOTIENT()
DEFINE_QUOTIENT(2)
DEFINE_QUOTIENT(3)
DEFINE_QUOTIENT(4)
DEFINE_QUOTIENT(16)

/* floor(n / d) for n < 2^32, d < 2^30 and quotients below 2^16 (the
 * columns' uint sums): a float's estimate, within 1 of it (its error is
 * below 2^-6), then the remainder's correction, in 32 bits (on CPUs a
 * vector of 16 lanes an operation, where doubles and 64-bit products
 * take several).  narrow_quotient, narrow_quotient4, narrow_quotient16. */
#define DEFINE_NARROW_QUOTIENT(N)                                         \
  PASTE(int, N) PASTE(narrow_quotient, N)(PASTE(uint, N) n, uint d,       \
      float inv)                                                          \
  {                                                                       \
    const PASTE(int, N) q =                                               \
        PASTE(convert_int, N)(PASTE(convert_float, N)(n) * inv);          \
    const PASTE(int, N) r = PASTE(as_int, N)(n - PASTE(as_uint, N)(q) * d); \
    const PASTE(int, N) one = 1, zero = 0;                                \
    return q + (r >= (int) d ? one : zero) - (r < 0 ? one : zero);        \
  }
DEFINE_NARROW_QUOTIENT()
DEFINE_NARROW_QUOTIENT(4)
DEFINE_NARROW_QUOTIENT(16)

/* floor((256 s + W/2) / W), H of the rows' uint sums s < 2^31, W < 2^23:
 * a float's estimate, its remainder (exact in int, modulo 2^32 along the
 * way) and its correction: the estimate is within 1 of it for quotients
 * below 2^16 (8-bit samples), within 4 below 2^24, which a first
 * correction from the remainder brings within 1.  row_quotient,
 * row_quotient2 .. row_quotient4, row_quotient16. */
#if SAMPLE_BYTES > 1
#define ROW_QUOTIENT_CORRECTION(N)                                        \
  const PASTE(int, N) t =                                                 \
      PASTE(convert_int, N)(floor(PASTE(convert_float, N)(rem) * inv));   \
  q += t;                                                                 \
  rem -= t * weight
#else
#define ROW_QUOTIENT_CORRECTION(N)
#endif
#define DEFINE_ROW_QUOTIENT(N)                                            \
  PASTE(uint, N) PASTE(row_quotient, N)(PASTE(uint, N) s, int weight,     \
      float inv)                                                          \
  {                                                                       \
    const PASTE(uint, N) n = (s << 8) + (uint) (weight / 2);              \
    PASTE(int, N) q = PASTE(convert_int, N)(fma(PASTE(convert_float, N)(  \
                PASTE(as_int, N)(s)), (PASTE(float, N)) (256 * inv),      \
            (PASTE(float, N)) 0.5f));                                     \
    PASTE(int, N) rem = PASTE(as_int, N)(n - PASTE(as_uint, N)(q)         \
        * (uint) weight);                                                 \
    ROW_QUOTIENT_CORRECTION(N);                                           \
    const PASTE(int, N) one = 1, zero = 0;                                \
    return PASTE(as_uint, N)(q + (rem >= weight ? one : zero)             \
        - (rem < 0 ? one : zero));                                        \
  }
DEFINE_ROW_QUOTIENT()
DEFINE_ROW_QUOTIENT(2)
DEFINE_ROW_QUOTIENT(3)
DEFINE_ROW_QUOTIENT(4)
DEFINE_ROW_QUOTIENT(16)
#undef DEFINE_ROW_QUOTIENT
#undef ROW_QUOTIENT_CORRECTION

/* A pixel's row quotient (PIX(uint)). */
#if BPP == 1
#define PIX_ROW_QUOTIENT row_quotient
#else
#define PIX_ROW_QUOTIENT PASTE(row_quotient, BPP)
#endif

/* A pixel's quotient (PIX(long)). */
#if BPP == 1
#define PIX_QUOTIENT quotient
#else
#define PIX_QUOTIENT PASTE(quotient, BPP)
#endif

/* unsharp's step on G (v, of type T) from the input's value `orig`: q =
 * amount * (orig - v) / 256 rounded half away from zero, where the two
 * differ by more than the threshold (?: takes vectors' lanes as
 * select); in int: |amount * d| < 2560 * 65536. */
#define SHARPEN(T, v, orig)                                               \
  do {                                                                    \
    const T d_ = (orig) - (v), q_ = amount * d_, zero_ = 0;               \
    const T step_ = q_ >= 0 ? (q_ + 128) >> 8 : -((128 - q_) >> 8);       \
    v = d_ > threshold || d_ < -threshold ?                               \
        clamp((orig) + step_, zero_, (T) VALUE_MAX) : (orig);             \
  } while (0)

/* The column pass's outputs for a run of samples from sample b of a row
 * (`aligned`: see LOAD_RUN): G (or unsharp's) in the filtered lanes, the
 * rest from `keep`. */
void store_run(__global S *out, __global const S *keep,
    __global const S *in, RUNV(int) v, int b, bool aligned, int unsharp,
    int amount, int threshold)
{
  if (unsharp) {
    const RUNV(int) orig = RUNV(as_int)(run_values(in, aligned));
    SHARPEN(RUNV(int), v, orig);
  }
  const RUNV(uint) filtered = RUNV(as_uint)(-(((RUNV(int)) MASK
              >> ((RUN_INDEX + b) % BPP)) & 1));
  const RUNV(uint) kept = RUNV(convert_uint)(LOAD_RUN(keep, aligned));
  STORE_RUN(RUNV(PASTE(convert_, S))((CONTAINER_OF(RUNV(convert_uint)(v))
              & filtered) | (kept & ~filtered)), out, aligned);
}

/* The same for sample s alone. */
void store_sample(__global S *out, __global const S *keep,
    __global const S *in, int v, int s, int unsharp, int amount,
    int threshold)
{
  if (!FILTERED(s % BPP)) {
    out[s] = keep[s];
    return;
  }
  if (unsharp) {
    const int orig = VALUE_OF((uint) in[s]);
    SHARPEN(int, v, orig);
  }
  out[s] = (S) CONTAINER_OF((uint) v);
}

/* Run and sample views of row y's bytes: where a column pass writes. */
#define OUT_ROWS(y) DST_ROW(y), KEEP_ROW(y), SRC_ROW(y)

/* (a1, a2, a3), the running sums before a block of b positions,
 * composed with the block's own (s1, s2, s3): into s. */
#define COMPOSE(s1, s2, s3, a1, a2, a3, b)                                \
  do {                                                                    \
    const ACC b_ = (ACC) (b);                                             \
    s3 += (b_ * (b_ + 1) / 2) * (a1) + b_ * (a2) + (a3);                  \
    s2 += b_ * (a1) + (a2);                                               \
    s1 += (a1);                                                           \
  } while (0)

/* The boxes' comb at position p of a run that reads from `first` on:
 * VALUE(q) reads position q, as type T. */
#define COMB(T, VALUE, p, first)                                          \
  (AT(T, VALUE, p, first) - AT(T, VALUE, (p) - w1, first)                 \
      - AT(T, VALUE, (p) - w2, first) - AT(T, VALUE, (p) - w3, first)     \
      + AT(T, VALUE, (p) - w1 - w2, first)                                \
      + AT(T, VALUE, (p) - w1 - w3, first)                                \
      + AT(T, VALUE, (p) - w2 - w3, first)                                \
      - AT(T, VALUE, (p) - w1 - w2 - w3, first))
#define AT(T, VALUE, q, first) ((q) >= (first) ? VALUE(q) : (T) 0)

/* The comb's impulse j rows back from a position (the weight of s1's
 * start; summed once and twice, s2's and s3's: comb_ramps). */
#define COMB_IMPULSE(j) (1 - ((j) >= w1) - ((j) >= w2) - ((j) >= w3)       \
      + ((j) >= w1 + w2) + ((j) >= w1 + w3) + ((j) >= w2 + w3))

/* The impulses from 0 to j summed once (*k2) and twice (*k3): each
 * corner at o adds its sign times n = j + 1 - o and n (n + 1) / 2. */
void comb_ramps(int j, int w1, int w2, int w3, int *k2, int *k3)
{
  const int o[7] = { 0, w1, w2, w3, w1 + w2, w1 + w3, w2 + w3 };
  int a = 0, b = 0;
  for (int c = 0; c < 7; c++) {
    const int n = max(j + 1 - o[c], 0), sign = c == 0 || c > 3 ? 1 : -1;
    a += sign * n;
    b += sign * (n * (n + 1) / 2);
  }
  *k2 = a;
  *k3 = b;
}

/* s1, s2, s3 of type T at position `start - 1` take the rows start - 1
 * - j for j from j0 to j1 - 1 (the 2R + 3 rows of H they weigh: 0 to
 * w1 + w2 + w3), VALUE(q) reading row q as ints (H is below 2^24),
 * LONG_T the long type of T's width: each product is a 32-bit weight by
 * a 32-bit value into 64 bits (32 for uint sums, modulo 2^32 as they
 * are); unrolled so that GPUs keep several of its loads in flight (the
 * start costs their latency more than its multiply-adds). */
#define START_SUMS(T, LONG_T, VALUE, j0, j1)                              \
  do {                                                                    \
    int k2, k3;                                                           \
    comb_ramps((j0) - 1, w1, w2, w3, &k2, &k3);                           \
    _Pragma("unroll 8")                                                   \
    for (int j = (j0); j < (j1); j++) {                                   \
      const int k1 = COMB_IMPULSE(j);                                     \
      k2 += k1;                                                           \
      k3 += k2;                                                           \
      const LONG_T v = PASTE(convert_, LONG_T)(VALUE(start - 1 - j));     \
      s1 += PASTE(convert_, T)(v * (long) k1);                            \
      s2 += PASTE(convert_, T)(v * (long) k2);                            \
      s3 += PASTE(convert_, T)(v * (long) k3);                            \
    }                                                                     \
  } while (0)

#if GAUSS_RUN != 16
/* GPUs' boxes down columns: the running sums a run of samples i of a
 * row starts from, three RUNV(ACC) a slot in the sums after H
 * (gaussian-box-starts.cl), sum k (0: s1, 1: s2, 2: s3) of slot t. */
#define COLUMN_STATE(t, k, i, n_runs)                                     \
  (((__global RUNV(ACC) *) (line + scratch_off))[((size_t) (t) * 3 + (k)) \
      * (n_runs) + (i)])
#endif
