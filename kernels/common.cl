/* Shared by every clfilter kernel.
 *
 * A program is built per pixel layout with
 *   -D BPP=<samples per pixel, 1..4>   -D MASK=<bit c: sample c is filtered>
 *   -D SAMPLE_BYTES=<1 or 2: the container of a sample>
 *   -D DEPTH=<bits of a value>   -D SHIFT=<container bits below the value>
 *   -D SWAP=<1: containers are in the other byte order than the device's>
 *   -D WIDE_SUMS=<1: 64-bit window sums, for 16-bit values at radii whose
 *                 sums reach 2^32>
 *   -D WANT_<kernel> for each kernel the program holds (the host builds
 *                 only those a mode runs on its kind of device: the
 *                 driver compiles every kernel of a program)
 * A sample's value is (container >> SHIFT) masked to DEPTH bits, and a
 * filtered value is written back as value << SHIFT.  Samples whose bit is
 * clear (alpha, padding, chroma under laplace, the other samples of packed
 * 4:2:2) are copied as they are.
 *
 * The blurs and laplace take the same arguments (PLANE_ARGS), so the host
 * sets them in one place; convolve's kernels take theirs (CONVOLVE_ARGS in
 * convolve.cl).  Offsets and strides are in bytes (multiples of
 * SAMPLE_BYTES), positions along a row in samples.  `sums` holds exact
 * window sums (SUM) between the two passes of a blur, one per sample of the
 * plane, rows of width * BPP entries.  The copied samples of a pixel come
 * from the source, or with `keep_dst` from the destination, which an
 * earlier pass over the same plane wrote (packed 4:2:2: the chroma pass,
 * then the luma pass).
 *
 * Kernels that differ only in a type or a count (convolve's int and long
 * sums, its 4- and 8-row float tiles; the sliding blur's 32- and 16-bit
 * column sums) share one body, a file of plain
 * OpenCL C that names its kernel KERNEL_NAME and takes the rest from
 * names of its own (ACC, ROWS, ...).  kernels/meson.build's
 * kernel_variants gives each kernel its file and those names' values;
 * kernels/embed.py makes each such kernel a source of its own,
 * clf_kernel_<kernel>: the names #defined (under #ifdef WANT_<kernel>),
 * the file after its #line, then the names #undefined, so that one
 * program holds the body once for each of its kernels, and build logs
 * point at the body's own lines.
 */

#define FILTERED(c) (((MASK) >> (c)) & 1)

#define PASTE_(a, b) a##b
#define PASTE(a, b) PASTE_(a, b)

/* S: a sample's container.  SUM: window sums, exact: below 2^30 for 8-bit
 * samples; for 16-bit ones below 2^32 (uint) where the host builds no
 * WIDE_SUMS, else below 2^38 (ulong).  Sums along one line (a row's or a
 * column's window: the separable blur's row sums, the CPU strips' column
 * sums) stay below 2047 * 65535 < 2^27: uint for both. */
#if SAMPLE_BYTES == 1
#define S uchar
#else
#define S ushort
#endif
#if WIDE_SUMS
#define SUM ulong
#else
#define SUM uint
#endif
#define SN(n) PASTE(S, n)
#define SUMN(n) PASTE(SUM, n)

#define PLANE_ARGS                                                        \
  __global const uchar *src, uint src_off, uint src_stride,               \
  __global uchar *dst, uint dst_off, uint dst_stride,                     \
  __global SUM *sums, int width, int height, int radius, int border,      \
  int seg, ulong mean_mul, int mean_shift, int keep_dst

/* Row y of a plane starting at `plane` (or at byte `off` of `base`),
 * `stride` bytes a row. */
#define PLANE_ROW(plane, stride, y) \
  ((__global S *) ((plane) + (uint) (y) * (stride)))
#define ROW_AT(base, off, stride, y) PLANE_ROW ((base) + (off), stride, y)
#define SRC_ROW(y) ((__global const S *) ROW_AT (src, src_off, src_stride, y))
#define DST_ROW(y) ROW_AT (dst, dst_off, dst_stride, y)
/* Where the copied samples of row y come from. */
#define KEEP_ROW(y) (keep_dst ? (__global const S *) DST_ROW (y) : SRC_ROW (y))

