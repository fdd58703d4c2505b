/* Plans: the kernels and buffers of one frame format, and the per-frame
 * command stream (uploads, filter passes, downloads) with its timing. */
#include "clf-private.h"

#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Work-items per work-group that GPUs get, at most (a multiple of the
 * kernel's preferred size, within its limit). */
#define GPU_GROUP_TARGET 128
/* The rows of a column segment that one column_sums work-item walks: as
 * long as the window (2r+1), so seeding the first window costs at most one
 * extra read per pixel, but within these bounds.  Longer segments leave
 * too few work-items to hide memory latency: at 3840x2160 on an H100,
 * r=255 took 0.52 ms with 511-row segments and 0.37 ms with 128. */
#define SLIDING_MIN_SEGMENT 64
#define SLIDING_MAX_SEGMENT 128
/* The kernels index a plane's bytes, and the blurs' sums, with 32-bit
 * signed ints (and a few unsigned): every plane's last byte, and every
 * stride, stays below this. */
#define KERNEL_INDEX_LIMIT INT32_MAX
/* Device planes of a staged frame start on this boundary (bytes). */
#define STAGING_ALIGN 128
/* Per plane: an upload, a copy, a download, and the map and unmap that
 * hand a wrapped host buffer back to the host; per view, two filter
 * passes. */
#define MAX_COMMANDS (CLF_MAX_PLANES * 5 + CLF_MAX_COMPONENTS * 2)

typedef enum {
  K_BOX,
  K_ROWS_DIRECT,
  K_COLS_DIRECT,
  K_COLUMN_SUMS,
  K_ROW_MEANS_SCAN,
  K_LAPLACE_WORDS,
  K_LAPLACE_STRIPS,
  K_SEPARABLE_STRIPS,
  K_SLIDING_STRIPS,
  K_SLIDING_TILES,
  K_SEPARABLE_TILES,
  K_NARROW_COLUMN_SUMS,
  K_NARROW_ROW_MEANS,
  N_KERNELS
} KernelId;

_Static_assert (N_KERNELS == CLF_N_KERNELS, "a name for every kernel");

const char *const clf_kernel_names[CLF_N_KERNELS] = {
  "box_2d", "rows_direct", "cols_direct", "column_sums", "row_means_scan",
  "laplace_words", "laplace_strips", "separable_strips", "sliding_strips",
  "sliding_tiles", "separable_tiles", "narrow_column_sums",
  "narrow_row_means",
};

bool
clf_layout_has_kernel (const ClfLayout * layout, unsigned k)
{
  if (k == K_SEPARABLE_TILES)
    return clf_packed_tiles (layout);
  if (k == K_NARROW_COLUMN_SUMS || k == K_NARROW_ROW_MEANS)
    return clf_narrow_sums (layout);
  return true;
}

/* What one work-item of a pass covers. */
typedef enum {
  ONE_PIXEL,
  COLUMN_SEGMENT,               /* `units` samples of `seg` consecutive rows */
  ROW_GROUP,                    /* a row per work-group (the kernel's size) */
  ROW_RUN,                      /* `units` samples of `rows` rows */
  ROW_CHUNKS,                   /* a work-group per chunk of `seg` pixels */
  STRIP,                        /* `seg` whole rows, alone in a work-group */
  TILE,                         /* a work-group per tile of `seg` rows */
} WorkShape;

typedef struct {
  KernelId kernel;
  WorkShape shape;
  unsigned units;               /* of a row, for COLUMN_SEGMENT and ROW_RUN */
  unsigned rows;                /* for ROW_RUN */
} Pass;

/* A mode's passes, and whether they keep sums in `sums`: row sums
 * between two passes, or a strip's column sums. */
typedef struct {
  unsigned n;
  Pass pass[2];
  bool uses_sums;
} ModePasses;

/* GPUs.  The samples of a laplace run are RUN in laplace.cl.  Two rows per laplace work-item measured
 * fastest at 3840x2160 on an H100 (0.051 ms; 0.053 with one, 0.057 with
 * four). */
static const ModePasses mode_passes[] = {
  [CLF_MODE_BOX] = {1, {{K_BOX, ONE_PIXEL}}},
  [CLF_MODE_SEPARABLE] = {2, {{K_ROWS_DIRECT, ONE_PIXEL},
          {K_COLS_DIRECT, ONE_PIXEL}}, true},
  [CLF_MODE_SLIDING] = {2, {{K_COLUMN_SUMS, COLUMN_SEGMENT, 4},
          {K_ROW_MEANS_SCAN, ROW_GROUP}}, true},
  [CLF_MODE_LAPLACE] = {1, {{K_LAPLACE_WORDS, ROW_RUN, 16, 2}}},
};

/* GPUs' separable and sliding blurs in one pass, at small radii (see
 * CLF_TILES_MAX_RADIUS; the separable blur for clf_packed_tiles layouts
 * only); none for the other modes. */
static const ModePasses tile_mode_passes[CLF_MODE_LAPLACE + 1] = {
  [CLF_MODE_SEPARABLE] = {1, {{K_SEPARABLE_TILES, TILE}}},
  [CLF_MODE_SLIDING] = {1, {{K_SLIDING_TILES, TILE}}},
};

/* GPUs' sliding blur with 16-bit column sums, beyond the tiles, for the
 * layouts and radii whose column sums fit (CLF_NARROW_MAX_RADIUS). */
static const ModePasses narrow_sliding_passes = {2,
  {{K_NARROW_COLUMN_SUMS, COLUMN_SEGMENT, 4},
    {K_NARROW_ROW_MEANS, ROW_CHUNKS}}, true
};

/* CPUs take strips of rows with vectors (see blur.cl and laplace.cl). */
static const ModePasses cpu_mode_passes[] = {
  [CLF_MODE_BOX] = {1, {{K_BOX, ONE_PIXEL}}},
  [CLF_MODE_SEPARABLE] = {1, {{K_SEPARABLE_STRIPS, STRIP}}, true},
  [CLF_MODE_SLIDING] = {1, {{K_SLIDING_STRIPS, STRIP}}, true},
  [CLF_MODE_LAPLACE] = {1, {{K_LAPLACE_STRIPS, STRIP}}},
};

/* Strips per compute unit: two, so a core that finishes early takes
 * another; but one where a strip would be shorter than the window, since
 * seeding its first window costs a sixth of as many rows or more.  Always
 * a whole number a unit: three strips on two PoCL cores (1280x720 RGBA,
 * r = 127) ran 2.05 ms against 1.87 for two at r = 255. */
#define STRIPS_PER_COMPUTE_UNIT 2

/* The kernels of one pixel layout, and the work-group size each gets on
 * GPUs (see kernel_group_size). */
typedef struct {
  ClfLayout layout;
  cl_kernel kernels[N_KERNELS];
  size_t group[N_KERNELS];
} KernelSet;

/* The rows of a plane: bytes of a row (what is copied and staged), their
 * number, and the size of its samples' containers. */
