/* mode=convolve: a K x K integer kernel (K odd, up to 2 CONV_MAX_RADIUS +
 * 1), correlated with the colour samples as OpenCV's filter2D: S = sum
 * over i, j of k[i][j] * in[y + i - r][x + j - r] under the border rule,
 * out = clamp(q + bias, 0, VALUE_MAX), q = S / d rounded half away from
 * zero (src/clf-convolve.h gives the host's side).
 *
 *  convolve_tiles        GPUs: a work-group of CONV_GROUP^2 work-items
 *                        stages its tile and the halo of r pixels in local
 *                        memory (values, as ushort), then each work-item
 *                        sums its pixel's products of taps from there
 *  convolve_rank1_tiles  GPUs, k = u v^T: the same tile, a pass along its
 *                        rows (v) into local sums, then along columns (u):
 *                        2K products a pixel instead of K^2
 *  convolve_tiles_float  GPUs, where sums are exact in floats: a work-item
 *                        for 4 pixels of a column, the tile as floats
 *                        (_tall: 8 pixels, for large kernels)
 *  convolve_strips       CPUs: a work-item per strip of rows; 128 samples
 *                        at a time between the left and right edges, a
 *                        pixel at a time near them (_float: quotients as
 *                        truncated float products, where exact)
 * Each comes with int sums, and (the _wide kernels) with long sums for
 * the kernels whose |S| + |d|/2 can reach 2^31 (the host decides per
 * kernel and depth).  The coefficients lie in constant memory: a rank-1
 * kernel's u and v (K each) for its tiles, any other's k in rows (K^2),
 * k in rows as floats (their bits, K^2), then its n_taps taps: the
 * coefficients that are not zero, two ints each, where (i side + j in
 * the tiles, side the tile's; i CONV_TAP_ROW + j in the strips) and
 * k[i][j], in rows for the tiles (which take them where at most half the
 * coefficients are not zero), by coefficient for the strips (which take
 * them always).  Then each column's span (for the float tiles): the
 * first row and one past the last whose coefficient is not zero (0, 0
 * for a column of zeros), and 1 / |d| as a float's bits (rounded to
 * nearest for the float tiles, up for the strips).  A new kernel is a
 * new buffer, not a new program.  Sums are exact: int sums stay below
 * 2^31 (the host checked max * sum |k|), long ones below 2^55.
 * mode=convolve's programs are built from common.cl and this file alone,
 * with a WANT_<kernel> for each kernel of their kind of device. */

#define CONVOLVE_ARGS                                                     \
  __global const uchar *src, uint src_off, uint src_stride,               \
  __global uchar *dst, uint dst_off, uint dst_stride,                     \
  int width, int height, int border, int keep_dst, int seg, int columns,  \
  __constant int *coeffs, int n_taps, int radius, ulong rounding,         \
  ulong abs_divisor,                                                      \
  ulong mul, int shift, int negative, long bias

/* The division and the bias, from the kernel's arguments. */
typedef struct {
  ulong rounding;
  ulong abs_divisor;
  ulong mul;
  int shift;
  int negative;
  long bias;
} Divide;

#define DIVIDE_OF_ARGS \
  ((Divide) { rounding, abs_divisor, mul, shift, negative, bias })

/* clamp(q + bias, 0, VALUE_MAX) for q = sign(s) sign(d) floor((|s| +
 * rounding) / |d|), rounding = floor(|d| / 2): int sums divide by the
 * multiply and shift (|s| + rounding < 2^31), long ones by a division. */
uint out_value_int(int s, Divide d)
{
  /* n < 2^31 and mul < 2^32 (src/clf-convolve.h): their product from two
   * 32-bit multiplies, not a 64-bit one. */
  const uint n = abs(s) + (uint) d.rounding, m = (uint) d.mul;
  const int q = (int) (upsample(mul_hi(n, m), n * m) >> d.shift);
  /* q < 2^31 and the bias an int: a sum that saturates clamps the same. */
  const int v = add_sat((s < 0) != d.negative ? -q : q, (int) d.bias);
  return (uint) clamp(v, 0, (int) VALUE_MAX);
}

uint out_value_long(long s, Divide d)
{
  const long q = (long) ((abs(s) + d.rounding) / d.abs_divisor);
  const long v = ((s < 0) != d.negative ? -q : q) + d.bias;
  return (uint) clamp(v, 0L, (long) VALUE_MAX);
}

/* The same for 16 sums. */
long16 signed_quotients(long16 q, long16 s_negative, Divide d)
{
  const long16 flip = s_negative ^ (long16) (d.negative ? -1 : 0);
  return select(q, -q, flip) + d.bias;
}

uint16 out_values_int16(int16 s, Divide d)
{
  const ulong16 n = convert_ulong16(abs(s)) + d.rounding;
  const long16 q = convert_long16((n * d.mul) >> (ulong) d.shift);
  return convert_uint16(clamp(signed_quotients(q, convert_long16(s < 0), d),
          (long16) 0, (long16) VALUE_MAX));
}