/* Containers and values: VALUE_AS (T, v) takes the value of containers v
 * (below 2^16) held in integers of type T (a scalar or vector type whose
 * lanes hold 17 bits or more), CONTAINER_AS (T, v) makes containers of
 * values v.  VALUE_OF and CONTAINER_OF do so on uint, ulong and their
 * vectors.  With 8-bit samples these cost nothing. */
#define VALUE_MAX ((1u << DEPTH) - 1)
#if SWAP
#define HOST_ORDER_AS(T, v) ((((v) & (T) 0xff) << 8) | ((v) >> 8))
#else
#define HOST_ORDER_AS(T, v) (v)
#endif
#define VALUE_AS(T, v) ((HOST_ORDER_AS (T, v) >> SHIFT) & (T) VALUE_MAX)
/* 8-bit values that fill their bytes: the paths that add and clamp bytes
 * as they are (laplace's packed words, the packed tiles) take only these;
 * values of fewer bits in a byte take the general arithmetic. */
#define FULL_BYTES (SAMPLE_BYTES == 1 && DEPTH == 8)
#define CONTAINER_AS(T, v) HOST_ORDER_AS (T, (v) << SHIFT)
#define VALUE_OF(v) VALUE_AS (uint, v)
#define CONTAINER_OF(v) CONTAINER_AS (uint, v)
/* The values of n containers at p, as uints. */
#define LINE_VALUES(n, p) \
  VALUE_OF (PASTE (convert_uint, n) (PASTE (vload, n) (0, (p))))

/* The window sum over a line of samples of type T (S pixels, whose values
 * VALUE_OF takes, or the line sums between separable passes), `step`
 * elements from one position to the next, for the filtered samples of a
 * pixel: add_window_T adds the 2r+1 samples from position `first` on.
 * Each value goes straight into SUM: summing a line of 16-bit values in
 * 32 bits first slows the 8-bit naive box on PoCL. */
#define DEFINE_WINDOW_OPS(T, VALUE)                                       \
  void add_window_##T (SUM *sum, __global const T *line, int step,        \
      int first, int n, int radius, int border)                           \
  {                                                                       \
    Walk w = walk_from (first, n, border);                                \
    for (int i = -radius; i <= radius; i++, w = walk_next (w)) {          \
      __global const T *px = line + walk_index (w) * step;                \
      for (int c = 0; c < BPP; c++)                                       \
        if (FILTERED (c))                                                 \
          sum[c] += VALUE ((SUM) px[c]);                                  \
    }                                                                     \
  }

#define AS_IS(v) (v)
DEFINE_WINDOW_OPS (S, VALUE_OF)
DEFINE_WINDOW_OPS (uint, AS_IS)

void clear_sum (SUM *sum)
{
  for (int c = 0; c < BPP; c++)
    sum[c] = 0;
}

/* The filtered samples' line sums of one pixel, into `sums` between
 * passes. */
void store_sums (__global uint *out, const SUM *sum)
{
  for (int c = 0; c < BPP; c++)
    if (FILTERED (c))
      out[c] = (uint) sum[c];
}

/* Division by the window's area N as a multiply and a shift: a division
 * per sample would cost more than the rest of a sliding-window blur.
 * 8-bit samples: the host passes mul = ceil(2^s / N) with s = mean_shift =
 * 30 + ceil(log2 N), which gives floor(D / N) exactly for every D < 2^30,
 * and D = S + N/2 < 256 N <= 256 * 2047^2 < 2^30; mul < 2^31, so the
 * product is one 32x32->64-bit multiply.  16-bit samples, D < 2^(depth +
 * L) with L = ceil(log2 N): where depth + L <= 31, s = depth + 2L and the
 * product D * mul < 2^64 (mean_shift = s); else s = 38 + L, mul < 2^39,
 * and the host passes mean_shift = -(64 - s): floor(D * mul / 2^s) is the
 * high word of (D << (64 - s)) * mul, a 64x64->128-bit product that costs
 * several multiplies on CPUs, so it is kept for the windows that need it
 * (16-bit values above r=90, 10-bit ones above r=723). */
typedef struct {
  SUM rounding;                  /* N / 2 */
  uint area;                     /* N */
  float inv;                     /* 1 / N, for 8-bit samples on CPUs */
#if SAMPLE_BYTES == 1
  uint mul;
#else
  ulong mul;
#endif
  int shift;
} Mean;

uint window_area(int radius)
{
  uint side = 2 * (uint) radius + 1;
  return side * side;
}

