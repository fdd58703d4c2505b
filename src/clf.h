/* clf: the OpenCL engine of gst-clfilter.
 *
 * A plain C library (no GStreamer) that picks an OpenCL device, builds the
 * filter kernels once, and runs a box, separable or sliding blur, a Laplace
 * sharpen or a K x K integer convolution over video frames described plane
 * by plane.  Every frame's device time is measured with the profiling
 * events of the engine's filter queue.
 *
 * Typical use:
 *   GError *error = NULL;
 *   ClfEngine *engine = clf_engine_new ("auto", &error);
 *   ClfPlan *plan = clf_plan_new (engine, &format, &error);
 *   clf_plan_process_host (plan, &params, &in, &out, &stats, &error);
 *       (per frame)
 *   clf_plan_free (plan);
 *   clf_engine_unref (engine);
 * Every function that can fail returns false or NULL and sets `error` (may
 * be NULL), in the CLF_ERROR domain, as GLib's functions do; release it
 * with g_clear_error().
 */
#pragma once

#include <CL/cl.h>
#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Four planes (GStreamer's most), each as two fields for interlaced
 * frames. */
#define CLF_MAX_PLANES 8
#define CLF_MAX_RADIUS 1023

typedef enum {
  CLF_MODE_BOX,         /* naive 2D window: (2r+1)^2 reads per pixel */
  CLF_MODE_SEPARABLE,   /* a pass along rows and one along columns */
  CLF_MODE_SLIDING,     /* running sums: cost independent of the radius */
  CLF_MODE_LAPLACE,     /* 3x3 sharpen, 9 in the centre, -1 around */
  CLF_MODE_CONVOLVE,    /* any KxK integer kernel (ClfKernel) */
  CLF_MODE_GAUSSIAN,    /* Gaussian blur by sigma (docs/gaussian.md) */
  CLF_MODE_UNSHARP,     /* in + amount (in - gaussian), past a threshold */
} ClfMode;

typedef enum {
  CLF_BORDER_CLAMP,     /* repeat the edge sample */
  CLF_BORDER_MIRROR,    /* reflect-101: -1 reads 1, n reads n-2 */
} ClfBorder;

/* The engine's errors: GError's domain CLF_ERROR, with these codes.  The
 * domain is extended (G_DEFINE_EXTENDED_ERROR): an error of it also holds
 * the OpenCL status of a failed call and a longer text, read with the
 * accessors below.  Its message and detail are valid UTF-8 whatever bytes
 * the environment, the caller or the driver gave (GStreamer requires it),
 * each invalid byte shown as U+FFFD. */
#define CLF_ERROR (clf_error_quark ())
GQuark clf_error_quark (void);

typedef enum {
  CLF_ERROR_NOT_FOUND,  /* no OpenCL platform, or no device matches */
  CLF_ERROR_BUILD,      /* the kernels did not compile; detail = build log */
  CLF_ERROR_OPENCL,     /* an OpenCL call failed: clf_error_get_cl_status */
  CLF_ERROR_INVALID,    /* a format or argument the engine cannot take */
  CLF_ERROR_FRAME,      /* a frame's planes do not fit its memory (strides,
                         * offsets or sizes): bad input, not a bad format */
  CLF_ERROR_CANCELLED,  /* the caller stopped the frame (ClfPlanCallbacks) */
  CLF_ERROR_SYSTEM,     /* the system refused what the engine needs of it
                         * (a thread) */
} ClfErrorCode;

/* With CLF_ERROR_OPENCL: the failed call's status; else CL_SUCCESS (also
 * for an error of another domain, and for NULL). */
cl_int clf_error_get_cl_status (const GError * error);
/* The build log, device list or hint for the user, or NULL (also for an
 * error of another domain). */
const char *clf_error_get_detail (const GError * error);
/* Sets (a copy of) `detail` on an error of the CLF_ERROR domain, replacing
 * any earlier one.  Nothing for NULL or another domain. */
void clf_error_set_detail (GError * error, const char *detail);

const char *clf_cl_status_name (cl_int status);
const char *clf_mode_name (ClfMode mode);
const char *clf_border_name (ClfBorder border);

/* The device, its context, its in-order profiling queue for the filters
 * and two transfer queues (uploads, downloads), plus the programs built
 * for it.  Reference-counted and thread-safe: plans in
 * several threads may share one engine. */