uint16 out_values_long16(long16 s, Divide d)
{
  const long16 q = convert_long16((abs(s) + d.rounding) / d.abs_divisor);
  return convert_uint16(clamp(signed_quotients(q, s < 0, d), (long16) 0,
          (long16) VALUE_MAX));
}

/* A sum's value by each kind of division (with the Divide d, and for
 * truncated quotients the strips' reciprocal inv, in scope). */
#define VALUE_int(s) out_value_int(s, d)
#define VALUE_long(s) out_value_long(s, d)
#define VALUE_truncated(s) out_value_truncated(s, d, inv)

/* One pixel's filtered samples from sums, the others from `keep`, in one
 * store. */
#define STORE_CONVOLVED(VALUE, out, keep, sum)                            \
  do {                                                                    \
    S px_[BPP];                                                           \
    for (int c = 0; c < BPP; c++)                                         \
      px_[c] = FILTERED(c) ? (S) CONTAINER_OF(VALUE((sum)[c])) : (keep)[c];\
    STORE_PIX(LOAD_PIX(0, px_), 0, out);                                  \
  } while (0)

/* ---- GPUs: tiles in local memory --------------------------------------
 * A work-group of CONV_GROUP x CONV_GROUP work-items, one a pixel, stages
 * the (CONV_GROUP + 2r)^2 pixels its window reaches, under the border
 * rule, as values (every device has the 32 KiB of local memory the
 * largest tile and the rank-1 sums take). */
#define CONV_SIDE_MAX (CONV_GROUP + 2 * CONV_MAX_RADIUS)

void stage_tile(__local ushort *tile, __global const uchar *src,
    uint src_off, uint src_stride, int x0, int y0, int side, int width,
    int height, int border)
{
  const int item = get_local_id(1) * CONV_GROUP + get_local_id(0);
  for (int t = item; t < side * side; t += CONV_GROUP * CONV_GROUP) {
    const int sx = border_index(x0 + t % side, width, border);
    const int sy = border_index(y0 + t / side, height, border);
    __global const S *px = SRC_ROW(sy) + sx * BPP;
    for (int c = 0; c < BPP; c++)
      tile[t * BPP + c] = FILTERED(c) ? (ushort) VALUE_OF((uint) px[c]) : 0;
  }
}

/* The group's first pixel from get_global_id, not get_group_id: a launch
 * of part of the plane (src/clf-launch.c) starts at a global offset,
 * which get_group_id leaves out. */
#define TILE_ORIGIN                                                       \
  const int side = CONV_GROUP + 2 * radius;                               \
  const int lx = get_local_id(0), ly = get_local_id(1);                   \
  const int x = get_global_id(0), y = get_global_id(1);                   \
  stage_tile(tile, src, src_off, src_stride, x - lx - radius,             \
      y - ly - radius, side, width, height, border);                      \
  barrier(CLK_LOCAL_MEM_FENCE)

#define DEFINE_CONVOLVE_TILES(NAME, ACC)                                  \
  __kernel __attribute__((reqd_work_group_size(CONV_GROUP, CONV_GROUP, 1)))\
  void NAME(CONVOLVE_ARGS)                                                \
  {                                                                       \
    __local ushort tile[CONV_SIDE_MAX * CONV_SIDE_MAX * BPP];             \
    TILE_ORIGIN;                                                          \
    if (x >= width || y >= height)                                        \
      return;                                                             \
    const int k_side = 2 * radius + 1;                                    \
    __local const ushort *at = tile + (ly * side + lx) * BPP;             \
    __constant const int *taps = coeffs + 2 * k_side * k_side;            \
    ACC sum[BPP];                                                         \
    for (int c = 0; c < BPP; c++)                                         \
      sum[c] = 0;                                                         \
    if (2 * n_taps <= k_side * k_side)                                    \
      for (int t = 0; t < n_taps; t++) {                                  \
        __local const ushort *px = at + taps[2 * t] * BPP;                \
        const ACC k = taps[2 * t + 1];                                    \
        for (int c = 0; c < BPP; c++)                                     \
          if (FILTERED(c))                                                \
            sum[c] += k * (ACC) px[c];                                    \
      }                                                                   \
    else                                                                  \
      for (int i = 0; i < k_side; i++) {                                  \
        __local const ushort *line = at + i * side * BPP;                 \
        for (int j = 0; j < k_side; j++) {                                \
          const ACC k = coeffs[i * k_side + j];                           \
          for (int c = 0; c < BPP; c++)                                   \
            if (FILTERED(c))                                              \
              sum[c] += k * (ACC) line[j * BPP + c];                      \
        }                                                                 \
      }                                                                   \
    const Divide d = DIVIDE_OF_ARGS;                                      \
    STORE_CONVOLVED(PASTE(VALUE_, ACC), DST_ROW(y) + x * BPP,             \
        KEEP_ROW(y) + x * BPP, sum);                                      \
  }

#ifdef WANT_convolve_tiles
DEFINE_CONVOLVE_TILES(convolve_tiles, int)
#endif
#ifdef WANT_convolve_tiles_wide
DEFINE_CONVOLVE_TILES(convolve_tiles_wide, long)
#endif

