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
 * cache (rather than 16 columns at a time down the window, each row a
 * cache line apart).  A window centred on an edge row,
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
 * samples take them in float, 8 lanes an instruction (on CPUs the exact
 * 64-bit product costs much of a row's time; on GPUs the float
 * conversions cost more, so GPUs keep it).  D < 256
 * N, so where N <= FLOAT_MEAN_MAX_AREA, D is exact in float, and (D +
 * 0.5) * (1/N) in one fused multiply-add, 1/N rounded from the host's mul
 * (within 2^-30 of it), lies within 256 * 2^-23 < 0.5/N of (D + 0.5)/N,
 * whose fraction lies in [0.5/N, 1 - 0.5/N]: it truncates to floor(D /
 * N).  Larger windows take an estimate from below (1/N lowered by 2^-20,
 * more than the roundings), at most 1 short, and one correction.  The
 * engine tests' means group (tests/engine/means.c) checks every radius
 * at the sums where the mean steps. */
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
 * nothing a row costs grows with r, where row_means_padded's running sum
 * is a chain of adds a pixel at a time, after padding r + 1 pixels either
 * side and summing the first window's 2r + 1.  (Sums wrap modulo 2^32;
 * the windows' sums are below 2^30, so their differences are exact.) */
#if SAMPLE_BYTES == 1 && LANE_PREFIX
#define PREFIX_ROWS 1

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

#ifdef WANT_separable_strips
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
#endif

/* The last of several strips goes up from the bottom row, so that it
 * seeds its first window at an edge, as the first strip does: where r <
 * height, that reads r + 1 rows, not 2r + 1 (columns_window). */
#ifdef WANT_sliding_strips
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
#endif