typedef struct ClfEngine ClfEngine;

/* `device_spec`: "auto" (or NULL/empty) = first GPU, else first
 * accelerator, else first device; "gpu", "cpu", "accelerator"; "P:D"
 * platform and device indices; anything else is a case-insensitive
 * substring of "platform name / device name".  With "auto", the
 * environment variable CLFILTER_DEVICE, when set, is used instead. */
ClfEngine *clf_engine_new (const char *device_spec, GError ** error);
ClfEngine *clf_engine_ref (ClfEngine * engine);
void clf_engine_unref (ClfEngine * engine);
/* "platform name / device name" */
const char *clf_engine_device_name (const ClfEngine * engine);
cl_context clf_engine_context (const ClfEngine * engine);
cl_command_queue clf_engine_queue (const ClfEngine * engine);
/* A second in-order queue on the same device, for the CPU's maps of
 * device buffers and the uploads of host bytes: a map then waits only for
 * the commands it names (its memory's events), not behind every frame on
 * the filter's queue. */
cl_command_queue clf_engine_transfer_queue (const ClfEngine * engine);
/* A third, for downloads to the host: on a discrete GPU they run on the
 * other copy engine, beside the uploads and the kernels, and a CPU map
 * waiting for one frame's download does not wait behind the next frame's
 * upload. */
cl_command_queue clf_engine_download_queue (const ClfEngine * engine);
cl_device_id clf_engine_device (const ClfEngine * engine);
/* True when `device_spec` (as for clf_engine_new) selects this engine's
 * device: two users that agree may share one engine. */
bool clf_engine_matches (const ClfEngine * engine, const char * device_spec);
/* True when the device works on host memory directly
 * (CL_DEVICE_HOST_UNIFIED_MEMORY): CPU drivers, integrated GPUs. */
bool clf_engine_host_unified (const ClfEngine * engine);
/* A device buffer over `size` bytes of host memory at `data`
 * (CL_MEM_USE_HOST_PTR), made only where that costs no copy: the device is
 * host-unified and `data` meets CL_DEVICE_MEM_BASE_ADDR_ALIGN.  Otherwise
 * NULL with `error` untouched; NULL with `error` set when OpenCL fails.  The
 * memory must stay valid until the buffer is released. */
cl_mem clf_engine_wrap_host (ClfEngine * engine, void *data, size_t size,
    GError ** error);

/* What the on-disk cache of program binaries did for this engine (see
 * docs/cache.md). */
typedef struct {
  uint32_t loads;         /* programs built from a cached binary */
  uint32_t stores;        /* binaries written after a build from source */
  uint32_t rejects;       /* entries found unusable, removed and rebuilt */
} ClfCacheStats;

void clf_engine_cache_stats (ClfEngine * engine, ClfCacheStats * stats);

/* What a filter does with a component.  Blurs filter every component but
 * alpha; laplace sharpens luma (or every colour of RGB and gray) and copies
 * chroma. */
typedef enum {
  CLF_COMPONENT_SHARPENED,  /* blurred and sharpened: luma, R, G, B, gray */
  CLF_COMPONENT_BLURRED,    /* blurred, copied by laplace: chroma */
  CLF_COMPONENT_COPIED,     /* copied byte for byte: alpha */
} ClfComponentRole;

/* One component of a frame (a colour, luma, a chroma or alpha), described
 * the way GstVideoFormatInfo describes it.  Its samples lie in plane
 * `plane`, sample x of row y at byte y * stride + x * pstride + offset of
 * the plane.  A sample is held in a container of 1 byte (depth + shift
 * <= 8) or 2 bytes (<= 16), little- or big-endian; its value is
 * (container >> shift) masked to `depth` bits, and a filtered value is
 * written back as value << shift.  Bytes of a plane's rows that belong to
 * no filtered component (alpha, padding such as RGBx's x) are copied. */
typedef struct {
  uint32_t plane;
  uint32_t offset;        /* bytes from a pixel's start to the container */
  uint32_t pstride;       /* bytes from one sample to the next on a row */
  uint32_t width;         /* samples per row (subsampling applied) */
  uint32_t height;        /* rows */
  uint32_t depth;         /* bits of the value, 1..16 */
  uint32_t shift;         /* bits of the container below the value */
  bool big_endian;        /* 2-byte containers: most significant byte first */
  ClfComponentRole role;
} ClfComponent;