/* Float sums, where they are exact: every product and partial sum is an
 * integer of at most max * sum |k| <= 2^24, which a float holds exactly
 * (in any order of additions).  A work-group of CONV_FLOAT_GROUP_X x
 * GROUP_Y work-items takes a block of CONV_FLOAT_GROUP_X x ROWS GROUP_Y
 * pixels, each work-item ROWS pixels of one column: the tile, in local
 * memory the host sizes (`tile`), holds float values (converted once,
 * read K^2 times), and down each of the kernel's columns a work-item
 * slides a window of ROWS tile pixels, one local read for ROWS products.
 * Zero coefficients inside a column's span are multiplied too: a branch
 * on them gained nothing.
 *  convolve_tiles_float       4 rows a work-item, CONV_FLOAT_GROUP_Y of
 *                             them a column, the tile in planes (an RGBA
 *                             one fits the 32 KiB every device has)
 *  convolve_tiles_float_tall  8 rows, CONV_TALL_GROUP_Y a column: half
 *                             the local reads a product, for kernels of
 *                             CLF_CONV_TALL_MIN_SIZE and more
 * The host takes each for layouts of up to 4 samples a pixel, where the
 * device's local memory holds its tile. */
#if CONV_FLOAT_ROWS != 4 || CONV_TALL_ROWS != 8
#error "the float tiles' windows are written for 4 and 8 rows"
#endif
#define CONV_FLOAT_SIDE (CONV_FLOAT_GROUP_X + 2 * CONV_MAX_RADIUS)

/* The float lanes: up to the last filtered sample of a pixel, so that
 * gray takes scalars and RGBA, its alpha copied, float3s. */
#if MASK >= 8
#define FLOAT_LANES 4
#elif MASK >= 4
#define FLOAT_LANES 3
#elif MASK >= 2
#define FLOAT_LANES 2
#else
#define FLOAT_LANES 1
#endif
#if FLOAT_LANES == 1
#define FV float
#else
#define FV PASTE(float, FLOAT_LANES)
#endif

/* A pixel's values as an FV (copied lanes 0). */
FV float_pixel(__global const S *px)
{
  float v[4] = { 0, 0, 0, 0 };
  for (int c = 0; c < FLOAT_LANES; c++)
    if (FILTERED(c))
      v[c] = (float) VALUE_OF((uint) px[c]);
#if FLOAT_LANES == 1
  return v[0];
#else
  return PASTE(vload, FLOAT_LANES)(0, v);
#endif
}

/* The tiles' layouts.  The 4-row kernel's holds a plane of floats for
 * each lane, FLOAT_PLANE floats apart: a pixel's read is FLOAT_LANES
 * reads of 4 bytes (consecutive work-items, consecutive banks), an RGBA
 * pixel 12 bytes, so that taller groups fit 32 KiB.  The tall kernel's
 * holds FVs, one read a pixel (faster for it). */
#define FLOAT_PLANE                                                       \
  (CONV_FLOAT_SIDE * (4 * CONV_FLOAT_GROUP_Y + 2 * CONV_MAX_RADIUS))
#define FLOAT_TILE4 float
#define FLOAT_TILE8 FV

/* Stages a pixel's values at `at` in the 4-row kernel's planes (copied
 * lanes 0). */
void stage_float_planes(__local float *at, __global const S *px)
{
  for (int c = 0; c < FLOAT_LANES; c++)
    at[c * FLOAT_PLANE] = FILTERED(c) ? (float) VALUE_OF((uint) px[c]) : 0.0f;
}
#define STAGE_FLOAT4(at, px) stage_float_planes(at, px)
#define STAGE_FLOAT8(at, px) (*(at) = float_pixel(px))

/* Row r of the work-item's column of the tile, as an FV. */
#define COL_FV8(r) col[(r) * CONV_FLOAT_SIDE]
#define PLANE_AT(r, c) col[(r) * CONV_FLOAT_SIDE + (c) * FLOAT_PLANE]
#if FLOAT_LANES == 1
#define COL_FV4(r) PLANE_AT(r, 0)
#elif FLOAT_LANES == 2
#define COL_FV4(r) ((float2) (PLANE_AT(r, 0), PLANE_AT(r, 1)))
#elif FLOAT_LANES == 3
#define COL_FV4(r) ((float3) (PLANE_AT(r, 0), PLANE_AT(r, 1), PLANE_AT(r, 2)))
#else
#define COL_FV4(r)                                                        \
  ((float4) (PLANE_AT(r, 0), PLANE_AT(r, 1), PLANE_AT(r, 2), PLANE_AT(r, 3)))
#endif

/* Kernel row i of column j: reads the window's last row, tile row i +
 * ROWS - 1 of the column, into `last`, and k[i][j] (k as floats). */
#define FLOAT_READ(i, ROWS, last)                                         \
  last = COL_FV##ROWS((i) + (ROWS) - 1);                                  \
  const float k = as_float(coeffs[k_side * k_side + (i) * k_side + j])

