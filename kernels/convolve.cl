/* mode=convolve: a K x K integer kernel (K odd, up to 2 CONV_MAX_RADIUS +
 * 1), correlated with the colour samples as OpenCV's filter2D: S = sum
 * over i, j of k[i][j] * in[y + i - r][x + j - r] under the border rule,
 * out = clamp(q + bias, 0, VALUE_MAX), q = S / d rounded half away from
 * zero (src/clf-convolve.h gives the host's side).
 *
 *  convolve_tiles        GPUs (convolve-tiles.cl): a work-group of
 *                        CONV_GROUP^2 work-items stages its tile and the
 *                        halo of r pixels in local memory (values, as
 *                        ushort), then each work-item sums its pixel's
 *                        products of taps from there
 *  convolve_rank1_tiles  GPUs, k = u v^T (convolve-rank1.cl): the same
 *                        tile, a pass along its rows (v) into local sums,
 *                        then along columns (u): 2K products a pixel
 *                        instead of K^2
 *  convolve_tiles_float  GPUs, where sums are exact in floats
 *                        (convolve-tiles-float.cl): a work-item for 4
 *                        pixels of a column, the tile as floats (_tall: 8
 *                        pixels, for large kernels)
 *  convolve_strips       CPUs (convolve-strips.cl): a work-item per strip
 *                        of rows; 128 samples at a time between the left
 *                        and right edges, a pixel at a time near them
 *                        (_float: quotients as truncated float products,
 *                        where exact)
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
 * mode=convolve's programs are built from common.cl, this file (what the
 * kernels share) and the kernels' files, with a WANT_<kernel> for each
 * kernel of their kind of device; each kernel's file is a body that its
 * int and long (or 4- and 8-row) kernels share, built once for each of
 * them with the names it takes defined (common.cl says how). */

/* The arguments of every convolve kernel (the host sets them in one
 * place, src/clf-launch.c). */
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

Divide divide_of(ulong rounding, ulong abs_divisor, ulong mul, int shift,
    int negative, long bias)
{
  return (Divide) { rounding, abs_divisor, mul, shift, negative, bias };
}

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

/* A sum's value by each kind of division, VALUE_<ACC> for the tiles,
 * VALUE_<DIVISION> for the strips (with the Divide d, and for truncated
 * quotients the strips' reciprocal inv, in scope). */
#define VALUE_int(s) out_value_int(s, d)
#define VALUE_long(s) out_value_long(s, d)
#define VALUE_truncated(s) out_value_truncated(s, d, inv)

/* One pixel's filtered samples from their values, the others from
 * `keep`, in one store. */
void store_convolved(__global S *out, __global const S *keep,
    const uint *values)
{
  S px[BPP];
  for (int c = 0; c < BPP; c++)
    px[c] = FILTERED(c) ? (S) CONTAINER_OF(values[c]) : keep[c];
  STORE_PIX(LOAD_PIX(0, px), 0, out);
}

/* ---- GPUs: tiles in local memory --------------------------------------
 * A work-group of CONV_GROUP x CONV_GROUP work-items, one a pixel, stages
 * the (CONV_GROUP + 2r)^2 pixels its window reaches, under the border
 * rule, as values (every device has the 32 KiB of local memory the
 * largest tile and the rank-1 sums take).  The tiles take the group's
 * first pixel from get_global_id, not get_group_id: a launch of part of
 * the plane (src/clf-launch.c) starts at a global offset, which
 * get_group_id leaves out. */
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
 * device's local memory holds its tile.  The functions for a ROWS-row
 * kernel end in ROWS: its body names them by pasting. */
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
typedef float FV;
#else
typedef PASTE(float, FLOAT_LANES) FV;
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
 * holds FVs, one read a pixel (faster for it).  FLOAT_TILE<ROWS> is the
 * element of each. */
#define FLOAT_PLANE                                                       \
  (CONV_FLOAT_SIDE * (4 * CONV_FLOAT_GROUP_Y + 2 * CONV_MAX_RADIUS))
#define FLOAT_TILE4 float
#define FLOAT_TILE8 FV

/* Stages a pixel's values at `at` in each kernel's layout (copied lanes
 * 0). */
void stage_float4(__local float *at, __global const S *px)
{
  for (int c = 0; c < FLOAT_LANES; c++)
    at[c * FLOAT_PLANE] = FILTERED(c) ? (float) VALUE_OF((uint) px[c]) : 0.0f;
}

void stage_float8(__local FV *at, __global const S *px)
{
  *at = float_pixel(px);
}

/* Row r of a work-item's column `col` of the 4-row kernel's tile, as an
 * FV. */
FV column_fv4(__local const float *col, int r)
{
  __local const float *at = col + r * CONV_FLOAT_SIDE;
#if FLOAT_LANES == 1
  return at[0];
#elif FLOAT_LANES == 2
  return (float2) (at[0], at[FLOAT_PLANE]);
#elif FLOAT_LANES == 3
  return (float3) (at[0], at[FLOAT_PLANE], at[2 * FLOAT_PLANE]);
#else
  return (float4) (at[0], at[FLOAT_PLANE], at[2 * FLOAT_PLANE],
      at[3 * FLOAT_PLANE]);
#endif
}

/* A step of the 4-row window down kernel column j: kernel row i, the
 * window's rows a (its top) to d, times k[i][j] into the sums s[0] to
 * s[3].  Reads the window's last row d, tile row i + 3 of the column,
 * and returns it; kj is k's column j as floats (k_side ints apart). */
