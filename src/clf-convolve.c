/* mode=convolve on the host: a kernel's checks, its divisor, whether its
 * sums need 64 bits, its rank-1 factors, its coefficients on the device
 * and its launches (kernels/convolve.cl). */
#include "clf-convolve.h"

#include <stdlib.h>
#include <string.h>

/* A kernel as its passes take it: worked out, and copied to the device,
 * when the kernel or the depth changes, not for every frame. */
typedef struct
{
  cl_mem coeffs;                /* setup.coeffs on the device */
  ClfKernel kernel;
  uint32_t depth;
  ClfConvolveSetup setup;
} ConvolveKernel;

/* A plan's: its kernel's, and neutral chroma's fill. */
struct ClfConvolve
{
  ConvolveKernel filter;
  ConvolveKernel fill;
};

bool
clf_kernel_check (const ClfKernel * kernel, GError ** error)
{
  if (kernel->size < 1 || kernel->size > CLF_MAX_KERNEL_SIZE
      || kernel->size % 2 == 0) {
    clf_set_error (error, CLF_ERROR_INVALID, "a convolution kernel is K x K "
        "with K odd, 1 to %d; this one is %u x %u", CLF_MAX_KERNEL_SIZE,
        kernel->size, kernel->size);
    return false;
  }
  if ((unsigned) kernel->chroma > CLF_CHROMA_NEUTRAL) {
    clf_set_error (error, CLF_ERROR_INVALID, "invalid chroma rule %d for a "
        "convolution kernel", (int) kernel->chroma);
    return false;
  }
  return true;
}

int64_t
clf_convolve_divisor (const ClfKernel * kernel)
{
  if (kernel->divisor != 0)
    return kernel->divisor;
  int64_t sum = 0;
  for (uint32_t i = 0; i < kernel->size * kernel->size; i++)
    sum += kernel->coeffs[i];
  return sum != 0 ? sum : 1;
}

/* u and v with k[i][j] = u[i] v[j], v taken from the first row that is
 * not zero divided by its entries' greatest common divisor (its first
 * entry that is not zero made positive): any integer factorisation's v
 * is a multiple of it, so where one exists this one does, with integer
 * u.  A kernel of zeros is u = 0. */
bool
clf_convolve_rank1 (const ClfKernel * kernel, int32_t * u, int32_t * v)
{
  const uint32_t n = kernel->size;
  const int32_t *k = kernel->coeffs;
  uint32_t row = 0, lead = n;
  for (; row < n && lead == n; row += lead == n)
    for (lead = 0; lead < n && k[row * n + lead] == 0;)
      lead++;
  if (lead == n) {
    memset (u, 0, n * sizeof *u);
    memset (v, 0, n * sizeof *v);
    v[0] = 1;
    return true;
  }
  /* v[lead] > 0, so |u[i]| <= |k[i][lead]| fits 32 bits. */
  int64_t g = 0;
  for (uint32_t j = 0; j < n; j++) {
    int64_t a = llabs (k[row * n + j]), b = g;
    while (b) {
      int64_t t = a % b;
      a = b;
      b = t;
    }
    g = a;
  }
  if (k[row * n + lead] < 0)
    g = -g;
  for (uint32_t j = 0; j < n; j++)
    v[j] = (int32_t) (k[row * n + j] / g);      /* |v[j]| <= |k| */
  for (uint32_t i = 0; i < n; i++) {
    int64_t ui = (int64_t) k[i * n + lead] / v[lead];
    for (uint32_t j = 0; j < n; j++)
      if (ui * v[j] != k[i * n + j])
        return false;
    u[i] = (int32_t) ui;
  }
  return true;
}

/* ceil(log2 n), n >= 1. */
static int
log2_ceil (uint64_t n)
{
  int l = 0;
  while ((UINT64_C (1) << l) < n)
    l++;
  return l;
}

/* The next float above a positive normal one. */
static float
next_float_up (float f)
{
  uint32_t bits;
  memcpy (&bits, &f, sizeof bits);
  bits++;
  memcpy (&f, &bits, sizeof f);
  return f;
}

