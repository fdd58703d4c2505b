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
 *  convolve_strips       CPUs: a work-item per strip of rows; 16 samples
 *                        at a time between the left and right edges, a
 *                        pixel at a time near them
 * Each comes twice: with int sums, and (the _wide kernels) with long sums
 * for the kernels whose |S| + |d|/2 can reach 2^31 (the host decides per
 * kernel and depth).  The coefficients lie in constant memory: a rank-1
 * kernel's u and v (K each) for its tiles, any other's k in rows (K^2),
 * then its n_taps taps: the coefficients that are not zero, two ints
 * each, in rows, where (i side + j in the tiles, side the tile's; i
 * CONV_TAP_ROW + j in the strips) and k[i][j].  The kernels take the
 * taps where at most half the coefficients are not zero.  A new kernel is a new buffer, not a new program.  Sums are
 * exact: int sums stay below 2^31 (the host checked max * sum |k|), long
 * ones below 2^55.
 * mode=convolve's programs are built from common.cl and this file alone,
 * with a WANT_<kernel> for each kernel of their kind of device. */

#define CONVOLVE_ARGS                                                     \
  __global const uchar *src, uint src_off, uint src_stride,               \
  __global uchar *dst, uint dst_off, uint dst_stride,                     \
  int width, int height, int border, int keep_dst, int seg,               \
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
  const ulong n = (ulong) abs(s) + d.rounding;
  const long q = (long) ((n * d.mul) >> d.shift);
  const long v = ((s < 0) != d.negative ? -q : q) + d.bias;
  return (uint) clamp(v, 0L, (long) VALUE_MAX);
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

/* One pixel's filtered samples from sums, the others from `keep`. */
#define STORE_CONVOLVED(ACC, out, keep, sum, d)                           \
  for (int c = 0; c < BPP; c++)                                           \
    (out)[c] = FILTERED(c) ?                                              \
        (S) CONTAINER_OF(PASTE(out_value_, ACC)((sum)[c], d)) : (keep)[c]

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

#define TILE_ORIGIN                                                       \
  const int side = CONV_GROUP + 2 * radius;                               \
  const int lx = get_local_id(0), ly = get_local_id(1);                   \
  const int x = get_global_id(0), y = get_global_id(1);                   \
  stage_tile(tile, src, src_off, src_stride,                              \
      get_group_id(0) * CONV_GROUP - radius,                              \
      get_group_id(1) * CONV_GROUP - radius, side, width, height, border);\
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
    __constant const int *taps = coeffs + k_side * k_side;                \
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
    STORE_CONVOLVED(ACC, DST_ROW(y) + x * BPP, KEEP_ROW(y) + x * BPP,     \
        sum, DIVIDE_OF_ARGS);                                             \
  }

#ifdef WANT_convolve_tiles
DEFINE_CONVOLVE_TILES(convolve_tiles, int)
#endif
#ifdef WANT_convolve_tiles_wide
DEFINE_CONVOLVE_TILES(convolve_tiles_wide, long)
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
    STORE_CONVOLVED(ACC, DST_ROW(y) + x * BPP, KEEP_ROW(y) + x * BPP,     \
        sum, DIVIDE_OF_ARGS);                                             \
  }

#ifdef WANT_convolve_rank1_tiles
DEFINE_CONVOLVE_RANK1_TILES(convolve_rank1_tiles, int)
#endif
#ifdef WANT_convolve_rank1_tiles_wide
DEFINE_CONVOLVE_RANK1_TILES(convolve_rank1_tiles_wide, long)
#endif

/* ---- CPUs: strips ------------------------------------------------------
 * A work-item takes `seg` rows.  For each, the K source rows its windows
 * read (the border rule applied to the rows once); then 16 samples at a
 * time, a vector product a coefficient (a tap, where the kernel is
 * sparse), where every window lies inside the row,
 * and a pixel at a time (the border rule along the row) near its ends.
 * Copied lanes (alpha, padding) are computed and dropped. */

/* The K rows the windows of row y read. */
#define CONVOLVE_STRIP_ROWS(rows, y)                                      \
  for (int i = 0; i < k_side; i++)                                        \
    rows[i] = SRC_ROW(border_index((y) + i - radius, height, border))

