/* gauss_box_rows and gauss_box_rows_wide: the boxes along rows, sums of
 * type ACC (uint, exact modulo 2^32 where the window's sum stays below
 * it; ulong), a work-item per run of `seg` pixels of a row, its samples
 * as one PIX vector (kernels/meson.build's kernel_variants). */

__kernel void KERNEL_NAME(GAUSS_ARGS)
{
  const int y0 = get_global_id(0) * lines, x0 = get_global_id(1) * seg;
  const int y1 = min(y0 + lines, height), x1 = min(x0 + seg, width);
  const INV_T inv = (INV_T) 1 / weight;
  const int r = (w1 + w2 + w3 - 3) / 2, first = x0 - r;
  /* From here on every tap reads from `first` on. */
  const int settled = first + w1 + w2 + w3;
  for (int y = y0; y < y1; y++) {
    __global const S *row = SRC_ROW(y);
    __global uint *out = line + (size_t) y * width * BPP;
#define ROW_VALUE(q) \
  CONVERT_PIX(ACC)(PIXEL_VALUES(row + border_index(q, width, border) * BPP))
#define STEP(COMB_OF)                                                     \
    s1 += COMB_OF;                                                        \
    s2 += s1;                                                             \
    s3 += s2;                                                             \
    if (p >= x0 + r)                                                      \
      STORE_PIX(CONVERT_PIX(uint)(PIX_QUOTIENT(256                       \
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