/* Taps in order of coefficient, then of place. */
static int
compare_taps (const void *a, const void *b)
{
  const cl_int *x = a, *y = b;
  if (x[1] != y[1])
    return x[1] < y[1] ? -1 : 1;
  return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The taps: where and k[i][j] of each coefficient that is not zero (the
 * products of zeros are not worth their loads: the motion-blur preset has
 * 14 of 49), in rows, or by coefficient for the CPUs' strips (which add
 * the values of a run of taps with one coefficient, then multiply). */
static void
add_taps (const ClfKernel * kernel, uint32_t tap_row, bool by_coefficient,
    ClfConvolveSetup * setup)
{
  const uint32_t n = kernel->size;
  cl_int *taps = setup->coeffs + setup->n_coeffs;
  uint32_t t = 0;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < n; j++)
      if (kernel->coeffs[i * n + j] != 0) {
        taps[2 * t] = (cl_int) (i * tap_row + j);
        taps[2 * t + 1] = kernel->coeffs[i * n + j];
        t++;
      }
  if (by_coefficient)
    qsort (taps, t, 2 * sizeof *taps, compare_taps);
  setup->n_taps = (cl_int) t;
  /* A kernel of zeros has no taps, and a buffer no size of 0. */
  setup->n_coeffs += MAX (2 * t, 1);
}

/* Each column's span: its first row whose coefficient is not zero and
 * one past its last, (0, 0) for a column of zeros, so that the float
 * tiles skip the rows of zeros above and below (a motion blur is a band). */
static void
add_column_spans (const ClfKernel * kernel, ClfConvolveSetup * setup)
{
  const uint32_t n = kernel->size;
  cl_int *spans = setup->coeffs + setup->n_coeffs;
  for (uint32_t j = 0; j < n; j++) {
    cl_int first = -1, end = 0;
    for (uint32_t i = 0; i < n; i++)
      if (kernel->coeffs[i * n + j] != 0) {
        first = first < 0 ? (cl_int) i : first;
        end = (cl_int) i + 1;
      }
    spans[2 * j] = MAX (first, 0);
    spans[2 * j + 1] = end;
  }
  setup->n_coeffs += 2 * n;
}

void
clf_convolve_setup (const ClfKernel * kernel, uint32_t depth,
    bool cpu_kernels, ClfConvolveSetup * setup)
{
  const uint32_t n = kernel->size, area = n * n;
  int64_t d = clf_convolve_divisor (kernel);
  uint64_t abs_sum = 0;

  memset (setup, 0, sizeof *setup);
  setup->size = n;
  setup->radius = n / 2;
  for (uint32_t i = 0; i < area; i++)
    abs_sum += (uint64_t) llabs (kernel->coeffs[i]);
  int32_t u[CLF_MAX_KERNEL_SIZE], v[CLF_MAX_KERNEL_SIZE];
  /* A kernel of one row or one column gains nothing in two passes; the
   * CPUs' strips take any kernel in one. */
  setup->rank1 = !cpu_kernels && n > 1 && clf_convolve_rank1 (kernel, u, v);
  if (setup->rank1) {
    memcpy (setup->coeffs, u, n * sizeof *u);
    memcpy (setup->coeffs + n, v, n * sizeof *v);
    setup->n_coeffs = 2 * n;
  } else {
    memcpy (setup->coeffs, kernel->coeffs, area * sizeof *kernel->coeffs);
    for (uint32_t i = 0; i < area; i++) {
      /* Exact where the float kernel is taken (|k| <= 2^24). */
      float f = (float) kernel->coeffs[i];
      memcpy (&setup->coeffs[area + i], &f, sizeof f);
    }
    setup->n_coeffs = 2 * area;
    add_taps (kernel, cpu_kernels ? CLF_CONV_TAP_ROW :
        CLF_CONV_GROUP + 2 * setup->radius, cpu_kernels, setup);
    add_column_spans (kernel, setup);
  }
  setup->abs_divisor = d < 0 ? -(uint64_t) d : (uint64_t) d;
  if (!setup->rank1) {
    /* 1 / |d| for the float quotients: rounded to nearest for the GPUs'
     * tiles, up for the CPUs' strips (c |d| is exact in doubles). */
    float inv = (float) (1.0 / (double) setup->abs_divisor);
    if (cpu_kernels && (double) inv * (double) setup->abs_divisor < 1.0)
      inv = next_float_up (inv);
    memcpy (&setup->coeffs[setup->n_coeffs++], &inv, sizeof inv);
  }
  setup->half = setup->abs_divisor / 2;
  setup->negative = d < 0;
  setup->bias = kernel->bias;
  /* |S| <= max * sum |k| (a rank-1 kernel's row sums too: sum |k| = sum
   * |u| sum |v|): below 2^55. */
  uint64_t largest = ((UINT64_C (1) << depth) - 1) * abs_sum + setup->half;
  setup->wide = largest >= (UINT64_C (1) << 31);
  /* Floats hold every sum, |S| + half, the remainder of the quotient's
   * estimate (|r| < 2 |d|) and the bias exactly (see out_value_float). */
  setup->float_sums = largest <= (UINT64_C (1) << 24)
      && setup->abs_divisor < (UINT64_C (1) << 23)
      && llabs (setup->bias) <= (INT64_C (1) << 24);
  /* The strips' truncated quotients: with c = 1 / |d| rounded up, n c is
   * below n / |d| + n 2^-23 / |d|, and n = q |d| + r with r <= |d| - 1,
   * so n c < q + 1 - (1 - n 2^-23) / |d|; rounded to a float (half an
   * ulp, at most (q + 1) 2^-24) it stays below q + 1 where 3 n + |d| + 1
   * < 2^24, and it is at least q. */
  setup->float_quotients = 3 * largest + setup->abs_divisor + 1
      < (UINT64_C (1) << 24);
  if (!setup->wide) {
    /* |d| <= 2 half + 1 < 2^32: shift <= 63. */
    setup->shift = 31 + log2_ceil (setup->abs_divisor);
    setup->mul = ((UINT64_C (1) << setup->shift) + setup->abs_divisor - 1)
        / setup->abs_divisor;
    g_assert (setup->mul < (UINT64_C (1) << 32));
  }
}