FV float_step4(FV *s, __local const float *col, __constant const int *kj,
    int k_side, int i, FV a, FV b, FV c)
{
  const FV d = column_fv4(col, i + 3);
  const float k = as_float(kj[i * k_side]);
  s[0] = mad(k, a, s[0]);
  s[1] = mad(k, b, s[1]);
  s[2] = mad(k, c, s[2]);
  s[3] = mad(k, d, s[3]);
  return d;
}

/* Rows first .. end - 1 of kernel column j, four steps a turn, the
 * window's rows taking turns as its top.  Always inlined: a whole column
 * takes its loop's turns from constant bounds (the kernel's switch), and
 * the sums stay in registers. */
__attribute__((always_inline))
void float_column4(FV *s, __local const float *col,
    __constant const int *kj, int k_side, int first, int end)
{
  int i = first;
  FV a = column_fv4(col, i), b = column_fv4(col, i + 1),
      c = column_fv4(col, i + 2), d;
  for (; i + 4 <= end; i += 4) {
    d = float_step4(s, col, kj, k_side, i, a, b, c);
    a = float_step4(s, col, kj, k_side, i + 1, b, c, d);
    b = float_step4(s, col, kj, k_side, i + 2, c, d, a);
    c = float_step4(s, col, kj, k_side, i + 3, d, a, b);
  }
  if (i < end)
    d = float_step4(s, col, kj, k_side, i, a, b, c);
  if (i + 1 < end)
    a = float_step4(s, col, kj, k_side, i + 1, b, c, d);
  if (i + 2 < end)
    float_step4(s, col, kj, k_side, i + 2, c, d, a);
}

/* The same for the 8-row window, a to h into s[0] to s[7], h tile row i
 * + 7. */
FV float_step8(FV *s, __local const FV *col, __constant const int *kj,
    int k_side, int i, FV a, FV b, FV c, FV d, FV e, FV f, FV g)
{
  const FV h = col[(i + 7) * CONV_FLOAT_SIDE];
  const float k = as_float(kj[i * k_side]);
  s[0] = mad(k, a, s[0]);
  s[1] = mad(k, b, s[1]);
  s[2] = mad(k, c, s[2]);
  s[3] = mad(k, d, s[3]);
  s[4] = mad(k, e, s[4]);
  s[5] = mad(k, f, s[5]);
  s[6] = mad(k, g, s[6]);
  s[7] = mad(k, h, s[7]);
  return h;
}

__attribute__((always_inline))
void float_column8(FV *s, __local const FV *col, __constant const int *kj,
    int k_side, int first, int end)
{
  int i = first;
  FV a = col[i * CONV_FLOAT_SIDE], b = col[(i + 1) * CONV_FLOAT_SIDE],
      c = col[(i + 2) * CONV_FLOAT_SIDE], d = col[(i + 3) * CONV_FLOAT_SIDE],
      e = col[(i + 4) * CONV_FLOAT_SIDE], f = col[(i + 5) * CONV_FLOAT_SIDE],
      g = col[(i + 6) * CONV_FLOAT_SIDE], h;
  for (; i + 8 <= end; i += 8) {
    h = float_step8(s, col, kj, k_side, i, a, b, c, d, e, f, g);
    a = float_step8(s, col, kj, k_side, i + 1, b, c, d, e, f, g, h);
    b = float_step8(s, col, kj, k_side, i + 2, c, d, e, f, g, h, a);
    c = float_step8(s, col, kj, k_side, i + 3, d, e, f, g, h, a, b);
    d = float_step8(s, col, kj, k_side, i + 4, e, f, g, h, a, b, c);
    e = float_step8(s, col, kj, k_side, i + 5, f, g, h, a, b, c, d);
    f = float_step8(s, col, kj, k_side, i + 6, g, h, a, b, c, d, e);
    g = float_step8(s, col, kj, k_side, i + 7, h, a, b, c, d, e, f);
  }
  if (i < end)
    h = float_step8(s, col, kj, k_side, i, a, b, c, d, e, f, g);
  if (i + 1 < end)
    a = float_step8(s, col, kj, k_side, i + 1, b, c, d, e, f, g, h);
  if (i + 2 < end)
    b = float_step8(s, col, kj, k_side, i + 2, c, d, e, f, g, h, a);
  if (i + 3 < end)
    c = float_step8(s, col, kj, k_side, i + 3, d, e, f, g, h, a, b);
  if (i + 4 < end)
    d = float_step8(s, col, kj, k_side, i + 4, e, f, g, h, a, b, c);
  if (i + 5 < end)
    e = float_step8(s, col, kj, k_side, i + 5, f, g, h, a, b, c, d);
  if (i + 6 < end)
    float_step8(s, col, kj, k_side, i + 6, g, h, a, b, c, d, e);
}

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

/* The strips' quotients of 16 sums by each kind of division,
 * QUOTIENTS_<DIVISION> (d and inv their kernel's). */
#define QUOTIENTS_int(sum) out_values_int16(sum, d)
#define QUOTIENTS_truncated(sum) out_values_float16(sum, d, inv)
#define QUOTIENTS_long(sum) out_values_long16(sum, d)

/* The values of 16 samples from p, as T16. */
#define STRIP_VALUES(T, p) PASTE(convert_, PASTE(T, 16))(LINE_VALUES(16, p))

/* Stores 16 samples from sample `at` of the row `out`: containers of
 * `values` where filtered, `keep`'s samples elsewhere (the lanes a
 * constant where every run of 16 starts at a pixel). */
void store_strip16(__global S *out, __global const S *keep, int at,
    uint16 values)
{
  any_store16(select(any_load16(keep + at),
          PASTE(convert_, SN(16))(CONTAINER_OF(values)),
          filtered_lanes(16 % BPP == 0 ? 0 : at)), out + at);
}
