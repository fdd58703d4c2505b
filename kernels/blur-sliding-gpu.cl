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
 * of ushorts two stores, their addresses not known to be aligned. */
#define LOAD_WORD(p) LINE_VALUES (4, p)
#define LOAD_ALIGNED_WORD(p) \
  VALUE_OF (convert_uint4 (*(__global const SN (4) *) (p)))
#define LOAD_ONE(p) VALUE_OF ((uint) *(p))
DEFINE_COLUMN_WINDOW (4, uint4, LOAD_WORD)
DEFINE_COLUMN_WINDOW (aligned_4, uint4, LOAD_ALIGNED_WORD)
DEFINE_COLUMN_WINDOW (1, uint, LOAD_ONE)

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

/* column_sums and narrow_column_sums: blur-column-sums.cl, over the
 * slides above and below. */

#define SCAN_GROUP 256

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

#ifdef WANT_row_means_scan
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
#endif

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
 * sums are exact modulo 2^32, and so is every window sum, below 2^32. */

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
 * work-items: a word each where the rows allow, else a byte.  (Were each
 * work-item to store its own run, the stores of neighbouring work-items
 * would lie a run apart, not coalesced.) */
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

#ifdef WANT_narrow_row_means
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
#endif
