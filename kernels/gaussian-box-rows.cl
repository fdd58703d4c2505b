/* gauss_box_rows and gauss_box_rows_wide: the boxes along rows, sums of
 * type ACC (uint, exact modulo 2^32 where the window's sum stays below
 * it; ulong), a pixel's samples as one PIX vector (kernels/meson.build's
 * kernel_variants).  GPUs take a row a work-group, its positions'
 * running sums composed by a scan; CPUs a strip of whole rows, a
 * work-item walking each row (with NARROW, the uint variant: 16 samples
 * at a time, from prefix sums). */

#if NARROW && GAUSS_RUN == 16 && LANE_PREFIX
#ifndef GAUSS_ROWS_PREFIX_DEFINED
#define GAUSS_ROWS_PREFIX_DEFINED
/* ---- CPUs: a row's boxes from its triple prefix sums ------------------
 * E, the row's values extended from pixel q0 = -R - 3 on (extend_row),
 * goes into the work-item's scratch row, and in place becomes P,
 * its prefix sums taken three times (modulo 2^32).  The comb of P at the
 * boxes' 8 corners is the window's sum S(x), exact as it is below 2^31:
 * S(x) = P[x + R] - P[x + R - w1] - ... - P[x + R - w1 - w2 - w3]. */

/* e's n samples (a multiple of 16) become their prefix sums, three
 * times over.  Each run's own prefix sums, L1 .. L3, depend on nothing
 * before it; the sums before the run (C1 .. C3, per channel) enter as
 * P3 = L3 + C3 + (i + 1) C2 + (i + 1)(i + 2) / 2 C1 at the run's pixel i,
 * so that only those carries chain from one run to the next. */
void triple_prefix(__global uint *e, int n)
{
  /* i + 1 in each lane of pixel i. */
  const uint16 i1 = (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
      14, 15) / BPP + 1;
  const uint16 tri = i1 * (i1 + 1) / 2;
  const uint np = 16 / BPP, ntri = np * (np + 1) / 2;
  uint16 c1 = 0, c2 = 0, c3 = 0;
  for (int k = 0; k < n; k += 16) {
    const uint16 l1 = run_prefix(uints16_at(e + k));
    const uint16 l2 = run_prefix(l1);
    const uint16 l3 = run_prefix(l2);
    store_uints16(l3 + c3 + i1 * c2 + tri * c1, e + k);
    c3 += np * c2 + ntri * c1 + LAST_PIXEL_SPREAD(l3);
    c2 += np * c1 + LAST_PIXEL_SPREAD(l2);
    c1 += LAST_PIXEL_SPREAD(l1);
  }
}

/* H of the 16 samples from sample b of a row, from P (at pixel q0). */
uint16 run_of_prefix(__global const uint *p, int b, int r, int q0, int w1,
    int w2, int w3, int weight, float inv)
{
  __global const uint *at = p + b + (r - q0) * BPP;
#define P_BACK(d) uints16_at(at - (d) * BPP)
  const uint16 s = P_BACK(0) - P_BACK(w1) - P_BACK(w2) - P_BACK(w3)
      + P_BACK(w1 + w2) + P_BACK(w1 + w3) + P_BACK(w2 + w3)
      - P_BACK(w1 + w2 + w3);
#undef P_BACK
  return row_quotient16(s, weight, inv);
}

/* H of rows y0 .. y1 - 1, whole, through the scratch row p. */
void rows_of_prefix(__global uint *line, __global uint *p,
    __global const uchar *src, uint src_off, uint src_stride, int y0,
    int y1, int width, int border, int w1, int w2, int w3, int weight)
{
  const int r = (w1 + w2 + w3 - 3) / 2, q0 = -r - 3;
  const int row_units = width * BPP;
  /* Every sample a run reads, in whole runs of 16. */
  const int n = (row_units + (w1 + w2 + w3) * BPP + 31) / 16 * 16;
  const float inv = 1.0f / weight;
  for (int y = y0; y < y1; y++) {
    __global H_T *out = H_ROW(y);
    extend_row(p, SRC_ROW(y), q0, n / BPP, width, border);
    triple_prefix(p, n);
    ROW_OF_RUNS(out, row_units, 0, run_of_prefix(p, B, r, q0, w1, w2, w3,
            weight, inv));
  }
}
#endif
#endif