/* A step of the 4-row window: the window's rows, a (its top) to d, times
 * k[i][j] into sums s0 to s3. */
#define FLOAT_STEP4(i, a, b, c, d)                                        \
  do {                                                                    \
    FLOAT_READ(i, 4, d);                                                  \
    s0 = mad(k, a, s0);                                                   \
    s1 = mad(k, b, s1);                                                   \
    s2 = mad(k, c, s2);                                                   \
    s3 = mad(k, d, s3);                                                   \
  } while (0)

/* Rows first .. end - 1 of kernel column j, four steps a turn, the
 * window's rows taking turns as its top. */
#define FLOAT_COLUMN4(first, end)                                         \
  do {                                                                    \
    int i = (first);                                                      \
    FV a = COL_FV4(i), b = COL_FV4(i + 1), c = COL_FV4(i + 2), d;         \
    for (; i + 4 <= (end); i += 4) {                                      \
      FLOAT_STEP4(i, a, b, c, d);                                         \
      FLOAT_STEP4(i + 1, b, c, d, a);                                     \
      FLOAT_STEP4(i + 2, c, d, a, b);                                     \
      FLOAT_STEP4(i + 3, d, a, b, c);                                     \
    }                                                                     \
    if (i < (end))                                                        \
      FLOAT_STEP4(i, a, b, c, d);                                         \
    if (i + 1 < (end))                                                    \
      FLOAT_STEP4(i + 1, b, c, d, a);                                     \
    if (i + 2 < (end))                                                    \
      FLOAT_STEP4(i + 2, c, d, a, b);                                     \
  } while (0)

/* The same for the 8-row window, a to h into s0 to s7. */
#define FLOAT_STEP8(i, a, b, c, d, e, f, g, h)                            \
  do {                                                                    \
    FLOAT_READ(i, 8, h);                                                  \
    s0 = mad(k, a, s0);                                                   \
    s1 = mad(k, b, s1);                                                   \
    s2 = mad(k, c, s2);                                                   \
    s3 = mad(k, d, s3);                                                   \
    s4 = mad(k, e, s4);                                                   \
    s5 = mad(k, f, s5);                                                   \
    s6 = mad(k, g, s6);                                                   \
    s7 = mad(k, h, s7);                                                   \
  } while (0)

#define FLOAT_COLUMN8(first, end)                                         \
  do {                                                                    \
    int i = (first);                                                      \
    FV a = COL_FV8(i), b = COL_FV8(i + 1), c = COL_FV8(i + 2),            \
        d = COL_FV8(i + 3), e = COL_FV8(i + 4), f = COL_FV8(i + 5),       \
        g = COL_FV8(i + 6), h;                                            \
    for (; i + 8 <= (end); i += 8) {                                      \
      FLOAT_STEP8(i, a, b, c, d, e, f, g, h);                             \
      FLOAT_STEP8(i + 1, b, c, d, e, f, g, h, a);                         \
      FLOAT_STEP8(i + 2, c, d, e, f, g, h, a, b);                         \
      FLOAT_STEP8(i + 3, d, e, f, g, h, a, b, c);                         \
      FLOAT_STEP8(i + 4, e, f, g, h, a, b, c, d);                         \
      FLOAT_STEP8(i + 5, f, g, h, a, b, c, d, e);                         \
      FLOAT_STEP8(i + 6, g, h, a, b, c, d, e, f);                         \
      FLOAT_STEP8(i + 7, h, a, b, c, d, e, f, g);                         \
    }                                                                     \
    if (i < (end))                                                        \
      FLOAT_STEP8(i, a, b, c, d, e, f, g, h);                             \
    if (i + 1 < (end))                                                    \
      FLOAT_STEP8(i + 1, b, c, d, e, f, g, h, a);                         \
    if (i + 2 < (end))                                                    \
      FLOAT_STEP8(i + 2, c, d, e, f, g, h, a, b);                         \
    if (i + 3 < (end))                                                    \
      FLOAT_STEP8(i + 3, d, e, f, g, h, a, b, c);                         \
    if (i + 4 < (end))                                                    \
      FLOAT_STEP8(i + 4, e, f, g, h, a, b, c, d);                         \
    if (i + 5 < (end))                                                    \
      FLOAT_STEP8(i + 5, f, g, h, a, b, c, d, e);                         \
    if (i + 6 < (end))                                                    \
      FLOAT_STEP8(i + 6, g, h, a, b, c, d, e, f);                         \
  } while (0)

/* The tile: rows of CONV_FLOAT_SIDE pixels from the block's top row less
 * r, staged under the border rule, by a work-group of GROUP_Y rows for a
 * block of BLOCK, in the ROWS-row kernel's layout.  Loops of constant
 * counts, unrolled: each work-item's reads are all in flight at once.  A
 * work-item stages one or two columns (2 CONV_MAX_RADIUS <
 * CONV_FLOAT_GROUP_X).  The block's first pixel from get_global_id, as
 * TILE_ORIGIN's. */
