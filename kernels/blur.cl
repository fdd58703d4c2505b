/* Box blur, three ways, identical bytes: out = (S + N/2) / N, where S is the
 * exact sum of the (2r+1)x(2r+1) window under the border rule.
 *
 *  box_2d                      naive: each pixel reads all (2r+1)^2 samples
 *  rows_direct, cols_direct    separable: a row pass into `sums`, then columns
 *                              (GPUs, RGBA-like layouts: separable_tiles in
 *                              one pass at small radii; CPUs:
 *                              separable_strips)
 *  sliding                     running sums: the cost per pixel does not grow
 *                              with the radius (GPUs: sliding_tiles in one
 *                              pass at small radii; else, 8-bit samples up
 *                              to r = 127, narrow_column_sums then
 *                              narrow_row_means; else column_sums then
 *                              row_means_scan; CPUs: sliding_strips)
 */

__kernel void box_2d(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height)
    return;
  SUM sum[BPP];
  clear_sum(sum);

  Walk wy = walk_from(y - radius, height, border);
  for (int dy = -radius; dy <= radius; dy++, wy = walk_next(wy))
    add_window_S(sum, SRC_ROW(walk_index(wy)), BPP, x - radius, width,
        radius, border);
  store_mean(DST_ROW(y) + x * BPP, KEEP_ROW(y) + x * BPP, sum,
      mean_for(radius, mean_mul, mean_shift));
}

/* The horizontal window sum of one pixel, into `sums`. */
__kernel void rows_direct(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height)
    return;
  SUM sum[BPP];
  clear_sum(sum);

  add_window_S(sum, SRC_ROW(y), BPP, x - radius, width, radius, border);
  store_sums((__global uint *) sums + (y * width + x) * BPP, sum);
}

/* The vertical sum of one pixel's row sums, then the mean. */
__kernel void cols_direct(PLANE_ARGS)
{
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height)
    return;
  SUM sum[BPP];
  clear_sum(sum);

  add_window_uint(sum, (__global const uint *) sums + x * BPP, width * BPP,
      y - radius, height, radius, border);
  store_mean(DST_ROW(y) + x * BPP, KEEP_ROW(y) + x * BPP, sum,
      mean_for(radius, mean_mul, mean_shift));
}


/* The sums over the window of rows first .. first + 2r of samples b ..
 * b + L - 1 of a row (L = 4 or a single sample), summed in registers. */
#define DEFINE_COLUMN_WINDOW(L, T, LOAD)                                   \
  T column_window_##L (__global const uchar *plane, int stride, int b,     \
      int first, int height, int radius, int border)                       \
  {                                                                        \
    T acc = 0;                                                             \
    if (first >= 0 && first + 2 * radius < height) {                       \
      __global const uchar *row = plane + first * stride;                  \
      for (int i = -radius; i <= radius; i++, row += stride)               \
        acc += LOAD ((__global const S *) row + b);                        \
    } else {                                                               \
      Walk w = walk_from (first, height, border);                          \
      for (int i = -radius; i <= radius; i++, w = walk_next (w))           \
        acc += LOAD (PLANE_ROW (plane, stride, walk_index (w)) + b);       \
    }                                                                      \
    return acc;                                                            \
  }

/* Four samples in one access where the plane's rows allow, else as they
 * lie: NVIDIA 580 makes a vload4 of bytes four byte loads, and a vstore4
 * of ushorts two stores, their addresses not known to be aligned.  (The
 * narrow passes at 3840x2160 RGBA on an H200: 0.128 ms at r = 16 against
 * 0.134, 0.132 against 0.142 at r = 31.) */
#define LOAD_WORD(p) LINE_VALUES (4, p)
#define LOAD_ALIGNED_WORD(p) \
  VALUE_OF (convert_uint4 (*(__global const SN (4) *) (p)))
#define LOAD_ONE(p) VALUE_OF ((uint) *(p))
DEFINE_COLUMN_WINDOW (4, uint4, LOAD_WORD)
DEFINE_COLUMN_WINDOW (aligned_4, uint4, LOAD_ALIGNED_WORD)
DEFINE_COLUMN_WINDOW (1, uint, LOAD_ONE)

/* ---- GPUs: sliding window in two passes ------------------------------
 * column_sums  a work-item per 4 samples of a row and segment of `seg` rows:
 *              its first window in full, then a row enters and a row leaves
 *              per step; neighbouring work-items read and write
 *              neighbouring samples, so every row step is one coalesced
 *              access.
 * row_means_scan  a work-group per row turns the row's column sums into
 *              prefix sums (scans of SCAN_GROUP pixels in local memory,
 *              carried along the row), and each pixel's window is the
 *              difference of two prefix sums, extended past the edges in
 *              closed form.  Column sums are 32-bit (below 2^27); prefix
 *              sums are exact modulo 2^32, in place of the column sums, or
 *              with WIDE_SUMS modulo 2^64 in a region after them, and so is
 *              every window sum (below 2^32; with WIDE_SUMS below 2^38). */

/* Slides the window of rows down samples b .. b + L - 1 from row y0 to
 * y1, writing each row's column sums to out (a row of sums every `step`
 * entries), as OUT: uint, or ushort where they fit 16 bits (narrow). */
#define DEFINE_COLUMN_SLIDE(NAME, L, T, OUT, LOAD, STORE)                  \
  void NAME (__global const uchar *plane, int stride, __global OUT *out,   \
      int step, int b, int y0, int y1, int height, int radius, int border) \
  {                                                                        \
    T sum = column_window_##L (plane, stride, b, y0 - radius, height,      \
        radius, border);                                                   \
    Walk enter = walk_from (y0 + radius + 1, height, border);              \
    Walk leave = walk_from (y0 - radius, height, border);                  \
    for (int y = y0; y < y1; y++) {                                        \
      STORE (sum, out + y * step);                                         \
      sum += LOAD (PLANE_ROW (plane, stride, walk_index (enter)) + b)      \
          - LOAD (PLANE_ROW (plane, stride, walk_index (leave)) + b);      \
      enter = walk_next (enter);                                           \
      leave = walk_next (leave);                                           \
    }                                                                      \
  }

#define STORE_WORD_SUMS(v, p) vstore4 ((v), 0, (p))
#define STORE_ALIGNED_SUMS(v, p) (*(__global uint4 *) (p) = (v))
#define STORE_ONE_SUM(v, p) (*(p) = (v))
DEFINE_COLUMN_SLIDE (column_slide_4, 4, uint4, uint, LOAD_WORD,
    STORE_WORD_SUMS)
DEFINE_COLUMN_SLIDE (column_slide_aligned_4, aligned_4, uint4, uint,
    LOAD_ALIGNED_WORD, STORE_ALIGNED_SUMS)
DEFINE_COLUMN_SLIDE (column_slide_1, 1, uint, uint, LOAD_ONE, STORE_ONE_SUM)

/* A work-item per 4 samples of a row (the last of a row: 1 to 4) and
 * segment of `seg` rows; one access for the 4 where the plane's rows and
 * the rows of sums are aligned to them. */
#define DEFINE_COLUMN_SUMS(NAME, OUT, SLIDE_4, SLIDE_ALIGNED_4, SLIDE_1)   \
  __kernel void NAME (PLANE_ARGS)                                          \
  {                                                                        \
    const int b = get_global_id (0) * 4, y0 = get_global_id (1) * seg;     \
    const int y1 = min (y0 + seg, height), row_units = width * BPP;        \
    __global OUT *out = (__global OUT *) sums;                             \
    if (b >= row_units)                                                    \
      return;                                                              \
    if (b + 4 > row_units) {                                               \
      for (int i = b; i < row_units; i++)                                  \
        SLIDE_1 (src + src_off, src_stride, out + i, row_units, i, y0, y1, \
            height, radius, border);                                       \
      return;                                                              \
    }                                                                      \
    if ((src_off | src_stride) % (4 * SAMPLE_BYTES) == 0                   \
        && row_units % 4 == 0)                                             \
      SLIDE_ALIGNED_4 (src + src_off, src_stride, out + b, row_units, b,   \
          y0, y1, height, radius, border);                                 \
    else                                                                   \
      SLIDE_4 (src + src_off, src_stride, out + b, row_units, b, y0, y1,   \
          height, radius, border);                                         \
  }

DEFINE_COLUMN_SUMS (column_sums, uint, column_slide_4,
    column_slide_aligned_4, column_slide_1)