#if GAUSS_RUN != 16
/* ---- GPUs: a row a work-group, through local memory -------------------
 * The row's positions i = 0 .. width + 2R - 1 (pixel i - R, the window
 * of H at pixel i - 2R ending there; below 0 the comb reads 0, as a
 * walk from `first` does) go by in chunks of ROW_CHUNK: the chunk's
 * values and the SPAN before it are loaded into local memory, each
 * work-item takes the comb of ROW_STEPS positions and their running sums
 * from zero, and a scan across the work-group composes them: a block of
 * b positions whose sums start from (a1, a2, a3) ends with
 *   s1 + a1,  s2 + b a1 + a2,  s3 + b (b + 1) / 2 a1 + b a2 + a3,
 * exact modulo the sums' width as the rest.  The chunk's total carries
 * into the next.  An odd ROW_STEPS puts the work-items' reads of local
 * memory in different banks. */
#define ROW_GROUP GAUSS_ROW_GROUP
#define ROW_STEPS GAUSS_ROW_STEPS
#define ROW_CHUNK (ROW_GROUP * ROW_STEPS)

/* The stage in local memory: a pixel's values in one access where a
 * pixel is 1, 2 or 4 ushorts (a vload4 from local memory, whose address
 * NVIDIA's driver does not know to be 8-byte aligned, is 4 accesses). */
#ifndef GAUSS_ROWS_STAGE_DEFINED
#define GAUSS_ROWS_STAGE_DEFINED
#if BPP == 3
#define STAGE_T ushort
#define STAGE_LOAD(j, e) vload3(j, e)
#define STAGE_STORE(v, j, e) vstore3(v, j, e)
#else
#define STAGE_T PIX(ushort)
#define STAGE_LOAD(j, e) ((e)[j])
#define STAGE_STORE(v, j, e) ((e)[j] = (v))
#endif
#endif

/* H of a pixel's sums s3: in 32 bits where they are uint (W < 2^23
 * then), else through a double's estimate. */
#if NARROW
#define ROW_H(s3) PIX_ROW_QUOTIENT(s3, (int) weight, inv)
#define ROW_INV_T float
#else
#define ROW_H(s3) PIX_QUOTIENT(256 * CONVERT_PIX(long)(s3) + weight / 2, \
    weight, inv)
#define ROW_INV_T INV_T
#endif

/* e: local memory for (w1 + w2 + w3 + ROW_CHUNK) pixels. */
__kernel __attribute__((reqd_work_group_size(ROW_GROUP, 1, 1)))
void KERNEL_NAME(GAUSS_ARGS, __local STAGE_T *e)
{
  __local PIX(ACC) l1[ROW_GROUP], l2[ROW_GROUP], l3[ROW_GROUP];
  const int t = get_local_id(0), y = get_global_id(1);
  const int r = (w1 + w2 + w3 - 3) / 2, span = w1 + w2 + w3;
  const int n = width + 2 * r, row_units = width * BPP;
  __global const S *row = SRC_ROW(y);
  __global H_T *out = H_ROW(y);
  const ROW_INV_T inv = (ROW_INV_T) 1 / weight;
  PIX(ACC) c1 = 0, c2 = 0, c3 = 0;
  const bool pixels_aligned = PIXELS_ALIGNED;
  for (int base = 0; base < n; base += ROW_CHUNK) {
    /* e[j]: position base - span + j. */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = t; j < span + ROW_CHUNK; j += ROW_GROUP) {
      const int i = base - span + j;
      __global const S *p = row + border_index(i - r, width, border) * BPP;
      PIX(uint) v = 0;
      if (i >= 0)
        v = pixels_aligned ? ALIGNED_PIXEL_VALUES(p) : PIXEL_VALUES(p);
      STAGE_STORE(CONVERT_PIX(ushort)(v), j, e);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The block's combs are taken twice, from local memory, rather than
     * kept in registers for the second walk; each exact in int
     * (|comb| < 4 * 65536), then of the sums' type (modulo 2^32 for
     * uint, as the sums are). */
#undef AT
#define AT(T, VALUE, q, first) VALUE(q)
#define STAGE_INT(j) CONVERT_PIX(int)(STAGE_LOAD(j, e))
#define BLOCK_COMB(k) CONVERT_PIX(ACC)(COMB(PIX(int), STAGE_INT, \
      span + t * ROW_STEPS + (k), 0))
    PIX(ACC) s1 = 0, s2 = 0, s3 = 0;