#define STAGE_FLOAT_TILE(ROWS, GROUP_Y, BLOCK)                            \
  do {                                                                    \
    const int x0 = (int) get_global_id(0) - lx - radius;                  \
    const int y0 = ((int) get_global_id(1) - ly) * (ROWS) - radius;       \
    const int rx0 = border_index(x0 + lx, width, border) * BPP;           \
    const int rx1 = border_index(x0 + lx + CONV_FLOAT_GROUP_X, width,     \
        border) * BPP;                                                    \
    _Pragma("unroll")                                                     \
    for (int m = 0; m < ((BLOCK) + 2 * CONV_MAX_RADIUS + (GROUP_Y) - 1)   \
            / (GROUP_Y); m++) {                                           \
      const int ty = ly + m * (GROUP_Y);                                  \
      if (ty < (BLOCK) + 2 * radius) {                                    \
        __global const S *row =                                           \
            SRC_ROW(border_index(y0 + ty, height, border));               \
        STAGE_FLOAT##ROWS(tile + ty * CONV_FLOAT_SIDE + lx, row + rx0);   \
        if (lx < 2 * radius)                                              \
          STAGE_FLOAT##ROWS(tile + ty * CONV_FLOAT_SIDE + lx              \
              + CONV_FLOAT_GROUP_X, row + rx1);                           \
      }                                                                   \
    }                                                                     \
  } while (0)

/* clamp(q + bias, 0, VALUE_MAX) from a float sum s, where floats hold n =
 * |s| + rounding (<= 2^24), |d| (< 2^23) and the bias (|bias| <= 2^24)
 * exactly (the host checks): n times 1 / |d|, rounded to an integer by
 * adding 2^23 and taking it away, is within one of floor(n / |d|) (the
 * product's error is at most n / |d| 2^-23: 1/2 for |d| >= 4, 2/3 for 3,
 * none for 1 and 2), then set right by the remainder r, exact as |r| < 2
 * |d|.  Where q + bias passes an end of the clamp, its rounding does too. */
float out_value_float(float s, float abs_divisor, float inv, float rounding,
    int negative, float bias)
{
  const float n = fabs(s) + rounding;
  float q = (n * inv + 0x1p23f) - 0x1p23f;
  const float r = fma(-q, abs_divisor, n);
  q += (r >= abs_divisor ? 1.0f : 0.0f) - (r < 0.0f ? 1.0f : 0.0f);
  return clamp(((s < 0.0f) != negative ? -q : q) + bias, 0.0f,
      (float) VALUE_MAX);
}

/* The sums of a work-item's ROWS pixels, divided and stored (inv: 1 /
 * |d| as a float). */
void store_float_sums(const FV *sums, int rows, __global uchar *dst,
    uint dst_off, uint dst_stride, __global const uchar *src, uint src_off,
    uint src_stride, int keep_dst, int x, int y, int height, Divide divide,
    float inv)
{
  const float abs_divisor = (float) divide.abs_divisor;
  const float rounding = (float) divide.rounding, bias = (float) divide.bias;
  /* The copied samples of every row first: their loads in flight at
   * once, not each behind the stores before it. */
  S kept[CONV_TALL_ROWS][BPP];
  for (int o = 0; o < rows && y + o < height; o++)
    for (int c = 0; c < BPP; c++)
      if (!(c < FLOAT_LANES && FILTERED(c)))
        kept[o][c] = KEEP_ROW(y + o)[x * BPP + c];
  for (int o = 0; o < rows && y + o < height; o++) {
    float v[4];
#if FLOAT_LANES == 1
    v[0] = sums[o];
#else
    PASTE(vstore, FLOAT_LANES)(sums[o], 0, v);
#endif
    S px[BPP];
    for (int c = 0; c < BPP; c++)
      px[c] = c < FLOAT_LANES && FILTERED(c) ?
          (S) CONTAINER_OF(convert_uint(out_value_float(v[c], abs_divisor,
                      inv, rounding, divide.negative, bias))) : kept[o][c];
    STORE_PIX(LOAD_PIX(0, px), 0, DST_ROW(y + o) + x * BPP);
  }
}

#define FLOAT_SUMS4 s0, s1, s2, s3
#define FLOAT_SUMS8 s0, s1, s2, s3, s4, s5, s6, s7
#define FLOAT_SUMS_FROM_04 s0 = 0, s1 = 0, s2 = 0, s3 = 0
#define FLOAT_SUMS_FROM_08 FLOAT_SUMS_FROM_04, s4 = 0, s5 = 0, s6 = 0, s7 = 0

/* A float tiles kernel of ROWS rows a work-item, GROUP_Y work-items a
 * column.  Each kernel column runs over its span, the rows from its first
 * coefficient that is not zero to its last (a motion blur's band: 14 of
 * its 49 steps); a whole column from constant bounds, and, for the sizes
 * FLOAT_WHOLE_COLUMNS<ROWS> lists, with its loop's turns known. */