/* GStreamer's most (4) components, each in two fields for interlaced
 * frames. */
#define CLF_MAX_COMPONENTS 8

/* A frame format: its planes (the memory a ClfFrame gives) and its
 * components.  A plane's row is as long as the longest of its components'
 * rows (width * pstride): YUY2's row of W pixels holds W luma samples and
 * ceil(W/2) of each chroma, ceil(W/2) * 4 bytes.  Components that share a
 * plane may not share a byte (so RGB16's bit fields are not taken), and
 * within a pixel the samples of one component family line up: a plane
 * holds pixels of at most 4 containers of one size (RGBA64: 4 of 2
 * bytes). */
typedef struct {
  uint32_t n_planes;
  uint32_t n_components;
  ClfComponent components[CLF_MAX_COMPONENTS];
} ClfFrameFormat;

/* Checks `format` as clf_plan_new does, without a device: false with
 * CLF_ERROR_INVALID saying what the engine cannot take. */
bool clf_frame_format_check (const ClfFrameFormat * format, GError ** error);
/* The bytes of one row of plane `plane` (see ClfFrameFormat), and its
 * rows; 0 for a plane no component lies in. */
size_t clf_frame_format_row_bytes (const ClfFrameFormat * format,
    uint32_t plane);
uint32_t clf_frame_format_rows (const ClfFrameFormat * format,
    uint32_t plane);
/* The largest container of plane `plane`'s samples, 1 or 2 bytes: in a
 * device buffer, its offset and stride must be multiples of it. */
uint32_t clf_frame_format_sample_bytes (const ClfFrameFormat * format,
    uint32_t plane);

/* mode=convolve's kernel: a correlation, as OpenCV's filter2D, of the
 * colour components (as the blurs filter them) with a K x K integer
 * kernel, K odd: S = sum over i, j < K of coeffs[i * K + j] * in[y + i -
 * K/2][x + j - K/2] under the border rule; out = clamp(q + bias, 0, max)
 * with q = S / d rounded half away from zero, d = divisor, or where it is
 * 0 the coefficients' sum, or 1 where that is 0 too.  Exact for every
 * coefficient, divisor and bias. */
#define CLF_MAX_KERNEL_SIZE 15

/* What mode=convolve writes into chroma (the components laplace copies;
 * RGB and gray have none). */
typedef enum {
  CLF_CHROMA_FILTERED,    /* convolved as luma is */
  CLF_CHROMA_NEUTRAL,     /* the mid value of its depth, 2^(depth-1): a
                           * grey picture (emboss, edges) */
} ClfChroma;

typedef struct {
  uint32_t size;          /* K: odd, 1..CLF_MAX_KERNEL_SIZE */
  int32_t coeffs[CLF_MAX_KERNEL_SIZE * CLF_MAX_KERNEL_SIZE];  /* K*K, rows */
  int32_t divisor;
  int32_t bias;
  ClfChroma chroma;
} ClfKernel;

/* Whether `kernel` can be taken (an odd size up to CLF_MAX_KERNEL_SIZE,
 * a ClfChroma):
 * false with CLF_ERROR_INVALID saying why. */
bool clf_kernel_check (const ClfKernel * kernel, GError ** error);

/* mode=gaussian and mode=unsharp (docs/gaussian.md): sigma in samples
 * of each plane, as the blurs' radius; below 1/12 the blur is the
 * identity.  unsharp's amount is taken in steps of 1/256, its threshold
 * in the component's own units. */
#define CLF_MAX_SIGMA 250.0
#define CLF_MIN_AMOUNT -2.0
#define CLF_MAX_AMOUNT 10.0

typedef struct {
  ClfMode mode;
  uint32_t radius;        /* 0..CLF_MAX_RADIUS; window (2r+1)^2 */
  ClfBorder border;
  ClfKernel kernel;       /* mode=convolve only */
  double sigma;           /* gaussian, unsharp: 0..CLF_MAX_SIGMA */
  double amount;          /* unsharp: CLF_MIN_AMOUNT..CLF_MAX_AMOUNT */
  uint32_t threshold;     /* unsharp: |in - gaussian| at most this: kept */
} ClfParams;

/* Whether `params` leave every sample's value as it is: a box blur of
 * radius 0, a Gaussian (or its unsharp mask) of one tap. */
bool clf_params_keep_values (const ClfParams * params);

