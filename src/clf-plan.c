/* Plans: the object that ties a frame format to the engine's programs:
 * its kernel sets and buffers, what fits the device, and a frame's
 * enqueueing (transfers, the views' passes) and finishing. */
#include "clf-plan-private.h"
#include "clf-convolve.h"
#include "clf-gaussian.h"

#include <inttypes.h>
#include <string.h>

/* Work-items per work-group that GPUs get, at most (a multiple of the
 * kernel's preferred size, within its limit). */
#define GPU_GROUP_TARGET 128
/* Device planes of a staged frame start on this boundary (bytes). */
#define STAGING_ALIGN 128

/* A kernel's work-group size on GPUs: the size it was compiled for
 * (reqd_work_group_size), else one row of work-items, a multiple of its
 * preferred size (the warp) up to GPU_GROUP_TARGET and within its limit.
 * Asked once, when the kernel is made. */
static bool
kernel_group_size (cl_kernel kernel, cl_device_id device, size_t *group,
    GError ** error)
{
  size_t compiled[3] = { 0 }, multiple = 0, limit = 0;
  CLF_TRY (error, fail, clGetKernelWorkGroupInfo, kernel, device,
      CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof compiled, compiled, NULL);
  CLF_TRY (error, fail, clGetKernelWorkGroupInfo, kernel, device,
      CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof multiple,
      &multiple, NULL);
  CLF_TRY (error, fail, clGetKernelWorkGroupInfo, kernel, device,
      CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit, NULL);
  if (compiled[0]) {
    *group = compiled[0];
    return true;
  }
  if (multiple < 1 || multiple > limit)
    multiple = 1;
  size_t size = GPU_GROUP_TARGET < limit ? GPU_GROUP_TARGET : limit;
  *group = size / multiple * multiple;
  return true;

fail:
  return false;
}

static bool
check_params (const ClfParams * params, GError ** error)
{
  if ((unsigned) params->mode > CLF_MODE_UNSHARP
      || (unsigned) params->border > CLF_BORDER_MIRROR
      || params->radius > CLF_MAX_RADIUS) {
    clf_set_error (error, CLF_ERROR_INVALID, "invalid filter parameters "
        "(mode %d, radius %u, border %d)", (int) params->mode,
        params->radius, (int) params->border);
    return false;
  }
  if (params->mode == CLF_MODE_GAUSSIAN || params->mode == CLF_MODE_UNSHARP)
    return clf_gauss_check (params, error);
  return params->mode != CLF_MODE_CONVOLVE
      || clf_kernel_check (&params->kernel, error);
}

static void
kernel_set_release (KernelSet * set)
{
  for (int k = N_KERNELS; k-- > 0;)
    if (set->kernels[k])
      clReleaseKernel (set->kernels[k]);
  memset (set->kernels, 0, sizeof set->kernels);
}

/* The layout of a view's pixels for a mode family's `mask`. */
static ClfLayout
view_layout (const ClfPlan * plan, const ClfView * v, uint32_t mask)
{
  /* *INDENT-OFF* */
  return (ClfLayout) {
    .sample_bytes = v->sample_bytes,.units = v->units,.mask = mask,
    .depth = v->depth,.shift = v->shift,
    .swap = v->sample_bytes == 2
        && v->big_endian == clf_engine_little_endian (plan->engine)
  };
  /* *INDENT-ON* */
}

const KernelSet *
clf_plan_kernel_set (ClfPlan * plan, const ClfProgramSpec * spec,
    GError ** error)
{
  for (unsigned i = 0; i < plan->n_sets; i++)
    if (clf_program_equal (&plan->sets[i].spec, spec))
      return &plan->sets[i];

  g_assert (plan->n_sets < G_N_ELEMENTS (plan->sets));
  cl_program program = clf_engine_program (plan->engine, spec,
      &plan->callbacks, error);
  if (!program)
    return NULL;
  KernelSet *set = &plan->sets[plan->n_sets];
  memset (set, 0, sizeof *set);
  set->spec = *spec;
  cl_int status = CL_SUCCESS;
  for (int k = 0; k < N_KERNELS && status == CL_SUCCESS; k++)
    if (clf_program_has_kernel (spec, k))
      set->kernels[k] = clCreateKernel (program, clf_kernel_names[k], &status);
  clReleaseProgram (program);
  CLF_CHECK (error, fail, status, "clCreateKernel");
  for (int k = 0; k < N_KERNELS; k++)
    if (set->kernels[k] && !kernel_group_size (set->kernels[k],
            clf_engine_device (plan->engine), &set->group[k], error))
      goto fail;
  plan->n_sets++;
  return set;

fail:
  kernel_set_release (set);
  return NULL;
}

