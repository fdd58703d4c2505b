/* mode=gaussian and mode=unsharp on the host: the kernel of a sigma, the
 * checks of the settings and the two passes' launches
 * (kernels/gaussian.cl). */
#include "clf-gaussian.h"

#include <math.h>
#include <string.h>

/* OpenCV's 8-bit kernel: K = round(6 sigma + 1) | 1 samples of the
 * Gaussian, normalised, then made 8-bit fixed point by error diffusion
 * from the outside in, the centre taking what makes the sum 256
 * (getGaussianKernelBitExact, getGaussianKernelFixedPoint_ED). */
static void
gauss_taps (double sigma, ClfGaussKernel * g)
{
  const int n = (int) lrint (sigma * 6 + 1) | 1, half = n / 2;
  const double scale = -0.125 / (sigma * sigma);
  double values[CLF_GAUSS_MAX_TAPS / 2], sum = 0;
  for (int i = 0; i < half; i++) {
    /* x: twice the distance to the centre. */
    const double x = 1 - n + 2 * i;
    values[i] = exp (x * x * scale);
    sum += values[i];
  }
  const double norm = 1 / (sum * 2 + 1);
  double err = 0;
  int32_t placed = 0;
  for (int i = 0; i < half; i++) {
    const double adjusted = values[i] * norm * 256 + err;
    const int32_t v = (int32_t) lrint (adjusted);
    err = adjusted - v;
    g->taps[i] = g->taps[n - 1 - i] = v;
    placed += v;
  }
  g->taps[half] = 256 - 2 * placed;
  g->n_taps = (uint32_t) n;
  g->radius = (uint32_t) half;
  g->weight = 256;
}

/* Three boxes whose variances add up to sigma^2 as closely as odd widths
 * allow (Kovesi): m of width wl, the others wl + 2. */
static void
gauss_boxes (double sigma, ClfGaussKernel * g)
{
  const double var = 12 * sigma * sigma;
  int wl = (int) floor (sqrt (var / 3 + 1));
  if (wl % 2 == 0)
    wl--;
  const long m = CLAMP (lround ((var - 3.0 * wl * wl - 12.0 * wl - 9)
          / (-4.0 * wl - 4)), 0, 3);
  g->weight = 1;
  g->radius = 0;
  for (int i = 0; i < 3; i++) {
    g->widths[i] = (uint32_t) (i < m ? wl : wl + 2);
    g->weight *= g->widths[i];
    g->radius += g->widths[i] / 2;
  }
}

void
clf_gauss_kernel (double sigma, ClfGaussKernel * g)
{
  memset (g, 0, sizeof *g);
  if (sigma <= CLF_GAUSS_TAPS_MAX_SIGMA)
    gauss_taps (sigma, g);
  else
    gauss_boxes (sigma, g);
}

/* The pixels a kernel reaches across: its taps, or its boxes' widths
 * added up (the composite's 2R + 1, and the comb's 2 more). */
static uint32_t
span (const ClfGaussKernel * g)
{
  return g->n_taps ? g->n_taps : g->widths[0] + g->widths[1] + g->widths[2];
}

uint32_t
clf_gauss_max_span (void)
{
  ClfGaussKernel g;
  clf_gauss_kernel (CLF_MAX_SIGMA, &g);
  return MAX (span (&g), CLF_GAUSS_MAX_TAPS);
}

bool
clf_gauss_identity (const ClfParams * params)
{
  ClfGaussKernel g;
  clf_gauss_kernel (params->sigma, &g);
  return g.n_taps == 1;
}

bool
clf_gauss_check (const ClfParams * params, GError ** error)
{
  if (!(params->sigma >= 0 && params->sigma <= CLF_MAX_SIGMA)) {
    clf_set_error (error, CLF_ERROR_INVALID, "sigma %g is outside 0 to %g",
        params->sigma, CLF_MAX_SIGMA);
    return false;
  }
  if (params->mode == CLF_MODE_UNSHARP
      && !(params->amount >= CLF_MIN_AMOUNT
          && params->amount <= CLF_MAX_AMOUNT)) {
    clf_set_error (error, CLF_ERROR_INVALID, "amount %g is outside %g to %g",
        params->amount, CLF_MIN_AMOUNT, CLF_MAX_AMOUNT);
    return false;
  }
  if (params->threshold > UINT16_MAX) {
    clf_set_error (error, CLF_ERROR_INVALID, "threshold %u is above %u",
        params->threshold, UINT16_MAX);
    return false;
  }
  return true;
}

