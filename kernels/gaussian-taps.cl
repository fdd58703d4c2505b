/* gauss_tap_rows and gauss_tap_columns: the taps (gaussian.cl), in uint
 * sums, exact: a row's sum is below 65535 * 256, a column's below
 * 65535 * 2^16 - 32768. */

#ifdef WANT_gauss_tap_rows
#if GAUSS_RUN == 16
/* The row sums of a run at c, in a row extended by R either side. */
uint16 taps_run(__global const uint *c, int r, const int *t)
{
  uint16 sum = (uint) t[0] * uints16_at(c);
  for (int k = 1; k <= r; k++)
    sum += (uint) t[k] * (uints16_at(c - k * BPP) + uints16_at(c + k * BPP));
  return sum;
}
#endif

/* H of runs of samples of rows: the row's sum itself (W = 256); runs
 * whose taps reach past an edge, and a row's last, go sample by
 * sample. */
__kernel void gauss_tap_rows(GAUSS_ARGS)
{
  ITEM_RUNS_AND_ROWS;
  UNPACK_TAPS(t);
  const int r = n_taps / 2;
#if GAUSS_RUN == 16
  /* CPUs: whole rows, each extended into the strip's scratch row first
   * (from pixel -R on), so that no run looks up the border. */
  __global uint *e = SCRATCH_ROW(1);
  const int n = (row_units + 2 * r * BPP + 31) / 16 * 16;
  for (int y = y0; y < y1; y++) {
    __global H_T *out = H_ROW(y);
    extend_row(e, SRC_ROW(y), -r, n / BPP, width, border);
#define TAPS_AT(B) (taps_run(e + (B) + r * BPP, r, t))
    ROW_OF_RUNS(out, row_units, TAPS_AT(B));
#undef TAPS_AT
  }
  return;
#endif
  for (int y = y0; y < y1; y++) {
    __global const S *row = SRC_ROW(y);
    __global H_T *out = H_ROW(y);
    for (int b = b0; b < b1; b += GAUSS_RUN) {
      if (b >= r * BPP && b + GAUSS_RUN + r * BPP <= row_units) {
        RUNV(uint) sum = (uint) t[0] * run_values(row + b);
        for (int k = 1; k <= r; k++)
          sum += (uint) t[k] * (run_values(row + b - k * BPP)
              + run_values(row + b + k * BPP));
        STORE_RUN_H(sum, out + b);
        continue;
      }
      for (int s = b; s < min(b + GAUSS_RUN, row_units); s++) {
        const int x = s / BPP, c = s % BPP;
        uint sum = (uint) t[0] * VALUE_OF((uint) row[s]);
        for (int k = 1; k <= r; k++)
          sum += (uint) t[k] * (VALUE_OF((uint) row[border_index(x - k,
                          width, border) * BPP + c])
              + VALUE_OF((uint) row[border_index(x + k, width, border)
                      * BPP + c]));
        out[s] = sum;
      }
    }
  }
}
#endif

#ifdef WANT_gauss_tap_columns
/* The output rows a work-item sums at once: each row of H it loads goes
 * into all of them, so it loads (TAP_BLOCK + 2R) / TAP_BLOCK rows an
 * output row rather than 2R + 1. */
#define TAP_BLOCK 16

/* G of runs of samples down rows y0 .. y0 + seg - 1, a run at a time
 * (its rows of H stay in the cache), TAP_BLOCK rows at a time. */
__kernel void gauss_tap_columns(GAUSS_ARGS)
{
  ITEM_RUNS_AND_ROWS;
  UNPACK_TAPS(t);
  const int r = n_taps / 2;
#define LINE_AT(q) H_ROW(border_index(q, height, border))
  for (int b = b0; b < b1; b += GAUSS_RUN) {
    if (b + GAUSS_RUN <= row_units) {
      for (int yb = y0; yb < y1; yb += TAP_BLOCK) {
        RUNV(uint) sums[TAP_BLOCK];
        for (int m = 0; m < TAP_BLOCK; m++)
          sums[m] = 0;
        for (int q = yb - r; q < yb + TAP_BLOCK + r; q++) {
          const RUNV(uint) h = LOAD_RUN_H(LINE_AT(q) + b);
#pragma unroll
          for (int m = 0; m < TAP_BLOCK; m++) {
            const int k = abs(q - yb - m);
            if (k <= r)
              sums[m] += (uint) t[k] * h;
          }
        }
        for (int m = 0; m < TAP_BLOCK && yb + m < y1; m++)
          store_run(DST_ROW(yb + m) + b, KEEP_ROW(yb + m) + b,
              SRC_ROW(yb + m) + b, RUNV(convert_long)((sums[m] + 32768)
                  >> 16), b, unsharp, amount, threshold);
      }
      continue;
    }
    for (int s = b; s < row_units; s++)
      for (int y = y0; y < y1; y++) {
        uint sum = (uint) t[0] * LINE_AT(y)[s];
        for (int k = 1; k <= r; k++)
          sum += (uint) t[k] * (LINE_AT(y - k)[s] + LINE_AT(y + k)[s]);
        store_sample(OUT_ROWS(y), (sum + 32768) >> 16, s, unsharp, amount,
            threshold);
      }
  }
#undef LINE_AT
}
#endif