#define DEFINE_CONVOLVE_TILES_FLOAT(NAME, ROWS, GROUP_Y)                  \
  __kernel __attribute__((reqd_work_group_size(CONV_FLOAT_GROUP_X,        \
          GROUP_Y, 1)))                                                   \
  void NAME(CONVOLVE_ARGS, __local FLOAT_TILE##ROWS *tile)                \
  {                                                                       \
    const int lx = get_local_id(0), ly = get_local_id(1);                 \
    STAGE_FLOAT_TILE(ROWS, GROUP_Y, (ROWS) * (GROUP_Y));                  \
    barrier(CLK_LOCAL_MEM_FENCE);                                         \
    const int x = get_global_id(0);                                       \
    const int y = get_global_id(1) * (ROWS);                              \
    if (x >= width || y >= height)                                        \
      return;                                                             \
    const int k_side = 2 * radius + 1;                                    \
    FV PASTE(FLOAT_SUMS_FROM_0, ROWS);                                    \
    __constant const int *spans = coeffs + 2 * k_side * k_side            \
        + max(2 * n_taps, 1);                                             \
    for (int j = 0; j < k_side; j++) {                                    \
      __local const FLOAT_TILE##ROWS *col =                               \
          tile + ly * (ROWS) * CONV_FLOAT_SIDE + lx + j;                  \
      const int first = spans[2 * j], end = spans[2 * j + 1];             \
      if (first == 0 && end == k_side) {                                  \
        switch (k_side) {                                                 \
          FLOAT_WHOLE_COLUMNS##ROWS                                       \
          default:                                                        \
            PASTE(FLOAT_COLUMN, ROWS)(0, k_side);                         \
        }                                                                 \
      } else if (first < end) {                                           \
        PASTE(FLOAT_COLUMN, ROWS)(first, end);                            \
      }                                                                   \
    }                                                                     \
    const FV sums[ROWS] = { PASTE(FLOAT_SUMS, ROWS) };                    \
    store_float_sums(sums, ROWS, dst, dst_off, dst_stride, src, src_off,  \
        src_stride, keep_dst, x, y, height, DIVIDE_OF_ARGS,               \
        as_float(spans[2 * k_side]));                                     \
  }

#define FLOAT_WHOLE_COLUMN(ROWS, K)                                       \
  case K:                                                                 \
    FLOAT_COLUMN##ROWS(0, K);                                             \
    break;
/* The sizes whose whole columns each kernel unrolls. */
#define FLOAT_WHOLE_COLUMNS4 FLOAT_WHOLE_COLUMN(4, 7)
#define FLOAT_WHOLE_COLUMNS8                                              \
  FLOAT_WHOLE_COLUMN(8, 9) FLOAT_WHOLE_COLUMN(8, 11)                      \
  FLOAT_WHOLE_COLUMN(8, 13) FLOAT_WHOLE_COLUMN(8, 15)

#ifdef WANT_convolve_tiles_float
DEFINE_CONVOLVE_TILES_FLOAT(convolve_tiles_float, 4, CONV_FLOAT_GROUP_Y)
#endif
#ifdef WANT_convolve_tiles_float_tall
DEFINE_CONVOLVE_TILES_FLOAT(convolve_tiles_float_tall, 8, CONV_TALL_GROUP_Y)
#endif

/* Rank 1: the tile's side rows filtered by v along the group's
 * CONV_GROUP columns into `rows`, then each pixel's column of them by
 * u.  The partial sums are bounded by max * sum |v| <= max * sum |k|. */
#define DEFINE_CONVOLVE_RANK1_TILES(NAME, ACC)                            \
  __kernel __attribute__((reqd_work_group_size(CONV_GROUP, CONV_GROUP, 1)))\
  void NAME(CONVOLVE_ARGS)                                                \
  {                                                                       \
    __local ushort tile[CONV_SIDE_MAX * CONV_SIDE_MAX * BPP];             \
    __local ACC rows[CONV_SIDE_MAX * CONV_GROUP * BPP];                   \
    TILE_ORIGIN;                                                          \
    const int k_side = 2 * radius + 1;                                    \
    __constant const int *u = coeffs, *v = coeffs + k_side;               \
    const int item = ly * CONV_GROUP + lx;                                \
    for (int t = item; t < side * CONV_GROUP;                             \
        t += CONV_GROUP * CONV_GROUP) {                                   \
      __local const ushort *line =                                        \
          tile + ((t / CONV_GROUP) * side + t % CONV_GROUP) * BPP;        \
      for (int c = 0; c < BPP; c++) {                                     \
        ACC s = 0;                                                        \
        if (FILTERED(c))                                                  \
          for (int j = 0; j < k_side; j++)                                \
            s += (ACC) v[j] * (ACC) line[j * BPP + c];                    \
        rows[t * BPP + c] = s;                                            \
      }                                                                   \
    }                                                                     \
    barrier(CLK_LOCAL_MEM_FENCE);                                         \
    if (x >= width || y >= height)                                        \
      return;                                                             \
    ACC sum[BPP];                                                         \
    for (int c = 0; c < BPP; c++) {                                       \
      sum[c] = 0;                                                         \
      if (FILTERED(c))                                                    \
        for (int i = 0; i < k_side; i++)                                  \
          sum[c] += (ACC) u[i]                                            \
              * rows[((ly + i) * CONV_GROUP + lx) * BPP + c];             \
    }                                                                     \
    const Divide d = DIVIDE_OF_ARGS;                                      \
    STORE_CONVOLVED(PASTE(VALUE_, ACC), DST_ROW(y) + x * BPP,             \
        KEEP_ROW(y) + x * BPP, sum);                                      \
  }

#ifdef WANT_convolve_rank1_tiles
DEFINE_CONVOLVE_RANK1_TILES(convolve_rank1_tiles, int)
#endif
#ifdef WANT_convolve_rank1_tiles_wide
DEFINE_CONVOLVE_RANK1_TILES(convolve_rank1_tiles_wide, long)
#endif

/* ---- CPUs: strips ------------------------------------------------------
 * A work-item takes `columns` pixels, from get_global_id(1) times them,
 * of `seg` rows (a whole row but in launches of part of a plane:
 * src/clf-launch.c).  For each row, the K source rows its windows read
 * (the border rule applied to the rows once) and each tap's line in
 * them; then VECTORS runs of 16 samples at a time (8 with int sums, 4
 * with long ones: their sums fill the registers), and 16 at a time, where
 * every window lies inside the row, the last 16 ending where the inside
 * (or the work-item's part of it) does; a pixel at a time (the border
 * rule along the row) near its ends.
 * The host sorts the taps by coefficient: the values of a run of taps
 * with one coefficient are added, then multiplied once (a motion blur's
 * 14 taps have 3 coefficients).  Copied lanes (alpha, padding) are
 * computed and dropped. */

/* The K rows the windows of row y read. */
#define CONVOLVE_STRIP_ROWS(rows, y)                                      \
  for (int i = 0; i < k_side; i++)                                        \
    rows[i] = SRC_ROW(border_index((y) + i - radius, height, border))

/* 16 quotients as truncated products: n c, c = 1 / |d| rounded up, is
 * within an ulp above n / |d|, which truncates to floor(n / |d|) where
 * 3 n + |d| + 1 < 2^24 (the host checked; clf-convolve.c says why). */
uint16 out_values_float16(int16 s, Divide d, float c)
{
  const float16 n = fabs(convert_float16(s)) + (float) d.rounding;
  const int16 q = convert_int16(n * c);
  /* |q| < 2^23: a bias past 2^25 clamps as the kernel's does. */
  const int bias = (int) clamp(d.bias, -(1L << 25), 1L << 25);
  return convert_uint16(clamp(select(q, -q, (s < 0) ^ (d.negative ? -1 : 0))
          + bias, 0, (int) VALUE_MAX));
}

/* The same for one sum. */
uint out_value_truncated(int s, Divide d, float c)
{
  const int q = convert_int((fabs((float) s) + (float) d.rounding) * c);
  const int bias = (int) clamp(d.bias, -(1L << 25), 1L << 25);
  return (uint) clamp(((s < 0) != d.negative ? -q : q) + bias, 0,
      (int) VALUE_MAX);
}

/* The strips' quotients of 16 sums (d and inv their kernel's). */
#define INT_QUOTIENTS(sum) out_values_int16(sum, d)
#define FLOAT_QUOTIENTS(sum) out_values_float16(sum, d, inv)
#define LONG_QUOTIENTS(sum) out_values_long16(sum, d)

/* Filtered (-1) or copied lanes of the 16 samples from sample `at`: a
 * constant where every run of 16 starts at a pixel. */
#define STRIP_LANES(at) filtered_lanes(16 % BPP == 0 ? 0 : (at))

#define STRIP_VALUES(ACC, p)                                              \
  PASTE(convert_, PASTE(ACC, 16))(LINE_VALUES(16, p))

/* Stores 16 samples from `at` of the row: quotients of `sum` where
 * filtered, `keep`'s samples elsewhere. */
#define STRIP_STORE(QUOTIENTS, sum, at)                                   \
  any_store16(select(any_load16(keep + (at)),                             \
          PASTE(convert_, SN(16))(CONTAINER_OF(QUOTIENTS(sum))),          \
          STRIP_LANES(at)), out + (at))

#define DEFINE_CONVOLVE_STRIPS(NAME, ACC, VALUE, QUOTIENTS, VECTORS)      \
  void PASTE(NAME, _pixel)(__global S *out, __global const S *keep,       \
      __global const S *const *rows, int x, int radius, int width,        \
      int border, __constant const int *taps, int n_taps, Divide d,       \
      float inv)                                                          \
  {                                                                       \
    PIX(ACC) pixel = 0;                                                   \
    for (int t = 0; t < n_taps; t++) {                                    \
      const int where = taps[2 * t];                                      \
      __global const S *px = rows[(uint) where / CONV_TAP_ROW] + BPP      \
          * border_index(x + (uint) where % CONV_TAP_ROW - radius, width,  \
              border);                                                    \
      pixel += (ACC) taps[2 * t + 1]                                      \
          * CONVERT_PIX(ACC)(PIXEL_VALUES(px));                           \
    }                                                                     \
    ACC sum[BPP];                                                         \
    STORE_PIX(pixel, 0, sum);                                             \
    STORE_CONVOLVED(VALUE, out + x * BPP, keep + x * BPP, sum);           \
  }                                                                       \
                                                                          \
  __kernel void NAME(CONVOLVE_ARGS)                                       \
  {                                                                       \
    const int k_side = 2 * radius + 1;                                    \
    __constant const int *taps = coeffs + 2 * k_side * k_side;            \
    const float inv = as_float(taps[max(2 * n_taps, 1) + 2 * k_side]);   \
    const Divide d = DIVIDE_OF_ARGS;                                      \
    const int first = get_global_id(0) * seg;                             \
    const int end = min(first + seg, height);                             \
    const int x0 = min((int) get_global_id(1) * columns, width);          \
    const int x1 = min(x0 + columns, width);                              \
    const int inner_first = min(radius, width);                           \
    const int inner_end = max(inner_first, width - radius);               \
    const int b_first = max(inner_first, x0) * BPP;                       \
    const int b_end = max(b_first, min(inner_end, x1) * BPP);             \
    __global const S *rows[2 * CONV_MAX_RADIUS + 1];                      \
    __global const S *lines[(2 * CONV_MAX_RADIUS + 1)                     \
        * (2 * CONV_MAX_RADIUS + 1)];                                     \
    for (int y = first; y < end; y++) {                                   \
      CONVOLVE_STRIP_ROWS(rows, y);                                       \
      for (int t = 0; t < n_taps; t++)                                    \
        lines[t] = rows[taps[2 * t] / CONV_TAP_ROW]                       \
            + (taps[2 * t] % CONV_TAP_ROW - radius) * BPP;                \
      __global S *out = DST_ROW(y);                                       \
      __global const S *keep = KEEP_ROW(y);                               \
      for (int x = x0; x < min(inner_first, x1); x++)                     \
        PASTE(NAME, _pixel)(out, keep, rows, x, radius, width, border,    \
            taps, n_taps, d, inv);                                        \
      int b = b_first;                                                    \
      for (; b + 16 * (VECTORS) <= b_end; b += 16 * (VECTORS)) {         \
        PASTE(ACC, 16) sum[VECTORS];                                      \
        _Pragma("unroll")                                                 \
        for (int v = 0; v < (VECTORS); v++)                               \
          sum[v] = 0;                                                     \
        for (int t = 0; t < n_taps;) {                                    \
          const ACC k = taps[2 * t + 1];                                  \
          PASTE(ACC, 16) run[VECTORS];                                    \
          _Pragma("unroll")                                               \
          for (int v = 0; v < (VECTORS); v++)                             \
            run[v] = 0;                                                   \
          do {                                                            \
            __global const S *line = lines[t] + b;                        \
            _Pragma("unroll")                                             \
            for (int v = 0; v < (VECTORS); v++)                           \
              run[v] += STRIP_VALUES(ACC, line + 16 * v);                 \
          } while (++t < n_taps && taps[2 * t + 1] == k);                 \
          _Pragma("unroll")                                               \
          for (int v = 0; v < (VECTORS); v++)                             \
            sum[v] += k * run[v];                                         \
        }                                                                 \
        _Pragma("unroll")                                                 \
        for (int v = 0; v < (VECTORS); v++)                               \
          STRIP_STORE(QUOTIENTS, sum[v], b + 16 * v);                     \
      }                                                                   \
      /* The last run of 16 overlaps the one before rather than leave     \
       * its samples to the pixels' path. */                              \
      for (; b < b_end && b_end - b_first >= 16; b += 16) {               \
        b = min(b, b_end - 16);                                           \
        PASTE(ACC, 16) sum = 0;                                           \
        for (int t = 0; t < n_taps; t++)                                  \
          sum += (ACC) taps[2 * t + 1] * STRIP_VALUES(ACC, lines[t] + b); \
        STRIP_STORE(QUOTIENTS, sum, b);                                   \
      }                                                                   \
      for (int x = b / BPP; x < x1; x++)                                  \
        PASTE(NAME, _pixel)(out, keep, rows, x, radius, width, border,    \
            taps, n_taps, d, inv);                                        \
    }                                                                     \
  }

#ifdef WANT_convolve_strips
DEFINE_CONVOLVE_STRIPS(convolve_strips, int, VALUE_int, INT_QUOTIENTS, 8)
#endif
#ifdef WANT_convolve_strips_float
DEFINE_CONVOLVE_STRIPS(convolve_strips_float, int, VALUE_truncated,
    FLOAT_QUOTIENTS, 8)
#endif
#ifdef WANT_convolve_strips_wide
DEFINE_CONVOLVE_STRIPS(convolve_strips_wide, long, VALUE_long, LONG_QUOTIENTS,
    4)
#endif