/* The positions a work-item walks along a line of `length`: on CPUs the
 * whole line (the cores are few); on GPUs runs of 32 rows of taps, or
 * for boxes R rounded down to a power of two, from 32 to 128 (a run
 * first reads the 2R + 3 rows of its start once; more, shorter runs won
 * where R is small, and lost where that read outweighs the run:
 * docs/performance/gaussian.md). */
static cl_int
run_length (const ClfPlan * plan, const ClfGaussKernel * g, uint32_t length)
{
  uint32_t run = length;
  if (!plan->cpu_kernels && g->n_taps)
    run = 32;
  else if (!plan->cpu_kernels)
    for (run = 32; run < 128 && run * 2 <= g->radius; run *= 2);
  return (cl_int) MIN (run, length);
}

/* On CPUs, a work-item's strip: rows (of the taps' passes, or the boxes'
 * rows) in as many strips as the blurs' (the rows passes each take a
 * scratch row of the sums: clf_gauss_scratch_pitch); on GPUs a row. */
static cl_int
strip_rows (const ClfPlan * plan, uint32_t rows)
{
  if (!plan->cpu_kernels)
    return 1;
  return (cl_int) clf_strip_rows (rows, plan->compute_units);
}

/* CPUs' boxes down columns: the runs a work-item takes side by side, up
 * to CLF_GAUSS_COLUMN_LINES, while the work-items stay
 * COLUMN_ITEMS_PER_COMPUTE_UNIT (so that a narrow frame keeps every core
 * busy). */
#define COLUMN_ITEMS_PER_COMPUTE_UNIT 4
static cl_int
column_lines (const ClfPlan * plan, size_t runs)
{
  size_t lines = runs / (COLUMN_ITEMS_PER_COMPUTE_UNIT
      * (size_t) plan->compute_units);
  return (cl_int) CLAMP (lines, 1, CLF_GAUSS_COLUMN_LINES);
}

/* Whether the boxes' window sums of values up to `max` can reach 2^31:
 * then they take the kernels of ulong sums.  (Sums from 2^31 to 2^32 in
 * uint came out wrong on NVIDIA's driver, right on PoCL.) */
static bool
wide_sums (uint64_t max, uint64_t weight)
{
  return max * weight >= (UINT64_C (1) << 31);
}

/* The arguments every pass takes (kernels/gaussian.cl's GAUSS_ARGS). */
#define GAUSS_N_ARGS 26

static bool
set_gauss_args (cl_kernel kernel, cl_mem src, const Placement * in,
    cl_mem dst, const Placement * out, bool keep_from_dst, cl_mem line,
    const ClfView * v, const ClfParams * params, const ClfGaussKernel * g,
    cl_int seg, cl_int lines, cl_int starts, GError ** error)
{
  cl_ulong scratch_off = clf_gauss_scratch_offset (v);
  cl_int scratch_pitch = (cl_int) clf_gauss_scratch_pitch (v, span (g));
  cl_uint src_off = (cl_uint) in->offset, src_stride = (cl_uint) in->stride;
  cl_uint dst_off = (cl_uint) out->offset, dst_stride = (cl_uint) out->stride;
  cl_int keep_dst = keep_from_dst;
  cl_int width = (cl_int) v->width, height = (cl_int) v->height;
  cl_int border = (cl_int) params->border, n_taps = (cl_int) g->n_taps;
  cl_int w[3] = { (cl_int) g->widths[0], (cl_int) g->widths[1],
    (cl_int) g->widths[2]
  };
  cl_long weight = (cl_long) g->weight;
  /* From the centre out, 16 a vector. */
  cl_int16 taps[2];
  memset (taps, 0, sizeof taps);
  for (uint32_t k = 0; g->n_taps && k <= g->radius; k++)
    taps[k / 16].s[k % 16] = g->taps[g->radius + k];
  cl_int unsharp = params->mode == CLF_MODE_UNSHARP;
  cl_int amount = (cl_int) lround (params->amount * 256);
  cl_int threshold = (cl_int) params->threshold;
  const ClfKernelArg args[] = {
    {sizeof src, &src}, {sizeof src_off, &src_off},
    {sizeof src_stride, &src_stride}, {sizeof dst, &dst},
    {sizeof dst_off, &dst_off}, {sizeof dst_stride, &dst_stride},
    {sizeof keep_dst, &keep_dst}, {sizeof line, &line},
    {sizeof width, &width}, {sizeof height, &height},
    {sizeof border, &border}, {sizeof seg, &seg}, {sizeof lines, &lines},
    {sizeof taps[0], &taps[0]}, {sizeof taps[1], &taps[1]},
    {sizeof n_taps, &n_taps},
    {sizeof w[0], &w[0]}, {sizeof w[1], &w[1]}, {sizeof w[2], &w[2]},
    {sizeof weight, &weight}, {sizeof unsharp, &unsharp},
    {sizeof amount, &amount}, {sizeof threshold, &threshold},
    {sizeof scratch_off, &scratch_off},
    {sizeof scratch_pitch, &scratch_pitch}, {sizeof starts, &starts},
  };
  G_STATIC_ASSERT (G_N_ELEMENTS (args) == GAUSS_N_ARGS);
  return clf_set_kernel_args (kernel, args, G_N_ELEMENTS (args), error);
}