/* A frame in host memory: where each plane's first row starts, the bytes
 * from one row to the next (>= the plane's row bytes; padding is never read as
 * pixels and never written), and how many bytes from `data[i]` on belong
 * to the plane's memory: the plan refuses a plane whose rows would reach
 * past them. */
typedef struct {
  uint8_t *data[CLF_MAX_PLANES];
  size_t stride[CLF_MAX_PLANES];
  size_t size[CLF_MAX_PLANES];
} ClfHostFrame;

/* A frame the filter reads or writes, plane by plane: in a device buffer
 * (`mem[i]` at byte `offset[i]`, within the buffer's CL_MEM_SIZE), or,
 * where `mem[i]` is NULL, in host memory at `data[i]` with `size[i]` bytes
 * from there on, which the plan copies through a device buffer of its
 * own.  Several planes may share one buffer.  `wrapped[i]` says that
 * `mem[i]` was made by clf_engine_wrap_host: the plan maps it after
 * writing it so the host memory holds the result (the caller knows what
 * it wrapped; the plan does not ask OpenCL every frame). */
typedef struct {
  cl_mem mem[CLF_MAX_PLANES];
  size_t offset[CLF_MAX_PLANES];
  uint8_t *data[CLF_MAX_PLANES];
  size_t stride[CLF_MAX_PLANES];  /* bytes from one row to the next */
  size_t size[CLF_MAX_PLANES];    /* host planes: bytes usable at data[i] */
  bool wrapped[CLF_MAX_PLANES];
} ClfFrame;

typedef struct {
  uint64_t kernel_ns;     /* sum of END - START of the filter's commands */
  uint64_t upload_ns;     /* the same for host -> device transfers */
  uint64_t download_ns;   /* the same for device -> host transfers */
  uint32_t copies;        /* host-side copies of the frame's pixels */
  uint32_t device_copies; /* copies on the device made by the caller (the
                           * element's CUDA memory); the plan leaves it 0 */
} ClfFrameStats;

/* Everything one frame format needs on the device: the kernels of each
 * mode for its pixel layouts and the buffers, each created on first use
 * and reused for every frame.  A plan is used by one thread at a time. */
typedef struct ClfPlan ClfPlan;

ClfPlan *clf_plan_new (ClfEngine * engine, const ClfFrameFormat * format,
    GError ** error);
void clf_plan_free (ClfPlan * plan);

/* Whether the plan's frames can be filtered in `mode`: a frame too large
 * for the blurs' sums (4 bytes a byte, within one device buffer and 2 GiB)
 * is refused for the blurs with CLF_ERROR_INVALID saying why, and still
 * sharpened by laplace.  clf_plan_process checks this too. */
bool clf_plan_supports (const ClfPlan * plan, ClfMode mode, GError ** error);

/* Filters `src` into `dst`: copies host planes in, runs the filter on the
 * device, copies host planes out, waits once.  `stats->copies` counts the
 * frame's host-side copies: one if any plane of `src` is in host memory,
 * one more if any plane of `dst` is.  Where a plane of `dst` is
 * `wrapped`, its bytes are mapped after the filter so the host memory
 * holds the result. */
bool clf_plan_process (ClfPlan * plan, const ClfParams * params,
    const ClfFrame * src, const ClfFrame * dst, ClfFrameStats * stats,
    GError ** error);

/* Frames in flight: clf_plan_process in two halves, for callers that
 * keep frames in device memory and do not wait on the host for each.
 * clf_plan_enqueue checks and enqueues a frame, its first command waiting
 * for the `n_wait` events of `wait` (e.g. the last command that wrote a
 * device buffer it reads), and returns once all are enqueued, or NULL
 * (having waited for what it enqueued) with `error` set.
 * clf_in_flight_event gives the event that completes the frame (the
 * frame's; retain it to keep it).  clf_plan_finish waits for the frame,
 * gives its statistics (as clf_plan_process does) and frees it.  Several
 * frames may be in flight at once, finished in any order; until a frame
 * is finished its memory (host planes too) must stay as it is.  One
 * thread at a time enqueues on a plan; frames may be finished on another
 * thread meanwhile (a caller that hands the enqueueing to a thread of its
 * own, as clfilter does with frames in flight). */
typedef struct ClfInFlight ClfInFlight;