/* The samples of view v that `params` filters (laplace sharpens, the
 * blurs blur, convolve convolves), and those it fills with the mid value
 * of their depth: convolve's neutral chroma. */
static void
view_masks (const ClfView * v, const ClfParams * params, uint32_t * filter,
    uint32_t * fill)
{
  bool neutral = params->mode == CLF_MODE_CONVOLVE
      && params->kernel.chroma == CLF_CHROMA_NEUTRAL;
  *filter = params->mode == CLF_MODE_LAPLACE
      || params->mode == CLF_MODE_UNSHARP || neutral ? v->laplace_mask
      : v->blur_mask;
  *fill = neutral ? v->blur_mask & ~v->laplace_mask : 0;
}

/* The program that runs `params` over the samples `mask` of view v, into
 * `spec` (a fill is convolve's). */
static ClfProgramSpec
view_program (const ClfPlan * plan, const ClfView * v,
    const ClfParams * params, uint32_t mask)
{
  ClfLayout layout = view_layout (plan, v, mask);
  /* Only the box blurs take 64-bit sums by layout; convolve and the
   * Gaussian pick their sums' width themselves (clf-convolve.c,
   * clf-gaussian.c). */
  layout.wide_sums = params->mode <= CLF_MODE_SLIDING
      && clf_needs_wide_sums (v, params->radius);
  return clf_program_for (plan->cpu_kernels, &layout, params);
}

/* The programs view i needs for `params`: the filter's and the fill's,
 * where the view has samples for them; returns how many. */
static unsigned
view_programs (const ClfPlan * plan, uint32_t i, const ClfParams * params,
    ClfProgramSpec specs[2])
{
  const ClfView *v = &plan->views.views[i];
  uint32_t masks[2];
  unsigned n = 0;
  view_masks (v, params, &masks[0], &masks[1]);
  for (unsigned k = 0; k < 2; k++)
    if (masks[k])
      specs[n++] = view_program (plan, v, params, masks[k]);
  return n;
}

/* (The element passes such frames through where samples have no spare
 * bits; a conversion, which reads values only, converts the source
 * itself.) */
bool
clf_params_keep_values (const ClfParams * params)
{
  if (params->mode == CLF_MODE_GAUSSIAN || params->mode == CLF_MODE_UNSHARP)
    return clf_gauss_identity (params);
  return params->mode <= CLF_MODE_SLIDING && params->radius == 0;
}

/* Whether the conversion sharpens as mode=laplace does, in its one pass
 * (laplace's only pass, so nothing is written but the output). */
static bool
fuses_laplace (const ClfPlan * plan, const ClfParams * params)
{
  return params->mode == CLF_MODE_LAPLACE
      && clf_conversion_sharpens (&plan->format);
}

/* Whether the plan's frames go through the filter's passes: not where
 * the conversion reads the source itself. */
static bool
runs_filter (const ClfPlan * plan, const ClfParams * params)
{
  return !plan->conversion
      || !(clf_params_keep_values (params) || fuses_laplace (plan, params));
}

/* The conversion's layout. */
static ClfConvertLayout
convert_layout (const ClfPlan * plan, const ClfParams * params)
{
  ClfConvertLayout layout;
  clf_convert_layout (&plan->format, plan->conversion,
      clf_engine_little_endian (plan->engine), plan->cpu_kernels,
      fuses_laplace (plan, params), &layout);
  return layout;
}

/* The conversion's program. */
static ClfProgramSpec
convert_program (const ClfPlan * plan, const ClfParams * params)
{
  ClfProgramSpec spec;
  memset (&spec, 0, sizeof spec);
  spec.converts = true;
  spec.convert = convert_layout (plan, params);
  return spec;
}

