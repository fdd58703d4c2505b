/* The plan layer's own header: the plan object (clf-plan.c) and what its
 * parts share: the frame's commands and launches (clf-launch.c) and the
 * frames' checks and transfers (clf-frame.c).  On the engine, the
 * geometry and the catalogue below it. */
#pragma once

#include "clf-check.h"
#include "clf-engine-private.h"
#include "clf-geometry.h"

#include <glib.h>

/* The kernels index a plane's bytes, and the blurs' sums, with 32-bit
 * signed ints (and a few unsigned): every plane's last byte, and every
 * stride, stays below this. */
#define KERNEL_INDEX_LIMIT INT32_MAX
/* Per plane: an upload, a copy, a download, and the map and unmap that
 * hand a wrapped host buffer back to the host; per view, two filter
 * passes. */
#define MAX_COMMANDS (CLF_MAX_PLANES * 5 + CLF_MAX_COMPONENTS * 2)


/* The kernels of one program, and the work-group size each gets on
 * GPUs (see kernel_group_size in clf-plan.c). */
typedef struct {
  ClfProgramSpec spec;
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

/* The planes of the frames a plan reads or writes, and where they lie
 * when staged in a device buffer of its own: one after the other, rows
 * without padding. */
typedef struct {
  uint32_t n_planes;
  PlaneShape planes[CLF_MAX_PLANES];
  Placement staged[CLF_MAX_PLANES];
  size_t staged_size;
} FrameShape;

typedef enum { CMD_UPLOAD, CMD_KERNEL, CMD_DOWNLOAD } CommandKind;

/* The commands enqueued for a frame; for kernels whose cost grows with
 * the radius or convolve's kernel, which kernel and how many bytes it
 * reads, to learn its speed (see clf-launch.c).  Built in the plan while
 * the frame is enqueued, then handed to the caller until finished. */
struct ClfInFlight {
  cl_event events[MAX_COMMANDS];
  CommandKind kinds[MAX_COMMANDS];
  KernelId kernels[MAX_COMMANDS];
  double reads[MAX_COMMANDS];
  unsigned n;
  uint64_t launched_ns;         /* launches already waited for */
  uint32_t copies;              /* host-side copies of the frame */
  cl_event done;                /* completes with the frame */
};

struct ClfPlan {
  ClfEngine *engine;
  ClfFrameFormat format;        /* the source frames' */
  FrameShape in;                /* their planes */
  FrameShape out;               /* the destination's: `in` unless converting */
  ClfViews views;
  bool cpu_kernels;
  cl_uint compute_units;
  cl_ulong local_mem;           /* bytes; CL_DEVICE_LOCAL_MEM_SIZE */

  /* The kernels of the programs the plan's frames have used, made on
 * first use: per view, laplace's, convolve's (its kernel's over all the
 * colour samples, over luma alone, and neutral chroma's fill) and each
 * blur's at each set of passes, with 64-bit sums for 16-bit views at the
 * radii that need them: at most 13 a view. */
  KernelSet sets[16 * CLF_MAX_COMPONENTS];
  unsigned n_sets;

  size_t sums_size;
  cl_mem sums;                  /* exact row sums, created on first use */
  char *blur_limit;             /* why the blurs cannot run at this size,
                                 * or NULL; laplace needs no sums */

  cl_mem staging_in;            /* device frames for host planes, */
  cl_mem staging_out;           /* created on first use */

  /* Converting (clf_plan_new_converting): the conversion, and the
   * filtered frame it reads, staged as `in`, on the device only (created
   * on first use). */
  ClfConversion *conversion;
  cl_mem filtered;

  ClfInFlight commands;       /* of the frame being enqueued */
  /* The events the frame being enqueued waits for, given to its first
   * command (see clf_plan_take_wait). */
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
  ClfPlanCallbacks callbacks;

  struct ClfConvolve *convolve; /* mode=convolve (clf-convolve.c) */
};


/* The kernels of the program `spec`, made on first use (clf-plan.c). */
const KernelSet *clf_plan_kernel_set (ClfPlan * plan,
    const ClfProgramSpec * spec, GError ** error);

/* ---- the frame's commands (clf-launch.c) ---- */

/* The next command's event, of `kind`; counted once enqueued
 * (clf_plan_event_enqueued). */
cl_event *clf_plan_next_event (ClfPlan * plan, CommandKind kind);
void clf_plan_event_enqueued (ClfPlan * plan);
/* The wait list of the next command (see clf-launch.c). */
cl_uint clf_plan_take_wait (ClfPlan * plan, const cl_event ** wait);
/* Waits for a frame's commands, adds their device time to `stats` (may be
 * NULL), learns the kernels' speeds and releases the events. */
bool clf_plan_finish_commands (ClfPlan * plan, ClfInFlight * cmds,
    ClfFrameStats * stats, GError ** error);
/* A kernel argument: its size and where its value is. */
typedef struct {
  size_t size;
  const void *value;
} ClfKernelArg;
/* Sets arguments 0 to n - 1 of `kernel` from `args`; _from, arguments
 * first to first + n - 1. */
bool clf_set_kernel_args (cl_kernel kernel, const ClfKernelArg * args,
    cl_uint n, GError ** error);
bool clf_set_kernel_args_from (cl_kernel kernel, cl_uint first,
    const ClfKernelArg * args, cl_uint n, GError ** error);
/* The blurs' and laplace's arguments (kernels/common.cl's PLANE_ARGS). */
#define CLF_PLANE_ARGS 15
/* Whether a pass of `kernel` that reads `reads` bytes is estimated above
 * a launch's budget, at the kernel's speed as last measured: it then runs
 * in launches (clf_plan_enqueue_in_launches), its CPU strips one row
 * each (their `seg` 1). */
bool clf_plan_long_pass (ClfPlan * plan, KernelId kernel, double reads);
/* How launches cut a pass over a view: into work-groups of local[0] x
 * local[1] work-items, whose rows go down dimension `row_dim` (1; the
 * CPUs' strips, a row a work-item, 0), each row of work-groups `band`
 * rows of pixels high, each work-item `columns` pixels wide (the blurs:
 * a pixel a work-item, band 1; the GPUs' convolve tiles: a block of rows
 * a row of groups).  The kernel finds its pixels from get_global_id,
 * which holds a launch's global offset (get_group_id does not). */
typedef struct {
  KernelId kernel;
  size_t local[2];
  uint32_t band;
  uint32_t columns;
  unsigned row_dim;
} LaunchGrid;
/* Runs `kernel` (its arguments set) over view p as launches of about 50 ms
 * along `grid`, each waited for, `reads` bytes in all; between launches
 * the plan's callbacks may stop the frame (CLF_ERROR_CANCELLED).  After
 * the frame's first launch, a slow frame is reported (clf.h). */
bool clf_plan_enqueue_in_launches (ClfPlan * plan, cl_kernel kernel,
    const LaunchGrid * grid, const ClfView * p, const ClfParams * params,
    double reads, GError ** error);
/* Enqueues `kernel` (kernel id, its arguments set) in one launch, its
 * event the frame's; `reads` bytes, or 0, teach the plan its speed when
 * the frame is finished. */
bool clf_plan_enqueue_kernel (ClfPlan * plan, cl_kernel kernel, KernelId id,
    const size_t global[2], const size_t * local, double reads,
    GError ** error);
/* Enqueues one pass of a mode over view p, in launches where it is too
 * long for one. */
bool clf_plan_enqueue_pass (ClfPlan * plan, const KernelSet * set,
    const Pass * pass, const ClfView * p, const ClfParams * params,
    cl_mem src, const Placement * in, cl_mem dst, const Placement * out,
    bool keep_from_dst, GError ** error);
/* ---- colour conversion (clf-convert.c) ---- */

/* Sets `kernel`'s arguments first on to those of a conversion of the
 * frame at `src` (planes of plan->in, each in its buffer at its
 * placement) into `dst` (of plan->out): the planes and the matrix,
 * CLF_CONVERSION_ARGS of them (kernels/convert.cl). */
#define CLF_CONVERSION_ARGS (2 * 4 * 3 + 1)
bool clf_plan_set_conversion_args (ClfPlan * plan, cl_kernel kernel,
    cl_uint first, cl_mem const *src, const Placement * in,
    cl_mem const *dst, const Placement * out, GError ** error);
/* Enqueues the conversion of the frame at `src` (planes of plan->in, each
 * in its buffer at its placement) into `dst` (of plan->out), with `set`,
 * the kernels of the conversion's program (clf_convert_layout); where it
 * sharpens, under `params`' border rule. */
bool clf_plan_enqueue_conversion (ClfPlan * plan, const KernelSet * set,
    const ClfParams * params, cl_mem const *src, const Placement * in,
    cl_mem const *dst, const Placement * out, GError ** error);
/* Whether the conversion of frames of `in` can sharpen them as
 * mode=laplace does, in the same pass: the components laplace sharpens
 * are colours at full resolution (kernels/convert.cl's SHARPEN). */
bool clf_conversion_sharpens (const ClfFrameFormat * in);
/* The pixels of the program that converts frames of `in` as `conversion`
 * says on a device of that byte order, and kind (CPUs: runs); with
 * `sharpen`, sharpening the input's colours as mode=laplace does. */
void clf_convert_layout (const ClfFrameFormat * in,
    const ClfConversion * conversion, bool little_endian, bool cpu_kernels,
    bool sharpen, ClfConvertLayout * layout);

/* Keeps the event that ends the frame being enqueued, in its commands. */
bool clf_plan_keep_done_event (ClfPlan * plan, GError ** error);

/* ---- frames: checks and transfers (clf-frame.c) ---- */

/* Copies a plane's rows from src to dst on the device. */
bool clf_plan_enqueue_plane_copy (ClfPlan * plan, const PlaneShape * p,
    cl_mem src, const Placement * in, cl_mem dst, const Placement * out,
    GError ** error);
/* Copies plane i between host memory and the staged device frame: up
 * into staging_in (a source plane), or down from staging_out (a
 * destination's). */
bool clf_plan_enqueue_transfer (ClfPlan * plan, CommandKind kind, uint32_t i,
    const ClfFrame * host, GError ** error);
/* Where the filter finds plane i of a frame of `shape`, and whether a
 * frame has a plane in host memory. */
cl_mem clf_plan_device_plane (const FrameShape * shape,
    const ClfFrame * frame, uint32_t i, cl_mem staging, Placement * at);
bool clf_plan_has_host_plane (const FrameShape * shape,
    const ClfFrame * frame);
/* Hands the wrapped host buffers of `dst` back to the host. */
bool clf_plan_enqueue_handbacks (ClfPlan * plan, const ClfFrame * dst,
    GError ** error);
