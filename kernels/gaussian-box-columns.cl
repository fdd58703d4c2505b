/* gauss_box_columns and gauss_box_columns_wide: the boxes down columns,
 * sums of type ACC (uint, exact modulo 2^32 where the window's sum stays
 * below it; ulong), a work-item per run of GAUSS_RUN samples of a row and
 * `seg` rows (kernels/meson.build's kernel_variants). */

__kernel void KERNEL_NAME(GAUSS_ARGS)
{
  ITEM_RUNS_AND_ROWS;
  const int r = (w1 + w2 + w3 - 3) / 2, first = y0 - r;
  /* From here on every tap reads from `first` on. */
  const int settled = min(first + w1 + w2 + w3, y1 + r);
  const long divisor = 256 * weight, rounding = 128 * weight;
  const INV_T inv = (INV_T) 1 / divisor;
#define LINE_AT(q) H_ROW(border_index(q, height, border))
#define RUN_VALUE(q) RUNV(PASTE(convert_, ACC))(LOAD_RUN_H(LINE_AT(q) + b))
#define SAMPLE_VALUE(q) ((ACC) LINE_AT(q)[s])
#define RUN_STEP(COMB_OF)                                                 \
  s1 += COMB_OF;                                                          \
  s2 += s1;                                                               \
  s3 += s2;                                                               \
  if (p >= y0 + r)                                                        \
    store_run(DST_ROW(p - r) + b, KEEP_ROW(p - r) + b,                    \
        SRC_ROW(p - r) + b, RUNV(convert_int)(RUNV(quotient)(             \
                RUNV(convert_long)(s3) + rounding, divisor, inv)), b,     \
        unsharp, amount, threshold)
#define SAMPLE_STEP(COMB_OF)                                              \
  s1 += COMB_OF;                                                          \
  s2 += s1;                                                               \
  s3 += s2;                                                               \
  if (p >= y0 + r)                                                        \
    store_sample(OUT_ROWS(p - r), (int) quotient((long) s3 + rounding,   \
            divisor, inv), s, unsharp, amount, threshold)
#define UNMASKED(T, VALUE, q, first) VALUE(q)
  for (int b = b0; b < b1; b += GAUSS_RUN) {
    if (b + GAUSS_RUN <= row_units) {
      RUNV(ACC) s1 = 0, s2 = 0, s3 = 0;
      int p = first;
      for (; p < settled; p++) {
        RUN_STEP(COMB(RUNV(ACC), RUN_VALUE, p, first));
      }
#undef AT
#define AT UNMASKED
      for (; p < y1 + r; p++) {
        RUN_STEP(COMB(RUNV(ACC), RUN_VALUE, p, first));
      }
#undef AT
#define AT(T, VALUE, q, first) ((q) >= (first) ? VALUE(q) : (T) 0)
      continue;
    }
    for (int s = b; s < row_units; s++) {
      ACC s1 = 0, s2 = 0, s3 = 0;
      for (int p = first; p < y1 + r; p++) {
        SAMPLE_STEP(COMB(ACC, SAMPLE_VALUE, p, first));
      }
    }
  }
#undef UNMASKED
#undef SAMPLE_STEP
#undef RUN_STEP
#undef SAMPLE_VALUE
#undef RUN_VALUE
#undef LINE_AT
}
