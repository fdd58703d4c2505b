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

/* The samples a work-item walks along a line of `length`: on CPUs the
 * whole line (the cores are few); on GPUs runs of 16 taps' outputs, or
 * for boxes, whose runs first walk the 2R positions before them, runs
 * of 4R, at least 64. */
static cl_int
run_length (const ClfPlan * plan, const ClfGaussKernel * g, uint32_t length)
{
  uint32_t run = plan->cpu_kernels ? length : g->n_taps ? 16 :
      MAX (64, 4 * g->radius);
  return (cl_int) MIN (run, length);
}

static bool
set_gauss_args (cl_kernel kernel, cl_mem src, const Placement * in,
    cl_mem dst, const Placement * out, bool keep_from_dst, cl_mem line,
    const ClfView * v, const ClfParams * params, const ClfGaussKernel * g,
    cl_int seg, GError ** error)
{
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
    {sizeof border, &border}, {sizeof seg, &seg},
    {sizeof taps[0], &taps[0]}, {sizeof taps[1], &taps[1]},
    {sizeof n_taps, &n_taps},
    {sizeof w[0], &w[0]}, {sizeof w[1], &w[1]}, {sizeof w[2], &w[2]},
    {sizeof weight, &weight}, {sizeof unsharp, &unsharp},
    {sizeof amount, &amount}, {sizeof threshold, &threshold},
  };
  return clf_set_kernel_args (kernel, args, G_N_ELEMENTS (args), error);
}

bool
clf_gaussian_enqueue (ClfPlan * plan, const KernelSet * set,
    const ClfView * p, const ClfParams * params, cl_mem src,
    const Placement * in, cl_mem dst, const Placement * out,
    bool keep_from_dst, GError ** error)
{
  ClfGaussKernel g;
  clf_gauss_kernel (params->sigma, &g);
  const double reads = (double) clf_view_row_bytes (p) * p->height;
  /* Rows: a work-item a run of a row; columns: a run down a column. */
  const cl_int row_run = run_length (plan, &g, p->width);
  const cl_int column_run = run_length (plan, &g, p->height);
  const size_t rows_global[2] = { p->height,
    clf_ceil_div (p->width, (size_t) row_run)
  };
  const size_t columns_global[2] = { p->width,
    clf_ceil_div (p->height, (size_t) column_run)
  };
  cl_kernel rows = set->kernels[K_GAUSS_ROWS];
  cl_kernel columns = set->kernels[K_GAUSS_COLUMNS];
  return set_gauss_args (rows, src, in, dst, out, keep_from_dst, plan->sums,
      p, params, &g, row_run, error)
      && clf_plan_enqueue_kernel (plan, rows, K_GAUSS_ROWS, rows_global,
      NULL, reads, error)
      && set_gauss_args (columns, src, in, dst, out, keep_from_dst,
      plan->sums, p, params, &g, column_run, error)
      && clf_plan_enqueue_kernel (plan, columns, K_GAUSS_COLUMNS,
      columns_global, NULL, reads, error);
}