void
clf_convolve_free (ClfConvolve * convolve)
{
  if (!convolve)
    return;
  if (convolve->filter.coeffs)
    clReleaseMemObject (convolve->filter.coeffs);
  if (convolve->fill.coeffs)
    clReleaseMemObject (convolve->fill.coeffs);
  g_free (convolve);
}

/* `kernel` for samples of `depth` bits in `conv`, its setup and the
 * device's copy of its coefficients made anew when either changes: a
 * buffer made from host memory with CL_MEM_COPY_HOST_PTR, so a frame in
 * flight keeps the one it was enqueued with (released, it lives until
 * its commands end) and no write waits for it. */
static const ConvolveKernel *
convolve_for (ClfPlan * plan, ConvolveKernel * conv, const ClfKernel * kernel,
    uint32_t depth, GError ** error)
{
  if (conv->coeffs && conv->depth == depth
      && memcmp (&conv->kernel, kernel, sizeof *kernel) == 0)
    return conv;
  ClfConvolveSetup setup;
  clf_convolve_setup (kernel, depth, plan->cpu_kernels, &setup);
  cl_int status;
  cl_mem mem = clCreateBuffer (clf_engine_context (plan->engine),
      CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
      setup.n_coeffs * sizeof (cl_int), setup.coeffs, &status);
  CLF_CHECK (error, fail, status, "clCreateBuffer");
  if (conv->coeffs)
    clReleaseMemObject (conv->coeffs);
  conv->coeffs = mem;
  conv->kernel = *kernel;
  conv->depth = depth;
  conv->setup = setup;
  return conv;

fail:
  return NULL;
}

/* The kernel's arguments; the float tiles take their tile's local
 * memory last (tile_bytes, else 0). */