/* floor(D / N) for D of type T, ulong or a ulong vector. */
#if SAMPLE_BYTES == 1
#define MEAN_OF(d, m, T) (((d) * (m).mul) >> (m).shift)
#else
#define MEAN_OF(d, m, T) ((m).shift >= 0 ? ((d) * (m).mul) >> (m).shift \
    : mul_hi ((d) << -(m).shift, (T) ((m).mul)))
#endif

Mean mean_for(int radius, ulong mul, int shift)
{
  Mean m;
  m.area = window_area(radius);
  m.rounding = m.area / 2;
  m.mul = mul;
  m.shift = shift;
#if SAMPLE_BYTES == 1
  m.inv = ldexp((float) mul, -shift);
#endif
  return m;
}

/* out = (S + N/2) / N for the filtered samples of one pixel, the rest
 * copied from `keep`. */
void store_mean(__global S *out, __global const S *keep, const SUM *sum,
    Mean m)
{
  for (int c = 0; c < BPP; c++)
    out[c] = FILTERED(c) ? (S) CONTAINER_OF((uint) MEAN_OF((ulong)
            (sum[c] + m.rounding), m, ulong)) : keep[c];
}

/* A pixel as one vector of BPP lanes (a scalar when BPP is 1): PIX(uint)
 * is uint4 for RGBA.  LOAD_PIX/STORE_PIX take a pixel index. */
/* PIXEL_VALUES(p): the values of the pixel at p, as PIX(uint). */
#if BPP == 1
#define PIX(T) T
#define LOAD_PIX(i, p) ((p)[i])
#define STORE_PIX(v, i, p) ((p)[i] = (v))
#define CONVERT_PIX(T) PASTE(convert_, T)
#define PIXEL_VALUES(p) VALUE_OF((uint) *(p))
#else
#define PIX(T) PASTE(T, BPP)
#define LOAD_PIX(i, p) PASTE(vload, BPP)(i, p)
#define STORE_PIX(v, i, p) PASTE(vstore, BPP)(v, i, p)
#define CONVERT_PIX(T) PASTE(convert_, PIX(T))
#if BPP == 3
#define PIXEL_VALUES(p) LINE_VALUES(BPP, p)
#else
/* In one access (PoCL loads a vload4 of bytes in pieces). */
typedef PIX(S) __attribute__((aligned(SAMPLE_BYTES))) AnyPix;
#define PIXEL_VALUES(p)                                                   \
  VALUE_OF(CONVERT_PIX(uint)(*(__global const AnyPix *) (p)))
#endif
#endif

/* All ones in the lanes of filtered samples, zero in the copied ones. */
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

/* The containers of a pixel's means (S + N/2) / N, every lane. */
PIX(uint) pixel_means(PIX(SUM) sum, Mean m)
{
  return CONTAINER_OF(CONVERT_PIX(uint)(
          MEAN_OF(CONVERT_PIX(ulong)(sum + m.rounding), m, PIX(ulong))));
}

/* store_mean for a whole pixel at once: the means of its filtered lanes,
 * its other samples copied from `keep`. */
void store_mean_pix(__global S *out, __global const S *keep, int x,
    PIX(SUM) sum, Mean m)
{
  const PIX(uint) kept = CONVERT_PIX(uint)(LOAD_PIX(x, keep));
  STORE_PIX(CONVERT_PIX(S)((pixel_means(sum, m) & FILTERED_LANES)
          | (kept & ~FILTERED_LANES)), x, out);
}

/* Lanes whose sample is filtered (-1) or copied (0), for a run of 16
 * samples of a row from sample b. */
#if SAMPLE_BYTES == 1
#define LANES16 char16
#else
#define LANES16 short16
#endif
LANES16 filtered_lanes(int b)
{
  const int16 channel = ((int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
      13, 14, 15) + b) % BPP;
  return PASTE(convert_, LANES16)((((int16)(MASK) >> channel) & 1) * -1);
}

/* 16 samples from and to a 16-byte aligned address: GPUs do not know it
 * of a vload's address, and load or store single samples. */
SN(16) aligned_load16(__global const S *p)
{
#if SAMPLE_BYTES == 1
  return as_uchar16(*(__global const uint4 *) p);
#else
  __global const ushort8 *run = (__global const ushort8 *) p;
  return (ushort16)(run[0], run[1]);
#endif
}