/* A pass: `id` over `global` work-items, in work-groups of `local` (NULL:
 * the driver's choice; CPUs: one), each `lines` lines of `seg`
 * positions; `local_bytes` of local memory as the argument after
 * GAUSS_ARGS where not 0; `starts`, see gaussian-box-starts.cl. */
typedef struct
{
  KernelId id;
  size_t global[2];
  const size_t *local;
  cl_int seg, lines, starts;
  size_t local_bytes;
} GaussPass;

static bool
enqueue_gauss_pass (ClfPlan * plan, const KernelSet * set,
    const GaussPass * pass, cl_mem src, const Placement * in, cl_mem dst,
    const Placement * out, bool keep_from_dst, const ClfView * p,
    const ClfParams * params, const ClfGaussKernel * g, GError ** error)
{
  static const size_t one[2] = { 1, 1 };
  const double reads = (double) clf_view_row_bytes (p) * p->height;
  cl_kernel kernel = set->kernels[pass->id];
  const ClfKernelArg local_mem = { pass->local_bytes, NULL };
  return set_gauss_args (kernel, src, in, dst, out, keep_from_dst,
      plan->sums, p, params, g, pass->seg, pass->lines, pass->starts, error)
      && (!pass->local_bytes || clf_set_kernel_args_from (kernel,
          GAUSS_N_ARGS, &local_mem, 1, error))
      && clf_plan_enqueue_kernel (plan, kernel, pass->id, pass->global,
      plan->cpu_kernels ? one : pass->local, reads, error);
}

/* GPUs' taps along rows (gaussian-taps.cl): a work-group a stretch of a
 * row, the pixels it reads in local memory. */
static void
gpu_tap_rows (const ClfView * p, GaussPass * rows)
{
  static const size_t tap_group[2] = { CLF_GAUSS_TAP_GROUP, 1 };
  rows->global[0] = clf_ceil_div (p->width, CLF_GAUSS_TAP_GROUP
      * CLF_GAUSS_TAP_PIXELS) * CLF_GAUSS_TAP_GROUP;
  rows->global[1] = p->height;
  rows->local = tap_group;
}

/* GPUs' boxes along rows (gaussian-box-rows.cl): a work-group a row, the
 * chunk's values and the span before it in local memory. */
static void
gpu_box_rows (const ClfView * p, const ClfGaussKernel * g, GaussPass * rows)
{
  static const size_t row_group[2] = { CLF_GAUSS_ROW_GROUP, 1 };
  rows->global[0] = CLF_GAUSS_ROW_GROUP;
  rows->global[1] = p->height;
  rows->local = row_group;
  rows->seg = rows->lines = 1;
  rows->local_bytes = (span (g) + CLF_GAUSS_ROW_GROUP * CLF_GAUSS_ROW_STEPS)
      * p->units * sizeof (cl_ushort);
}

/* Whether GPUs' boxes down columns start their runs from the scan's
 * states (gaussian-box-starts.cl) rather than each from the 2R + 3 rows
 * before it: the states cost a walk of their own, which pays only where
 * the starts cost more (above R = CLF_GAUSS_STATES_MIN_RADIUS). */
static bool
use_states (const ClfPlan * plan, const ClfView * p, const ClfGaussKernel * g,
    const GaussPass * columns)
{
  return !plan->cpu_kernels && g->radius > CLF_GAUSS_STATES_MIN_RADIUS
      && columns->id == K_GAUSS_BOX_COLUMNS_WIDE
      && clf_view_row_units (p) >= clf_gauss_run (false);
}