/* The view whose blur writes the conversion's output itself, or NULL: on
 * GPUs, a sliding blur in one pass of tiles over the 8-bit luma of a
 * conversion into RGB, where luma is its plane's one component.  The
 * other planes are filtered first, and the pass takes their chroma and
 * alpha from there: the bytes of filtering, then converting, without
 * writing the filtered luma or a conversion pass reading it back. */
static const ClfView *
fused_luma_view (const ClfPlan * plan, const ClfParams * params)
{
  if (!plan->conversion || plan->cpu_kernels || !runs_filter (plan, params)
      || plan->conversion->direction != CLF_CONVERT_YUV_TO_RGB
      || params->mode != CLF_MODE_SLIDING)
    return NULL;
  const ClfView *v = clf_views_lone_luma (&plan->format, &plan->views);
  if (!v)
    return NULL;
  ClfLayout layout = view_layout (plan, v, v->blur_mask);
  const ModePasses *passes = clf_mode_passes (false, &layout, params);
  return passes->n == 1 && passes->pass[0].kernel == K_SLIDING_TILES ? v : NULL;
}

/* The program of the fused luma view v's pass (converts_luma). */
static ClfProgramSpec
luma_program (const ClfPlan * plan, const ClfView * v, const ClfParams * params)
{
  ClfProgramSpec spec = view_program (plan, v, params, v->blur_mask);
  spec.converts_luma = true;
  spec.convert = convert_layout (plan, params);
  return spec;
}

/* The programs a frame runs: its views' (the fused luma's instead of
 * its view's) and the conversion's; returns how many. */
#define MAX_FRAME_PROGRAMS (1 + 2 * CLF_MAX_COMPONENTS)
static unsigned
frame_programs (const ClfPlan * plan, const ClfParams * params,
    ClfProgramSpec specs[MAX_FRAME_PROGRAMS])
{
  const ClfView *fused = fused_luma_view (plan, params);
  unsigned n = 0;
  if (plan->conversion && !fused)
    specs[n++] = convert_program (plan, params);
  for (uint32_t i = 0; runs_filter (plan, params) && i < plan->views.n; i++)
    if (&plan->views.views[i] == fused)
      specs[n++] = luma_program (plan, fused, params);
    else
      n += view_programs (plan, i, params, specs + n);
  return n;
}

bool
clf_plan_prepare (ClfPlan * plan, const ClfParams * params, GError ** error)
{
  ClfProgramSpec specs[MAX_FRAME_PROGRAMS];
  if (!check_params (params, error))
    return false;
  unsigned n = frame_programs (plan, params, specs);
  for (unsigned k = 0; k < n; k++)
    if (!clf_plan_kernel_set (plan, &specs[k], error))
      return false;
  return true;
}

bool
clf_plan_start_builds (ClfPlan * plan, const ClfParams * params,
    GError ** error)
{
  ClfProgramSpec specs[MAX_FRAME_PROGRAMS];
  if (!check_params (params, error))
    return false;
  unsigned n = frame_programs (plan, params, specs);
  for (unsigned k = 0; k < n; k++)
    if (!clf_engine_start_program (plan->engine, &specs[k], error))
      return false;
  return true;
}

/* The planes of `format`'s frames, and where they lie staged: one after
 * the other, rows without padding; every plane's rows (all its samples,
 * even a view's last pixel's) fit its row bytes. */
static void
frame_shape (const ClfFrameFormat * format, FrameShape * shape)
{
  size_t offset = 0;
  shape->n_planes = format->n_planes;
  for (uint32_t i = 0; i < format->n_planes; i++) {
    PlaneShape *p = &shape->planes[i];
    p->row_bytes = clf_frame_format_row_bytes (format, i);
    p->rows = clf_frame_format_rows (format, i);
    p->sample_bytes = clf_frame_format_sample_bytes (format, i);
    offset = (offset + STAGING_ALIGN - 1) / STAGING_ALIGN * STAGING_ALIGN;
    shape->staged[i].offset = offset;
    shape->staged[i].stride = p->row_bytes;
    offset += p->row_bytes * p->rows;
  }
  shape->staged_size = offset;
}

/* The blurs' sums (a SUM per sample of the largest blurred view: 4 bytes
 * for 8-bit samples, 8 for 16-bit) must fit one device buffer and the
 * kernels' 32-bit signed indices; else the blurs are refused at this size
 * (plan->blur_limit says why), while laplace and convolve, which need no
 * sums, still run. */