void aligned_store16(SN(16) v, __global S *p)
{
#if SAMPLE_BYTES == 1
  *(__global uint4 *) p = as_uint4(v);
#else
  __global ushort8 *run = (__global ushort8 *) p;
  run[0] = v.lo;
  run[1] = v.hi;
#endif
}

/* 16 samples from and to any address, in one vector access: PoCL makes a
 * vstore16 of bytes sixteen byte stores. */
typedef SN(16) __attribute__((aligned(SAMPLE_BYTES))) AnySN16;
SN(16) any_load16(__global const S *p)
{
  return *(__global const AnySN16 *) p;
}

void any_store16(SN(16) v, __global S *p)
{
  *(__global AnySN16 *) p = v;
}

/* 16 uints from and to any uint's address, in one vector access each
 * (PoCL splits a vload16 or vstore16 of uints in pieces). */
typedef uint16 __attribute__((aligned(4))) AnyUint16;
uint16 uints16_at(__global const uint *p)
{
  return *(__global const AnyUint16 *) p;
}

void store_uints16(uint16 v, __global uint *p)
{
  *(__global AnyUint16 *) p = v;
}

/* ---- Prefix sums along a run of 16 uints, a pixel's samples apart
 * (pixels of 1, 2 or 4 samples): the CPUs' sliding blur and Gaussian
 * boxes take a row's running sums 16 lanes at a time. */
#if BPP == 1 || BPP == 2 || BPP == 4
#define LANE_PREFIX 1

/* A run's 16 lanes moved up by n lanes, zeros coming in. */
#define LANES_UP_1(v) ((uint16)(0, (v).s0123, (v).s4567, (v).s89ab, \
      (v).scde))
#define LANES_UP_2(v) ((uint16)((uint2) 0, (v).s0123, (v).s4567, \
      (v).s89ab, (v).scd))
#define LANES_UP_4(v) ((uint16)((uint4) 0, (v).s0123, (v).s4567, \
      (v).s89ab))
#define LANES_UP_8(v) ((uint16)((uint8) 0, (v).lo))

/* A run's pixels: the last one in every pixel's lanes, their order
 * reversed, the first one of a vector, and a pixel in every pixel's
 * lanes. */
#if BPP == 1
#define LAST_PIXEL_SPREAD(v) ((uint16)((v).sf))
#define PIXELS_REVERSED(v) ((v).sfedcba9876543210)
#define FIRST_PIXEL(v) ((v).s0)
#define PIXEL_SPREAD(p) ((uint16)(p))
#elif BPP == 2
#define LAST_PIXEL_SPREAD(v) ((v).sefefefefefefefef)
#define PIXELS_REVERSED(v) ((v).sefcdab8967452301)
#define FIRST_PIXEL(v) ((v).s01)
#define PIXEL_SPREAD(p) ((uint16)((p), (p), (p), (p), (p), (p), (p), (p)))
#else
#define LAST_PIXEL_SPREAD(v) ((v).scdefcdefcdefcdef)
#define PIXELS_REVERSED(v) ((v).scdef89ab45670123)
#define FIRST_PIXEL(v) ((v).s0123)
#define PIXEL_SPREAD(p) ((uint16)((p), (p), (p), (p)))
#endif

/* Each pixel's lanes: the sums of the run's pixels up to it. */
uint16 run_prefix(uint16 v)
{
#if BPP == 1
  v += LANES_UP_1(v);
#endif
#if BPP <= 2
  v += LANES_UP_2(v);
#endif
  v += LANES_UP_4(v);
  return v + LANES_UP_8(v);
}
#else
#define LANE_PREFIX 0
#endif

/* 8-bit samples two to a uint, in 16-bit halves, so that one 32-bit add
 * serves two sums: a word's bytes 0 and 2 (EVEN_BYTES), 1 and 3
 * (ODD_BYTES); HALVES(v) puts v in both halves. */
#define HALVES(v) ((v) | ((v) << 16))
#define EVEN_BYTES(w) ((w) & 0x00ff00ffu)
#define ODD_BYTES(w) (((w) >> 8) & 0x00ff00ffu)

/* Bit mask of the filtered bytes of the word at byte b of an 8-bit row. */
uint filtered_word(int b)
{
  uint mask = 0;
#pragma unroll
  for (int i = 0; i < 4; i++)
    mask |= FILTERED((b + i) % BPP) ? 0xffu << (8 * i) : 0;
  return mask;
}