#define SCAN_GROUP 256

/* A row of sums as whole pixels: one aligned vector load where BPP is 2
 * or 4 (rows of sums start on such a boundary). */
#if BPP == 2 || BPP == 4
#define LOAD_SUMS(i, p) (((__global const PIX(SUM) *) (p))[i])
#define STORE_SUMS(v, i, p) (((__global PIX(SUM) *) (p))[i] = (v))
#define LOAD_COLUMN_SUMS(i, p) \
  CONVERT_PIX(SUM)(((__global const PIX(uint) *) (p))[i])
#else
#define LOAD_SUMS(i, p) LOAD_PIX(i, p)
#define STORE_SUMS(v, i, p) STORE_PIX(v, i, p)
#define LOAD_COLUMN_SUMS(i, p) CONVERT_PIX(SUM)(LOAD_PIX(i, p))
#endif

/* Where row y's prefix sums go: over its 32-bit column sums where the
 * sums are 32-bit, else (64-bit sums) in a region of their own after the
 * frame's column sums, so that the column sums keep to 4 bytes. */
__global SUM *prefix_row(__global uint *columns, int width, int height,
    int y)
{
#if WIDE_SUMS
  const size_t n = (size_t) width * height * BPP;
  return (__global SUM *) (columns + (n + 15) / 16 * 16) + y * width * BPP;
#else
  return (__global SUM *) columns + y * width * BPP;
#endif
}

/* P(j), the sum of pixels 0 .. j-1 of a row of prefix sums p (p[x] holds
 * P(x + 1)), for 0 <= j <= width. */
PIX(SUM) prefix(__global const SUM *p, int j)
{
  return j == 0 ? (PIX(SUM)) 0 : LOAD_SUMS(j - 1, p);
}

/* P(j) for any j, as if the row went on under the border rule (P(j) < 0
 * for j < 0 counts the samples left of 0 negatively).  Clamp repeats the
 * edge pixels; mirror repeats a period 0, 1, .., w-1, w-2, .., 1 whose
 * running sum is known from P. */
PIX(SUM) extended_prefix(__global const SUM *p, int j, int width,
    int border)
{
  if (j >= 0 && j <= width)
    return prefix(p, j);
  const PIX(SUM) total = prefix(p, width), first = prefix(p, 1);
  const PIX(SUM) last = total - prefix(p, width - 1);
  if (border == BORDER_CLAMP)
    return j < 0 ? (SUM) j * first : total + (SUM) (j - width) * last;
  if (width == 1)
    return (SUM) j * total;
  const int period = 2 * (width - 1);
  int q = j / period, m = j % period;
  if (m < 0) {
    m += period;
    q--;
  }
  const PIX(SUM) rest = m <= width ? prefix(p, m) :
      total + prefix(p, width - 1) - prefix(p, 2 * width - 1 - m);
  return (SUM) q * (2 * total - first - last) + rest;
}

/* The window sum of pixel x from a row's prefix sums p, any radius. */
PIX(SUM) window_of_prefix(__global const SUM *p, int x, int radius,
    int width, int border)
{
  return extended_prefix(p, x + radius + 1, width, border)
      - extended_prefix(p, x - radius, width, border);
}

/* The inclusive scan of `value` over the work-group, into `scan`: each
 * step reads one of `scan` and `spare` (as large) and writes the other, so
 * that it costs one barrier, not two; an even number of steps ends in
 * `scan`. */
#if (SCAN_GROUP & 0x55555555) == 0
#error "group_scan: SCAN_GROUP must be a power of 4"
#endif
PIX(SUM) group_scan(__local PIX(SUM) *scan, __local PIX(SUM) *spare,
    int lid, PIX(SUM) value)
{
  __local PIX(SUM) *from = scan, *to = spare;
  from[lid] = value;
  for (int step = 1; step < SCAN_GROUP; step *= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid >= step)
      value += from[lid - step];
    to[lid] = value;
    __local PIX(SUM) *const read = from;
    from = to;
    to = read;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  return value;
}