static void
check_blur_fits (ClfPlan * plan, cl_ulong max_alloc)
{
  uint64_t sums = 0;
  uint32_t widest = 0;
  for (uint32_t i = 0; i < plan->views.n; i++) {
    const ClfView *v = &plan->views.views[i];
    uint64_t view_sums = clf_view_sums_bytes (v, plan->cpu_kernels,
        plan->compute_units, clf_gauss_max_span ());
    if (v->blur_mask && view_sums > sums) {
      sums = view_sums;
      widest = i;
    }
  }
  const ClfView *v = &plan->views.views[widest];
  if (sums > KERNEL_INDEX_LIMIT)
    plan->blur_limit = g_strdup_printf ("plane %u (%ux%u, %u samples of "
        "%u bytes per pixel) is too large to blur: the sums would take %"
        PRIu64 " bytes, more than the %d that the kernels' 32-bit indices "
        "reach (laplace works at this size)", v->plane, v->width, v->height,
        v->units, v->sample_bytes, sums, KERNEL_INDEX_LIMIT);
  else if (sums > max_alloc)
    plan->blur_limit = g_strdup_printf ("the blur needs a %" PRIu64
        "-byte device buffer of sums but %s allows at most %llu bytes per "
        "buffer (laplace works at this size)", sums,
        clf_engine_device_name (plan->engine), (unsigned long long) max_alloc);
  else
    plan->sums_size = (size_t) sums;
}