static bool
set_convolve_args (cl_kernel kernel, cl_mem src, const Placement * in,
    cl_mem dst, const Placement * out, const ClfView * v, ClfBorder border,
    bool keep_from_dst, cl_int seg, cl_int columns, cl_mem coeffs,
    const ClfConvolveSetup * s, size_t tile_bytes, GError ** error)
{
  cl_uint src_off = (cl_uint) in->offset, src_stride = (cl_uint) in->stride;
  cl_uint dst_off = (cl_uint) out->offset, dst_stride = (cl_uint) out->stride;
  cl_int width = (cl_int) v->width, height = (cl_int) v->height;
  cl_int border_arg = (cl_int) border, keep_dst = keep_from_dst;
  cl_int radius = (cl_int) s->radius, n_taps = s->n_taps;
  const ClfKernelArg args[] = {
    {sizeof src, &src}, {sizeof src_off, &src_off},
    {sizeof src_stride, &src_stride}, {sizeof dst, &dst},
    {sizeof dst_off, &dst_off}, {sizeof dst_stride, &dst_stride},
    {sizeof width, &width}, {sizeof height, &height},
    {sizeof border_arg, &border_arg}, {sizeof keep_dst, &keep_dst},
    {sizeof seg, &seg}, {sizeof columns, &columns},
    {sizeof coeffs, &coeffs}, {sizeof n_taps, &n_taps},
    {sizeof radius, &radius},
    {sizeof s->half, &s->half}, {sizeof s->abs_divisor, &s->abs_divisor},
    {sizeof s->mul, &s->mul}, {sizeof s->shift, &s->shift},
    {sizeof s->negative, &s->negative}, {sizeof s->bias, &s->bias},
    {tile_bytes, NULL},
  };
  return clf_set_kernel_args (kernel, args,
      G_N_ELEMENTS (args) - (tile_bytes ? 0 : 1), error);
}

/* RGBA's float tiles (3 lanes, in planes) fit the 32 KiB of local memory
 * every device has. */
_Static_assert (CLF_CONV_FLOAT_TILE_PIXELS (CLF_CONV_FLOAT_ROWS
        * CLF_CONV_FLOAT_GROUP_Y) * 3 * sizeof (float) <= 32768,
    "RGBA's float tiles within 32 KiB");

/* The rows of pixels a work-group of the float tiles (or the tall ones)
 * takes. */
static uint32_t
float_block (bool tall)
{
  return tall ? CLF_CONV_TALL_ROWS * CLF_CONV_TALL_GROUP_Y :
      CLF_CONV_FLOAT_ROWS * CLF_CONV_FLOAT_GROUP_Y;
}

/* The kernel of a pass over view p: the CPUs' strips or the GPUs' tiles
 * (rank 1 in two passes), with float, int or long sums; the float tiles
 * (tall for large kernels) where the device's local memory holds them. */
static KernelId
convolve_kernel (const ClfPlan * plan, const ClfLayout * layout,
    const ClfConvolveSetup * s, const ClfView * p)
{
  if (plan->cpu_kernels)
    return s->wide ? K_CONVOLVE_STRIPS_WIDE : s->float_quotients ?
        K_CONVOLVE_STRIPS_FLOAT : K_CONVOLVE_STRIPS;
  if (s->rank1)
    return s->wide ? K_CONVOLVE_RANK1_TILES_WIDE : K_CONVOLVE_RANK1_TILES;
  if (s->float_sums && p->units <= 4) {
    if (s->size >= CLF_CONV_TALL_MIN_SIZE && plan->local_mem
        >= clf_conv_float_tile_bytes (layout, float_block (true), false))
      return K_CONVOLVE_TILES_FLOAT_TALL;
    if (plan->local_mem
        >= clf_conv_float_tile_bytes (layout, float_block (false), true))
      return K_CONVOLVE_TILES_FLOAT;
  }
  return s->wide ? K_CONVOLVE_TILES_WIDE : K_CONVOLVE_TILES;
}

/* In launches, a CPU strip takes this many pixels of its row: a launch
 * of a strip per core stays short at any width (a 15x15 kernel over a row
 * of 16 million RGBA64 pixels takes seconds on a core). */
#define LAUNCH_STRIP_COLUMNS 4096

/* Bytes read per byte of a view, for the estimate of a pass's length: one
 * a tap (a coefficient that is not zero), or 2K for the rank-1 tiles;
 * the kernel's speed as measured makes up the rest. */
static double
reads_per_byte (const ClfConvolveSetup * s)
{
  return s->rank1 ? 2.0 * s->size : MAX (s->n_taps, 1);
}

