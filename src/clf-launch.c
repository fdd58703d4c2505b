/* Launches: the frame's commands as they are enqueued, timed and waited
 * for; the kernels' arguments; and passes too long for one launch, split
 * into launches sized by the kernels' speeds as learned, with the caller's
 * callbacks asked between them. */
#include "clf-plan-private.h"

#include <string.h>

cl_event *
clf_plan_next_event (ClfPlan * plan, CommandKind kind)
{
  plan->commands.kinds[plan->commands.n] = kind;
  plan->commands.events[plan->commands.n] = NULL;
  plan->commands.reads[plan->commands.n] = 0;
  return &plan->commands.events[plan->commands.n];
}

void
clf_plan_event_enqueued (ClfPlan * plan)
{
  plan->commands.n++;
}

/* The wait list of the next command: the events the frame waits for, to
 * its first command only; the queue is in order, so the others follow it
 * (no barrier, one call less a frame). */
cl_uint
clf_plan_take_wait (ClfPlan * plan, const cl_event ** wait)
{
  cl_uint n = plan->n_wait;
  *wait = n ? plan->wait : NULL;
  plan->n_wait = 0;
  plan->wait = NULL;
  return n;
}

/* The device time of a finished command. */
static bool
command_ns (cl_event event, uint64_t * ns, GError ** error)
{
  cl_ulong start = 0, end = 0;
  CLF_TRY (error, fail, clGetEventProfilingInfo, event,
      CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
  CLF_TRY (error, fail, clGetEventProfilingInfo, event,
      CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
  *ns = end > start ? end - start : 0;
  return true;

fail:
  return false;
}

/* A kernel read `reads` bytes in `ns`: its speed from now on. */
static void
learn_speed (ClfPlan * plan, KernelId kernel, double reads, uint64_t ns)
{
  if (reads > 0 && ns > 0) {
    g_mutex_lock (&plan->speed_lock);
    plan->reads_per_ns[kernel] = reads / (double) ns;
    g_mutex_unlock (&plan->speed_lock);
  }
}

/* Waits for the frame, adds up each kind's device time and releases the
 * events.  Every command is waited for, not only the last: the uploads
 * and downloads run on queues of their own, and a driver may report one
 * complete (and give its profiling times) only once it was waited for,
 * after the command that depended on it ended (NVIDIA, with several
 * frames in flight in several elements: CL_PROFILING_INFO_NOT_AVAILABLE). */
bool
clf_plan_finish_commands (ClfPlan * plan, ClfInFlight * cmds,
    ClfFrameStats * stats, GError ** error)
{
  bool ok = true;

  if (cmds->done || cmds->n) {
    cl_int status;
    status = cmds->done ? clWaitForEvents (1, &cmds->done) : CL_SUCCESS;
    if (status == CL_SUCCESS && cmds->n)
      status = clWaitForEvents (cmds->n, cmds->events);
    if (status != CL_SUCCESS) {
      clf_set_cl_error (error, "clWaitForEvents", status);
      /* Host memory may still be in use by a failed command's neighbours. */
      clFinish (clf_engine_queue (plan->engine));
      ok = false;
    }
  }
  for (unsigned i = 0; i < cmds->n; i++) {
    uint64_t ns = 0;
    if (ok && stats && (ok = command_ns (cmds->events[i], &ns, error))) {
      *(cmds->kinds[i] == CMD_UPLOAD ? &stats->upload_ns :
          cmds->kinds[i] == CMD_DOWNLOAD ? &stats->download_ns :
          &stats->kernel_ns) += ns;
      learn_speed (plan, cmds->kernels[i], cmds->reads[i], ns);
    }
    clReleaseEvent (cmds->events[i]);
  }
  if (ok && stats) {
    stats->kernel_ns += cmds->launched_ns;
    stats->copies = cmds->copies;
  }
  if (cmds->done)
    clReleaseEvent (cmds->done);
  cmds->n = 0;
  cmds->launched_ns = 0;
  cmds->copies = 0;
  cmds->done = NULL;
  return ok;
}

static bool
set_plane_args (cl_kernel kernel, cl_mem src, const Placement * in,
    cl_mem dst, const Placement * out, cl_mem sums, const ClfView * v,
    const ClfParams * params, cl_int segment, bool keep_from_dst,
    GError ** error)
{
  cl_uint src_off = (cl_uint) in->offset, src_stride = (cl_uint) in->stride;
  cl_uint dst_off = (cl_uint) out->offset, dst_stride = (cl_uint) out->stride;
  cl_int width = (cl_int) v->width, height = (cl_int) v->height;
  cl_int radius = (cl_int) params->radius, border = (cl_int) params->border;
  cl_int keep_dst = keep_from_dst;
  cl_ulong mean_mul;
  cl_int mean_shift;
  clf_mean_divider (params->radius, v->sample_bytes, v->depth, &mean_mul,
      &mean_shift);
  const ClfKernelArg args[] = {
    {sizeof src, &src}, {sizeof src_off, &src_off},
    {sizeof src_stride, &src_stride}, {sizeof dst, &dst},
    {sizeof dst_off, &dst_off}, {sizeof dst_stride, &dst_stride},
    {sizeof sums, &sums}, {sizeof width, &width}, {sizeof height, &height},
    {sizeof radius, &radius}, {sizeof border, &border},
    {sizeof segment, &segment}, {sizeof mean_mul, &mean_mul},
    {sizeof mean_shift, &mean_shift}, {sizeof keep_dst, &keep_dst},
  };
  _Static_assert (G_N_ELEMENTS (args) == CLF_PLANE_ARGS, "PLANE_ARGS");
  return clf_set_kernel_args (kernel, args, G_N_ELEMENTS (args), error);
}

bool
clf_set_kernel_args_from (cl_kernel kernel, cl_uint first,
    const ClfKernelArg * args, cl_uint n, GError ** error)
{
  for (cl_uint i = 0; i < n; i++)
    CLF_TRY (error, fail, clSetKernelArg, kernel, first + i, args[i].size,
        args[i].value);
  return true;

fail:
  return false;
}

bool
clf_set_kernel_args (cl_kernel kernel, const ClfKernelArg * args, cl_uint n,
    GError ** error)
{
  return clf_set_kernel_args_from (kernel, 0, args, n, error);
}

/* ---- passes too long for one launch ------------------------------------
 * The passes whose cost grows with the radius (the naive box: (2r+1)^2
 * reads a byte; the separable passes: 2r+1) take minutes a frame at
 * radius 1023 on CPUs, and mode=convolve's (a read a tap: 225 for 15x15)
 * seconds at 8K.  One estimated above LAUNCH_NS runs as launches of
 * about that long, each waited for, so that the frame can be stopped
 * between them (clf_plan_set_callbacks): a stop then waits for one launch
 * at most.  The estimate comes from the kernel's speed as measured on its
 * last launch; until a kernel has run, DEFAULT_READS_PER_NS, about the
 * naive box's speed on the slowest device measured (a two-core CPU),
 * stands for it.  The naive box stays the naive box: each launch runs the
 * same kernel over a part of the plane (a LaunchGrid's), and the bytes
 * are the same. */
#define LAUNCH_NS 50e6
#define DEFAULT_READS_PER_NS 1.0
/* CPU launches come in work-groups of this many pixels, at least one per
 * compute unit: PoCL runs a work-group's items in SIMD lanes (16 ints in
 * AVX-512), and launches of a dozen pixels, each its own lane-less group
 * or all on one core, ran the naive box at large radii several times
 * slower (measurements: docs/performance/tuning.md). */
#define CPU_LAUNCH_GROUP 16

/* Bytes read per byte written by passes whose cost grows with the radius;
 * 0 for the others (a few reads a byte at any radius, or separable_tiles,
 * whose radius is at most CLF_TILES_MAX_RADIUS: one launch). */
static double
pass_reads_per_byte (KernelId kernel, uint32_t radius)
{
  double window = 2.0 * radius + 1;
  switch (kernel) {
    case K_BOX:
      return window * window;
    case K_ROWS_DIRECT:
    case K_COLS_DIRECT:
      return window;
    case K_SEPARABLE_STRIPS:
      return 2 * window;
    default:
      return 0;
  }
}

static double
kernel_speed (ClfPlan * plan, KernelId kernel)
{
  double speed;

  g_mutex_lock (&plan->speed_lock);
  speed = plan->reads_per_ns[kernel];
  g_mutex_unlock (&plan->speed_lock);
  return speed > 0 ? speed : DEFAULT_READS_PER_NS;
}

/* The work of one launch: `count` units from `offset` on, as the kernel's
 * global offset and size. */
typedef struct
{
  size_t offset[2];
  size_t global[2];
  uint64_t count;
} LaunchRange;

/* The columns of work-items of a plane cut along `grid`. */
static uint64_t
grid_columns (const ClfView * p, const LaunchGrid * grid)
{
  return clf_ceil_div (p->width, grid->columns);
}

/* The next launch of about `units` units from unit `done` of a plane cut
 * along `grid`: columns of work-items of its bands, band after band, as
 * whole bands where `units` reaches past the band's end, else a run of
 * one band (whole work-groups). */
static LaunchRange
next_launch (const ClfView * p, const LaunchGrid * grid, uint64_t done,
    uint64_t units)
{
  LaunchRange r = { {0, 0}, {1, 1}, 0 };
  const unsigned across = 1 - grid->row_dim, down = grid->row_dim;
  const size_t group = grid->local[across];
  const uint64_t columns = grid_columns (p, grid),
      bands = clf_ceil_div (p->height, grid->band);
  const size_t x = (size_t) (done % columns), band = (size_t) (done / columns);
  if (units < 1)
    units = 1;
  r.offset[down] = band * grid->local[down];
  if (x == 0 && units >= columns) {
    uint64_t n = units / columns;
    n = n < bands - band ? n : bands - band;
    r.global[across] = clf_ceil_div ((size_t) columns, group) * group;
    r.global[down] = (size_t) n * grid->local[down];
    r.count = n * columns;
    return r;
  }
  size_t run = units < columns - x ? (size_t) units : (size_t) (columns - x);
  if (run < columns - x)
    run = run > group ? run / group * group : group;
  run = run < columns - x ? run : (size_t) (columns - x);
  r.offset[across] = x;
  r.global[across] = clf_ceil_div (run, group) * group;
  r.global[down] = grid->local[down];
  r.count = run;
  return r;
}

static bool
frame_cancelled (const ClfPlan * plan)
{
  return plan->callbacks.cancelled
      && plan->callbacks.cancelled (plan->callbacks.data);
}

/* Runs one launch and waits for it; its device time counts as the frame's
 * kernel time, and teaches the plan the kernel's speed.  After the frame's
 * first such launch, a pass estimated above callbacks.slow_ns is told. */
static bool
run_launch (ClfPlan * plan, cl_kernel kernel, KernelId id,
    const LaunchRange * r, const size_t *local, double reads,
    double frame_reads, const ClfParams * params, GError ** error)
{
  cl_event event = NULL;
  uint64_t ns = 0;
  const cl_event *wait;
  cl_uint n_wait = clf_plan_take_wait (plan, &wait);
  CLF_TRY (error, fail, clEnqueueNDRangeKernel,
      clf_engine_queue (plan->engine), kernel, 2, r->offset, r->global, local,
      n_wait, wait, &event);
  CLF_TRY (error, fail, clWaitForEvents, 1, &event);
  if (!command_ns (event, &ns, error))
    goto fail;
  clReleaseEvent (event);
  plan->commands.launched_ns += ns;
  learn_speed (plan, id, reads, ns);
  if (!plan->estimated && plan->callbacks.slow) {
    double estimate = frame_reads / kernel_speed (plan, id);
    plan->estimated = true;
    if (estimate > (double) plan->callbacks.slow_ns)
      plan->callbacks.slow (params, (uint64_t) estimate, plan->callbacks.data);
  }
  return true;

fail:
  if (event)
    clReleaseEvent (event);
  return false;
}

bool
clf_plan_long_pass (ClfPlan * plan, KernelId kernel, double reads)
{
  return reads / kernel_speed (plan, kernel) > LAUNCH_NS;
}

/* Launches of about LAUNCH_NS each, stopping between them when the
 * caller cancels the frame (CLF_ERROR_CANCELLED). */
bool
clf_plan_enqueue_in_launches (ClfPlan * plan, cl_kernel kernel,
    const LaunchGrid * grid, const ClfView * p, const ClfParams * params,
    double reads, GError ** error)
{
  const uint64_t total = grid_columns (p, grid)
      * clf_ceil_div (p->height, grid->band);
  const double reads_per_unit = reads / (double) total;
  /* Every compute unit gets a work-group (CPUs' strips: one a unit). */
  const double fewest = (double) grid->local[1 - grid->row_dim]
      * plan->compute_units;

  for (uint64_t done = 0; done < total;) {
    if (frame_cancelled (plan)) {
      clf_set_error (error, CLF_ERROR_CANCELLED, "the frame was stopped "
          "between two launches of its %s kernel",
          clf_kernel_names[grid->kernel]);
      return false;
    }
    double units = LAUNCH_NS * kernel_speed (plan, grid->kernel) /
        reads_per_unit;
    units = units > fewest ? units : fewest;
    LaunchRange r = next_launch (p, grid, done, units < (double) total ?
        (uint64_t) units : total);
    if (!run_launch (plan, kernel, grid->kernel, &r, grid->local,
            (double) r.count * reads_per_unit, reads, params, error))
      return false;
    done += r.count;
  }
  return true;
}

bool
clf_plan_enqueue_kernel (ClfPlan * plan, cl_kernel kernel, KernelId id,
    const size_t global[2], const size_t *local, double reads, GError ** error)
{
  const cl_event *wait;
  cl_uint n_wait = clf_plan_take_wait (plan, &wait);
  plan->commands.kernels[plan->commands.n] = id;
  CLF_TRY (error, fail, clEnqueueNDRangeKernel,
      clf_engine_queue (plan->engine), kernel, 2, NULL, global, local,
      n_wait, wait, clf_plan_next_event (plan, CMD_KERNEL));
  plan->commands.reads[plan->commands.n] = reads;
  clf_plan_event_enqueued (plan);
  return true;

fail:
  return false;
}

bool
clf_plan_enqueue_pass (ClfPlan * plan, const KernelSet * set, const Pass * pass,
    const ClfView * p, const ClfParams * params, cl_mem src,
    const Placement * in, cl_mem dst, const Placement * out,
    bool keep_from_dst, GError ** error)
{
  cl_kernel kernel = set->kernels[pass->kernel];
  size_t global[2];
  size_t seg = clf_work_shape_size (plan->compute_units,
      &set->spec.layout, set->group[pass->kernel], pass, p, params, global);
  double reads = (double) clf_view_row_bytes (p) * p->height
      * pass_reads_per_byte (pass->kernel, params->radius);
  bool in_launches = clf_plan_long_pass (plan, pass->kernel, reads);
  /* In launches, a CPU strip is one row: a launch takes whole strips. */
  if (!set_plane_args (kernel, src, in, dst, out, plan->sums, p, params,
          in_launches && pass->shape == STRIP ? 1 : (cl_int) seg,
          keep_from_dst, error))
    return false;
  if (in_launches) {
    /* The CPUs' strips: a whole row a work-item. */
    const bool strips = pass->shape == STRIP;
    const LaunchGrid grid = { pass->kernel,
      {strips ? 1 : plan->cpu_kernels ? CPU_LAUNCH_GROUP :
            set->group[pass->kernel], 1}, 1, strips ? p->width : 1,
      strips ? 0 : 1
    };
    return clf_plan_enqueue_in_launches (plan, kernel, &grid, p, params,
        reads, error);
  }

  size_t local_size[2];
  const size_t *local = clf_pass_local_size (plan->cpu_kernels,
      set->group[pass->kernel], pass, global, local_size);
  return clf_plan_enqueue_kernel (plan, kernel, pass->kernel, global, local,
      reads, error);
}

/* The event that ends the frame, kept with it: the queue is in order, so
 * its last command's.  A frame whose passes all ran in launches (waited
 * for one by one, see run_launch) has none left: a marker then. */
bool
clf_plan_keep_done_event (ClfPlan * plan, GError ** error)
{
  ClfInFlight *cmds = &plan->commands;

  if (cmds->n == 0) {
    const cl_event *wait;
    cl_uint n_wait = clf_plan_take_wait (plan, &wait);
    CLF_TRY (error, fail, clEnqueueMarkerWithWaitList,
        clf_engine_queue (plan->engine), n_wait, wait, &cmds->done);
    return true;
  }
  CLF_TRY (error, fail, clRetainEvent, cmds->events[cmds->n - 1]);
  cmds->done = cmds->events[cmds->n - 1];
  return true;

fail:
  cmds->done = NULL;
  return false;
}