__kernel __attribute__((reqd_work_group_size(SCAN_GROUP, 1, 1)))
void row_means_scan(PLANE_ARGS)
{
  __local PIX(SUM) scan[SCAN_GROUP], spare[SCAN_GROUP];
  const int lid = get_local_id(0), y = get_global_id(1);
  __global const uint *columns = (__global const uint *) sums
      + y * width * BPP;
  __global SUM *p = prefix_row((__global uint *) sums, width, height, y);

  /* The prefix sums, SCAN_GROUP neighbouring pixels at a time, so every
   * load and store is one coalesced access. */
  PIX(SUM) carry = 0;
  for (int x0 = 0; x0 < width; x0 += SCAN_GROUP) {
    const int x = x0 + lid;
    const PIX(SUM) sum = group_scan(scan, spare, lid,
        x < width ? LOAD_COLUMN_SUMS(x, columns) : (PIX(SUM)) 0) + carry;
    if (x < width)
      STORE_SUMS(sum, x, p);
    carry += scan[SCAN_GROUP - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  barrier(CLK_GLOBAL_MEM_FENCE);

  const Mean mean = mean_for(radius, mean_mul, mean_shift);
  __global S *out = DST_ROW(y);
  __global const S *keep = KEEP_ROW(y);
  for (int x = lid; x < width; x += SCAN_GROUP)
    store_mean_pix(out, keep, x,
        window_of_prefix(p, x, radius, width, border), mean);
}

#if SAMPLE_BYTES == 1
/* ---- GPUs: sliding window in two passes, 16-bit column sums ----------
 * For 8-bit samples up to r = NARROW_MAX_RADIUS a column sum of 2r + 1
 * values is below 2^16, and the two passes move half the bytes or less:
 * narrow_column_sums writes the column sums as ushorts (column_sums
 * writes uints, which row_means_scan reads, overwrites with prefix sums
 * and reads again).  narrow_row_means takes a chunk of `seg` pixels of a
 * row a work-group: the chunk's column sums and r pixels' either side,
 * under the border rule, into local memory; the prefix sums of slices of
 * them, a slice a work-item (a scan of the slices' totals); then a run of
 * pixels a work-item, the first window a difference of two prefix sums,
 * then sliding, its means into local memory, from where neighbouring
 * work-items store neighbouring words.  No cost grows with r but the
 * reach of a chunk: local memory holds NARROW_PIXELS pixels of column
 * sums, r either side included (the host's narrow_chunk in clf-plan.c
 * takes as many), a pad every NARROW_PAD_EVERY pixels so that the slices
 * and runs of neighbouring work-items fall in different banks.  Prefix
 * sums are exact modulo 2^32, and so is every window sum, below 2^32.
 * (3840x2160 RGBA on an H200: 0.135 ms at r = 16 and 0.189 at r = 127,
 * against 0.262 and 0.306 for column_sums and row_means_scan.) */

#if (2 * NARROW_MAX_RADIUS + 1) * 255 > 0xffff
#error "narrow column sums: 2r + 1 values of 8 bits must sum below 2^16"
#endif

#define STORE_NARROW_WORD(v, p) vstore4 (convert_ushort4 (v), 0, (p))
#define STORE_ALIGNED_NARROW(v, p) \
  (*(__global ushort4 *) (p) = convert_ushort4 (v))
#define STORE_NARROW_ONE(v, p) (*(p) = (ushort) (v))
DEFINE_COLUMN_SLIDE (narrow_slide_4, 4, uint4, ushort, LOAD_WORD,
    STORE_NARROW_WORD)
DEFINE_COLUMN_SLIDE (narrow_slide_aligned_4, aligned_4, uint4, ushort,
    LOAD_ALIGNED_WORD, STORE_ALIGNED_NARROW)
DEFINE_COLUMN_SLIDE (narrow_slide_1, 1, uint, ushort, LOAD_ONE,
    STORE_NARROW_ONE)
DEFINE_COLUMN_SUMS (narrow_column_sums, ushort, narrow_slide_4,
    narrow_slide_aligned_4, narrow_slide_1)

#define NARROW_PAD_EVERY (64 / BPP)
#define NARROW_SLOT(k) ((k) + (k) / NARROW_PAD_EVERY)
/* A pixel's column sums in local memory: one access where BPP is 2 or 4
 * (the array is 8-byte aligned, and so are such pixels' rows of sums). */
#if BPP == 2 || BPP == 4
#define CHUNK_AT(cols, k) (((__local PIX(ushort) *) (cols))[NARROW_SLOT(k)])
#define LINE_PIX(line, i) (((__global const PIX(ushort) *) (line))[i])
#endif

/* Pixel k of a chunk's column sums in local memory. */
PIX(SUM) chunk_column(__local const ushort *cols, int k)
{
#ifdef CHUNK_AT
  return CONVERT_PIX(SUM)(CHUNK_AT(cols, k));
#else
  return CONVERT_PIX(SUM)(LOAD_PIX(NARROW_SLOT(k), cols));
#endif
}

/* Pixels x0 - r .. x0 - r + n - 1 of a row of column sums `line`, under
 * the border rule, into the chunk's local memory. */
void load_chunk(__local ushort *cols, __global const ushort *line, int x0,
    int n, int width, int radius, int border, int lid)
{
#ifdef CHUNK_AT
  for (int k = lid; k < n; k += SCAN_GROUP)
    CHUNK_AT(cols, k) = LINE_PIX(line, border_index(x0 - radius + k, width,
            border));
#else
  for (int s = lid; s < n * BPP; s += SCAN_GROUP) {
    const int k = s / BPP, c = s % BPP;
    cols[NARROW_SLOT(k) * BPP + c] =
        line[border_index(x0 - radius + k, width, border) * BPP + c];
  }
#endif
}

/* P(j), the sum of a chunk's column sums of pixels 0 .. j - 1, for 0 <= j
 * <= the chunk's pixels, from the inclusive scan of the totals of its
 * slices of `slice` pixels. */
PIX(SUM) chunk_prefix(__local const ushort *cols,
    __local const PIX(SUM) *scan, int j, int slice)
{
  const int i = j / slice;
  PIX(SUM) p = i == 0 ? (PIX(SUM)) 0 : scan[i - 1];
  for (int k = i * slice; k < j; k++)
    p += chunk_column(cols, k);
  return p;
}

/* The means of a chunk's `bytes` samples, staged in local memory by the
 * runs that took them, stored from sample b0 of the row by neighbouring
 * work-items: a word each where the rows allow, else a byte.  (Each
 * work-item storing its own run, 4 bytes a pixel 30 bytes apart, took
 * 0.32 ms at 3840x2160 RGBA, r = 16, on an H200.) */
void store_chunk(__global uchar *out, __global const uchar *keep,
    __local const uchar *means, int b0, int bytes, bool words, int lid)
{
  int done = 0;
  if (words) {
    done = bytes / 4 * 4;
    for (int i = lid; i < bytes / 4; i += SCAN_GROUP) {
      const uint filtered = filtered_word(b0 + 4 * i);
      __global uint *word = (__global uint *) (out + b0) + i;
      const uint mean = ((__local const uint *) means)[i];
      *word = filtered == 0xffffffffu ? mean : bitselect(
          ((__global const uint *) (keep + b0))[i], mean, filtered);
    }
  }
  for (int i = done + lid; i < bytes; i += SCAN_GROUP)
    out[b0 + i] = FILTERED((b0 + i) % BPP) ? means[i] : keep[b0 + i];
}

/* narrow_row_means' local memory: a chunk's column sums (uint2s, for
 * CHUNK_AT's alignment), its means (uint4s, as they serve the scan as its
 * spare first) and the scan (a PIX(SUM) a work-item, 4 words where BPP is
 * 3), within the 32 KiB that OpenCL 1.2 devices have at least. */
#define CHUNK_UINT2S ((NARROW_SLOT(NARROW_PIXELS) * BPP + 3) / 4)
#define CHUNK_MEAN_UINTS ((NARROW_PIXELS * BPP + 15) / 16 * 4)
#if CHUNK_MEAN_UINTS < SCAN_GROUP * (BPP == 3 ? 4 : BPP)
#error "narrow_row_means: the means must hold the scan's spare"
#endif
#if CHUNK_UINT2S * 8 + CHUNK_MEAN_UINTS * 4 \
    + SCAN_GROUP * 4 * (BPP == 3 ? 4 : BPP) > 32768
#error "narrow_row_means: NARROW_PIXELS takes more than 32 KiB"
#endif

__kernel __attribute__((reqd_work_group_size(SCAN_GROUP, 1, 1)))
void narrow_row_means(PLANE_ARGS)
{
  __local uint2 chunk[CHUNK_UINT2S];
  __local uint4 chunk_means[CHUNK_MEAN_UINTS / 4];
  __local PIX(SUM) scan[SCAN_GROUP];
  __local ushort *cols = (__local ushort *) chunk;
  __local uchar *means = (__local uchar *) chunk_means;
  const int lid = get_local_id(0), y = get_global_id(1);
  const int x0 = get_group_id(0) * seg, count = min(seg, width - x0);
  /* The chunk's pixels x0 .. x0 + count - 1 and r either side. */
  const int n = count + 2 * radius;
  load_chunk(cols, (__global const ushort *) sums + y * width * BPP, x0, n,
      width, radius, border, lid);
  barrier(CLK_LOCAL_MEM_FENCE);

  const int slice = (n + SCAN_GROUP - 1) / SCAN_GROUP;
  const int a = min(lid * slice, n), e = min(a + slice, n);
  PIX(SUM) total = 0;
  for (int k = a; k < e; k++)
    total += chunk_column(cols, k);
  /* The means' local memory is free until the scan is done. */
  group_scan(scan, (__local PIX(SUM) *) chunk_means, lid, total);

  const int run = (count + SCAN_GROUP - 1) / SCAN_GROUP;
  const int p0 = min(lid * run, count), p1 = min(p0 + run, count);
  const Mean mean = mean_for(radius, mean_mul, mean_shift);
  /* A work-item past the chunk's pixels has no run: P(n + 1) would read
   * past the chunk, and its scan past the work-group's. */
  PIX(SUM) sum = 0;
  if (p0 < p1)
    sum = chunk_prefix(cols, scan, p0 + 2 * radius + 1, slice)
        - chunk_prefix(cols, scan, p0, slice);
  for (int p = p0; p < p1; p++) {
    STORE_PIX(CONVERT_PIX(uchar)(pixel_means(sum, mean)), p, means);
    if (p + 1 < p1)
      sum += chunk_column(cols, p + 2 * radius + 1) - chunk_column(cols, p);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  store_chunk(DST_ROW(y), KEEP_ROW(y), means, x0 * BPP, count * BPP,
      (((dst_off | dst_stride | src_off | src_stride) & 3) == 0
          && (x0 * BPP) % 4 == 0), lid);
}
#endif

/* The means of 16 window sums, from the exact product (see Mean). */
uint16 exact_means(SUMN(16) sum, Mean m)
{
  return convert_uint16(MEAN_OF(convert_ulong16(sum + m.rounding), m,
          ulong16));
}

/* Samples b .. b + 15 of a row: the means of window sums `sum` where
 * filtered, else `kept`. */
SN(16) run_mean_samples(SN(16) kept, SUMN(16) sum, int b, Mean m)
{
  const uint16 mean = exact_means(sum, m);
  return select(kept, PASTE(convert_, SN(16))(CONTAINER_OF(mean)),
      filtered_lanes(b));
}

/* ---- GPUs: sliding window in one pass --------------------------------
 * sliding_tiles  a work-group of TILE_GROUP work-items per tile of
 *              about TILE_PIXELS - 2r pixels (tile_width_at) and `seg`
 *              rows.  Each work-item keeps in registers the column sums
 *              of a run of TILE_RUN_PIXELS pixels of the tile and of r
 *              pixels either side: the first window in full, then a row
 *              enters and a row leaves per step.  Each row's column sums
 *              go to local memory, and each work-item sums the windows of
 *              its run's pixels from there, the first in full, then
 *              sliding.  Nothing goes through global memory between the
 *              passes, and a row costs two barriers; the window along the
 *              row costs 2r + 1 reads of local memory per run, so the
 *              host takes tiles at small radii (SLIDING_TILES_MAX_RADIUS
 *              in clf-plan.c), and passes their geometry as -D TILE_GROUP
 *              and TILE_RUN_PIXELS (whole pixels, at most 16 samples). */

#define TILE_RUN (TILE_RUN_PIXELS * BPP)
#define TILE_PIXELS (TILE_GROUP * TILE_RUN_PIXELS)

/* Where a work-item's run of TILE_RUN samples, from sample e of a row
 * whose pixel 0 is the plane's pixel `first` (any integer), is read in
 * each row: where the run lies inside the plane's row, from there; else
 * sample by sample under the border rule, at offsets worked out once
 * (a warp at an edge sets the pace of its work-group). */
typedef struct {
  int start;                       /* sample of the row the run starts at */
  bool inside, aligned;
  int at[16];                      /* else the samples, in the first lanes */
} RunSource;

RunSource run_source(int first, int e, int width, int border, bool aligned)
{
  RunSource r;
  const int left = first + e / BPP, right = first + (e + TILE_RUN - 1) / BPP;
  r.start = first * BPP + e;
  r.inside = TILE_RUN == 16 && left >= 0 && right < width;
  r.aligned = aligned;
  for (int k = 0; k < 16; k++)
    r.at[k] = k < TILE_RUN ? border_index(first + (e + k) / BPP, width,
        border) * BPP + (e + k) % BPP : 0;
  return r;
}

/* A run's samples in row y, in the first lanes, the rest 0 (one vector
 * load inside the row: an aligned one where the plane's rows are aligned,
 * as `first` and e start runs). */
SN(16) tile_samples(__global const uchar *plane, int stride, int y,
    const RunSource *r)
{
  __global const S *row = PLANE_ROW(plane, stride, y);
  if (r->inside && r->aligned)
    return aligned_load16(row + r->start);
  if (r->inside)
    return vload16(0, row + r->start);
  S v[16] = { 0 };
  for (int k = 0; k < TILE_RUN; k++)
    v[k] = row[r->at[k]];
  return vload16(0, v);
}

/* Their values. */
uint16 tile_run(__global const uchar *plane, int stride, int y,
    const RunSource *r)
{
  return VALUE_OF(convert_uint16(tile_samples(plane, stride, y, r)));
}

/* Where sample s of a tile's row of column sums lies in local memory: the
 * work-item that holds it (s / TILE_RUN) indexes the row of its place in
 * the run (s % TILE_RUN), so that neighbouring work-items store to and
 * read from neighbouring words. */
#define TILE_STRIDE (TILE_GROUP + 1)
#define RUN_SLOT(i, run) (((i) % (run)) * TILE_STRIDE + (i) / (run))
#define TILE_AT(s) RUN_SLOT(s, TILE_RUN)

/* Pixel j's column sums, from the tile's row of them. */
PIX(SUM) tile_column(__local const uint *sums, int j)
{
#if BPP == 1
  return sums[TILE_AT(j)];
#else
  PIX(SUM) v;
  v.s0 = sums[TILE_AT(j * BPP)];
  v.s1 = sums[TILE_AT(j * BPP + 1)];
#if BPP >= 3
  v.s2 = sums[TILE_AT(j * BPP + 2)];
#endif
#if BPP == 4
  v.s3 = sums[TILE_AT(j * BPP + 3)];
#endif
  return v;
#endif
}

/* The means of the tile pixels of a work-item's run, p0 on, whose windows
 * are pixels skew + p .. skew + p + 2r of `sums`; the tile starts at pixel
 * x0 of the row.  A whole run of 16 aligned samples is stored at once. */
void tile_run_means(__global S *out, __global const S *keep,
    __local const uint *sums, int p0, int skew, int x0, int tile_width,
    int width, int radius, bool aligned, Mean m)
{
  const int end = min(min(p0 + TILE_RUN_PIXELS, tile_width), width - x0);
  if (p0 >= end)
    return;
  PIX(SUM) sum = 0;
  for (int j = skew + p0; j <= skew + p0 + 2 * radius; j++)
    sum += tile_column(sums, j);
  if (aligned && end - p0 == TILE_RUN_PIXELS) {
    SUM run[16];
    for (int k = 0; k < TILE_RUN_PIXELS; k++) {
      STORE_PIX(sum, k, run);
      const int j = skew + p0 + k;
      sum += tile_column(sums, j + 2 * radius + 1) - tile_column(sums, j);
    }
    const int b = (x0 + p0) * BPP;
    aligned_store16(run_mean_samples(aligned_load16(keep + b),
            vload16(0, run), b, m), out + b);
    return;
  }
  for (int p = p0;; p++) {
    store_mean_pix(out, keep, x0 + p, sum, m);
    if (p + 1 == end)
      return;
    sum += tile_column(sums, skew + p + 2 * radius + 1)
        - tile_column(sums, skew + p);
  }
}

/* A tile's pixels at radius r: a whole number of runs, so that a tile's
 * runs start on 16-sample boundaries of the row, such that the runs of
 * its pixels and r either side, from the run the leftmost starts in, are
 * TILE_PIXELS at most.  The host's tile_width in clf-plan.c is the
 * same. */
int tile_width_at(int radius)
{
  return (TILE_PIXELS - 2 * radius - (TILE_RUN_PIXELS - 1))
      / TILE_RUN_PIXELS * TILE_RUN_PIXELS;
}

/* Where a work-group's tile lies: its pixels x0 .. x0 + width - 1 of rows
 * y0 .. y1 - 1, and the column sums it keeps, from pixel x0 - r - skew,
 * which starts a run; and where a work-item's run is read. */
typedef struct {
  int x0, width, skew, y0, y1;
  bool aligned;
  RunSource source;
} Tile;

Tile tile_of(int lid, int width, int height, int radius, int border,
    int seg, bool aligned)
{
  Tile t;
  t.width = tile_width_at(radius);
  t.x0 = get_group_id(0) * t.width;
  const int reach = t.x0 - radius;
  t.skew = (reach % TILE_RUN_PIXELS + TILE_RUN_PIXELS) % TILE_RUN_PIXELS;
  t.y0 = get_group_id(1) * seg;
  t.y1 = min(t.y0 + seg, height);
  t.aligned = TILE_RUN == 16 && aligned;
  t.source = run_source(reach - t.skew, lid * TILE_RUN, width, border,
      t.aligned);
  return t;
}

#define ROWS_ALIGNED \
  (((src_off | src_stride | dst_off | dst_stride) & 15) == 0)

#if PACKED_TILES
/* ---- packed tiles: 8-bit pixels of four samples ----------------------
 * sliding_tiles and separable_tiles for RGBA-like layouts (the host's
 * clf_packed_tiles).  A column sum of 2r + 1 bytes is
 * below 2^16 (r <= 127), so the column sums go two to a uint, a pixel's
 * samples 0 and 2 in one (EVEN_BYTES), 1 and 3 in the other (ODD_BYTES):
 * one 32-bit add serves two samples, and a pixel's column sums are two
 * words of local memory.  Up to r = 7 the window sums are below 2^16 too,
 * (2r+1)^2 * 255 + N/2 <= 57487, and stay packed; beyond, each sample's
 * is summed on its own.  A mean is one mul_hi (packed_mean).  (3840x2160
 * RGBA on an H100: 0.066 ms against 0.127 for sliding_tiles' general
 * form at r = 1, 0.094 against 0.201 at r = 7.) */

#if (2 * TILE_MAX_RADIUS + 1) * (2 * TILE_MAX_RADIUS + 1) * 256 > (1 << 21)
#error "packed tiles: packed_mean needs window sums below 2^21"
#endif

/* Pixel p's packed column sums in the tile's row: as TILE_AT, by pixel. */
#define PACKED_AT(p) RUN_SLOT(p, TILE_RUN_PIXELS)

/* A work-item's four pixels' packed column sums into the tile's row. */
void store_packed(__local uint *sums, int lid, uint4 v)
{
  sums[PACKED_AT(4 * lid)] = v.s0;
  sums[PACKED_AT(4 * lid + 1)] = v.s1;
  sums[PACKED_AT(4 * lid + 2)] = v.s2;
  sums[PACKED_AT(4 * lid + 3)] = v.s3;
}

/* floor(D / N) for D < 2^21 as mul_hi(2D, m), m = ceil(2^31 / N): with e
 * = m N - 2^31 < N, D e < 2^21 N <= 2^31 keeps the error below 1/N. */
uint packed_divider(uint area)
{
  return (0x80000000u + area - 1) / area;
}

uint packed_mean(uint d, uint m)
{
  return mul_hi(d << 1, m);
}

/* A pixel's four means, as bytes in the order they were read. */
uint pixel_of_means(uint s0, uint s1, uint s2, uint s3)
{
  return s0 | s1 << 8 | s2 << 16 | s3 << 24;
}

/* A pixel's means from packed window sums e and o, into `pixel`, then
 * the window moves a pixel right, from j. */
#define PACKED_STEP(pixel)                                                \
  do {                                                                    \
    pixel = pixel_of_means (packed_mean (e & 0xffff, m),                  \
        packed_mean (o & 0xffff, m), packed_mean (e >> 16, m),            \
        packed_mean (o >> 16, m));                                        \
    e += even[PACKED_AT (j + 2 * radius + 1)] - even[PACKED_AT (j)];      \
    o += odd[PACKED_AT (j + 2 * radius + 1)] - odd[PACKED_AT (j)];        \
    j++;                                                                  \
  } while (0)

/* The four pixels' means of a work-item's run whose first window is
 * pixels j .. j + 2r of the tile's column sums, sliding along the row.
 * The spelling is measured (NVIDIA 580, H100, 3840x2160 RGBA): the packed
 * windows spelt out pixel by pixel (PACKED_STEP) took 0.067 ms at r = 1,
 * as a loop like the one below 0.077, with their steps in functions
 * 0.077; the unpacked windows' loop took 0.121 ms at r = 11, spelt with
 * functions 0.132.  The fourth slide reads the padding column at most. */
uint4 packed_window_means(__local const uint *even, __local const uint *odd,
    int j, int radius, uint m)
{
  const uint area = window_area(radius);
  uint v[4];
  if (area * 256 <= 0x10000) {
    /* Window sums packed: below 2^16 with N/2 added. */
    uint e = HALVES(area / 2), o = HALVES(area / 2);
    for (int i = j; i <= j + 2 * radius; i++) {
      e += even[PACKED_AT(i)];
      o += odd[PACKED_AT(i)];
    }
    uint4 r;
    PACKED_STEP(r.s0);
    PACKED_STEP(r.s1);
    PACKED_STEP(r.s2);
    PACKED_STEP(r.s3);
    return r;
  }
  /* Each sample's window sum on its own. */
  uint4 sum = area / 2;            /* samples 0, 1, 2, 3 */
  for (int i = j; i <= j + 2 * radius; i++) {
    const uint e = even[PACKED_AT(i)], o = odd[PACKED_AT(i)];
    sum += (uint4) (e & 0xffff, o & 0xffff, e >> 16, o >> 16);
  }
#pragma unroll
  for (int k = 0; k < 4; k++, j++) {
    v[k] = pixel_of_means(packed_mean(sum.s0, m), packed_mean(sum.s1, m),
        packed_mean(sum.s2, m), packed_mean(sum.s3, m));
    const uint e = even[PACKED_AT(j + 2 * radius + 1)];
    const uint o = odd[PACKED_AT(j + 2 * radius + 1)];
    const uint le = even[PACKED_AT(j)], lo = odd[PACKED_AT(j)];
    sum += (uint4) (e & 0xffff, o & 0xffff, e >> 16, o >> 16)
        - (uint4) (le & 0xffff, lo & 0xffff, le >> 16, lo >> 16);
  }
  return vload4(0, v);
}

/* The separable blur's sums of four windows of 2r + 1 items, from item
 * 0, 1, 2 and 3 on, plus `bias`, into sums[0..3]: each window's items
 * added afresh, nothing subtracted.  From r = 1 the four share items 3 ..
 * 2r, added once, so 2r + 4 items are read once for four windows; at
 * r = 0 a window is its item. */
#define FOUR_WINDOWS(T, ITEM, bias, sums)                                 \
  do {                                                                    \
    if (radius == 0) {                                                    \
      for (int k = 0; k < 4; k++)                                         \
        sums[k] = (bias) + ITEM (k);                                      \
    } else {                                                              \
      T shared = bias;                                                    \
      for (int i = 3; i <= 2 * radius; i++)                               \
        shared += ITEM (i);                                               \
      const T from2 = shared + ITEM (2), from1 = from2 + ITEM (1);        \
      const T past1 = ITEM (2 * radius + 1);                              \
      const T past2 = past1 + ITEM (2 * radius + 2);                      \
      sums[0] = from1 + ITEM (0);                                         \
      sums[1] = from1 + past1;                                            \
      sums[2] = from2 + past2;                                            \
      sums[3] = shared + past2 + ITEM (2 * radius + 3);                   \
    }                                                                     \
  } while (0)

/* Samples 0, 1, 2, 3 of packed (even, odd) sums, one a lane. */
uint4 unpack_halves(uint2 c)
{
  return (uint4) (c.x & 0xffff, c.y & 0xffff, c.x >> 16, c.y >> 16);
}

uint means_of_samples(uint4 s, uint m)
{
  return pixel_of_means(packed_mean(s.s0, m), packed_mean(s.s1, m),
      packed_mean(s.s2, m), packed_mean(s.s3, m));
}

uint means_of_packed(uint2 s, uint m)
{
  return means_of_samples(unpack_halves(s), m);
}

/* The separable row pass: the four means of a work-item's run whose
 * first window is pixels j .. j + 2r of the tile's column sums,
 * packed while the window sums fit 16 bits (as in packed_window_means). */
#define PACKED_COLUMN(i) \
  ((uint2) (even[PACKED_AT (j + (i))], odd[PACKED_AT (j + (i))]))
#define SAMPLE_COLUMN(i) unpack_halves (PACKED_COLUMN (i))
uint4 packed_direct_means(__local const uint *even, __local const uint *odd,
    int j, int radius, uint m)
{
  const uint area = window_area(radius);
  if (area * 256 <= 0x10000) {
    uint2 s[4];
    FOUR_WINDOWS(uint2, PACKED_COLUMN, (uint2) HALVES(area / 2), s);
    return (uint4) (means_of_packed(s[0], m), means_of_packed(s[1], m),
        means_of_packed(s[2], m), means_of_packed(s[3], m));
  }
  uint4 s[4];
  FOUR_WINDOWS(uint4, SAMPLE_COLUMN, (uint4) (area / 2), s);
  return (uint4) (means_of_samples(s[0], m), means_of_samples(s[1], m),
      means_of_samples(s[2], m), means_of_samples(s[3], m));
}

/* The tile pixels of a work-item's run, p0 on, as tile_run_means: the
 * sliding blur's windows slid, the separable blur's summed afresh. */
void packed_run_means(__global S *out, __global const S *keep,
    __local const uint *even, __local const uint *odd, int p0,
    const Tile *t, int width, int radius, bool slide, uint m)
{
  const int end = min(min(p0 + TILE_RUN_PIXELS, t->width), width - t->x0);
  if (p0 >= end)
    return;
  const int j = t->skew + p0;
  const uint4 run = slide ? packed_window_means(even, odd, j, radius, m) :
      packed_direct_means(even, odd, j, radius, m);
  const uint filtered = filtered_word(0);
  const int b = (t->x0 + p0) * BPP;
  if (t->aligned && end - p0 == TILE_RUN_PIXELS) {
    *(__global uint4 *) (out + b) = filtered == 0xffffffffu ? run :
        bitselect(*(__global const uint4 *) (keep + b), run,
        (uint4) filtered);
    return;
  }
  uint v[4];
  vstore4(run, 0, v);
  for (int k = 0; k < end - p0; k++)
    vstore4(as_uchar4(bitselect(as_uint(vload4(0, keep + b + 4 * k)), v[k],
                filtered)), 0, out + b + 4 * k);
}

/* What both packed tile kernels start from: the tile's row of column
 * sums in local memory, the work-item's tile and its divider. */
#define PACKED_TILE_START                                                 \
  __local uint even_sums[TILE_RUN_PIXELS * TILE_STRIDE];                  \
  __local uint odd_sums[TILE_RUN_PIXELS * TILE_STRIDE];                   \
  const int lid = get_local_id (0);                                       \
  const Tile t = tile_of (lid, width, height, radius, border, seg,        \
      ROWS_ALIGNED);                                                      \
  __global const uchar *plane = src + src_off;                            \
  const uint m = packed_divider (window_area (radius))

__kernel __attribute__((reqd_work_group_size(TILE_GROUP, 1, 1)))
void sliding_tiles(PLANE_ARGS)
{
  PACKED_TILE_START;

  uint4 even = 0, odd = 0;         /* column sums */
  Walk w = walk_from(t.y0 - radius, height, border);
  for (int i = -radius; i <= radius; i++, w = walk_next(w)) {
    const uint4 row = as_uint4(tile_samples(plane, src_stride,
            walk_index(w), &t.source));
    even += EVEN_BYTES(row);
    odd += ODD_BYTES(row);
  }
  Walk enter = walk_from(t.y0 + radius + 1, height, border);
  Walk leave = walk_from(t.y0 - radius, height, border);

  for (int y = t.y0; y < t.y1; y++) {
    store_packed(even_sums, lid, even);
    store_packed(odd_sums, lid, odd);
    /* The next rows are loaded before the barrier, and added after. */
    uint4 in = 0, out = 0;
    if (y + 1 < t.y1) {
      in = as_uint4(tile_samples(plane, src_stride, walk_index(enter),
              &t.source));
      out = as_uint4(tile_samples(plane, src_stride, walk_index(leave),
              &t.source));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    packed_run_means(DST_ROW(y), KEEP_ROW(y), even_sums, odd_sums,
        lid * TILE_RUN_PIXELS, &t, width, radius, true, m);
    even += EVEN_BYTES(in) - EVEN_BYTES(out);
    odd += ODD_BYTES(in) - ODD_BYTES(out);
    enter = walk_next(enter);
    leave = walk_next(leave);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

/* A run's row y - r + i as packed column sums: even bytes in .lo, odd
 * ones in .hi. */
#define PACKED_ROW(i)                                                     \
  packed_row (tile_samples (plane, src_stride, border_index (y - radius   \
              + (i), height, border), &t.source))
uint8 packed_row(SN(16) samples)
{
  const uint4 row = as_uint4(samples);
  return (uint8) (EVEN_BYTES(row), ODD_BYTES(row));
}

/* The separable blur of a tile, four rows at a time: the column pass
 * (FOUR_WINDOWS of rows, read through the cache) into registers, then
 * each row's column sums into local memory and the row pass from there.
 * The columns come first so that the intermediate stays on chip, a row of
 * packed 16-bit sums; the bytes are the same in either order.  (3840x2160
 * RGBA on an H100, r = 7: a row at a time, 2r + 1 reads a row, took
 * 0.243 ms; four rows at a time 0.141, 0.172 with the rows read through
 * a Walk rather than by border_index; the two passes 0.330.) */
__kernel __attribute__((reqd_work_group_size(TILE_GROUP, 1, 1)))
void separable_tiles(PLANE_ARGS)
{
  PACKED_TILE_START;

  for (int y = t.y0; y < t.y1; y += 4) {
    uint8 column[4];
    FOUR_WINDOWS(uint8, PACKED_ROW, 0, column);
#pragma unroll
    for (int k = 0; k < 4; k++) {
      store_packed(even_sums, lid, column[k].lo);
      store_packed(odd_sums, lid, column[k].hi);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (y + k < t.y1)
        packed_run_means(DST_ROW(y + k), KEEP_ROW(y + k), even_sums,
            odd_sums, lid * TILE_RUN_PIXELS, &t, width, radius, false, m);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
}

#else

__kernel __attribute__((reqd_work_group_size(TILE_GROUP, 1, 1)))
void sliding_tiles(PLANE_ARGS)
{
  __local uint sums_row[TILE_RUN * TILE_STRIDE];
  const int lid = get_local_id(0);
  const Tile t = tile_of(lid, width, height, radius, border, seg,
      ROWS_ALIGNED);
  __global const uchar *plane = src + src_off;
  const Mean mean = mean_for(radius, mean_mul, mean_shift);

  uint16 column = 0;               /* below 2^27 */
  Walk w = walk_from(t.y0 - radius, height, border);
  for (int i = -radius; i <= radius; i++, w = walk_next(w))
    column += tile_run(plane, src_stride, walk_index(w), &t.source);
  Walk enter = walk_from(t.y0 + radius + 1, height, border);
  Walk leave = walk_from(t.y0 - radius, height, border);
  uint run[16];

  for (int y = t.y0; y < t.y1; y++) {
    vstore16(column, 0, run);
    for (int k = 0; k < TILE_RUN; k++)
      sums_row[k * TILE_STRIDE + lid] = run[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    tile_run_means(DST_ROW(y), KEEP_ROW(y), sums_row,
        lid * TILE_RUN_PIXELS, t.skew, t.x0, t.width, width, radius,
        t.aligned, mean);
    if (y + 1 < t.y1)
      column += tile_run(plane, src_stride, walk_index(enter), &t.source)
          - tile_run(plane, src_stride, walk_index(leave), &t.source);
    enter = walk_next(enter);
    leave = walk_next(leave);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

#endif

/* ---- CPUs: strips ---------------------------------------------------
 * On a CPU a work-item is a core's task rather than a lane.  Each takes a
 * strip of `seg` rows and keeps the column sums of its current window, one
 * per sample of a row, in its own row of `sums`, which stays in cache: the
 * frame is read about once and no sums travel through memory between
 * passes.  Column sums move 16 samples at a time; the row pass works on
 * whole pixels (PIX vectors).
 *   separable_strips  each row's column sums added afresh: O(r) per pixel
 *   sliding_strips    a row enters the column sums and a row leaves them,
 *                     then a running sum along the row: O(1) per pixel */

#define COLUMN_RUN 16

/* 16 column sums at v a row down: the row at `enter` enters, the row at
 * `leave` leaves.  Exact in unsigned arithmetic: the leaving row was added
 * before. */
uint16 slid_columns16(__global const uint *v, __global const S *enter,
    __global const S *leave)
{
  return uints16_at(v) + LINE_VALUES(16, enter) - LINE_VALUES(16, leave);
}

void columns_slide(__global uint *v, __global const S *enter,
    __global const S *leave, int n)
{
  int b = 0;
  for (; b + COLUMN_RUN <= n; b += COLUMN_RUN)
    store_uints16(slid_columns16(v + b, enter + b, leave + b), v + b);
  for (; b < n; b++)
    v[b] += VALUE_OF((uint) enter[b]) - VALUE_OF((uint) leave[b]);
}

/* v = a v + b row, for n samples: a = 0 starts v with the row, a = b = 1
 * adds it. */
void add_row_values(__global uint *v, uint a, __global const S *row, uint b,
    int n)
{
  int k = 0;
  for (; k + COLUMN_RUN <= n; k += COLUMN_RUN)
    store_uints16(a * uints16_at(v + k) + b * LINE_VALUES(16, row + k),
        v + k);
  for (; k < n; k++)
    v[k] = a * v[k] + b * VALUE_OF((uint) row[k]);
}

/* The column sums of a row's n samples over the window of rows first ..
 * first + 2r, added a row at a time so that the rows stream through the
 * cache (seeding four strips of 1280x720 RGBA at r = 255 on one PoCL
 * core: 1.0-1.2 ms, against 1.7-1.9 summing 16 columns at a time down the
 * window, each row a cache line apart).  A window centred on an edge row,
 * with r < height, reads its r rows inside the edge once: beyond the edge
 * mirror reads them again and clamp the edge row r times. */
void columns_window(__global uint *v, __global const uchar *plane,
    int stride, int n, int first, int height, int radius, int border)
{
  const int centre = first + radius;
  const int inward = centre == 0 ? 1 : centre == height - 1 ? -1 : 0;
  if (inward != 0 && radius < height) {
    __global const S *edge = PLANE_ROW(plane, stride, centre);
    add_row_values(v, 0, edge, 1, n);
    for (int k = 1; k <= radius; k++)
      add_row_values(v, 1, PLANE_ROW(plane, stride, centre + inward * k), 1,
          n);
    /* The edge row and the r inside it once each so far: clamp counts the
     * edge row r + 1 times, mirror the r rows twice (2v - edge, modulo
     * 2^32). */
    if (border == BORDER_CLAMP)
      add_row_values(v, 1, edge, radius, n);
    else
      add_row_values(v, 2, edge, (uint) -1, n);
    return;
  }
  Walk w = walk_from(first, height, border);
  add_row_values(v, 0, PLANE_ROW(plane, stride, walk_index(w)), 1, n);
  for (int i = 1 - radius; i <= radius; i++) {
    w = walk_next(w);
    add_row_values(v, 1, PLANE_ROW(plane, stride, walk_index(w)), 1, n);
  }
}

/* The sum of column sums x - r .. x + r of pixel x. */
PIX(SUM) pixel_window(__global const uint *v, int x, int width, int radius,
    int border)
{
  PIX(SUM) sum = 0;
  if (x >= radius && x + radius < width) {
    for (int i = x - radius; i <= x + radius; i++)
      sum += CONVERT_PIX(SUM)(LOAD_PIX(i, v));
    return sum;
  }
  Walk w = walk_from(x - radius, width, border);
  for (int i = -radius; i <= radius; i++, w = walk_next(w))
    sum += CONVERT_PIX(SUM)(LOAD_PIX(walk_index(w), v));
  return sum;
}

/* The means of a row's samples b .. b + 15, each window summed afresh, 16
 * column sums per add whatever the pixel size: the pixels of these samples
 * and their windows lie inside the row. */
void run_means(__global S *out, __global const S *keep,
    __global const uint *v, int b, int radius, Mean m)
{
  SUMN(16) sum = 0;
  for (int d = -radius; d <= radius; d++)
    sum += PASTE(convert_, SUMN(16))(vload16(0, v + b + d * BPP));
  vstore16(run_mean_samples(vload16(0, keep + b), sum, b, m), 0, out + b);
}

/* One row's means, each pixel's window summed afresh from the column sums:
 * 16 samples at a time between the edges, a pixel at a time (under the
 * border rule) near them.  A pixel the runs ended inside is written again
 * whole, with the same samples. */
void row_means_direct(__global S *out, __global const S *keep,
    __global const uint *v, int width, int radius, int border, Mean m)
{
  const int inner_first = min(radius, width);
  const int inner_end = max(inner_first, width - radius);
  int x = 0;
  for (; x < inner_first; x++)
    store_mean_pix(out, keep, x, pixel_window(v, x, width, radius, border),
        m);
  int b = x * BPP;
  for (; b + 16 <= inner_end * BPP; b += 16)
    run_means(out, keep, v, b, radius, m);
  for (x = b / BPP; x < width; x++)
    store_mean_pix(out, keep, x, pixel_window(v, x, width, radius, border),
        m);
}

/* CPUs: the means floor(D / N) of 16 window sums, D = S + N/2.  8-bit
 * samples take them in float, 8 lanes an instruction (the exact 64-bit
 * product took half of a row's time on PoCL; GPUs keep it: on an H100 the
 * float conversions made the one-pass sliding blur 15% slower).  D < 256
 * N, so where N <= FLOAT_MEAN_MAX_AREA, D is exact in float, and (D +
 * 0.5) * (1/N) in one fused multiply-add, 1/N rounded from the host's mul
 * (within 2^-30 of it), lies within 256 * 2^-23 < 0.5/N of (D + 0.5)/N,
 * whose fraction lies in [0.5/N, 1 - 0.5/N]: it truncates to floor(D /
 * N).  Larger windows take an estimate from below (1/N lowered by 2^-20,
 * more than the roundings), at most 1 short, and one correction.
 * test_means in test-engine.c checks every radius at the sums where the
 * mean steps. */
#define FLOAT_MEAN_MAX_AREA (127 * 127)

uint16 cpu_means(SUMN(16) sum, Mean m)
{
#if SAMPLE_BYTES == 1
  const int16 d = as_int16(sum + m.rounding);
  if (m.area <= FLOAT_MEAN_MAX_AREA)
    return as_uint16(convert_int16(fma(convert_float16(d), (float16) m.inv,
                (float16) (0.5f * m.inv))));
  const int16 low = convert_int16(convert_float16(d)
      * (m.inv * (1.0f - 0x1p-20f)));
  return as_uint16(low - (d - low * (int) m.area >= (int) m.area));
#else
  return exact_means(sum, m);
#endif
}

/* Fills the r + 1 pixels left of a row of column sums and the r right of
 * it with the pixels that the border rule reads there, so that the row's
 * running sum needs no border rule.  Only a window wider than the row
 * reflects more than once: the others copy without a walk. */
void pad_columns(__global uint *v, int width, int radius, int border)
{
  if (border == BORDER_CLAMP) {
    const PIX(uint) first = LOAD_PIX(0, v), last = LOAD_PIX(width - 1, v);
    for (int k = 1; k <= radius + 1; k++) {
      STORE_PIX(first, -k, v);
      STORE_PIX(last, width - 1 + k, v);
    }
  } else if (radius + 1 < width) {
    for (int k = 1; k <= radius + 1; k++) {
      STORE_PIX(LOAD_PIX(k, v), -k, v);
      STORE_PIX(LOAD_PIX(width - 1 - k, v), width - 1 + k, v);
    }
  } else {
    Walk w = walk_from(-radius - 1, width, border);
    for (int x = -radius - 1; x < 0; x++, w = walk_next(w))
      STORE_PIX(LOAD_PIX(walk_index(w), v), x, v);
    w = walk_from(width, width, border);
    for (int x = width; x <= width + radius; x++, w = walk_next(w))
      STORE_PIX(LOAD_PIX(walk_index(w), v), x, v);
  }
}

/* Whole pixels in a run of at most 16 samples. */
#define RUN_PIXELS (16 / BPP)

/* A run's 16 samples of means from their window sums, the copied samples
 * from `keep`: sample b of a row starts a pixel. */
void store_run_means(__global S *out, __global const S *keep, int b,
    SUMN(16) sums, Mean m)
{
  /* The means are values: saturating is converting, in fewer steps. */
  const SN(16) means = PASTE(PASTE(convert_, SN(16)), _sat)(
      CONTAINER_OF(cpu_means(sums, m)));
#if MASK == (1 << BPP) - 1
  any_store16(means, out + b);
#else
  any_store16(select(any_load16(keep + b), means, filtered_lanes(0)),
      out + b);
#endif
}

/* One row's means from its padded column sums v, with a running sum along
 * the row: RUN_PIXELS window sums a pixel at a time, then their means at
 * once.  (A run of RGB's 5 pixels also writes the next pixel's first
 * sample, which the next run or the last pixels write again.) */
void row_means_padded(__global S *out, __global const S *keep,
    __global const uint *v, int width, int radius, Mean m)
{
  PIX(SUM) sum = 0;
  for (int j = -radius; j <= radius; j++)
    sum += CONVERT_PIX(SUM)(LOAD_PIX(j, v));
  __global const uint *enter = v + (radius + 1) * BPP;
  __global const uint *leave = v - radius * BPP;
  int x = 0;
  for (; x * BPP + 16 <= width * BPP; x += RUN_PIXELS) {
    SUM run[16];
#pragma unroll
    for (int k = 0; k < RUN_PIXELS; k++) {
      STORE_PIX(sum, k, run);
      sum += CONVERT_PIX(SUM)(LOAD_PIX(k, enter))
          - CONVERT_PIX(SUM)(LOAD_PIX(k, leave));
    }
    enter += RUN_PIXELS * BPP;
    leave += RUN_PIXELS * BPP;
    store_run_means(out, keep, x * BPP, vload16(0, run), m);
  }
  for (; x < width; x++) {
    store_mean_pix(out, keep, x, sum, m);
    sum += CONVERT_PIX(SUM)(LOAD_PIX(x + radius + 1, v))
        - CONVERT_PIX(SUM)(LOAD_PIX(x - radius, v));
  }
}

/* ---- CPUs: a row's windows from prefix sums --------------------------
 * With 8-bit samples, 1, 2 or 4 a pixel, and a row at least as wide as the
 * window: I[x] = v[0] + ... + v[x] along the row of column sums v, so the
 * window of pixel x is I[x + r] - I[x - r - 1] inside the row.  Near an
 * edge the pixels the border rule reads are the row's own: mirror's are
 * a reflected stretch of the row, I[r - x] - I[0] at the left, clamp's a
 * multiple of the edge pixel.  Everything goes 16 samples at a time, and
 * nothing a row costs grows with r: the running sum of row_means_padded
 * was a chain of adds a pixel at a time, after padding r + 1 pixels either
 * side and summing the first window's 2r + 1.  (Sums wrap modulo 2^32;
 * the windows' sums are below 2^30, so their differences are exact.) */
#if SAMPLE_BYTES == 1 && BPP != 3
#define PREFIX_ROWS 1

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

/* I[x] = P(x + 1), the prefix sums along a row of n samples of column
 * sums v, as prefix() and extended_prefix() read them; first, where
 * `slide`, v takes a row down: the row at `enter` enters, the row at
 * `leave` leaves.  One pass, so the new column sums go from registers to
 * their prefix sums. */
void slide_and_prefix(__global uint *v, __global uint *I, bool slide,
    __global const S *enter, __global const S *leave, int n)
{
  uint16 before = 0;
  int b = 0;
  for (; b + 16 <= n; b += 16) {
    uint16 columns;
    if (slide) {
      columns = slid_columns16(v + b, enter + b, leave + b);
      store_uints16(columns, v + b);
    } else {
      columns = uints16_at(v + b);
    }
    const uint16 run = run_prefix(columns);
    store_uints16(run + before, I + b);
    /* Off the chain from one run to the next, which is one add. */
    before += LAST_PIXEL_SPREAD(run);
  }
  PIX(uint) sum = FIRST_PIXEL(before);
  for (; b < n; b += BPP) {
    PIX(uint) columns = LOAD_PIX(0, v + b);
    if (slide) {
      columns += PIXEL_VALUES(enter + b) - PIXEL_VALUES(leave + b);
      STORE_PIX(columns, 0, v + b);
    }
    sum += columns;
    STORE_PIX(sum, 0, I + b);
  }
}

/* What the windows near the edges add, the same for a whole row:
 * left, the first pixel's column sums (clamp: r - x times; mirror, less
 * once); right, the last pixel's and clamp's step per pixel past the edge,
 * or mirror's last two pixels'. */
typedef struct {
  uint16 left, right, right_step;
} RowEdges;

RowEdges row_edges(__global const uint *I, int width, int border)
{
  const PIX(uint) last = LOAD_PIX(width - 1, I);
  const PIX(uint) before = LOAD_PIX(width - 2, I);
  RowEdges e;
  e.left = PIXEL_SPREAD(LOAD_PIX(0, I));
  e.right = PIXEL_SPREAD(border == BORDER_CLAMP ? last : last + before);
  e.right_step = PIXEL_SPREAD(last - before);
  return e;
}

/* The windows of the RUN_PIXELS pixels from x, from the row's prefix sums
 * I, in a row of 2r + 1 pixels or more: _left for pixels 0 .. r, _inner
 * for r + 1 .. width - r - 1, _right for width - r on.  AHEAD(p) reads
 * I at pixel p on (a pixel a lane), BACK(p) at p and back. */
#define AHEAD(p) uints16_at(I + (p) * BPP)
#define BACK(p) PIXELS_REVERSED(uints16_at(I + ((p) - RUN_PIXELS + 1) * BPP))
#define LANE_PIXELS(x) as_uint16((int16)(x) + (int16)(0, 1, 2, 3, 4, 5, 6, \
      7, 8, 9, 10, 11, 12, 13, 14, 15) / BPP)

uint16 run_windows_inner(__global const uint *I, int x, int r, int width,
    int border, RowEdges e)
{
  return AHEAD(x + r) - AHEAD(x - r - 1);
}

uint16 run_windows_left(__global const uint *I, int x, int r, int width,
    int border, RowEdges e)
{
  if (border == BORDER_CLAMP)
    return AHEAD(x + r) + (r - LANE_PIXELS(x)) * e.left;
  return AHEAD(x + r) + BACK(r - x) - e.left;
}

uint16 run_windows_right(__global const uint *I, int x, int r, int width,
    int border, RowEdges e)
{
  if (border == BORDER_CLAMP)
    return e.right - AHEAD(x - r - 1)
        + (LANE_PIXELS(x) + r - width + 1) * e.right_step;
  return e.right - BACK(2 * width - 3 - x - r) - AHEAD(x - r - 1);
}

#undef AHEAD
#undef BACK

/* The means of pixels first .. end - 1 a pixel at a time, any row. */
void pixel_means_of_prefix(__global S *out, __global const S *keep,
    __global const uint *I, int first, int end, int radius, int width,
    int border, Mean m)
{
  for (int x = first; x < end; x++)
    store_mean_pix(out, keep, x, window_of_prefix(I, x, radius, width,
            border), m);
}

/* The means of pixels first .. end - 1, which lie in one stretch of the
 * run_windows_ functions: runs, the last one ending at `end` (writing
 * some pixels twice, with the same samples), or a pixel at a time where
 * the stretch is shorter than a run. */
#define MEANS_OF_STRETCH(STRETCH, first, end)                             \
  do {                                                                    \
    if ((end) - (first) < RUN_PIXELS) {                                   \
      pixel_means_of_prefix(out, keep, I, first, end, radius, width,      \
          border, m);                                                     \
      break;                                                              \
    }                                                                     \
    for (int x = (first);; x += RUN_PIXELS) {                             \
      x = min(x, (end) - RUN_PIXELS);                                     \
      store_run_means(out, keep, x * BPP, run_windows_##STRETCH(I, x,     \
              radius, width, border, edges), m);                          \
      if (x + RUN_PIXELS == (end))                                        \
        break;                                                            \
    }                                                                     \
  } while (0)

/* One row's means from the prefix sums I of its column sums. */
void row_means_prefix(__global S *out, __global const S *keep,
    __global const uint *I, int width, int radius, int border, Mean m)
{
  if (width < 2 * radius + 1) {
    pixel_means_of_prefix(out, keep, I, 0, width, radius, width, border, m);
    return;
  }
  const RowEdges edges = row_edges(I, width, border);
  MEANS_OF_STRETCH(left, 0, radius + 1);
  MEANS_OF_STRETCH(inner, radius + 1, width - radius);
  MEANS_OF_STRETCH(right, width - radius, width);
}
#else
#define PREFIX_ROWS 0
#endif

/* A work-item's strip: rows y0 .. y1 - 1, and `rows` rows of `sums` from
 * `v`, with room for `pad` pixels either side (the host's sums are large
 * enough: view_sums_bytes in clf-plan.c). */
typedef struct {
  int y0, y1, row_units;
  __global uint *v;
} Strip;

Strip strip_for(__global SUM *sums, int seg, int width, int height,
    int rows, int pad)
{
  Strip s;
  s.y0 = get_global_id(0) * seg;
  s.y1 = min(s.y0 + seg, height);
  s.row_units = width * BPP;
  s.v = (__global uint *) sums
      + get_global_id(0) * (size_t) (rows * s.row_units + 2 * pad * BPP)
      + pad * BPP;
  return s;
}

__kernel void separable_strips(PLANE_ARGS)
{
  const Strip s = strip_for(sums, seg, width, height, 1, 0);
  const Mean mean = mean_for(radius, mean_mul, mean_shift);

  for (int y = s.y0; y < s.y1; y++) {
    columns_window(s.v, src + src_off, src_stride, s.row_units, y - radius,
        height, radius, border);
    row_means_direct(DST_ROW(y), KEEP_ROW(y), s.v, width, radius, border,
        mean);
  }
}

/* The last of several strips goes up from the bottom row, so that it
 * seeds its first window at an edge, as the first strip does: at r = 255
 * two strips of 1280x720 then read 256 rows each to seed, not 511. */
__kernel void sliding_strips(PLANE_ARGS)
{
#if PREFIX_ROWS
  /* Column sums, then their prefix sums. */
  const Strip s = strip_for(sums, seg, width, height, 2, 0);
  __global uint *prefix = s.v + s.row_units;
#else
  /* Column sums, padded under the border rule (pad_columns). */
  const Strip s = strip_for(sums, seg, width, height, 1, radius + 1);
#endif
  const Mean mean = mean_for(radius, mean_mul, mean_shift);
  const bool upwards = s.y0 > 0 && s.y1 == height;
  const int step = upwards ? -1 : 1;
  int y = upwards ? s.y1 - 1 : s.y0;

  columns_window(s.v, src + src_off, src_stride, s.row_units, y - radius,
      height, radius, border);
  for (int i = 0; i < s.y1 - s.y0; i++, y += step) {
    /* Row y's column sums from row y - step's. */
    __global const S *enter = SRC_ROW(border_index(y + step * radius,
            height, border));
    __global const S *leave = SRC_ROW(border_index(y - step * (radius + 1),
            height, border));
#if PREFIX_ROWS
    slide_and_prefix(s.v, prefix, i > 0, enter, leave, s.row_units);
    row_means_prefix(DST_ROW(y), KEEP_ROW(y), prefix, width, radius, border,
        mean);
#else
    if (i > 0)
      columns_slide(s.v, enter, leave, s.row_units);
    pad_columns(s.v, width, radius, border);
    row_means_padded(DST_ROW(y), KEEP_ROW(y), s.v, width, radius, mean);
#endif
  }
}
