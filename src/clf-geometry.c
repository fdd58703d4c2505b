/* Geometry: the sizes the kernels are run at and given, from a view, a
 * layout and the device's compute units: work sizes, tiles, chunks,
 * strips, the sums buffer and the mean's divider.  Pure arithmetic on the
 * catalogue: no OpenCL call here. */
#include "clf-geometry.h"

/* The rows of a column segment that one column_sums work-item walks: as
 * long as the window (2r+1), so seeding the first window costs at most one
 * extra read per pixel, but within these bounds.  Longer segments leave
 * too few work-items to hide memory latency (measurements:
 * docs/performance/tuning.md). */
#define SLIDING_MIN_SEGMENT 64
#define SLIDING_MAX_SEGMENT 128

/* Strips per compute unit: two, so a core that finishes early takes
 * another; but one where a strip would be shorter than the window, since
 * seeding its first window costs a sixth of as many rows or more.  Always
 * a whole number a unit: an odd number of strips a unit leaves cores idle
 * at the end (measurements: docs/performance/tuning.md). */
#define STRIPS_PER_COMPUTE_UNIT 2

/* Whether a window of radius r over values of `depth` bits can sum, with
 * the mean's rounding N/2, to 2^32 or more: N * (2^depth - 1) + N/2 >=
 * 2^32.  16-bit values from r=128 on, 12-bit from r=512, 10-bit never. */
bool
clf_needs_wide_sums (const ClfView * v, uint32_t radius)
{
  uint64_t area = (2 * (uint64_t) radius + 1) * (2 * (uint64_t) radius + 1);
  return v->sample_bytes == 2
      && area * ((UINT64_C (2) << v->depth) - 1) >= (UINT64_C (1) << 33);
}

size_t
clf_strip_rows (size_t rows, cl_uint compute_units)
{
  return clf_ceil_div (rows, (size_t) compute_units * STRIPS_PER_COMPUTE_UNIT);
}

uint64_t
clf_gauss_scratch_offset (const ClfView * v)
{
  return ((uint64_t) clf_view_row_units (v) * v->height + 15) / 16 * 16;
}

uint64_t
clf_gauss_states_bytes (const ClfView * v, uint32_t span)
{
  const uint64_t slots = clf_ceil_div (span, CLF_GAUSS_STATE_RUN)
      + clf_ceil_div (v->height, CLF_GAUSS_STATE_RUN);
  return slots * (clf_view_row_units (v) / clf_gauss_run (false)) * 3
      * clf_gauss_run (false) * sizeof (cl_ulong);
}

uint32_t
clf_gauss_scratch_pitch (const ClfView * v, uint32_t span)
{
  return (clf_view_row_units (v) + span * v->units + 31) / 16 * 16;
}

/* Bytes of the sums buffer a blur of view v needs: a 32-bit sum per
 * sample, and where 64-bit sums may be needed, 8 bytes more per sample
 * after them (the GPU sliding blur's prefix sums; see prefix_row in
 * blur-sliding-gpu.cl).  CPUs' sliding strips each keep a row of column sums and one
 * of their prefix sums, or a row of column sums with room for the
 * window's reach either side (strip_for in blur-strips-cpu.cl), and a view has at
 * most STRIPS_PER_COMPUTE_UNIT strips a compute unit; their Gaussian
 * rows passes, H of the whole view and a scratch row a strip. */
uint64_t
clf_view_sums_bytes (const ClfView * v, bool cpu_kernels,
    cl_uint compute_units, uint32_t gauss_span)
{
  uint64_t samples = (uint64_t) clf_view_row_units (v) * v->height;
  uint64_t narrow = clf_gauss_scratch_offset (v) * sizeof (cl_uint);
  uint64_t bytes = narrow + (clf_needs_wide_sums (v, CLF_MAX_RADIUS) ?
      samples * sizeof (cl_ulong) : 0);
  if (!cpu_kernels)
    bytes = MAX (bytes, narrow + clf_gauss_states_bytes (v, gauss_span));
  else {
    uint64_t row = clf_view_row_units (v);
    uint64_t pads = 2 * (uint64_t) (CLF_MAX_RADIUS + 1) * v->units;
    uint64_t padded_row = row + (row > pads ? row : pads);
    uint64_t strips = (uint64_t) STRIPS_PER_COMPUTE_UNIT
        * compute_units * padded_row * sizeof (cl_uint);
    uint64_t gauss = narrow + (uint64_t) STRIPS_PER_COMPUTE_UNIT
        * compute_units * clf_gauss_scratch_pitch (v, gauss_span)
        * sizeof (cl_uint);
    bytes = MAX (bytes, MAX (strips, gauss));
  }
  return bytes;
}

/* The multiplier and shift that divide by the window's area N in the
 * kernels (see Mean in common.cl): mul = ceil(2^s / N), exact for sums
 * D < 2^bits when s = bits + L, L = ceil(log2 N).  8-bit: bits = 30, the
 * kernels shift by s.  16-bit values of `depth` bits: D < 2^(depth + L);
 * where depth + L <= 31, s = depth + 2L keeps D * mul below 2^64 and the
 * kernels shift by s; else bits = 38 and they take the high word of a
 * 128-bit product, shifting by 64 - s first (passed negated). */
