/* Shared by every clfilter kernel.
 *
 * A program is built per pixel layout with
 *   -D BPP=<bytes per pixel, 1..4>   -D MASK=<bit c: byte c of a pixel is filtered>
 * Bytes whose bit is clear (alpha, padding, chroma under laplace) are copied.
 *
 * Every kernel takes the same arguments (PLANE_ARGS), so the host sets them
 * in one place.  Offsets and strides are in bytes; `sums` holds exact 32-bit
 * window sums between the two passes of a separable blur, one per byte of
 * the plane, rows of width * BPP entries.
 */

#define BORDER_CLAMP 0
#define BORDER_MIRROR 1

#define FILTERED(c) (((MASK) >> (c)) & 1)

#define PLANE_ARGS                                                        \
  __global const uchar *src, uint src_off, uint src_stride,               \
  __global uchar *dst, uint dst_off, uint dst_stride,                     \
  __global uint *sums, int width, int height, int radius, int border,     \
  int seg, uint mean_mul, int mean_shift

/* A walk along a line of n samples, one position at a time, giving the
 * sample each position reads: clamp repeats the edge sample; mirror reflects
 * without repeating the edge (reflect-101), as often as needed, so any
 * radius works on any size.  For mirror, `m` counts positions modulo one
 * reflection period, so a step costs no division. */
typedef struct {
  int m;
  int n;
  int period;
  int border;
} Walk;

Walk walk_from(int i, int n, int border)
{
  Walk w;
  w.n = n;
  w.border = border;
  w.period = max(2 * (n - 1), 1);
  if (border == BORDER_CLAMP) {
    w.m = i;
  } else {
    w.m = i % w.period;
    if (w.m < 0)
      w.m += w.period;
  }
  return w;
}

int walk_index(Walk w)
{
  if (w.border == BORDER_CLAMP)
    return clamp(w.m, 0, w.n - 1);
  return w.m < w.n ? w.m : w.period - w.m;
}

Walk walk_next(Walk w)
{
  w.m++;
  if (w.border == BORDER_MIRROR && w.m == w.period)
    w.m = 0;
  return w;
}

/* The sample that position i (any integer) reads, for a single look-up. */
int border_index(int i, int n, int border)
{
  if ((uint) i < (uint) n)
    return i;
  return walk_index(walk_from(i, n, border));
}

/* The window sum over a line of samples of type T (uchar pixels, or the
 * uint row sums between separable passes), `step` elements from one
 * position to the next, for the filtered bytes of a pixel: add_window_T
 * adds the 2r+1 samples from position `first` on. */
#define DEFINE_WINDOW_OPS(T)                                              \
  void add_window_##T (uint *sum, __global const T *line, int step,       \
      int first, int n, int radius, int border)                           \
  {                                                                       \
    Walk w = walk_from (first, n, border);                                \
    for (int i = -radius; i <= radius; i++, w = walk_next (w)) {          \
      __global const T *px = line + walk_index (w) * step;                \
      for (int c = 0; c < BPP; c++)                                       \
        if (FILTERED (c))                                                 \
          sum[c] += px[c];                                                \
    }                                                                     \
  }

DEFINE_WINDOW_OPS (uchar)
DEFINE_WINDOW_OPS (uint)

void clear_sum (uint *sum)
{
  for (int c = 0; c < BPP; c++)
    sum[c] = 0;
}

/* The filtered bytes' sums of one pixel, into `sums` between passes. */
void store_sums (__global uint *out, const uint *sum)
{
  for (int c = 0; c < BPP; c++)
    if (FILTERED (c))
      out[c] = sum[c];
}

/* Division by the window's area N as a multiply and a shift: the host
 * passes mean_mul = ceil(2^mean_shift / N) with mean_shift = 30 +
 * ceil(log2 N), which gives floor(D / N) exactly for every D < 2^30, and
 * D = S + N/2 < 256 N <= 256 * 2047^2 < 2^30.  mean_mul < 2^31, so the
 * product is one 32x32->64-bit multiply.  A division per sample would cost
 * more than the rest of a sliding-window blur. */
typedef struct {
  uint rounding;                 /* N / 2 */
  uint mul;
  int shift;
} Mean;

uint window_area(int radius)
{
  uint side = 2 * (uint) radius + 1;
  return side * side;
}

/* floor(D / N) for D widened to 64 bits (a scalar or a vector). */
#define MEAN_OF(wide_d, m) (((wide_d) * (m).mul) >> (m).shift)

Mean mean_for(int radius, uint mul, int shift)
{
  Mean m;
  m.rounding = window_area(radius) / 2;
  m.mul = mul;
  m.shift = shift;
  return m;
}

/* out = (S + N/2) / N for the filtered bytes of one pixel, the rest copied. */
void store_mean(__global uchar *out, __global const uchar *in,
    const uint *sum, Mean m)
{
  for (int c = 0; c < BPP; c++)
    out[c] = FILTERED(c) ?
        (uchar) MEAN_OF((ulong) (sum[c] + m.rounding), m) : in[c];
}

/* A pixel as one vector of BPP lanes (a scalar when BPP is 1): PIX(uint)
 * is uint4 for RGBA.  LOAD_PIX/STORE_PIX take a pixel index. */
#define PASTE_(a, b) a##b
#define PASTE(a, b) PASTE_(a, b)
#if BPP == 1
#define PIX(T) T
#define LOAD_PIX(i, p) ((p)[i])
#define STORE_PIX(v, i, p) ((p)[i] = (v))
#define CONVERT_PIX(T) PASTE(convert_, T)
#else
#define PIX(T) PASTE(T, BPP)
#define LOAD_PIX(i, p) PASTE(vload, BPP)(i, p)
#define STORE_PIX(v, i, p) PASTE(vstore, BPP)(v, i, p)
#define CONVERT_PIX(T) PASTE(convert_, PIX(T))
#endif

/* All ones in the lanes of filtered bytes, zero in the copied ones. */
#define LANE_MASK(c) (FILTERED(c) ? 0xffffffffu : 0u)
#if BPP == 1
#define FILTERED_LANES LANE_MASK(0)
#elif BPP == 2
#define FILTERED_LANES ((uint2)(LANE_MASK(0), LANE_MASK(1)))
#elif BPP == 3
#define FILTERED_LANES ((uint3)(LANE_MASK(0), LANE_MASK(1), LANE_MASK(2)))
#else
#define FILTERED_LANES ((uint4)(LANE_MASK(0), LANE_MASK(1), LANE_MASK(2), \
        LANE_MASK(3)))
#endif

/* store_mean for a whole pixel at once: the means of its filtered lanes,
 * its other bytes copied from `in`. */
void store_mean_pix(__global uchar *out, __global const uchar *in, int x,
    PIX(uint) sum, Mean m)
{
  const PIX(uint) mean = CONVERT_PIX(uint)(
      MEAN_OF(CONVERT_PIX(ulong)(sum + m.rounding), m));
  const PIX(uint) keep = CONVERT_PIX(uint)(LOAD_PIX(x, in));
  STORE_PIX(CONVERT_PIX(uchar)((mean & FILTERED_LANES)
          | (keep & ~FILTERED_LANES)), x, out);
}

/* Lanes whose byte is filtered (-1) or copied (0), for a run of 16 bytes
 * of a row from byte b. */
char16 filtered_lanes(int b)
{
  const int16 channel = ((int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
      13, 14, 15) + b) % BPP;
  return convert_char16((((int16)(MASK) >> channel) & 1) * -1);
}