ClfInFlight *clf_plan_enqueue (ClfPlan * plan, const ClfParams * params,
    const ClfFrame * src, const ClfFrame * dst, const cl_event * wait,
    uint32_t n_wait, GError ** error);
cl_event clf_in_flight_event (const ClfInFlight * frame);
/* Whether every command of the frame has ended (or one failed): then
 * clf_plan_finish does not wait. */
bool clf_in_flight_done (const ClfInFlight * frame);
bool clf_plan_finish (ClfPlan * plan, ClfInFlight * frame,
    ClfFrameStats * stats, GError ** error);

/* Checks that every plane of `frame` fits its memory: a stride that holds
 * a row, and the last row's end within the device buffer (offset, stride
 * and CL_MEM_SIZE) or within the host plane's `size`, with no arithmetic
 * that wraps; as a source frame, or with `destination` as a destination
 * (of the conversion's format where the plan converts).
 * clf_plan_process checks both frames this way before it enqueues
 * anything; callers that take frames from outside (a GstVideoMeta) may
 * check each on its own to say which one was bad.  False with
 * CLF_ERROR_FRAME in `error` (the message names `what`, e.g. "input"). */
bool clf_plan_check_frame (const ClfPlan * plan, const ClfFrame * frame,
    bool destination, const char *what, GError ** error);

/* Long frames.  A pass whose cost grows with the radius (the naive box,
 * the separable blur) or the kernel (mode=convolve) and is estimated
 * above 50 ms runs as launches of about 50 ms, waited for one by one.  Between launches the plan asks
 * `cancelled (data)`: true ends the frame with CLF_ERROR_CANCELLED (the
 * destination's bytes are then undefined), so a caller that stops (a
 * flush, a state change) waits one launch at most.  After a frame's first
 * launch, when that long pass (estimated from the launch's speed) will take
 * longer than `slow_ns`, the estimate is reported to `slow (params,
 * estimated_ns, data)`, with the frame's settings, from the thread that
 * processes the frame.  When the kernels of a mode must be compiled from
 * source (not found in the binary cache: seconds on some drivers), the
 * thread that waits for them is told once a program, by `building (mode,
 * data)`, as the compiler starts.  Any function may be NULL. */
typedef struct {
  bool (*cancelled) (void *data);
  void (*slow) (const ClfParams * params, uint64_t estimated_ns, void *data);
  uint64_t slow_ns;
  void *data;
  void (*building) (ClfMode mode, void *data);
} ClfPlanCallbacks;

/* Sets (a copy of) `callbacks` for the plan's next frames; NULL unsets. */
void clf_plan_set_callbacks (ClfPlan * plan, const ClfPlanCallbacks * callbacks);

/* clf_plan_new with (a copy of) `callbacks` set, asked while the plan
 * waits for its programs too (clf_plan_prepare). */
ClfPlan *clf_plan_new_full (ClfEngine * engine, const ClfFrameFormat * format,
    const ClfPlanCallbacks * callbacks, GError ** error);

/* Colour conversion: a plan that writes its filtered frames in another
 * format than it reads (clfilter's output where downstream takes another).
 * Both formats' components are in GStreamer's order: Y, U, V or R, G, B,
 * then alpha where there is one.  The arithmetic is integer, the same
 * bytes on every device, and videoconvert's (GStreamer 1.22, default
 * properties): docs/conversion.md defines it. */
typedef enum {
  CLF_CONVERT_YUV_TO_RGB,
  CLF_CONVERT_RGB_TO_YUV,
} ClfConvertDirection;

/* How chroma samples are brought to every pixel (YUV to RGB). */
typedef enum {
  CLF_CHROMA_UP_NEAREST,  /* the sample the pixel lies in */
  CLF_CHROMA_UP_FILTERED, /* 3:1 of the two nearest, or between cosited
                           * samples: see h_cosited and v_cosited */
} ClfChromaUp;

typedef struct {
  ClfConvertDirection direction;
  ClfFrameFormat format;  /* the output's */
  /* The integer matrix (clf_conversion_init): rows R, G, B of
   * [cY, cU, cV, offset], or rows Y, U, V of [cR, cG, cB, offset]. */
  int32_t matrix[3][4];
  ClfChromaUp chroma_up;
  bool h_cosited;         /* chroma sits on even columns (MPEG-2) */
  bool v_cosited;         /* and on even rows */
} ClfConversion;