void
clf_mean_divider (uint32_t radius, uint32_t sample_bytes, uint32_t depth,
    cl_ulong * mul, cl_int * shift)
{
  uint64_t area = (2 * (uint64_t) radius + 1) * (2 * (uint64_t) radius + 1);
  int log2_ceil = 0;
  while ((UINT64_C (1) << log2_ceil) < area)
    log2_ceil++;
  bool narrow = sample_bytes == 1 || (int) depth + log2_ceil <= 31;
  int s = sample_bytes == 1 ? 30 + log2_ceil : narrow ?
      (int) depth + 2 * log2_ceil : 38 + log2_ceil;
  *mul = ((UINT64_C (1) << s) + area - 1) / area;
  *shift = narrow ? s : -(64 - s);
}

/* The pixels of a tile (sliding_tiles, separable_tiles): as
 * tile_width_at in blur-tiles-gpu.cl, the pixels whose column sums a work-group
 * keeps, less r either side and a run but a pixel, as whole runs. */
static int64_t
tile_width (const ClfLayout * layout, uint32_t radius)
{
  int64_t run = clf_tile_run_pixels (layout);
  return (CLF_TILE_GROUP * run - 2 * (int64_t) radius - (run - 1)) / run * run;
}

/* A tile keeps 16 rows: fewer rows per work-group repeat the first
 * window's rows more, more rows leave too few work-groups.  Half as many,
 * down to 4 (a block of separable_tiles), while a frame would give fewer
 * than 4 work-groups a compute unit: 16 rows leave most of a large GPU's
 * units one group or two at 1920x1080 and below (measurements:
 * docs/performance/tuning.md). */
#define TILE_ROWS_MAX 16
#define TILE_ROWS_MIN 4
#define TILE_GROUPS_PER_UNIT 4

static size_t
tile_rows (cl_uint compute_units, size_t tiles_wide, size_t height)
{
  size_t rows = TILE_ROWS_MAX;
  while (rows > TILE_ROWS_MIN && tiles_wide * clf_ceil_div (height, rows)
      < TILE_GROUPS_PER_UNIT * (size_t) compute_units)
    rows /= 2;
  return rows;
}

/* The pixels of a row that a narrow_row_means work-group takes, and how
 * many such chunks a row has: at most what its local memory holds less
 * r either side (as in blur-sliding-gpu.cl), the chunks of a row as even as may be. */
static size_t
narrow_chunk (const ClfLayout * layout, const ClfView * p, uint32_t radius,
    size_t *chunks)
{
  size_t most = clf_narrow_pixels (layout) - 2 * (size_t) radius;
  *chunks = clf_ceil_div (p->width, most);
  return clf_ceil_div (p->width, *chunks);
}

/* The rows a pass's window spans: laplace's are 3 whatever the radius. */
static size_t
pass_window (const Pass * pass, const ClfParams * params)
{
  if (pass->kernel == K_LAPLACE_WORDS || pass->kernel == K_LAPLACE_STRIPS)
    return 3;
  return 2 * (size_t) params->radius + 1;
}

/* The global size of a pass over view p, and its `seg` argument. */
size_t
clf_work_shape_size (cl_uint compute_units, const ClfLayout * layout,
    size_t group, const Pass * pass, const ClfView * p,
    const ClfParams * params, size_t global[2])
{
  size_t window = pass_window (pass, params);
  size_t segment = window > SLIDING_MAX_SEGMENT ? SLIDING_MAX_SEGMENT :
      window > SLIDING_MIN_SEGMENT ? window : SLIDING_MIN_SEGMENT;

  global[0] = p->width;
  global[1] = p->height;
  switch (pass->shape) {
    case COLUMN_SEGMENT:
      global[0] = clf_ceil_div (clf_view_row_units (p), pass->units);
      global[1] = clf_ceil_div (p->height, segment);
      return segment;
    case ROW_GROUP:
      global[0] = 1;            /* rounded up to one work-group */
      return segment;
    case ROW_RUN:
      global[0] = clf_ceil_div (clf_view_row_units (p), pass->units);
      global[1] = clf_ceil_div (p->height, pass->rows);
      return pass->rows;
    case TILE:{
      size_t tiles_wide = clf_ceil_div (p->width, (size_t) tile_width (layout,
              params->radius));
      segment = tile_rows (compute_units, tiles_wide, p->height);
      global[0] = tiles_wide * group;
      global[1] = clf_ceil_div (p->height, segment);
      return segment;
    }
    case ROW_CHUNKS:{
      size_t chunks, chunk = narrow_chunk (layout, p, params->radius, &chunks);
      global[0] = chunks * group;
      return chunk;
    }
    case STRIP:{
      size_t shortest = clf_strip_rows (p->height, compute_units);
      size_t longest = clf_ceil_div (p->height, compute_units);
      segment = window > shortest ? longest : shortest;
      global[0] = clf_ceil_div (p->height, segment);
      global[1] = 1;
      return segment;
    }
    default:
      return segment;
  }
}

/* The work-group size of a pass, or NULL for the driver's choice.  A strip
 * is a task for one core: alone in its work-group, so the device spreads
 * the strips over its cores.  GPU kernels get their group size, and the
 * global size is rounded up to it: the kernels skip work-items past the
 * plane. */
const size_t *
clf_pass_local_size (bool cpu_kernels, size_t group, const Pass * pass,
    size_t global[2], size_t local[2])
{
  local[0] = local[1] = 1;
  if (pass->shape == STRIP)
    return local;
  if (cpu_kernels)
    return NULL;
  local[0] = group;
  global[0] = clf_ceil_div (global[0], local[0]) * local[0];
  return local;
}