/* The states' passes, and the columns' runs that start from them. */
static void
column_states (const ClfView * p, const ClfGaussKernel * g,
    GaussPass * columns, GaussPass * states, GaussPass * scan)
{
  const uint32_t seg = CLF_GAUSS_STATE_RUN;
  const size_t full_runs = clf_view_row_units (p) / clf_gauss_run (false);
  const size_t down = clf_ceil_div (p->height, seg);
  columns->seg = (cl_int) seg;
  columns->global[1] = down;
  columns->starts = (cl_int) clf_ceil_div (span (g), seg);
  *states = *columns;
  *scan = *columns;
  states->id = K_GAUSS_BOX_STARTS;
  scan->id = K_GAUSS_BOX_SCAN;
  states->global[0] = scan->global[0] = full_runs;
  states->global[1] = (size_t) columns->starts + down - 1;
  scan->global[1] = 1;
}

bool
clf_gaussian_enqueue (ClfPlan * plan, const KernelSet * set,
    const ClfView * p, const ClfParams * params, cl_mem src,
    const Placement * in, cl_mem dst, const Placement * out,
    bool keep_from_dst, GError ** error)
{
  ClfGaussKernel g;
  clf_gauss_kernel (params->sigma, &g);
  const uint64_t max = (UINT64_C (1) << p->depth) - 1;
  const size_t runs = clf_ceil_div (clf_view_row_units (p),
      clf_gauss_run (plan->cpu_kernels));
  GaussPass rows = { 0 }, columns = { 0 }, states = { 0 }, scan = { 0 };
  if (g.n_taps) {
    /* Both passes: runs of a row, a strip of rows (CPUs: whole rows). */
    rows.id = K_GAUSS_TAP_ROWS;
    columns.id = K_GAUSS_TAP_COLUMNS;
    rows.lines = columns.lines = plan->cpu_kernels ? (cl_int) runs : 1;
    rows.seg = strip_rows (plan, p->height);
    columns.seg = plan->cpu_kernels ? rows.seg : run_length (plan, &g,
        p->height);
    rows.global[0] = clf_ceil_div (runs, (size_t) rows.lines);
    rows.global[1] = clf_ceil_div (p->height, (size_t) rows.seg);
    columns.global[0] = rows.global[0];
    if (!plan->cpu_kernels)
      gpu_tap_rows (p, &rows);
    columns.global[1] = clf_ceil_div (p->height, (size_t) columns.seg);
  } else {
    rows.id = wide_sums (max, g.weight) ? K_GAUSS_BOX_ROWS_WIDE :
        K_GAUSS_BOX_ROWS;
    columns.id = wide_sums (256 * max, g.weight) ? K_GAUSS_BOX_COLUMNS_WIDE :
        K_GAUSS_BOX_COLUMNS;
    /* Rows: on GPUs a row a work-group, on CPUs a strip of whole rows;
     * columns: a run of samples down a run of rows (CPUs: whole
     * columns), walking the span before it. */
    if (plan->cpu_kernels) {
      rows.lines = strip_rows (plan, p->height);
      rows.seg = (cl_int) p->width;
      rows.global[0] = clf_ceil_div (p->height, (size_t) rows.lines);
      rows.global[1] = 1;
    } else
      gpu_box_rows (p, &g, &rows);
    columns.lines = plan->cpu_kernels ? column_lines (plan, runs) : 1;
    columns.seg = run_length (plan, &g, p->height);
    columns.global[0] = clf_ceil_div (runs, (size_t) columns.lines);
    columns.global[1] = clf_ceil_div (p->height, (size_t) columns.seg);
    if (use_states (plan, p, &g, &columns))
      column_states (p, &g, &columns, &states, &scan);
  }
  return enqueue_gauss_pass (plan, set, &rows, src, in, dst, out,
      keep_from_dst, p, params, &g, error)
      && (!states.global[0] || (enqueue_gauss_pass (plan, set, &states, src,
              in, dst, out, keep_from_dst, p, params, &g, error)
          && enqueue_gauss_pass (plan, set, &scan, src, in, dst, out,
              keep_from_dst, p, params, &g, error)))
      &&enqueue_gauss_pass (plan, set, &columns, src, in, dst, out,
      keep_from_dst, p, params, &g, error);
}