/* Sets up the conversion of frames of `in` into frames of `out` (both
 * checked formats) in `direction`: YUV with the matrix of `kr` and `kb`
 * (BT.601: 0.299, 0.114; BT.709: 0.2126, 0.0722; BT.2020: 0.2627,
 * 0.0593), in full range (0..2^depth - 1) or limited (16..235 for luma at
 * 8 bits), from or to full-range RGB: YUV of 8 to 16 bits with chroma
 * halved at most to 8-bit RGB, or 8-bit RGB to 4:2:0 YUV of 8 to 16 bits.
 * chroma_up, h_cosited and v_cosited are left for the caller to set
 * (CLF_CHROMA_UP_FILTERED, not cosited).  False with CLF_ERROR_INVALID
 * where the engine does not convert between the two formats
 * (clf_conversion_check). */
bool clf_conversion_init (ClfConversion * conversion,
    ClfConvertDirection direction, const ClfFrameFormat * in,
    const ClfFrameFormat * out, double kr, double kb, bool full_range,
    GError ** error);

/* Checks `conversion` as clf_plan_new_converting does: false with
 * CLF_ERROR_INVALID saying why. */
bool clf_conversion_check (const ClfFrameFormat * in,
    const ClfConversion * conversion, GError ** error);

/* A plan whose frames are filtered, then written as `conversion` says:
 * the destination frames it takes are of conversion->format.  Its
 * frames' kernel time includes the conversion's. */
ClfPlan *clf_plan_new_converting (ClfEngine * engine,
    const ClfFrameFormat * format, const ClfConversion * conversion,
    const ClfPlanCallbacks * callbacks, GError ** error);

/* Makes the kernels that frames filtered with `params` need (those of
 * the mode, on every plane, at radii of the same sums' width), which the
 * first such frame would otherwise make: a caller that calls it where it
 * can wait (e.g. when the format is set) keeps the wait, and a build
 * failure (CLF_ERROR_BUILD with the build log), out of its frames.  The
 * engine builds a program on a thread of its own (seconds on some drivers,
 * the first time), and the driver's build cannot be stopped: when the
 * plan's callbacks say stop, false with CLF_ERROR_CANCELLED within
 * milliseconds, and the build goes on, its program kept by the engine for
 * the next plan (and stored in the binary cache).  Called from the
 * thread that enqueues, as clf_plan_enqueue is. */
bool clf_plan_prepare (ClfPlan * plan, const ClfParams * params,
    GError ** error);

/* Starts the builds of the programs clf_plan_prepare would wait for
 * with `params`, and returns at once: for a caller that knows its format
 * before its frames (e.g. when the element starts), so that the prepare
 * to come waits only for what is still building.  The engine keeps the
 * builds, which need no plan: the plan may be freed at once, and the
 * engine let go while they run.  False with `error` set for invalid
 * `params` or when no thread can start; a build that fails is said by
 * the prepare that asks for it. */
bool clf_plan_start_builds (ClfPlan * plan, const ClfParams * params,
    GError ** error);

/* clf_plan_process for two frames in host memory (two copies). */
bool clf_plan_process_host (ClfPlan * plan, const ClfParams * params,
    const ClfHostFrame * src, const ClfHostFrame * dst,
    ClfFrameStats * stats, GError ** error);

/* Kernel times over a stream, in bounded memory: the count, mean, min
 * and max are exact; the median (the lower middle) and p95 (nearest rank)
 * are exact up to CLF_TIME_SAMPLES frames, then taken from a uniform
 * sample of that many frames (reservoir sampling with a fixed seed). */
#define CLF_TIME_SAMPLES 8192

typedef struct {
  uint64_t count;
  uint64_t total_ns;
  uint64_t min_ns;
  uint64_t max_ns;
  uint64_t rng;
  uint64_t sample[CLF_TIME_SAMPLES];
} ClfTimeStats;

typedef struct {
  uint64_t frames;
  uint64_t mean_ns;
  uint64_t min_ns;
  uint64_t median_ns;
  uint64_t p95_ns;
  uint64_t max_ns;
} ClfTimeSummary;

void clf_time_stats_reset (ClfTimeStats * stats);
void clf_time_stats_add (ClfTimeStats * stats, uint64_t ns);
/* False (and a zeroed summary) only when out of host memory. */
bool clf_time_stats_summary (const ClfTimeStats * stats,
    ClfTimeSummary * summary);

#ifdef __cplusplus
}
#endif