#pragma unroll
    for (int k = 0; k < ROW_STEPS; k++) {
      s1 += BLOCK_COMB(k);
      s2 += s1;
      s3 += s2;
    }
    /* The inclusive scan of the blocks' sums (Hillis and Steele). */
    l1[t] = s1;
    l2[t] = s2;
    l3[t] = s3;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = 1; off < ROW_GROUP; off <<= 1) {
      PIX(ACC) a1 = 0, a2 = 0, a3 = 0;
      if (t >= off) {
        a1 = l1[t - off];
        a2 = l2[t - off];
        a3 = l3[t - off];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      if (t >= off) {
        COMPOSE(s1, s2, s3, a1, a2, a3, ROW_STEPS * off);
        l1[t] = s1;
        l2[t] = s2;
        l3[t] = s3;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* The sums before this work-item's block: the carry, then the
     * blocks before it; the carry into the next chunk: all of them. */
    s1 = s2 = s3 = 0;
    if (t > 0) {
      s1 = l1[t - 1];
      s2 = l2[t - 1];
      s3 = l3[t - 1];
    }
    COMPOSE(s1, s2, s3, c1, c2, c3, t * ROW_STEPS);
    PIX(ACC) z1 = l1[ROW_GROUP - 1], z2 = l2[ROW_GROUP - 1],
        z3 = l3[ROW_GROUP - 1];
    COMPOSE(z1, z2, z3, c1, c2, c3, ROW_CHUNK);
    c1 = z1;
    c2 = z2;
    c3 = z3;
#pragma unroll
    for (int k = 0; k < ROW_STEPS; k++) {
      s1 += BLOCK_COMB(k);
      s2 += s1;
      s3 += s2;
      const int x = base + t * ROW_STEPS + k - 2 * r;
      if (x >= 0 && x < width)
        STORE_H_PIX(CONVERT_PIX(H_T)(ROW_H(s3)), x, out);
    }
#undef BLOCK_COMB
#undef STAGE_INT
#undef AT
#define AT(T, VALUE, q, first) ((q) >= (first) ? VALUE(q) : (T) 0)
  }
}
#undef ROW_H
#undef ROW_INV_T
#else
__kernel void KERNEL_NAME(GAUSS_ARGS)
{
  const int y0 = get_global_id(0) * lines, x0 = get_global_id(1) * seg;
  const int y1 = min(y0 + lines, height), x1 = min(x0 + seg, width);
#if NARROW && GAUSS_RUN == 16 && LANE_PREFIX
  if (x0 == 0 && x1 == width) {
    rows_of_prefix(line, SCRATCH_ROW(0), src, src_off, src_stride, y0, y1,
        width, border, w1, w2, w3, (int) weight);
    return;
  }
#endif
  const INV_T inv = (INV_T) 1 / weight;
  const int r = (w1 + w2 + w3 - 3) / 2, first = x0 - r;
  /* From here on every tap reads from `first` on. */
  const int settled = first + w1 + w2 + w3;
  for (int y = y0; y < y1; y++) {
    __global const S *row = SRC_ROW(y);
    const int row_units = width * BPP;
    __global H_T *out = H_ROW(y);
#define ROW_VALUE(q) \
  CONVERT_PIX(ACC)(PIXEL_VALUES(row + border_index(q, width, border) * BPP))
#define STEP(COMB_OF)                                                     \
    s1 += COMB_OF;                                                        \
    s2 += s1;                                                             \
    s3 += s2;                                                             \
    if (p >= x0 + r)                                                      \
      STORE_PIX(CONVERT_PIX(H_T)(PIX_QUOTIENT(256                       \
                  * CONVERT_PIX(long)(s3) + weight / 2, weight, inv)),    \
          p - r, out)
    PIX(ACC) s1 = 0, s2 = 0, s3 = 0;
    int p = first;
    for (; p < min(settled, x1 + r); p++) {
      STEP(COMB(PIX(ACC), ROW_VALUE, p, first));
    }
    /* Inside the row, without the border's look-ups. */
#undef AT
#define AT(T, VALUE, q, first) VALUE(q)
#define INNER_VALUE(q) CONVERT_PIX(ACC)(PIXEL_VALUES(row + (q) * BPP))
    for (; p < min(width, x1 + r); p++) {
      if (p - w1 - w2 - w3 < 0) {
        STEP(COMB(PIX(ACC), ROW_VALUE, p, first));
      } else {
        STEP(COMB(PIX(ACC), INNER_VALUE, p, first));
      }
    }
    for (; p < x1 + r; p++) {
      STEP(COMB(PIX(ACC), ROW_VALUE, p, first));
    }
#undef AT
#define AT(T, VALUE, q, first) ((q) >= (first) ? VALUE(q) : (T) 0)
#undef INNER_VALUE
#undef STEP
#undef ROW_VALUE
  }
}
#endif