typedef struct {
  size_t row_bytes;
  uint32_t rows;
  uint32_t sample_bytes;        /* device planes lie on its multiples */
} PlaneShape;

/* Where a plane lies in a device buffer. */
typedef struct {
  size_t offset;
  size_t stride;
} Placement;

typedef enum { CMD_UPLOAD, CMD_KERNEL, CMD_DOWNLOAD } CommandKind;

/* The commands enqueued for a frame; for kernels whose cost grows with
 * the radius, which kernel and how many bytes it reads, to learn its
 * speed (see "passes too long for one launch").  Built in the plan while
 * the frame is enqueued, then its own (ClfInFlight) until finished. */
typedef struct ClfInFlight {
  cl_event events[MAX_COMMANDS];
  CommandKind kinds[MAX_COMMANDS];
  KernelId kernels[MAX_COMMANDS];
  double reads[MAX_COMMANDS];
  unsigned n;
  uint64_t launched_ns;         /* launches already waited for */
  uint32_t copies;              /* host-side copies of the frame */
  cl_event done;                /* completes with the frame */
} FrameCommands;

struct ClfPlan {
  ClfEngine *engine;
  uint32_t n_planes;
  PlaneShape planes[CLF_MAX_PLANES];
  ClfViews views;
  bool cpu_kernels;
  cl_uint compute_units;

  KernelSet sets[3 * CLF_MAX_COMPONENTS];
  unsigned n_sets;
  /* Per view and per mode family; NULL where the mode filters none of
   * the view's samples.  16-bit views whose window sums can pass 2^32
   * also have blurs with 64-bit sums, for the radii that need them. */
  const KernelSet *blur_set[CLF_MAX_COMPONENTS];
  const KernelSet *wide_blur_set[CLF_MAX_COMPONENTS];
  const KernelSet *laplace_set[CLF_MAX_COMPONENTS];

  size_t sums_size;
  cl_mem sums;                  /* exact row sums, created on first use */
  char *blur_limit;             /* why the blurs cannot run at this size,
                                 * or NULL; laplace needs no sums */

  Placement staged[CLF_MAX_PLANES];
  size_t staged_size;
  cl_mem staging_in;            /* device frames for host planes, */
  cl_mem staging_out;           /* created on first use */

  FrameCommands commands;       /* of the frame being enqueued */
  /* The events the frame being enqueued waits for, given to its first
   * command (see take_wait). */
  const cl_event *wait;
  cl_uint n_wait;

  /* Passes too long for one launch: each kernel's speed as last measured
   * (bytes read per ns; 0 until timed), whether the frame's length was
   * estimated, and how the caller stops a frame or hears of a slow one.
   * The speeds are learned as frames finish, maybe on another thread than
   * the one enqueueing (clf_plan_finish): under speed_lock. */
  GMutex speed_lock;
  double reads_per_ns[N_KERNELS];
  bool estimated;
  ClfInterrupt interrupt;
};

static size_t
view_row_units (const ClfView * v)
{
  return (size_t) v->width * v->units;
}

static size_t
view_row_bytes (const ClfView * v)
{
  return view_row_units (v) * v->sample_bytes;
}

/* Whether a window of radius r over values of `depth` bits can sum, with
 * the mean's rounding N/2, to 2^32 or more: N * (2^depth - 1) + N/2 >=
 * 2^32.  16-bit values from r=128 on, 12-bit from r=512, 10-bit never. */
static bool
needs_wide_sums (const ClfView * v, uint32_t radius)
{
  uint64_t area = (2 * (uint64_t) radius + 1) * (2 * (uint64_t) radius + 1);
  return v->sample_bytes == 2
      && area * ((UINT64_C (2) << v->depth) - 1) >= (UINT64_C (1) << 33);
}

/* Bytes of the sums buffer a blur of view v needs: a 32-bit sum per
 * sample, and where 64-bit sums may be needed, 8 bytes more per sample
 * after them (the GPU sliding blur's prefix sums; see prefix_row in
 * blur.cl).  CPUs' sliding strips each keep a row of column sums and one
 * of their prefix sums, or a row of column sums with room for the
 * window's reach either side (strip_for in blur.cl), and a view has at
 * most STRIPS_PER_COMPUTE_UNIT strips a compute unit. */
static uint64_t
view_sums_bytes (const ClfPlan * plan, const ClfView * v)
{
  uint64_t samples = (uint64_t) view_row_units (v) * v->height;
  uint64_t narrow = (samples + 15) / 16 * 16 * sizeof (cl_uint);
  uint64_t bytes = narrow + (needs_wide_sums (v, CLF_MAX_RADIUS) ?
      samples * sizeof (cl_ulong) : 0);
  if (plan->cpu_kernels) {
    uint64_t row = view_row_units (v);
    uint64_t pads = 2 * (uint64_t) (CLF_MAX_RADIUS + 1) * v->units;
    uint64_t padded_row = row + (row > pads ? row : pads);
    uint64_t strips = (uint64_t) STRIPS_PER_COMPUTE_UNIT
        * plan->compute_units * padded_row * sizeof (cl_uint);
    bytes = strips > bytes ? strips : bytes;
  }
  return bytes;
}

/* A kernel's work-group size on GPUs: the size it was compiled for
 * (reqd_work_group_size), else one row of work-items, a multiple of its
 * preferred size (the warp) up to GPU_GROUP_TARGET and within its limit.
 * Asked once, when the kernel is made. */