static bool
check_fits_device (ClfPlan * plan, GError ** error)
{
  cl_ulong max_alloc = 0;
  CLF_TRY (error, fail, clGetDeviceInfo, clf_engine_device (plan->engine),
      CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
  size_t staged_size = MAX (plan->in.staged_size, plan->out.staged_size);
  if (staged_size > max_alloc) {
    clf_set_error (error, CLF_ERROR_INVALID, "the frame needs a %zu-byte "
        "device buffer but %s allows at most %llu bytes per buffer",
        staged_size, clf_engine_device_name (plan->engine),
        (unsigned long long) max_alloc);
    return false;
  }
  if (staged_size > KERNEL_INDEX_LIMIT) {
    clf_set_error (error, CLF_ERROR_INVALID, "the frame takes %zu bytes, "
        "more than the %d that the kernels' 32-bit indices reach",
        staged_size, KERNEL_INDEX_LIMIT);
    return false;
  }
  check_blur_fits (plan, max_alloc);
  return true;

fail:
  return false;
}

bool
clf_plan_supports (const ClfPlan * plan, ClfMode mode, GError ** error)
{
  if (mode == CLF_MODE_LAPLACE || mode == CLF_MODE_CONVOLVE
      || !plan->blur_limit)
    return true;
  clf_set_error (error, CLF_ERROR_INVALID, "%s", plan->blur_limit);
  return false;
}

/* Which family of kernels a device runs: CPUs' (strips, byte runs) or
 * GPUs'.  (The tests run both families on any device through a layer
 * that reports the other type: tests/layer/.) */
static bool
uses_cpu_kernels (cl_device_type type)
{
  return (type & CL_DEVICE_TYPE_CPU) != 0;
}

ClfPlan *
clf_plan_new (ClfEngine * engine, const ClfFrameFormat * format,
    GError ** error)
{
  return clf_plan_new_full (engine, format, NULL, error);
}

ClfPlan *
clf_plan_new_full (ClfEngine * engine, const ClfFrameFormat * format,
    const ClfPlanCallbacks * callbacks, GError ** error)
{
  return clf_plan_new_converting (engine, format, NULL, callbacks, error);
}

ClfPlan *
clf_plan_new_converting (ClfEngine * engine, const ClfFrameFormat * format,
    const ClfConversion * conversion, const ClfPlanCallbacks * callbacks,
    GError ** error)
{
  if (!clf_frame_format_check (format, error)
      || (conversion && !clf_conversion_check (format, conversion, error)))
    return NULL;

  ClfPlan *plan = g_new0 (ClfPlan, 1);
  clf_plan_set_callbacks (plan, callbacks);
  plan->engine = clf_engine_ref (engine);
  g_mutex_init (&plan->speed_lock);
  plan->format = *format;
  frame_shape (format, &plan->in);
  frame_shape (conversion ? &conversion->format : format, &plan->out);
  if (conversion)
    plan->conversion = g_memdup2 (conversion, sizeof *conversion);
  clf_frame_format_views (format, &plan->views);
  cl_device_type type = 0;
  CLF_TRY (error, fail, clGetDeviceInfo, clf_engine_device (engine),
      CL_DEVICE_TYPE, sizeof type, &type, NULL);
  plan->cpu_kernels = uses_cpu_kernels (type);
  CLF_TRY (error, fail, clGetDeviceInfo, clf_engine_device (engine),
      CL_DEVICE_MAX_COMPUTE_UNITS, sizeof plan->compute_units,
      &plan->compute_units, NULL);
  CLF_TRY (error, fail, clGetDeviceInfo, clf_engine_device (engine),
      CL_DEVICE_LOCAL_MEM_SIZE, sizeof plan->local_mem, &plan->local_mem, NULL);

  if (!check_fits_device (plan, error))
    goto fail;
  return plan;

fail:
  clf_plan_free (plan);
  return NULL;
}

static void
release_mem (cl_mem * mem)
{
  if (*mem)
    clReleaseMemObject (*mem);
  *mem = NULL;
}

void
clf_plan_free (ClfPlan * plan)
{
  if (!plan)
    return;
  release_mem (&plan->filtered);
  release_mem (&plan->staging_out);
  release_mem (&plan->staging_in);
  release_mem (&plan->sums);
  clf_convolve_free (plan->convolve);
  g_free (plan->blur_limit);
  g_free (plan->conversion);
  for (unsigned s = plan->n_sets; s-- > 0;)
    kernel_set_release (&plan->sets[s]);
  clf_engine_unref (plan->engine);
  g_mutex_clear (&plan->speed_lock);
  g_free (plan);
}

static bool
ensure_buffer (ClfPlan * plan, cl_mem * mem, size_t size, cl_mem_flags flags,
    GError ** error)
{
  if (*mem)
    return true;
  cl_int status;
  *mem = clCreateBuffer (clf_engine_context (plan->engine), flags, size,
      NULL, &status);
  CLF_CHECK (error, fail, status, "clCreateBuffer");
  return true;

fail:
  *mem = NULL;
  return false;
}

/* Runs `params` over the samples `mask` of view v of a plane (with
 * `fill`, writes their mid value), copying from `keep_from_dst` the
 * samples it does not write. */
static bool
enqueue_view_pass (ClfPlan * plan, const ClfParams * params,
    const ClfView * v, uint32_t mask, bool fill, cl_mem src,
    const Placement * in, cl_mem dst, const Placement * out,
    bool keep_from_dst, GError ** error)
{
  const ClfProgramSpec spec = view_program (plan, v, params, mask);
  const KernelSet *set = clf_plan_kernel_set (plan, &spec, error);
  if (!set)
    return false;
  if (params->mode == CLF_MODE_CONVOLVE)
    return clf_convolve_enqueue (plan, set, v, params, fill, src, in, dst,
        out, keep_from_dst, error);
  const ModePasses *passes = set->spec.passes;
  const bool gaussian = set->spec.mode == CLF_MODE_GAUSSIAN;

  if ((gaussian || passes->uses_sums) && !ensure_buffer (plan, &plan->sums,
          plan->sums_size, CL_MEM_READ_WRITE, error))
    return false;
  if (gaussian)
    return clf_gaussian_enqueue (plan, set, v, params, src, in, dst, out,
        keep_from_dst, error);
  for (unsigned k = 0; k < passes->n; k++)
    if (!clf_plan_enqueue_pass (plan, set, &passes->pass[k], v, params, src,
            in, dst, out, keep_from_dst, error))
      return false;
  return true;
}

/* Filters plane `plane`: its views the mode writes, the widest first, each
 * filtered, then filled.  Where they leave bytes of its rows unwritten (a
 * plane the mode writes nothing of; laplace on odd-width packed 4:2:2,
 * whose luma pixels stop short of the last chroma sample), the plane is
 * copied first.  The first pass copies the samples it does not write from
 * the source, later ones from the destination, which already holds
 * them. */
static bool
enqueue_plane_filter (ClfPlan * plan, const ClfParams * params,
    uint32_t plane, cl_mem src, const Placement * in, cl_mem dst,
    const Placement * out, GError ** error)
{
  bool written = false;
  for (uint32_t i = 0; i < plan->views.n; i++) {
    const ClfView *v = &plan->views.views[i];
    uint32_t masks[2];
    view_masks (v, params, &masks[0], &masks[1]);
    if (v->plane != plane || !(masks[0] | masks[1]))
      continue;
    if (!written && clf_view_row_bytes (v) < plan->in.planes[plane].row_bytes
        && !clf_plan_enqueue_plane_copy (plan, &plan->in.planes[plane], src, in,
            dst, out, error))
      return false;
    for (unsigned k = 0; k < 2; k++) {
      if (!masks[k])
        continue;
      if (!enqueue_view_pass (plan, params, v, masks[k], k == 1, src, in,
              dst, out, written, error))
        return false;
      written = true;
    }
  }
  if (!written)
    return clf_plan_enqueue_plane_copy (plan, &plan->in.planes[plane], src, in,
        dst, out, error);
  return true;
}

void
clf_plan_set_callbacks (ClfPlan * plan, const ClfPlanCallbacks * callbacks)
{
  memset (&plan->callbacks, 0, sizeof plan->callbacks);
  if (callbacks)
    plan->callbacks = *callbacks;
}

/* Filters the frame at `from` (planes of plan->in) into `to`; where the
 * plan converts, into its filtered frame, then converts that into `to`;
 * or, for settings that keep every value and for laplace, which the
 * conversion does in the same pass, converts the source. */
static bool
enqueue_frame (ClfPlan * plan, const ClfParams * params, cl_mem * from,
    Placement * in, cl_mem * to, const Placement * out, GError ** error)
{
  if (!plan->conversion) {
    for (uint32_t i = 0; i < plan->in.n_planes; i++)
      if (!enqueue_plane_filter (plan, params, i, from[i], &in[i], to[i],
              &out[i], error))
        return false;
    return true;
  }
  const ClfView *fused = fused_luma_view (plan, params);
  cl_mem luma = NULL;
  Placement luma_at = { 0, 0 };
  if (runs_filter (plan, params)) {
    if (!ensure_buffer (plan, &plan->filtered, plan->in.staged_size,
            CL_MEM_READ_WRITE, error))
      return false;
    for (uint32_t i = 0; i < plan->in.n_planes; i++) {
      if (fused && i == fused->plane) {
        luma = from[i];
        luma_at = in[i];
      } else if (!enqueue_plane_filter (plan, params, i, from[i], &in[i],
              plan->filtered, &plan->in.staged[i], error)) {
        return false;
      }
      from[i] = plan->filtered;
      in[i] = plan->in.staged[i];
    }
  }
  if (fused) {
    /* The luma's blur last, into the output, reading the rest from the
     * filtered frame. */
    ClfProgramSpec spec = luma_program (plan, fused, params);
    const KernelSet *set = clf_plan_kernel_set (plan, &spec, error);
    const Pass *pass = set ? &set->spec.passes->pass[0] : NULL;
    return set && clf_plan_set_conversion_args (plan,
        set->kernels[pass->kernel], CLF_PLANE_ARGS, from, in, to, out, error)
        && clf_plan_enqueue_pass (plan, set, pass, fused, params, luma,
        &luma_at, to[0], &out[0], false, error);
  }
  ClfProgramSpec spec = convert_program (plan, params);
  const KernelSet *set = clf_plan_kernel_set (plan, &spec, error);
  return set && clf_plan_enqueue_conversion (plan, set, params, from, in, to,
      out, error);
}

ClfInFlight *
clf_plan_enqueue (ClfPlan * plan, const ClfParams * params,
    const ClfFrame * src, const ClfFrame * dst, const cl_event * wait,
    uint32_t n_wait, GError ** error)
{
  bool upload = clf_plan_has_host_plane (&plan->in, src);
  bool download = clf_plan_has_host_plane (&plan->out, dst);
  cl_mem from[CLF_MAX_PLANES], to[CLF_MAX_PLANES];
  Placement in[CLF_MAX_PLANES], out[CLF_MAX_PLANES];
  ClfInFlight *frame;

  plan->estimated = false;
  if (!check_params (params, error)
      || !clf_plan_supports (plan, params->mode, error)
      || !clf_plan_check_frame (plan, src, false, "source", error)
      || !clf_plan_check_frame (plan, dst, true, "destination", error)
      || !clf_plan_prepare (plan, params, error))
    return NULL;
  if ((upload && !ensure_buffer (plan, &plan->staging_in,
              plan->in.staged_size, CL_MEM_READ_ONLY, error))
      || (download && !ensure_buffer (plan, &plan->staging_out,
              plan->out.staged_size, CL_MEM_WRITE_ONLY, error)))
    return NULL;
  plan->wait = wait;
  plan->n_wait = n_wait;

  for (uint32_t i = 0; i < plan->in.n_planes; i++) {
    if (!src->mem[i]
        && !clf_plan_enqueue_transfer (plan, CMD_UPLOAD, i, src, error))
      goto fail;
    from[i] = clf_plan_device_plane (&plan->in, src, i, plan->staging_in,
        &in[i]);
  }
  for (uint32_t i = 0; i < plan->out.n_planes; i++)
    to[i] = clf_plan_device_plane (&plan->out, dst, i, plan->staging_out,
        &out[i]);
  if (!enqueue_frame (plan, params, from, in, to, out, error))
    goto fail;
  for (uint32_t i = 0; i < plan->out.n_planes; i++)
    if (!dst->mem[i]
        && !clf_plan_enqueue_transfer (plan, CMD_DOWNLOAD, i, dst, error))
      goto fail;
  if (!clf_plan_enqueue_handbacks (plan, dst, error)
      || !clf_plan_keep_done_event (plan, error))
    goto fail;
  /* Submitted now, not at the next wait: the device starts while the
   * caller goes on (drivers may hold commands back until a flush). */
  CLF_TRY (error, fail, clFlush, clf_engine_queue (plan->engine));
  frame = g_new (ClfInFlight, 1);
  plan->commands.copies = (upload ? 1 : 0) + (download ? 1 : 0);
  /* The frame's commands are its own now; the plan starts a new list. */
  *frame = plan->commands;
  plan->commands.n = 0;
  plan->commands.launched_ns = 0;
  plan->commands.copies = 0;
  plan->commands.done = NULL;
  return frame;

fail:
  plan->n_wait = 0;
  /* Wait for what was enqueued: it still reads or writes the frames. */
  clf_plan_finish_commands (plan, &plan->commands, NULL, NULL);
  return NULL;
}

cl_event
clf_in_flight_event (const ClfInFlight * frame)
{
  return frame->done;
}

bool
clf_in_flight_done (const ClfInFlight * frame)
{
  cl_int state = CL_QUEUED;

  /* A failed query is left to clf_plan_finish, which reports it. */
  if (clGetEventInfo (frame->done, CL_EVENT_COMMAND_EXECUTION_STATUS,
          sizeof state, &state, NULL) != CL_SUCCESS)
    return true;
  return state <= CL_COMPLETE;
}

bool
clf_plan_finish (ClfPlan * plan, ClfInFlight * frame, ClfFrameStats * stats,
    GError ** error)
{
  bool ok;

  memset (stats, 0, sizeof *stats);
  ok = clf_plan_finish_commands (plan, frame, stats, error);
  g_free (frame);
  return ok;
}

bool
clf_plan_process (ClfPlan * plan, const ClfParams * params,
    const ClfFrame * src, const ClfFrame * dst, ClfFrameStats * stats,
    GError ** error)
{
  ClfInFlight *frame = clf_plan_enqueue (plan, params, src, dst, NULL, 0,
      error);

  memset (stats, 0, sizeof *stats);
  return frame && clf_plan_finish (plan, frame, stats, error);
}

bool
clf_plan_process_host (ClfPlan * plan, const ClfParams * params,
    const ClfHostFrame * src, const ClfHostFrame * dst,
    ClfFrameStats * stats, GError ** error)
{
  ClfFrame in = { {0} }, out = { {0} };
  for (uint32_t i = 0; i < CLF_MAX_PLANES; i++) {
    in.data[i] = src->data[i];
    in.stride[i] = src->stride[i];
    in.size[i] = src->size[i];
    out.data[i] = dst->data[i];
    out.stride[i] = dst->stride[i];
    out.size[i] = dst->size[i];
  }
  return clf_plan_process (plan, params, &in, &out, stats, error);
}
