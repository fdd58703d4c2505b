/* convolve_tiles_float and convolve_tiles_float_tall, on GPUs, where sums
 * are exact in floats (convolve.cl's float section says how): the kernel
 * KERNEL_NAME with ROWS rows a work-item (4, 8 for the _tall one) and
 * GROUP_Y work-items a column (CONV_FLOAT_GROUP_Y, CONV_TALL_GROUP_Y),
 * built once for each (kernels/meson.build's kernel_variants).  Each
 * kernel column runs over its span, the rows from its first coefficient
 * that is not zero to its last (a motion blur's band: 14 of its 49
 * steps); a whole column from constant bounds, and, for the sizes the
 * switch below lists, with its loop's turns known. */

__kernel __attribute__((reqd_work_group_size(CONV_FLOAT_GROUP_X, GROUP_Y,
        1)))
void KERNEL_NAME(CONVOLVE_ARGS, __local PASTE(FLOAT_TILE, ROWS) *tile)
{
  const int lx = get_local_id(0), ly = get_local_id(1);
  /* The tile: rows of CONV_FLOAT_SIDE pixels from the block's top row
   * less r, staged under the border rule by the GROUP_Y rows of the
   * work-group for its block of ROWS GROUP_Y rows, in the kernel's
   * layout.  Loops of constant counts,
   * unrolled: each work-item's reads are all in flight at once.  A
   * work-item stages one or two columns (2 CONV_MAX_RADIUS <
   * CONV_FLOAT_GROUP_X).  The block's first pixel from get_global_id, as
   * the tiles'. */
  const int x0 = (int) get_global_id(0) - lx - radius;
  const int y0 = ((int) get_global_id(1) - ly) * ROWS - radius;
  const int rx0 = border_index(x0 + lx, width, border) * BPP;
  const int rx1 = border_index(x0 + lx + CONV_FLOAT_GROUP_X, width, border)
      * BPP;
#pragma unroll
  for (int m = 0;
      m < (ROWS * GROUP_Y + 2 * CONV_MAX_RADIUS + GROUP_Y - 1) / GROUP_Y;
      m++) {
    const int ty = ly + m * GROUP_Y;
    if (ty < ROWS * GROUP_Y + 2 * radius) {
      __global const S *row = SRC_ROW(border_index(y0 + ty, height, border));
      PASTE(stage_float, ROWS)(tile + ty * CONV_FLOAT_SIDE + lx, row + rx0);
      if (lx < 2 * radius)
        PASTE(stage_float, ROWS)(tile + ty * CONV_FLOAT_SIDE + lx
            + CONV_FLOAT_GROUP_X, row + rx1);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int x = get_global_id(0);
  const int y = get_global_id(1) * ROWS;
  if (x >= width || y >= height)
    return;
  const int k_side = 2 * radius + 1;
  FV s[ROWS];
#pragma unroll
  for (int o = 0; o < ROWS; o++)
    s[o] = 0;
  __constant const int *spans = coeffs + 2 * k_side * k_side
      + max(2 * n_taps, 1);
  for (int j = 0; j < k_side; j++) {
    __local const PASTE(FLOAT_TILE, ROWS) *col =
        tile + ly * ROWS * CONV_FLOAT_SIDE + lx + j;
    __constant const int *kj = coeffs + k_side * k_side + j;
    const int first = spans[2 * j], end = spans[2 * j + 1];
    if (first == 0 && end == k_side) {
      switch (k_side) {
#if ROWS == 4
        case 7:
          float_column4(s, col, kj, k_side, 0, 7);
          break;
#else
        case 9:
          float_column8(s, col, kj, k_side, 0, 9);
          break;
        case 11:
          float_column8(s, col, kj, k_side, 0, 11);
          break;
        case 13:
          float_column8(s, col, kj, k_side, 0, 13);
          break;
        case 15:
          float_column8(s, col, kj, k_side, 0, 15);
          break;
#endif
        default:
          PASTE(float_column, ROWS)(s, col, kj, k_side, 0, k_side);
      }
    } else if (first < end) {
      PASTE(float_column, ROWS)(s, col, kj, k_side, first, end);
    }
  }
  /* store_float_sums reads its sums from memory: it takes a copy, so that
   * s, whose address nothing else keeps, stays in registers through the
   * columns. */
  FV sums[ROWS];
#pragma unroll
  for (int o = 0; o < ROWS; o++)
    sums[o] = s[o];
  store_float_sums(sums, ROWS, dst, dst_off, dst_stride, src, src_off,
      src_stride, keep_dst, x, y, height, divide_of(rounding, abs_divisor,
          mul, shift, negative, bias), as_float(spans[2 * k_side]));
}
