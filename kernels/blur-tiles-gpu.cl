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
 *              host takes tiles at small radii (CLF_TILES_MAX_RADIUS in
 *              clf-private.h), and passes their geometry as -D TILE_GROUP
 *              and TILE_RUN_PIXELS (whole pixels, at most 16 samples).
 *              With CONVERT_LUMA, over the 8-bit luma of a conversion
 *              into RGB, it writes the output's pixels (below).
 * separable_tiles  the same tiles, for PACKED_TILES layouts only: the
 *              separable blur in one pass (below). */

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
 * is summed on its own.  A mean is one mul_hi (packed_mean). */

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
 * The spelling is measured on GPUs: the packed windows run faster spelt
 * out pixel by pixel (PACKED_STEP) than as a loop like the one below or
 * with their steps in functions, the unpacked windows faster as that loop
 * than with functions.  The fourth slide reads the padding column at
 * most. */
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

#ifdef WANT_sliding_tiles
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
#endif

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
 * packed 16-bit sums; the bytes are the same in either order.  Four rows
 * at a time read 2r + 4 rows, not 2r + 1 for each row, and the rows are
 * found by border_index, which is faster here than a Walk. */
#ifdef WANT_separable_tiles
__kernel __attribute__((reqd_work_group_size(TILE_GROUP, 1, 1)))
void separable_tiles(PLANE_ARGS)
{
  PACKED_TILE_START;

  for (int y = t.y0; y < t.y1; y += 4) {
    uint8 column[4];
    FOUR_WINDOWS(uint8, PACKED_ROW, 0, column);
    /* The rows' sums move down a register each turn, so that they stay
     * in registers without a full unroll: NVIDIA's compiler builds the
     * kernel unrolled twice much faster than four times, and it runs as
     * fast (docs/performance/h100/). */
    uint8 c0 = column[0], c1 = column[1], c2 = column[2], c3 = column[3];
#pragma unroll 2
    for (int k = 0; k < 4; k++) {
      store_packed(even_sums, lid, c0.lo);
      store_packed(odd_sums, lid, c0.hi);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (y + k < t.y1)
        packed_run_means(DST_ROW(y + k), KEEP_ROW(y + k), even_sums,
            odd_sums, lid * TILE_RUN_PIXELS, &t, width, radius, false, m);
      barrier(CLK_LOCAL_MEM_FENCE);
      c0 = c1;
      c1 = c2;
      c2 = c3;
    }
  }
}
#endif

#else

#ifdef CONVERT_LUMA
#if BPP != 1
#error "CONVERT_LUMA: luma, a sample a pixel"
#endif
/* The luma of a conversion into RGB (the host's converts_luma): the
 * means of each row of the tile go to local memory (tile_luma_means), and
 * every LUMA_ROWS rows the work-group converts them, each work-item 4
 * pixels of a row next to its neighbours' (tile_rows_converted), with the
 * chroma and alpha that earlier passes filtered into `in`: no filtered
 * luma is written, and no conversion pass reads it. */
#define LUMA_ROWS 4
#define TILES_ARGS PLANE_ARGS, PLANE_PARAMS (in, const), \
  PLANE_PARAMS (out, ), int16 matrix
void tile_luma_means(__local const uint *sums, __local S *luma,
    int p0, const Tile *t, int width, int radius, Mean m)
{
  const int end = min(min(p0 + TILE_RUN_PIXELS, t->width), width - t->x0);
  if (p0 >= end)
    return;
  SUM run[16] = { 0 };
  SUM sum = 0;
  for (int j = t->skew + p0; j <= t->skew + p0 + 2 * radius; j++)
    sum += tile_column(sums, j);
  for (int k = 0;; k++) {
    run[k] = sum;
    if (p0 + k + 1 == end)
      break;
    const int j = t->skew + p0 + k;
    sum += tile_column(sums, j + 2 * radius + 1) - tile_column(sums, j);
  }
  const SN(16) means = PASTE(convert_, SN(16))(exact_means(vload16(0, run),
          m));
  if (end - p0 == 16) {
    vstore16(means, 0, luma + p0);
    return;
  }
  S v[16];
  vstore16(means, 0, v);
  for (int k = 0; k < end - p0; k++)
    luma[p0 + k] = v[k];
}

/* Rows y0 .. y1 - 1 of the tile, their luma in rows of `luma`. */
void tile_rows_converted(__local const S *luma, int lid, const Tile *t,
    int y0, int y1, int width, int height, PLANE_PARAMS (in, const),
    PLANE_PARAMS (out, ), int16 matrix)
{
  const int n = min(t->width, width - t->x0);
  for (int y = y0; y < y1; y++)
    for (int p = 4 * lid; p < n; p += 4 * TILE_GROUP)
      convert_luma_quad(PLANE_ARGS_IN, PLANE_ARGS_OUT, t->x0 + p, y,
          min(4, n - p), convert_uint4(vload4(0, luma + (y - y0)
                  * TILE_PIXELS + p)), width, height, matrix);
}
#else
#define TILES_ARGS PLANE_ARGS
#endif

#ifdef WANT_sliding_tiles
__kernel __attribute__((reqd_work_group_size(TILE_GROUP, 1, 1)))
void sliding_tiles(TILES_ARGS)
{
  __local uint sums_row[TILE_RUN * TILE_STRIDE];
#ifdef CONVERT_LUMA
  __local S luma_rows[LUMA_ROWS * TILE_PIXELS];
#endif
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
#ifdef CONVERT_LUMA
    const int slot = (y - t.y0) % LUMA_ROWS;
    tile_luma_means(sums_row, luma_rows + slot * TILE_PIXELS,
        lid * TILE_RUN_PIXELS, &t, width, radius, mean);
#else
    tile_run_means(DST_ROW(y), KEEP_ROW(y), sums_row,
        lid * TILE_RUN_PIXELS, t.skew, t.x0, t.width, width, radius,
        t.aligned, mean);
#endif
    if (y + 1 < t.y1)
      column += tile_run(plane, src_stride, walk_index(enter), &t.source)
          - tile_run(plane, src_stride, walk_index(leave), &t.source);
    enter = walk_next(enter);
    leave = walk_next(leave);
    barrier(CLK_LOCAL_MEM_FENCE);
#ifdef CONVERT_LUMA
    /* (The next row's means wait for this at its first barrier.) */
    if (slot == LUMA_ROWS - 1 || y + 1 == t.y1)
      tile_rows_converted(luma_rows, lid, &t, y - slot, y + 1, width,
          height, PLANE_ARGS_IN, PLANE_ARGS_OUT, matrix);
#endif
  }
}
#endif

#endif