static bool
kernel_group_size (cl_kernel kernel, cl_device_id device, size_t * group,
    ClfError * err)
{
  size_t compiled[3] = { 0 }, multiple = 0, limit = 0;
  CLF_TRY (err, fail, clGetKernelWorkGroupInfo, kernel, device,
      CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof compiled, compiled, NULL);
  CLF_TRY (err, fail, clGetKernelWorkGroupInfo, kernel, device,
      CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof multiple,
      &multiple, NULL);
  CLF_TRY (err, fail, clGetKernelWorkGroupInfo, kernel, device,
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

/* The layout of a view's pixels for a mode family's `mask`. */
static ClfLayout
view_layout (const ClfPlan * plan, const ClfView * v, uint32_t mask)
{
  return (ClfLayout) {
    .sample_bytes = v->sample_bytes,.units = v->units,.mask = mask,
    .depth = v->depth,.shift = v->shift,
    .swap = v->sample_bytes == 2
        && v->big_endian == clf_engine_little_endian (plan->engine)
  };
}

static const KernelSet *
kernel_set_for (ClfPlan * plan, const ClfLayout * layout, ClfError * err)
{
  for (unsigned i = 0; i < plan->n_sets; i++)
    if (clf_layout_equal (&plan->sets[i].layout, layout))
      return &plan->sets[i];

  cl_program program = clf_engine_program (plan->engine, layout,
      &plan->interrupt, err);
  if (!program)
    return NULL;
  KernelSet *set = &plan->sets[plan->n_sets++];
  set->layout = *layout;
  cl_int status = CL_SUCCESS;
  for (int k = 0; k < N_KERNELS && status == CL_SUCCESS; k++)
    if (clf_layout_has_kernel (layout, k))
      set->kernels[k] = clCreateKernel (program, clf_kernel_names[k],
          &status);
  clReleaseProgram (program);
  CLF_CHECK (status, "clCreateKernel", err, fail);
  for (int k = 0; k < N_KERNELS; k++)
    if (set->kernels[k] && !kernel_group_size (set->kernels[k],
            clf_engine_device (plan->engine), &set->group[k], err))
      goto fail;
  return set;

fail:
  return NULL;
}

/* Staged planes lie one after the other, rows without padding; every
 * plane's rows (all its samples, even a view's last pixel's) fit its row
 * bytes. */
static void
layout_staged_frame (ClfPlan * plan)
{
  size_t offset = 0;
  for (uint32_t i = 0; i < plan->n_planes; i++) {
    const PlaneShape *p = &plan->planes[i];
    offset = (offset + STAGING_ALIGN - 1) / STAGING_ALIGN * STAGING_ALIGN;
    plan->staged[i].offset = offset;
    plan->staged[i].stride = p->row_bytes;
    offset += p->row_bytes * p->rows;
  }
  plan->staged_size = offset;
}

/* The blurs' sums (a SUM per sample of the largest blurred view: 4 bytes
 * for 8-bit samples, 8 for 16-bit) must fit one device buffer and the
 * kernels' 32-bit signed indices; else the blurs are refused at this size
 * (plan->blur_limit says why), while laplace, which needs no sums, still
 * runs. */
static void
check_blur_fits (ClfPlan * plan, cl_ulong max_alloc)
{
  uint64_t sums = 0;
  uint32_t widest = 0;
  for (uint32_t i = 0; i < plan->views.n; i++) {
    const ClfView *v = &plan->views.views[i];
    uint64_t view_sums = view_sums_bytes (plan, v);
    if (v->blur_mask && view_sums > sums) {
      sums = view_sums;
      widest = i;
    }
  }
  const ClfView *v = &plan->views.views[widest];
  if (sums > KERNEL_INDEX_LIMIT)
    plan->blur_limit = clf_strdup_printf ("plane %u (%ux%u, %u samples of "
        "%u bytes per pixel) is too large to blur: the sums would take %"
        PRIu64 " bytes, more than the %d that the kernels' 32-bit indices "
        "reach (laplace works at this size)", v->plane, v->width, v->height,
        v->units, v->sample_bytes, sums, KERNEL_INDEX_LIMIT);
  else if (sums > max_alloc)
    plan->blur_limit = clf_strdup_printf ("the blur needs a %" PRIu64
        "-byte device buffer of sums but %s allows at most %llu bytes per "
        "buffer (laplace works at this size)", sums,
        clf_engine_device_name (plan->engine), (unsigned long long) max_alloc);
  else
    plan->sums_size = (size_t) sums;
}

static bool
check_fits_device (ClfPlan * plan, ClfError * err)
{
  cl_ulong max_alloc = 0;
  CLF_TRY (err, fail, clGetDeviceInfo, clf_engine_device (plan->engine),
      CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
  if (plan->staged_size > max_alloc) {
    clf_error_set (err, CLF_ERROR_INVALID, "the frame needs a %zu-byte "
        "device buffer but %s allows at most %llu bytes per buffer",
        plan->staged_size, clf_engine_device_name (plan->engine),
        (unsigned long long) max_alloc);
    return false;
  }
  if (plan->staged_size > KERNEL_INDEX_LIMIT) {
    clf_error_set (err, CLF_ERROR_INVALID, "the frame takes %zu bytes, "
        "more than the %d that the kernels' 32-bit indices reach",
        plan->staged_size, KERNEL_INDEX_LIMIT);
    return false;
  }
  check_blur_fits (plan, max_alloc);
  return true;

fail:
  return false;
}

bool
clf_plan_supports (const ClfPlan * plan, ClfMode mode, ClfError * err)
{
  if (mode == CLF_MODE_LAPLACE || !plan->blur_limit)
    return true;
  clf_error_set (err, CLF_ERROR_INVALID, "%s", plan->blur_limit);
  return false;
}

/* Which family of kernels a device runs: CPUs' (strips, byte runs) or
 * GPUs'.  CLFILTER_KERNELS=cpu or =gpu picks one on any device, so the
 * tests check both families' bytes on whatever device they have. */
static bool
uses_cpu_kernels (cl_device_type type)
{
  const char *force = getenv ("CLFILTER_KERNELS");
  if (force && !strcmp (force, "gpu"))
    return false;
  if (force && !strcmp (force, "cpu"))
    return true;
  return (type & CL_DEVICE_TYPE_CPU) != 0;
}

ClfPlan *
clf_plan_new (ClfEngine * engine, const ClfFrameFormat * format,
    ClfError * err)
{
  return clf_plan_new_full (engine, format, NULL, err);
}

ClfPlan *
clf_plan_new_full (ClfEngine * engine, const ClfFrameFormat * format,
    const ClfInterrupt * interrupt, ClfError * err)
{
  if (!clf_frame_format_check (format, err))
    return NULL;

  ClfPlan *plan = calloc (1, sizeof *plan);
  if (!plan) {
    clf_error_set (err, CLF_ERROR_OPENCL, "out of host memory");
    return NULL;
  }
  clf_plan_set_interrupt (plan, interrupt);
  plan->engine = clf_engine_ref (engine);
  g_mutex_init (&plan->speed_lock);
  plan->n_planes = format->n_planes;
  for (uint32_t i = 0; i < format->n_planes; i++) {
    plan->planes[i].row_bytes = clf_frame_format_row_bytes (format, i);
    plan->planes[i].rows = clf_frame_format_rows (format, i);
    plan->planes[i].sample_bytes = clf_frame_format_sample_bytes (format, i);
  }
  clf_frame_format_views (format, &plan->views);
  cl_device_type type = 0;
  CLF_TRY (err, fail, clGetDeviceInfo, clf_engine_device (engine),
      CL_DEVICE_TYPE, sizeof type, &type, NULL);
  plan->cpu_kernels = uses_cpu_kernels (type);
  CLF_TRY (err, fail, clGetDeviceInfo, clf_engine_device (engine),
      CL_DEVICE_MAX_COMPUTE_UNITS, sizeof plan->compute_units,
      &plan->compute_units, NULL);

  for (uint32_t i = 0; i < plan->views.n; i++) {
    const ClfView *v = &plan->views.views[i];
    ClfLayout blur = view_layout (plan, v, v->blur_mask);
    ClfLayout wide_blur = blur;
    ClfLayout laplace = view_layout (plan, v, v->laplace_mask);
    wide_blur.wide_sums = true;
    if (v->blur_mask && !(plan->blur_set[i] = kernel_set_for (plan, &blur,
                err)))
      goto fail;
    if (v->blur_mask && needs_wide_sums (v, CLF_MAX_RADIUS)
        && !(plan->wide_blur_set[i] = kernel_set_for (plan, &wide_blur,
                err)))
      goto fail;
    if (v->laplace_mask && !(plan->laplace_set[i] = kernel_set_for (plan,
                &laplace, err)))
      goto fail;
  }
  layout_staged_frame (plan);
  if (!check_fits_device (plan, err))
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
  release_mem (&plan->staging_out);
  release_mem (&plan->staging_in);
  release_mem (&plan->sums);
  free (plan->blur_limit);
  for (unsigned s = plan->n_sets; s-- > 0;)
    for (int k = N_KERNELS; k-- > 0;)
      if (plan->sets[s].kernels[k])
        clReleaseKernel (plan->sets[s].kernels[k]);
  clf_engine_unref (plan->engine);
  g_mutex_clear (&plan->speed_lock);
  free (plan);
}

static bool
ensure_buffer (ClfPlan * plan, cl_mem * mem, size_t size, cl_mem_flags flags,
    ClfError * err)
{
  if (*mem)
    return true;
  cl_int status;
  CLF_FAULT_OR (status, "clCreateBuffer",
      *mem = clCreateBuffer (clf_engine_context (plan->engine), flags, size,
          NULL, &status));
  CLF_CHECK (status, "clCreateBuffer", err, fail);
  return true;

fail:
  *mem = NULL;
  return false;
}

/* ---- the frame's commands -------------------------------------------- */

static cl_event *
next_event (ClfPlan * plan, CommandKind kind)
{
  plan->commands.kinds[plan->commands.n] = kind;
  plan->commands.events[plan->commands.n] = NULL;
  plan->commands.reads[plan->commands.n] = 0;
  return &plan->commands.events[plan->commands.n];
}

static void
event_enqueued (ClfPlan * plan)
{
  plan->commands.n++;
}

/* The device time of a finished command. */
/* The wait list of the next command: the events the frame waits for, to
 * its first command only; the queue is in order, so the others follow it
 * (no barrier, one call less a frame). */
static cl_uint
take_wait (ClfPlan * plan, const cl_event ** wait)
{
  cl_uint n = plan->n_wait;
  *wait = n ? plan->wait : NULL;
  plan->n_wait = 0;
  plan->wait = NULL;
  return n;
}

static bool
command_ns (cl_event event, uint64_t * ns, ClfError * err)
{
  cl_ulong start = 0, end = 0;
  CLF_TRY (err, fail, clGetEventProfilingInfo, event,
      CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
  CLF_TRY (err, fail, clGetEventProfilingInfo, event,
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
static bool
finish_commands (ClfPlan * plan, FrameCommands * cmds, ClfFrameStats * stats,
    ClfError * err)
{
  bool ok = true;

  if (cmds->done || cmds->n) {
    cl_int status;
    CLF_FAULT_OR (status, "clWaitForEvents",
        status = cmds->done ? clWaitForEvents (1, &cmds->done) : CL_SUCCESS);
    if (status == CL_SUCCESS && cmds->n)
      status = clWaitForEvents (cmds->n, cmds->events);
    if (status != CL_SUCCESS) {
      clf_error_set_cl (err, "clWaitForEvents", status);
      /* Host memory may still be in use by a failed command's neighbours. */
      clFinish (clf_engine_queue (plan->engine));
      ok = false;
    }
  }
  for (unsigned i = 0; i < cmds->n; i++) {
    uint64_t ns = 0;
    if (ok && stats && (ok = command_ns (cmds->events[i], &ns, err))) {
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

static bool
set_plane_args (cl_kernel kernel, cl_mem src, const Placement * in,
    cl_mem dst, const Placement * out, cl_mem sums, const ClfView * v,
    const ClfParams * params, cl_int segment, bool keep_from_dst,
    ClfError * err)
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
  const struct {
    size_t size;
    const void *value;
  } args[] = {
    {sizeof src, &src}, {sizeof src_off, &src_off},
    {sizeof src_stride, &src_stride}, {sizeof dst, &dst},
    {sizeof dst_off, &dst_off}, {sizeof dst_stride, &dst_stride},
    {sizeof sums, &sums}, {sizeof width, &width}, {sizeof height, &height},
    {sizeof radius, &radius}, {sizeof border, &border},
    {sizeof segment, &segment}, {sizeof mean_mul, &mean_mul},
    {sizeof mean_shift, &mean_shift}, {sizeof keep_dst, &keep_dst},
  };
  for (cl_uint i = 0; i < sizeof args / sizeof args[0]; i++)
    CLF_TRY (err, fail, clSetKernelArg, kernel, i, args[i].size,
        args[i].value);
  return true;

fail:
  return false;
}

static bool
enqueue_plane_copy (ClfPlan * plan, const PlaneShape * p,
    cl_mem src, const Placement * in, cl_mem dst, const Placement * out,
    ClfError * err)
{
  const size_t src_origin[3] = { in->offset, 0, 0 };
  const size_t dst_origin[3] = { out->offset, 0, 0 };
  const size_t region[3] = { p->row_bytes, p->rows, 1 };
  const cl_event *wait;
  cl_uint n_wait = take_wait (plan, &wait);
  CLF_TRY (err, fail, clEnqueueCopyBufferRect,
      clf_engine_queue (plan->engine), src, dst, src_origin, dst_origin,
      region, in->stride, 0, out->stride, 0, n_wait, wait,
      next_event (plan, CMD_KERNEL));
  event_enqueued (plan);
  return true;

fail:
  return false;
}

static size_t
ceil_div (size_t n, size_t d)
{
  return (n + d - 1) / d;
}

/* The pixels of a tile (sliding_tiles, separable_tiles): as
 * tile_width_at in blur.cl, the pixels whose column sums a work-group
 * keeps, less r either side and a run but a pixel, as whole runs. */
static int64_t
tile_width (const KernelSet * set, uint32_t radius)
{
  int64_t run = clf_tile_run_pixels (&set->layout);
  return (CLF_TILE_GROUP * run - 2 * (int64_t) radius - (run - 1)) / run
      * run;
}

/* A tile keeps 16 rows: fewer rows per work-group repeat the first
 * window's rows more, more rows leave too few work-groups (0.125, 0.141
 * and 0.163 ms at r = 1 with 16, 32 and 64, 3840x2160 RGBA, NVIDIA H200;
 * packed tiles of 256 work-items on an H100, in a private harness: 0.066
 * with 16, 0.067 with 8 and 0.079 with 32).  Half as many, down to 4 (a
 * block of separable_tiles), while a frame would give fewer than 4
 * work-groups a compute unit: 16 rows leave most of an H100's units one
 * group or two at 1920x1080 and 1280x720 (packed tiles, H100, private
 * harness, 16 rows against the rows taken here: sliding r = 1 0.029
 * against 0.024 at 1080p, 0.025 against 0.0175 at 720p; separable r = 7
 * 0.050 against 0.048 and 0.043 against 0.032). */
#define TILE_ROWS_MAX 16
#define TILE_ROWS_MIN 4
#define TILE_GROUPS_PER_UNIT 4

static size_t
tile_rows (const ClfPlan * plan, size_t tiles_wide, size_t height)
{
  size_t rows = TILE_ROWS_MAX;
  while (rows > TILE_ROWS_MIN && tiles_wide * ceil_div (height, rows)
      < TILE_GROUPS_PER_UNIT * (size_t) plan->compute_units)
    rows /= 2;
  return rows;
}

/* The pixels of a row that a narrow_row_means work-group takes, and how
 * many such chunks a row has: at most what its local memory holds less
 * r either side (as in blur.cl), the chunks of a row as even as may be. */
static size_t
narrow_chunk (const KernelSet * set, const ClfView * p, uint32_t radius,
    size_t *chunks)
{
  size_t most = clf_narrow_pixels (&set->layout) - 2 * (size_t) radius;
  *chunks = ceil_div (p->width, most);
  return ceil_div (p->width, *chunks);
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
static size_t
work_shape_size (const ClfPlan * plan, const KernelSet * set,
    const Pass * pass, const ClfView * p, const ClfParams * params,
    size_t global[2])
{
  size_t window = pass_window (pass, params);
  size_t segment = window > SLIDING_MAX_SEGMENT ? SLIDING_MAX_SEGMENT :
      window > SLIDING_MIN_SEGMENT ? window : SLIDING_MIN_SEGMENT;

  global[0] = p->width;
  global[1] = p->height;
  switch (pass->shape) {
    case COLUMN_SEGMENT:
      global[0] = ceil_div (view_row_units (p), pass->units);
      global[1] = ceil_div (p->height, segment);
      return segment;
    case ROW_GROUP:
      global[0] = 1;            /* rounded up to one work-group */
      return segment;
    case ROW_RUN:
      global[0] = ceil_div (view_row_units (p), pass->units);
      global[1] = ceil_div (p->height, pass->rows);
      return pass->rows;
    case TILE:{
      size_t tiles_wide = ceil_div (p->width, (size_t) tile_width (set,
              params->radius));
      segment = tile_rows (plan, tiles_wide, p->height);
      global[0] = tiles_wide * set->group[pass->kernel];
      global[1] = ceil_div (p->height, segment);
      return segment;
    }
    case ROW_CHUNKS:{
      size_t chunks, chunk = narrow_chunk (set, p, params->radius, &chunks);
      global[0] = chunks * set->group[pass->kernel];
      return chunk;
    }
    case STRIP:{
      size_t shortest = ceil_div (p->height, (size_t) plan->compute_units *
          STRIPS_PER_COMPUTE_UNIT);
      size_t longest = ceil_div (p->height, plan->compute_units);
      segment = window > shortest ? longest : shortest;
      global[0] = ceil_div (p->height, segment);
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
static const size_t *
pass_local_size (const ClfPlan * plan, const KernelSet * set,
    const Pass * pass, size_t global[2], size_t local[2])
{
  local[0] = local[1] = 1;
  if (pass->shape == STRIP)
    return local;
  if (plan->cpu_kernels)
    return NULL;
  local[0] = set->group[pass->kernel];
  global[0] = ceil_div (global[0], local[0]) * local[0];
  return local;
}

/* ---- passes too long for one launch ------------------------------------
 * The passes whose cost grows with the radius (the naive box: (2r+1)^2
 * reads a byte; the separable passes: 2r+1) take minutes at radius 1023:
 * 30 s a frame at 64x48 on PoCL.  One estimated above LAUNCH_NS runs as
 * launches of about that long, each waited for, so that the frame can be
 * stopped between them (clf_plan_set_interrupt): a stop then waits for one
 * launch at most.  The estimate comes from the kernel's speed as measured
 * on its last launch; until a kernel has run, DEFAULT_READS_PER_NS, the
 * naive box's speed on 2 PoCL cores, the slowest seen, stands for it.  The
 * naive box stays the naive box: each launch runs the same kernel over a
 * rectangle of the plane's pixels (the CPUs' separable strips: a range of
 * one-row strips), and the bytes are the same. */
#define LAUNCH_NS 50e6
#define DEFAULT_READS_PER_NS 1.0
/* CPU launches come in work-groups of this many pixels, at least one per
 * compute unit: PoCL runs a work-group's items in SIMD lanes (16 ints in
 * AVX-512), and launches of a dozen pixels, each its own lane-less group
 * or all on one core, ran the naive box at r=1023 2.5 times slower.  At
 * that radius a CPU launch is then about 0.1 s (32 pixels on 2 cores). */
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
typedef struct {
  size_t offset[2];
  size_t global[2];
  uint64_t count;
} LaunchRange;

/* The next launch of about `units` units from unit `done` of a plane:
 * rows (one-row strips) when `rows`, else pixels in row order, as whole
 * rows where `units` reaches past the row's end, else a run of one row
 * (GPUs: whole work-groups of `group` work-items). */
static LaunchRange
next_launch (const ClfView * p, uint64_t done, uint64_t units,
    bool rows, size_t group)
{
  LaunchRange r = { {0, 0}, {1, 1}, 0 };
  if (units < 1)
    units = 1;
  if (rows) {
    r.count = units < p->height - done ? units : p->height - done;
    r.offset[0] = (size_t) done;
    r.global[0] = (size_t) r.count;
    return r;
  }
  size_t x = (size_t) (done % p->width), y = (size_t) (done / p->width);
  if (x == 0 && units >= p->width) {
    uint64_t n = units / p->width;
    n = n < p->height - y ? n : p->height - y;
    r.offset[1] = y;
    r.global[0] = ceil_div (p->width, group) * group;
    r.global[1] = (size_t) n;
    r.count = n * p->width;
    return r;
  }
  size_t run = units < p->width - x ? (size_t) units : p->width - x;
  if (run < p->width - x)
    run = run > group ? run / group * group : group;
  run = run < p->width - x ? run : p->width - x;
  r.offset[0] = x;
  r.offset[1] = y;
  r.global[0] = ceil_div (run, group) * group;
  r.count = run;
  return r;
}

static bool
frame_cancelled (const ClfPlan * plan)
{
  return plan->interrupt.cancelled
      && plan->interrupt.cancelled (plan->interrupt.data);
}

/* Runs one launch and waits for it; its device time counts as the frame's
 * kernel time, and teaches the plan the kernel's speed.  After the frame's
 * first such launch, a pass estimated above interrupt.slow_ns is told. */
static bool
run_launch (ClfPlan * plan, cl_kernel kernel, KernelId id,
    const LaunchRange * r, const size_t *local, double reads,
    double frame_reads, ClfError * err)
{
  cl_event event = NULL;
  uint64_t ns = 0;
  const cl_event *wait;
  cl_uint n_wait = take_wait (plan, &wait);
  CLF_TRY (err, fail, clEnqueueNDRangeKernel,
      clf_engine_queue (plan->engine), kernel, 2, r->offset, r->global, local,
      n_wait, wait, &event);
  CLF_TRY (err, fail, clWaitForEvents, 1, &event);
  if (!command_ns (event, &ns, err))
    goto fail;
  clReleaseEvent (event);
  plan->commands.launched_ns += ns;
  learn_speed (plan, id, reads, ns);
  if (!plan->estimated && plan->interrupt.slow) {
    double estimate = frame_reads / kernel_speed (plan, id);
    plan->estimated = true;
    if (estimate > (double) plan->interrupt.slow_ns)
      plan->interrupt.slow ((uint64_t) estimate, plan->interrupt.data);
  }
  return true;

fail:
  if (event)
    clReleaseEvent (event);
  return false;
}

/* A pass in launches of about LAUNCH_NS each, stopping between them when
 * the caller cancels the frame (CLF_ERROR_CANCELLED).  The kernel's
 * arguments are set. */
static bool
enqueue_in_launches (ClfPlan * plan, const KernelSet * set,
    const Pass * pass, const ClfView * p, double reads_per_unit,
    ClfError * err)
{
  bool rows = pass->shape == STRIP;
  uint64_t total = rows ? p->height : (uint64_t) p->width * p->height;
  size_t group = rows ? 1 : plan->cpu_kernels ? CPU_LAUNCH_GROUP :
      set->group[pass->kernel];
  size_t local_size[2] = { group, 1 };
  /* Every compute unit gets a work-group (CPUs: one strip a unit). */
  double fewest = (double) group * plan->compute_units;

  for (uint64_t done = 0; done < total;) {
    if (frame_cancelled (plan)) {
      clf_error_set (err, CLF_ERROR_CANCELLED, "the frame was stopped "
          "between two launches of its %s kernel",
          clf_kernel_names[pass->kernel]);
      return false;
    }
    double units = LAUNCH_NS * kernel_speed (plan, pass->kernel) /
        reads_per_unit;
    units = units > fewest ? units : fewest;
    LaunchRange r = next_launch (p, done, units < (double) total ?
        (uint64_t) units : total, rows, group);
    if (!run_launch (plan, set->kernels[pass->kernel], pass->kernel, &r,
            local_size, (double) r.count * reads_per_unit,
            (double) total * reads_per_unit, err))
      return false;
    done += r.count;
  }
  return true;
}

/* The reads of a pass over view p, when its cost grows with the radius
 * and it is estimated above LAUNCH_NS; else 0 (one launch). */
static double
long_pass_reads (ClfPlan * plan, const Pass * pass,
    const ClfView * p, const ClfParams * params)
{
  double reads = (double) view_row_bytes (p) * p->height
      * pass_reads_per_byte (pass->kernel, params->radius);
  return reads / kernel_speed (plan, pass->kernel) > LAUNCH_NS ? reads : 0;
}

static bool
enqueue_pass (ClfPlan * plan, const KernelSet * set, const Pass * pass,
    const ClfView * p, const ClfParams * params, cl_mem src,
    const Placement * in, cl_mem dst, const Placement * out,
    bool keep_from_dst, ClfError * err)
{
  cl_kernel kernel = set->kernels[pass->kernel];
  size_t global[2];
  size_t seg = work_shape_size (plan, set, pass, p, params, global);
  double long_reads = long_pass_reads (plan, pass, p, params);
  /* In launches, a CPU strip is one row: a launch takes whole strips. */
  if (!set_plane_args (kernel, src, in, dst, out, plan->sums, p, params,
          long_reads > 0 && pass->shape == STRIP ? 1 : (cl_int) seg,
          keep_from_dst, err))
    return false;
  if (long_reads > 0)
    return enqueue_in_launches (plan, set, pass, p, long_reads /
        (pass->shape == STRIP ? p->height : (double) p->width * p->height),
        err);

  size_t local_size[2];
  const size_t *local = pass_local_size (plan, set, pass, global, local_size);
  const cl_event *wait;
  cl_uint n_wait = take_wait (plan, &wait);
  plan->commands.kernels[plan->commands.n] = pass->kernel;
  CLF_TRY (err, fail, clEnqueueNDRangeKernel,
      clf_engine_queue (plan->engine), kernel, 2, NULL, global, local,
      n_wait, wait, next_event (plan, CMD_KERNEL));
  plan->commands.reads[plan->commands.n] = (double) view_row_bytes (p)
      * p->height * pass_reads_per_byte (pass->kernel, params->radius);
  event_enqueued (plan);
  return true;

fail:
  return false;
}

/* The passes of a mode on the plan's device: CPUs' strips; GPUs' tiles
 * at small radii, where the layout's program has the mode's tile kernel;
 * the sliding blur's narrow passes where its column sums fit 16 bits;
 * else the GPUs' passes. */
static const ModePasses *
mode_passes_for (const ClfPlan * plan, const KernelSet * set,
    const ClfParams * params)
{
  if (plan->cpu_kernels)
    return &cpu_mode_passes[params->mode];
  const ModePasses *tiles = &tile_mode_passes[params->mode];
  if (params->radius <= CLF_TILES_MAX_RADIUS && tiles->n > 0
      && set->kernels[tiles->pass[0].kernel])
    return tiles;
  if (params->mode == CLF_MODE_SLIDING
      && params->radius <= CLF_NARROW_MAX_RADIUS
      && set->kernels[K_NARROW_ROW_MEANS])
    return &narrow_sliding_passes;
  return &mode_passes[params->mode];
}

/* Filters view v (index i) of a plane, copying from `keep_from_dst` the
 * samples it does not filter. */
static bool
enqueue_view_filter (ClfPlan * plan, const ClfParams * params, uint32_t i,
    cl_mem src, const Placement * in, cl_mem dst, const Placement * out,
    bool keep_from_dst, ClfError * err)
{
  const ClfView *v = &plan->views.views[i];
  bool laplace = params->mode == CLF_MODE_LAPLACE;
  const KernelSet *set = laplace ? plan->laplace_set[i] :
      needs_wide_sums (v, params->radius) ? plan->wide_blur_set[i] :
      plan->blur_set[i];
  const ModePasses *passes = mode_passes_for (plan, set, params);

  if (passes->uses_sums && !ensure_buffer (plan, &plan->sums, plan->sums_size,
          CL_MEM_READ_WRITE, err))
    return false;
  for (unsigned k = 0; k < passes->n; k++)
    if (!enqueue_pass (plan, set, &passes->pass[k], v, params, src, in, dst,
            out, keep_from_dst, err))
      return false;
  return true;
}

/* Filters plane `plane`: its views the mode filters, the widest first.
 * Where they leave bytes of its rows unwritten (a plane the mode filters
 * nothing of; laplace on odd-width packed 4:2:2, whose luma pixels stop
 * short of the last chroma sample), the plane is copied first.  The first
 * view copies the samples it does not filter from the source, later ones
 * from the destination, which already holds them. */
static bool
enqueue_plane_filter (ClfPlan * plan, const ClfParams * params,
    uint32_t plane, cl_mem src, const Placement * in, cl_mem dst,
    const Placement * out, ClfError * err)
{
  bool laplace = params->mode == CLF_MODE_LAPLACE;
  bool written = false;
  for (uint32_t i = 0; i < plan->views.n; i++) {
    const ClfView *v = &plan->views.views[i];
    const KernelSet *set = laplace ? plan->laplace_set[i] :
        plan->blur_set[i];
    if (v->plane != plane || !set)
      continue;
    if (!written && view_row_bytes (v) < plan->planes[plane].row_bytes
        && !enqueue_plane_copy (plan, &plan->planes[plane], src, in, dst, out,
            err))
      return false;
    if (!enqueue_view_filter (plan, params, i, src, in, dst, out, written,
            err))
      return false;
    written = true;
  }
  if (!written)
    return enqueue_plane_copy (plan, &plan->planes[plane], src, in, dst, out,
        err);
  return true;
}

void
clf_plan_set_interrupt (ClfPlan * plan, const ClfInterrupt * interrupt)
{
  memset (&plan->interrupt, 0, sizeof plan->interrupt);
  if (interrupt)
    plan->interrupt = *interrupt;
}

static bool
check_params (const ClfParams * params, ClfError * err)
{
  if ((unsigned) params->mode > CLF_MODE_LAPLACE
      || (unsigned) params->border > CLF_BORDER_MIRROR
      || params->radius > CLF_MAX_RADIUS) {
    clf_error_set (err, CLF_ERROR_INVALID, "invalid filter parameters "
        "(mode %d, radius %u, border %d)", (int) params->mode,
        params->radius, (int) params->border);
    return false;
  }
  return true;
}

/* Copies plane i between host memory and the staged device frame: up
 * into staging_in, or down from staging_out.  Rows only, never their
 * padding. */
static bool
enqueue_transfer (ClfPlan * plan, CommandKind kind, uint32_t i,
    const ClfFrame * host, ClfError * err)
{
  const PlaneShape *p = &plan->planes[i];
  const size_t buffer_origin[3] = { plan->staged[i].offset, 0, 0 };
  const size_t host_origin[3] = { 0, 0, 0 };
  const size_t region[3] = { p->row_bytes, p->rows, 1 };
  cl_command_queue queue = clf_engine_queue (plan->engine);
  cl_event *event = next_event (plan, kind);
  const char *call = kind == CMD_UPLOAD ? "clEnqueueWriteBufferRect" :
      "clEnqueueReadBufferRect";
  const cl_event *wait;
  cl_uint n_wait = take_wait (plan, &wait);
  cl_int status;
  CLF_FAULT_OR (status, call, status = kind == CMD_UPLOAD ?
      clEnqueueWriteBufferRect (queue, plan->staging_in, CL_FALSE,
          buffer_origin, host_origin, region, plan->staged[i].stride, 0,
          host->stride[i], 0, host->data[i], n_wait, wait, event) :
      clEnqueueReadBufferRect (queue, plan->staging_out, CL_FALSE,
          buffer_origin, host_origin, region, plan->staged[i].stride, 0,
          host->stride[i], 0, host->data[i], n_wait, wait, event));
  CLF_CHECK (status, call, err, fail);
  event_enqueued (plan);
  return true;

fail:
  return false;
}

/* The bytes from a plane's first row to the end of its last, in 64 bits
 * (the stride is below 2^31 and the rows below 2^32, so it cannot wrap). */
static uint64_t
plane_extent (const PlaneShape * p, size_t stride)
{
  return (uint64_t) stride * (p->rows - 1) + p->row_bytes;
}

/* Where plane i of a frame may reach: `*room` bytes from its first row on,
 * read from the device buffer (past the plane's offset) or given with the
 * host plane. */
static bool
plane_room (const ClfFrame * frame, uint32_t i, const char *what,
    uint64_t * room, ClfError * err)
{
  if (!frame->mem[i]) {
    *room = frame->size[i];
    return true;
  }
  size_t size = 0;
  CLF_TRY (err, fail, clGetMemObjectInfo, frame->mem[i], CL_MEM_SIZE,
      sizeof size, &size, NULL);
  if (frame->offset[i] > size) {
    clf_error_set (err, CLF_ERROR_FRAME, "plane %u of the %s frame starts "
        "at offset %zu, past the end of its %zu-byte device buffer", i, what,
        frame->offset[i], size);
    return false;
  }
  /* The kernels take offsets in 32 bits. */
  uint64_t reach = KERNEL_INDEX_LIMIT - (frame->offset[i] < KERNEL_INDEX_LIMIT
      ? frame->offset[i] : KERNEL_INDEX_LIMIT);
  *room = size - frame->offset[i] < reach ? size - frame->offset[i] : reach;
  return true;

fail:
  return false;
}

bool
clf_plan_check_frame (const ClfPlan * plan, const ClfFrame * frame,
    const char *what, ClfError * err)
{
  for (uint32_t i = 0; i < plan->n_planes; i++) {
    const PlaneShape *p = &plan->planes[i];
    size_t row = p->row_bytes;
    uint32_t align = p->sample_bytes;
    uint64_t room = 0;
    if (!frame->mem[i] && !frame->data[i]) {
      clf_error_set (err, CLF_ERROR_FRAME, "plane %u of the %s frame has no "
          "memory", i, what);
      return false;
    }
    if (frame->stride[i] < row || frame->stride[i] > KERNEL_INDEX_LIMIT) {
      clf_error_set (err, CLF_ERROR_FRAME, "plane %u of the %s frame has a "
          "stride of %zu bytes: it must hold a row (%zu bytes) and be below "
          "2 GiB", i, what, frame->stride[i], row);
      return false;
    }
    if (frame->mem[i] && (frame->offset[i] % align || frame->stride[i]
            % align)) {
      clf_error_set (err, CLF_ERROR_FRAME, "plane %u of the %s frame has "
          "offset %zu and stride %zu in its device buffer: its %u-byte "
          "samples need both to be multiples of %u", i, what,
          frame->offset[i], frame->stride[i], align, align);
      return false;
    }
    if (!plane_room (frame, i, what, &room, err))
      return false;
    if (plane_extent (p, frame->stride[i]) > room) {
      clf_error_set (err, CLF_ERROR_FRAME, "plane %u of the %s frame (%u "
          "rows of %zu bytes, stride %zu, offset %zu) reaches %" PRIu64
          " bytes past its start, but its memory holds only %" PRIu64, i,
          what, p->rows, row, frame->stride[i], frame->offset[i],
          plane_extent (p, frame->stride[i]), room);
      return false;
    }
  }
  return true;
}

/* Where the filter finds plane i of a frame: in the frame's own device
 * buffer, or staged in the plan's. */
static cl_mem
device_plane (const ClfPlan * plan, const ClfFrame * frame, uint32_t i,
    cl_mem staging, Placement * at)
{
  if (!frame->mem[i]) {
    *at = plan->staged[i];
    return staging;
  }
  at->offset = frame->offset[i];
  at->stride = frame->stride[i];
  return frame->mem[i];
}

static bool
has_host_plane (const ClfPlan * plan, const ClfFrame * frame)
{
  for (uint32_t i = 0; i < plan->n_planes; i++)
    if (!frame->mem[i])
      return true;
  return false;
}

/* A buffer over host memory (clf_engine_wrap_host) shows the device's
 * writes to the host once mapped: map and unmap the bytes at [from, to),
 * which moves none on the host-unified devices such buffers are made
 * for. */
static bool
enqueue_host_handback (ClfPlan * plan, cl_mem mem, size_t from, size_t to,
    ClfError * err)
{
  cl_command_queue queue = clf_engine_queue (plan->engine);
  void *mapped = NULL;
  cl_int status;

  CLF_FAULT_OR (status, "clEnqueueMapBuffer",
      mapped = clEnqueueMapBuffer (queue, mem, CL_FALSE, CL_MAP_READ, from,
          to - from, 0, NULL, next_event (plan, CMD_DOWNLOAD), &status));
  CLF_CHECK (status, "clEnqueueMapBuffer", err, fail);
  event_enqueued (plan);
  status = clEnqueueUnmapMemObject (queue, mem, mapped, 0, NULL,
      next_event (plan, CMD_DOWNLOAD));
  if (status == CL_SUCCESS)
    event_enqueued (plan);
  /* A test fault is reported after the unmap is made: a buffer left mapped
   * is never freed, which would be the injection's leak. */
  if (status == CL_SUCCESS)
    status = clf_test_fault ("clEnqueueUnmapMemObject");
  CLF_CHECK (status, "clEnqueueUnmapMemObject", err, fail);
  return true;

fail:
  return false;
}

/* Hands each distinct wrapped buffer of `dst` back to the host, once over
 * the bytes of all the planes in it. */
static bool
enqueue_handbacks (ClfPlan * plan, const ClfFrame * dst, ClfError * err)
{
  for (uint32_t i = 0; i < plan->n_planes; i++) {
    bool seen = false;
    size_t from = SIZE_MAX, to = 0;
    for (uint32_t j = 0; j < i; j++)
      seen |= dst->wrapped[j] && dst->mem[j] == dst->mem[i];
    if (!dst->wrapped[i] || seen)
      continue;
    for (uint32_t j = i; j < plan->n_planes; j++) {
      if (!dst->wrapped[j] || dst->mem[j] != dst->mem[i])
        continue;
      /* clf_plan_check_frame kept each plane within its buffer. */
      size_t end = dst->offset[j] + (size_t) plane_extent (&plan->planes[j],
          dst->stride[j]);
      from = dst->offset[j] < from ? dst->offset[j] : from;
      to = end > to ? end : to;
    }
    if (!enqueue_host_handback (plan, dst->mem[i], from, to, err))
      return false;
  }
  return true;
}

/* The event that ends the frame, kept with it: the queue is in order, so
 * its last command's.  A frame whose passes all ran in launches (waited
 * for one by one, see run_launch) has none left: a marker then. */
static bool
keep_done_event (ClfPlan * plan, ClfError * err)
{
  FrameCommands *cmds = &plan->commands;

  if (cmds->n == 0) {
    const cl_event *wait;
    cl_uint n_wait = take_wait (plan, &wait);
    CLF_TRY (err, fail, clEnqueueMarkerWithWaitList,
        clf_engine_queue (plan->engine), n_wait, wait, &cmds->done);
    return true;
  }
  CLF_TRY (err, fail, clRetainEvent, cmds->events[cmds->n - 1]);
  cmds->done = cmds->events[cmds->n - 1];
  return true;

fail:
  cmds->done = NULL;
  return false;
}

ClfInFlight *
clf_plan_enqueue (ClfPlan * plan, const ClfParams * params,
    const ClfFrame * src, const ClfFrame * dst, const cl_event * wait,
    uint32_t n_wait, ClfError * err)
{
  const uint32_t n = plan->n_planes;
  bool upload = has_host_plane (plan, src);
  bool download = has_host_plane (plan, dst);
  ClfInFlight *frame;

  plan->estimated = false;
  if (!check_params (params, err) || !clf_plan_supports (plan, params->mode,
          err)
      || !clf_plan_check_frame (plan, src, "source", err)
      || !clf_plan_check_frame (plan, dst, "destination", err))
    return NULL;
  if ((upload && !ensure_buffer (plan, &plan->staging_in, plan->staged_size,
              CL_MEM_READ_ONLY, err))
      || (download && !ensure_buffer (plan, &plan->staging_out,
              plan->staged_size, CL_MEM_WRITE_ONLY, err)))
    return NULL;
  plan->wait = wait;
  plan->n_wait = n_wait;

  for (uint32_t i = 0; i < n; i++)
    if (!src->mem[i] && !enqueue_transfer (plan, CMD_UPLOAD, i, src, err))
      goto fail;
  for (uint32_t i = 0; i < n; i++) {
    Placement in, out;
    cl_mem from = device_plane (plan, src, i, plan->staging_in, &in);
    cl_mem to = device_plane (plan, dst, i, plan->staging_out, &out);
    if (!enqueue_plane_filter (plan, params, i, from, &in, to, &out, err))
      goto fail;
  }
  for (uint32_t i = 0; i < n; i++)
    if (!dst->mem[i] && !enqueue_transfer (plan, CMD_DOWNLOAD, i, dst, err))
      goto fail;
  if (!enqueue_handbacks (plan, dst, err) || !keep_done_event (plan, err))
    goto fail;
  /* Submitted now, not at the next wait: the device starts while the
   * caller goes on (drivers may hold commands back until a flush). */
  CLF_TRY (err, fail, clFlush, clf_engine_queue (plan->engine));
  if (!(frame = malloc (sizeof *frame))) {
    clf_error_set (err, CLF_ERROR_INVALID, "out of host memory for a frame "
        "in flight");
    goto fail;
  }
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
  finish_commands (plan, &plan->commands, NULL, NULL);
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
    ClfError * err)
{
  bool ok;

  memset (stats, 0, sizeof *stats);
  ok = finish_commands (plan, frame, stats, err);
  free (frame);
  return ok;
}

bool
clf_plan_process (ClfPlan * plan, const ClfParams * params,
    const ClfFrame * src, const ClfFrame * dst, ClfFrameStats * stats,
    ClfError * err)
{
  ClfInFlight *frame = clf_plan_enqueue (plan, params, src, dst, NULL, 0,
      err);

  memset (stats, 0, sizeof *stats);
  return frame && clf_plan_finish (plan, frame, stats, err);
}

bool
clf_plan_process_host (ClfPlan * plan, const ClfParams * params,
    const ClfHostFrame * src, const ClfHostFrame * dst,
    ClfFrameStats * stats, ClfError * err)
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
  return clf_plan_process (plan, params, &in, &out, stats, err);
}