#define DEFINE_CONVOLVE_STRIPS(NAME, ACC)                                 \
  void PASTE(NAME, _pixel)(__global S *out, __global const S *keep,       \
      __global const S *const *rows, int x, int k_side, int radius,       \
      int width, int border, __constant int *coeffs, Divide d)            \
  {                                                                       \
    ACC sum[BPP];                                                         \
    for (int c = 0; c < BPP; c++)                                         \
      sum[c] = 0;                                                         \
    for (int j = 0; j < k_side; j++) {                                    \
      const int at = border_index(x + j - radius, width, border) * BPP;   \
      for (int i = 0; i < k_side; i++) {                                  \
        const ACC k = coeffs[i * k_side + j];                             \
        for (int c = 0; c < BPP; c++)                                     \
          if (FILTERED(c))                                                \
            sum[c] += k * (ACC) VALUE_OF((uint) rows[i][at + c]);         \
      }                                                                   \
    }                                                                     \
    STORE_CONVOLVED(ACC, out + x * BPP, keep + x * BPP, sum, d);          \
  }                                                                       \
                                                                          \
  __kernel void NAME(CONVOLVE_ARGS)                                       \
  {                                                                       \
    const int k_side = 2 * radius + 1;                                    \
    __constant const int *taps = coeffs + k_side * k_side;                \
    const bool sparse = 2 * n_taps <= k_side * k_side;                    \
    const Divide d = DIVIDE_OF_ARGS;                                      \
    const int first = get_global_id(0) * seg;                             \
    const int end = min(first + seg, height);                             \
    const int inner_first = min(radius, width);                           \
    const int inner_end = max(inner_first, width - radius);               \
    __global const S *rows[2 * CONV_MAX_RADIUS + 1];                      \
    for (int y = first; y < end; y++) {                                   \
      CONVOLVE_STRIP_ROWS(rows, y);                                       \
      __global S *out = DST_ROW(y);                                       \
      __global const S *keep = KEEP_ROW(y);                               \
      int x = 0;                                                          \
      for (; x < inner_first; x++)                                        \
        PASTE(NAME, _pixel)(out, keep, rows, x, k_side, radius, width,    \
            border, coeffs, d);                                           \
      int b = x * BPP;                                                    \
      for (; b + 16 <= inner_end * BPP; b += 16) {                        \
        PASTE(ACC, 16) sum = 0;                                           \
        if (sparse)                                                       \
          for (int t = 0; t < n_taps; t++) {                              \
            const int where = taps[2 * t];                                \
            __global const S *line = rows[where / CONV_TAP_ROW] + b       \
                + (where % CONV_TAP_ROW - radius) * BPP;                  \
            sum += (ACC) taps[2 * t + 1] * PASTE(convert_,                \
                PASTE(ACC, 16))(LINE_VALUES(16, line));                   \
          }                                                               \
        else                                                              \
          for (int i = 0; i < k_side; i++) {                              \
            __global const S *line = rows[i] + b - radius * BPP;          \
            for (int j = 0; j < k_side; j++)                              \
              sum += (ACC) coeffs[i * k_side + j] * PASTE(convert_,       \
                  PASTE(ACC, 16))(LINE_VALUES(16, line + j * BPP));       \
          }                                                               \
        const SN(16) values = PASTE(convert_, SN(16))(CONTAINER_OF(       \
                PASTE(PASTE(out_values_, ACC), 16)(sum, d)));             \
        any_store16(select(any_load16(keep + b), values,                  \
                filtered_lanes(b)), out + b);                             \
      }                                                                   \
      for (x = b / BPP; x < width; x++)                                   \
        PASTE(NAME, _pixel)(out, keep, rows, x, k_side, radius, width,    \
            border, coeffs, d);                                           \
    }                                                                     \
  }

#ifdef WANT_convolve_strips
DEFINE_CONVOLVE_STRIPS(convolve_strips, int)
#endif
#ifdef WANT_convolve_strips_wide
DEFINE_CONVOLVE_STRIPS(convolve_strips_wide, long)
#endif