bool
clf_convolve_enqueue (ClfPlan * plan, const KernelSet * set,
    const ClfView * p, const ClfParams * params, bool fill, cl_mem src,
    const Placement * in, cl_mem dst, const Placement * out,
    bool keep_from_dst, GError ** error)
{
  if (!plan->convolve)
    plan->convolve = g_new0 (ClfConvolve, 1);
  /* The fill is a 1 x 1 kernel of 0 plus the mid value: exact as any
   * kernel, on every kind of device, with no kernel of its own. */
  /* *INDENT-OFF* */
  const ClfKernel neutral = { 1, {0}, 1, 1 << (p->depth - 1),
    CLF_CHROMA_FILTERED
  };
  /* *INDENT-ON* */
  const ConvolveKernel *conv = fill ?
      convolve_for (plan, &plan->convolve->fill, &neutral, p->depth, error) :
      convolve_for (plan, &plan->convolve->filter, &params->kernel, p->depth,
      error);
  if (!conv)
    return false;
  const ClfConvolveSetup *s = &conv->setup;

  const ClfLayout *layout = &set->spec.layout;
  const KernelId id = convolve_kernel (plan, layout, s, p);
  const double reads = (double) clf_view_row_bytes (p) * p->height
      * reads_per_byte (s);
  const bool in_launches = clf_plan_long_pass (plan, id, reads);
  size_t global[2], local_size[2] = { CLF_CONV_GROUP, CLF_CONV_GROUP };
  const size_t *local = local_size;
  /* *INDENT-OFF* */
  LaunchGrid grid = { id, {CLF_CONV_GROUP, CLF_CONV_GROUP}, CLF_CONV_GROUP,
    1, 1
  };
  /* *INDENT-ON* */
  size_t tile_bytes = 0;
  cl_int seg = 1, columns = (cl_int) p->width;
  if (plan->cpu_kernels) {
    /* Strips as the CPUs' blurs take them, for a window of K rows; in
     * launches, parts of one row each. */
    const Pass pass = { id, STRIP };
    ClfParams window = *params;
    window.radius = s->radius;
    seg = (cl_int) clf_work_shape_size (plan->compute_units, layout, 1,
        &pass, p, &window, global);
    local = clf_pass_local_size (true, 1, &pass, global, local_size);
    /* *INDENT-OFF* */
    grid = (LaunchGrid) { id, {1, 1}, 1, LAUNCH_STRIP_COLUMNS, 0 };
    /* *INDENT-ON* */
    if (in_launches) {
      seg = 1;
      columns = LAUNCH_STRIP_COLUMNS;
    }
  } else if (id == K_CONVOLVE_TILES_FLOAT || id == K_CONVOLVE_TILES_FLOAT_TALL) {
    const bool tall = id == K_CONVOLVE_TILES_FLOAT_TALL;
    local_size[0] = CLF_CONV_FLOAT_GROUP_X;
    local_size[1] = tall ? CLF_CONV_TALL_GROUP_Y : CLF_CONV_FLOAT_GROUP_Y;
    global[0] = clf_ceil_div (p->width, local_size[0]) * local_size[0];
    global[1] = clf_ceil_div (p->height, float_block (tall)) * local_size[1];
    tile_bytes = clf_conv_float_tile_bytes (layout, float_block (tall), !tall);
    /* *INDENT-OFF* */
    grid = (LaunchGrid) { id, {local_size[0], local_size[1]},
        float_block (tall), 1, 1 };
    /* *INDENT-ON* */
  } else {
    global[0] = clf_ceil_div (p->width, CLF_CONV_GROUP) * CLF_CONV_GROUP;
    global[1] = clf_ceil_div (p->height, CLF_CONV_GROUP) * CLF_CONV_GROUP;
  }
  if (!set_convolve_args (set->kernels[id], src, in, dst, out, p,
          params->border, keep_from_dst, seg, columns, conv->coeffs, s,
          tile_bytes, error))
    return false;
  if (in_launches)
    return clf_plan_enqueue_in_launches (plan, set->kernels[id], &grid, p,
        params, reads, error);
  return clf_plan_enqueue_kernel (plan, set->kernels[id], id, global, local,
      reads, error);
}
