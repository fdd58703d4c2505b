/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

/**
 * SECTION:element-clfilter
 * @title: clfilter
 *
 * Runs one OpenCL filter over every video frame, on whatever OpenCL device
 * the machine has (a GPU if there is one, else a CPU driver such as PoCL),
 * and reports how long the device spent on each frame.
 *
 * Modes: `box` (naive 2D box blur: (2r+1)² reads per pixel), `separable`
 * (a pass along rows and one along columns), `sliding` (running sums: the
 * cost per pixel does not depend on the radius) and `laplace` (3x3
 * sharpen).  The three blurs give identical bytes, exactly those of
 * OpenCV's `cv::blur`; all arithmetic is integer, so every device gives
 * the same output.
 *
 * Each frame's timing reaches an application three ways:
 * - an element message `clfilter-stats` (every `stats-interval` frames)
 *   with the fields `frame`, `mode`, `radius`, `border`, `kernel-ns`,
 *   `upload-ns`, `download-ns` (device time in nanoseconds), `copies`
 *   (host-side copies of pixel data; 0 is zero copy), `passthrough`
 *   (see below), `device` and `pts`;
 * - a #GstClFilterMeta on every output buffer with the same figures
 *   (`#include <gst/clfilter/gstclfiltermeta.h>`, then
 *   gst_buffer_get_cl_filter_meta()), and, for language bindings that
 *   cannot read that struct, a #GstCustomMeta named `clfilter-stats` whose
 *   structure has the message's fields but `device` and `pts` (Python:
 *   `buffer.get_custom_meta ("clfilter-stats").get_structure ()`);
 * - a `GST_INFO` line per frame in the `clfilter` debug category
 *   (`GST_DEBUG=clfilter:5`).
 *
 * At EOS the element posts `clfilter-summary` with `frames`,
 * `mean-kernel-ns`, `min-kernel-ns`, `median-kernel-ns`, `p95-kernel-ns`,
 * `max-kernel-ns` and `device`, over every frame since it started (the
 * median and p95 are exact up to 8192 frames; beyond, they come from a
 * uniform sample of 8192 frames, so memory stays bounded in long runs).
 *
 * ## Errors
 * Every failure is an element error that says what went wrong and what to
 * do; the element never passes frames through unfiltered:
 * - no OpenCL driver, or no device matching `device`: RESOURCE/NOT_FOUND
 *   at start, listing the devices found, with a hint to install an ICD
 *   such as pocl-opencl-icd;
 * - kernels that do not build: LIBRARY/INIT, with the build log in the
 *   debug string;
 * - a frame larger than the device can hold (CL_DEVICE_MAX_MEM_ALLOC_SIZE,
 *   or 2 GiB): CORE/NEGOTIATION when the caps come, with the sizes and the
 *   limit; a frame too large for the blurs' sums (4 bytes a byte, within
 *   2 GiB) is still sharpened by laplace, and refused, saying so, when the
 *   mode is or becomes a blur;
 * - a buffer whose planes (as its GstVideoMeta gives them) do not lie
 *   inside its memory, in or out: STREAM/FAILED, before anything reads or
 *   writes it;
 * - an OpenCL call failing mid-stream: RESOURCE/FAILED naming the call
 *   and the CL error, and GST_FLOW_ERROR; the element can then be stopped
 *   and started again.
 * Property values out of range (radius above 1023, unknown modes or
 * borders) cannot be set: GObject refuses them with a warning and the
 * property keeps its value.
 *
 * ## Warnings
 * - device or zero-copy set while running (RESOURCE/SETTINGS): kept for the
 *   next start;
 * - a frame estimated above 1 s, e.g. mode=box radius=1023 (RESOURCE/BUSY,
 *   once per setting): such a frame runs in launches of 50 to 100 ms, so a
 *   flush or a stop never waits for the whole frame;
 * - 4096 clfilter-stats messages unread on the bus
 *   (RESOURCE/NO_SPACE_LEFT): further ones are held back until the bus is
 *   read.
 *
 * ## Formats
 * 82 raw formats, as the pad templates list them: gray, RGB and YUV of 8,
 * 10, 12 and 16 bits, planar, semi-planar (NV12, P010, ...) and packed
 * (RGBA, RGBA64, YUY2, UYVY, AYUV, ...), every raw format whose samples
 * are whole bytes or 16-bit words of their own.  A sample's value is its
 * container shifted by the format's shift and cut to its depth (P010's 10
 * high bits, I420_10LE's 10 low ones); the blurs filter every component
 * but alpha, laplace sharpens gray, RGB and luma and clamps to the depth;
 * alpha is copied.  Offered another format (v210, RGB16, ...), the element
 * refuses it (not-negotiated) and says in a WARNING (GST_DEBUG=clfilter:3)
 * which supported format to convert to with videoconvert.
 *
 * Interlaced frames (interlace-mode=interleaved, or mixed with the
 * interlaced buffer flag) are filtered field by field.
 *
 * ## As a video filter
 * - A blur of radius 0 is the identity where samples fill their bytes
 *   (8- and 16-bit formats; 10- and 12-bit ones are filtered, since a
 *   blur writes their spare bits as 0): the element is then in
 *   passthrough and the buffer goes on as it came, with no kernel and no
 *   copy, and no meta of this element; its clfilter-stats says
 *   `passthrough=true` with kernel-ns 0 (every message has the field).
 * - QoS is on (the `qos` property): a frame that downstream's QoS events
 *   say is already late is dropped before any kernel runs, and a QoS
 *   message says so.
 * - `mode`, `radius` and `border` are controllable: a GstControlSource
 *   bound to them (gst_object_add_control_binding) sets them at each
 *   frame's stream time.
 * - Metas of the input that still hold for the filtered frame (no tags,
 *   or only video, size and orientation ones: crop, regions of interest,
 *   AFD, bar data) are copied to the output; the input's GstVideoMeta and
 *   an upstream clfilter's figures are not.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=movie.mp4 ! decodebin ! clfilter mode=laplace ! videoconvert ! autovideosink
 * ]| Sharpens a movie.
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=100 ! video/x-raw,format=RGBA,width=1280,height=720 ! clfilter mode=sliding radius=31 ! fakesink
 * ]| Blurs 720p test frames and prints each frame's `clfilter-stats`.
 * |[
 * gst-launch-1.0 filesrc location=movie.mp4 ! decodebin ! clfilter mode=separable radius=5 ! videoconvert ! autovideosink
 * ]| The separable blur: a pass along rows and one along columns, each
 * window of 2r+1 samples summed afresh, so the cost grows with r.  A
 * 10-bit movie reaches clfilter as decoded (I420_10LE, P010_10LE or
 * Y444_10LE), without a conversion.
 * |[
 * gst-launch-1.0 videotestsrc ! clfilter mode=box radius=3 border=mirror device=cpu ! videoconvert ! autovideosink
 * ]| The naive blur on the CPU device, mirrored at the edges.
 * |[
 * GST_DEBUG=clfilter:4 gst-launch-1.0 -m videotestsrc num-buffers=30 ! clfilter mode=laplace ! fakesink
 * ]| Prints each frame's timing line, the clfilter-stats messages and, at
 * the end, clfilter-summary.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclfilter.h"

#include "clf.h"
#include "gstclbufferpool.h"
#include "gstclcontext.h"
#include "gstclfiltermeta-private.h"
#include "gstclformat.h"
#include "gstclmemory.h"
#include "gstclupload.h"

GST_DEBUG_CATEGORY_STATIC (gst_cl_filter_debug);
#define GST_CAT_DEFAULT gst_cl_filter_debug

#define DEFAULT_MODE GST_CL_FILTER_MODE_LAPLACE
#define DEFAULT_RADIUS 7
#define DEFAULT_BORDER GST_CL_FILTER_BORDER_CLAMP
#define DEFAULT_DEVICE "auto"
#define DEFAULT_STATS_INTERVAL 1
#define DEFAULT_ZERO_COPY TRUE
/* frames-in-flight 0, the default, is this many on a device with memory of
 * its own (a discrete GPU: the upload, kernels and download of
 * neighbouring frames overlap), and 1 where the device works in host
 * memory (a CPU driver, whose kernels need the cores the element's
 * threads would take). */
#define DEFAULT_FRAMES_IN_FLIGHT 0
#define AUTO_FRAMES_IN_FLIGHT_STAGED 3
#define MAX_FRAMES_IN_FLIGHT 16
/* clfilter-stats messages a bus may hold unread (about 1 KB each): an
 * application that never reads its bus must not grow without end. */
#define MAX_UNREAD_STATS 4096
/* A frame estimated to take longer than this on the device is reported
 * with a WARNING (once for each setting): video cannot play like that. */
#define SLOW_FRAME_NS (1 * GST_SECOND)

enum
{
  PROP_0,
  PROP_MODE,
  PROP_RADIUS,
  PROP_BORDER,
  PROP_DEVICE,
  PROP_DEVICE_NAME,
  PROP_LAST_KERNEL_NS,
  PROP_MEAN_KERNEL_NS,
  PROP_FRAMES,
  PROP_STATS_INTERVAL,
  PROP_ZERO_COPY,
  PROP_FRAMES_IN_FLIGHT,
};

typedef struct _FlightFrame FlightFrame;

struct _GstClFilter
{
  GstBaseTransform parent;

  /* Properties and statistics, under the object lock. */
  GstClFilterMode mode;
  guint radius;
  GstClFilterBorder border;
  gchar *device;
  guint stats_interval;
  gboolean zero_copy;
  guint frames_in_flight;
  gchar *device_name;
  guint64 frames;
  guint64 last_kernel_ns;
  ClfTimeStats *kernel_times;   /* for mean-kernel-ns and the summary */

  /* The engine from start() to stop(), maybe shared with other elements
   * (set under the object lock: set_context() may come from any thread). */
  ClfEngine *engine;

  /* zero-copy as it was when the element started: the property may
   * change while playing, for the next start. */
  gboolean sharing;
  /* Whether the engine's device has memory of its own (a discrete GPU:
   * frames are staged in pinned host memory), from start(). */
  gboolean staged;
  /* Set (atomic) by decide_allocation(): the output comes from the pool
   * of the clfilter downstream, which enqueues behind its readiness, so it
   * goes on as soon as its frame is enqueued.  Otherwise a CPU will read
   * it, and on a discrete device its download starts at once. */
  gint output_to_filter;

  /* Set (atomic) by a flush or a stop: a long frame ends at its next
   * launch (see ClfInterrupt), so the stop does not wait for it. */
  gint stopping;
  /* The settings of the frame being enqueued, and those a slow frame was
   * reported for (the thread that enqueues: see the device thread). */
  ClfParams running;
  ClfParams slow_reported;
  gboolean slow_known;

  /* clfilter-stats messages posted and not yet freed (atomic), and
   * whether they are held back now because the bus is not being read. */
  gint unread_stats;
  gboolean stats_held;

  /* The CUDA context shared with CUDA neighbours (a GstCudaContext, from
   * set_context() or found at negotiation; under the object lock), and,
   * while the caps are in CUDA memory, the engine's use of it. */
  GstObject *cuda_context;
  GstClCuda *cuda;

  /* Streaming state, from set_caps(). */
  ClfPlan *plan;
  /* Interlaced caps: the plan that takes each plane as its two fields,
   * for the frames that are interlaced (all with interleaved caps, those
   * flagged with mixed). */
  ClfPlan *field_plan;
  GstCaps *refused_caps;        /* the last caps it posted an error for */
  /* Caps taken while a flush or a stop cut their kernels' build short:
   * the next frame builds them. */
  GstCaps *unplanned_caps;
  ClfFrameFormat format;
  GstVideoInfo in_info;
  GstVideoInfo out_info;
  /* The last format refused at negotiation and explained in the log. */
  GstVideoFormat explained_format;

  /* Frames enqueued on the device and not yet landed, oldest first
   * (FlightFrame), and plans that set_caps() replaced while frames of
   * theirs were in flight: under thread_lock. */
  GQueue flight;
  GSList *retired_plans;

  /* With frames-in-flight above 1, the frames held back (and, on a
   * staged device, those pushed early) are enqueued by a thread of the
   * element's own, the device thread, so that the kernels' launches (tens
   * of microseconds a frame on a GPU) leave the streaming thread, which
   * hands frames over and lands them, in order, as before.  `to_enqueue` (FlightFrame, oldest first), each frame's
   * `enqueued` and the flags are under thread_lock.  While a frame handed
   * over is in flight, later frames go the same way: one thread at a
   * time enqueues on the plans.
   * The frames handed over also leave from a thread of the element's own,
   * the output thread: it lands them in order as the device finishes them
   * and pushes those held back downstream at once, so a frame never waits
   * for later ones to come in, and the streaming thread waits only while
   * frames-in-flight frames are held.  The other frames (with 1) land on
   * the streaming thread, as basetransform pushes them.  Under
   * thread_lock, with the flight queue: */
  GThread *device_thread;
  GThread *output_thread;
  GMutex thread_lock;
  GCond thread_cond;
  GQueue to_enqueue;
  gboolean thread_drops;        /* a flush or a stop: enqueue and push no more */
  gboolean thread_quits;
  /* The output thread took a frame from the flight queue and is landing
   * it; its buffer has yet to go downstream (out_held). */
  gboolean out_busy;
  gboolean out_held;
  /* The frame transform() (or transform_ip()) made of the buffer in hand,
   * for generate_output() (streaming thread). */
  FlightFrame *entered;
  /* The settings of the buffer in hand, read once in before_transform()
   * (streaming thread): the ones it decided passthrough by. */
  ClfParams frame_params;
  /* A frame was dropped (QoS) since the last one out: the next that leaves
   * from the output thread is marked DISCONT, as basetransform marks the
   * next it pushes (streaming thread). */
  gboolean discont;
  /* What downstream answered the output thread's last push: the streaming
   * thread returns it upstream. */
  GstFlowReturn out_flow;
};


GType
gst_cl_filter_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_FILTER_MODE_BOX,
        "Naive 2D box blur, (2r+1)^2 reads per pixel", "box"},
    {GST_CL_FILTER_MODE_SEPARABLE,
        "Separable box blur: a pass along rows and one along columns",
        "separable"},
    {GST_CL_FILTER_MODE_SLIDING,
        "Sliding-window box blur: running sums, cost independent of r",
        "sliding"},
    {GST_CL_FILTER_MODE_LAPLACE, "3x3 Laplace sharpen", "laplace"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClFilterMode",
            values));
  return type;
}

GType
gst_cl_filter_border_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_FILTER_BORDER_CLAMP, "Repeat the edge pixel", "clamp"},
    {GST_CL_FILTER_BORDER_MIRROR,
        "Reflect without repeating the edge (reflect-101)", "mirror"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClFilterBorder",
            values));
  return type;
}

G_DEFINE_TYPE (GstClFilter, gst_cl_filter, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (clfilter, "clfilter", GST_RANK_NONE,
    GST_TYPE_CL_FILTER);

static void gst_cl_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cl_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_cl_filter_finalize (GObject * object);
static gboolean gst_cl_filter_start (GstBaseTransform * trans);
static gboolean gst_cl_filter_stop (GstBaseTransform * trans);
static gboolean gst_cl_filter_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_cl_filter_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize);
static gboolean gst_cl_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query);
static gboolean gst_cl_filter_decide_allocation (GstBaseTransform * trans,
    GstQuery * query);
static gboolean gst_cl_filter_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps);
static gboolean gst_cl_filter_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static void gst_cl_filter_set_context (GstElement * element,
    GstContext * context);
static GstFlowReturn gst_cl_filter_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf);
static GstFlowReturn gst_cl_filter_drain (GstClFilter * self,
    gboolean deliver);
static void gst_cl_filter_end_threads (GstClFilter * self);
static GstFlowReturn gst_cl_filter_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);
static void gst_cl_filter_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer);
static GstFlowReturn gst_cl_filter_transform_ip (GstBaseTransform * trans,
    GstBuffer * buffer);
static gboolean gst_cl_filter_transform_meta (GstBaseTransform * trans,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf);
static gboolean gst_cl_filter_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static GstStateChangeReturn gst_cl_filter_change_state (GstElement * element,
    GstStateChange transition);

static void
gst_cl_filter_class_init (GstClFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;
  GstCaps *caps, *system_caps;

  gobject_class->set_property = gst_cl_filter_set_property;
  gobject_class->get_property = gst_cl_filter_get_property;
  gobject_class->finalize = gst_cl_filter_finalize;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "Filter: box (naive 2D blur), separable (rows, then columns), sliding "
          "(running sums: cost independent of the radius) or laplace (3x3 "
          "sharpen); the three blurs give identical bytes",
          GST_TYPE_CL_FILTER_MODE, DEFAULT_MODE,
          rw | GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_uint ("radius", "Radius",
          "Blur radius r in pixels: the window is (2r+1)x(2r+1). 0 passes "
          "frames through where samples fill their bytes. Ignored by laplace",
          0, CLF_MAX_RADIUS, DEFAULT_RADIUS,
          rw | GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border",
          "What the filter reads beyond the frame's edges: clamp = the "
          "edge pixel repeated; mirror = reflected without repeating the "
          "edge (-1 reads 1)", GST_TYPE_CL_FILTER_BORDER, DEFAULT_BORDER,
          rw | GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "OpenCL device: auto (a GPU, else an accelerator, else the first; "
          "CLFILTER_DEVICE when set), gpu, cpu, accelerator, P:D indices as "
          "clinfo -l lists them, or part of its name. Read at start",
          DEFAULT_DEVICE, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "The OpenCL device in use, as \"platform / device\" (NULL until "
          "the element has started)", NULL, ro));
  g_object_class_install_property (gobject_class, PROP_LAST_KERNEL_NS,
      g_param_spec_uint64 ("last-kernel-ns", "Last kernel time",
          "Device time of the last frame's filter kernels, in nanoseconds "
          "(from OpenCL profiling; uploads and downloads not included)",
          0, G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_MEAN_KERNEL_NS,
      g_param_spec_uint64 ("mean-kernel-ns", "Mean kernel time",
          "Mean device time of the filter kernels per frame since the "
          "element started, in nanoseconds", 0, G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_FRAMES,
      g_param_spec_uint64 ("frames", "Frames",
          "Frames filtered since the element started", 0, G_MAXUINT64, 0,
          ro));
  g_object_class_install_property (gobject_class, PROP_STATS_INTERVAL,
      g_param_spec_uint ("stats-interval", "Statistics interval",
          "Post a clfilter-stats message every this many frames (0 = never); "
          "past 4096 unread on the bus, further ones wait until the bus is "
          "read", 0, G_MAXUINT, DEFAULT_STATS_INTERVAL, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_ZERO_COPY,
      g_param_spec_boolean ("zero-copy", "Zero copy",
          "Share frames with the device (OpenCL-backed pools, other "
          "buffers wrapped in place) instead of copying each frame in and "
          "out (2 copies). Read at start", DEFAULT_ZERO_COPY,
          rw | GST_PARAM_MUTABLE_READY));

  g_object_class_install_property (gobject_class, PROP_FRAMES_IN_FLIGHT,
      g_param_spec_uint ("frames-in-flight", "Frames in flight",
          "Frames the element works on at once; above 1, threads of its own "
          "enqueue and push them so that transfers and kernels overlap. 0 = "
          "auto: 3 on a discrete GPU, else 1 (CPU driver, CUDA memory)",
          0, MAX_FRAMES_IN_FLIGHT, DEFAULT_FRAMES_IN_FLIGHT,
          rw | GST_PARAM_MUTABLE_PLAYING));

  element_class->set_context = GST_DEBUG_FUNCPTR (gst_cl_filter_set_context);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cl_filter_change_state);
  /* Every raw format whose GstVideoFormatInfo the engine can take, and
   * those of them that GstCudaMemory holds, in CUDA memory. */
  system_caps = gst_cl_format_supported_caps ();
  caps = gst_cl_cuda_template_caps (system_caps);
  gst_caps_unref (system_caps);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_element_class_set_static_metadata (element_class,
      "OpenCL video filter", "Filter/Effect/Video/Hardware",
      "Bit-exact OpenCL box blurs and Laplace sharpening that report each "
      "frame's device time in clfilter-stats messages, a GstClFilterMeta "
      "and a GstCustomMeta, and at EOS in clfilter-summary",
      "gst-clfilter developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cl_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cl_filter_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cl_filter_set_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_cl_filter_transform_size);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cl_filter_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cl_filter_decide_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cl_filter_query);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_cl_filter_accept_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cl_filter_transform);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cl_filter_generate_output);
  /* Called only in passthrough (a blur of radius 0), to count the frame. */
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_cl_filter_transform_ip);
  trans_class->transform_ip_on_passthrough = TRUE;
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cl_filter_before_transform);
  trans_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_cl_filter_transform_meta);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cl_filter_sink_event);
  trans_class->passthrough_on_same_caps = FALSE;
  gst_cl_filter_meta_get_info ();
  gst_cl_filter_stats_meta_get_info ();

  gst_type_mark_as_plugin_api (GST_TYPE_CL_FILTER_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_FILTER_BORDER, 0);

  GST_DEBUG_CATEGORY_INIT (gst_cl_filter_debug, "clfilter", 0,
      "OpenCL video filter");
}

static void
gst_cl_filter_init (GstClFilter * self)
{
  self->mode = DEFAULT_MODE;
  self->radius = DEFAULT_RADIUS;
  self->border = DEFAULT_BORDER;
  self->device = g_strdup (DEFAULT_DEVICE);
  self->stats_interval = DEFAULT_STATS_INTERVAL;
  self->zero_copy = DEFAULT_ZERO_COPY;
  self->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
  g_queue_init (&self->flight);
  g_queue_init (&self->to_enqueue);
  g_mutex_init (&self->thread_lock);
  g_cond_init (&self->thread_cond);
  self->kernel_times = g_new (ClfTimeStats, 1);
  clf_time_stats_reset (self->kernel_times);
  /* Late frames are dropped, as GstVideoFilter's are: a live pipeline
   * with an expensive mode keeps up instead of falling behind. */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cl_filter_finalize (GObject * object)
{
  GstClFilter *self = GST_CL_FILTER (object);

  /* An engine set through set_context() on an element that never started
   * (stop() releases it otherwise). */
  g_clear_pointer (&self->plan, clf_plan_free);
  g_clear_pointer (&self->field_plan, clf_plan_free);
  g_clear_pointer (&self->engine, clf_engine_unref);
  gst_clear_object (&self->cuda_context);
  gst_clear_caps (&self->refused_caps);
  gst_clear_caps (&self->unplanned_caps);
  g_free (self->device);
  g_free (self->device_name);
  g_free (self->kernel_times);
  g_mutex_clear (&self->thread_lock);
  g_cond_clear (&self->thread_cond);

  G_OBJECT_CLASS (gst_cl_filter_parent_class)->finalize (object);
}

/* device and zero-copy are read when the element starts: a change while
 * it runs is kept for the next start, and the application is told. */
static void
gst_cl_filter_warn_not_applied (GstClFilter * self, const gchar * property)
{
  GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
      ("%s was changed while the element is running: it takes effect when "
          "the element next starts (set it in NULL or READY)", property),
      ("%s is read only in the READY to PAUSED change", property));
}

static void
gst_cl_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClFilter *self = GST_CL_FILTER (object);
  const gchar *not_applied = NULL;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_RADIUS:
      self->radius = g_value_get_uint (value);
      break;
    case PROP_BORDER:
      self->border = g_value_get_enum (value);
      break;
    case PROP_DEVICE:
      g_free (self->device);
      self->device = g_value_dup_string (value);
      if (!self->device)
        self->device = g_strdup (DEFAULT_DEVICE);
      if (GST_STATE (self) > GST_STATE_READY)
        not_applied = "device";
      break;
    case PROP_STATS_INTERVAL:
      self->stats_interval = g_value_get_uint (value);
      break;
    case PROP_ZERO_COPY:
      self->zero_copy = g_value_get_boolean (value);
      if (GST_STATE (self) > GST_STATE_READY)
        not_applied = "zero-copy";
      break;
    case PROP_FRAMES_IN_FLIGHT:
      self->frames_in_flight = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  /* Posting takes the object lock. */
  if (not_applied)
    gst_cl_filter_warn_not_applied (self, not_applied);
}

static void
gst_cl_filter_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstClFilter *self = GST_CL_FILTER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_RADIUS:
      g_value_set_uint (value, self->radius);
      break;
    case PROP_BORDER:
      g_value_set_enum (value, self->border);
      break;
    case PROP_DEVICE:
      g_value_set_string (value, self->device);
      break;
    case PROP_DEVICE_NAME:
      g_value_set_string (value, self->device_name);
      break;
    case PROP_LAST_KERNEL_NS:
      g_value_set_uint64 (value, self->last_kernel_ns);
      break;
    case PROP_MEAN_KERNEL_NS:
      g_value_set_uint64 (value, self->frames ?
          self->kernel_times->total_ns / self->frames : 0);
      break;
    case PROP_FRAMES:
      g_value_set_uint64 (value, self->frames);
      break;
    case PROP_STATS_INTERVAL:
      g_value_set_uint (value, self->stats_interval);
      break;
    case PROP_ZERO_COPY:
      g_value_set_boolean (value, self->zero_copy);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      g_value_set_uint (value, self->frames_in_flight);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The engine (a new reference) or NULL, for code that runs outside the
 * stream lock, where stop() may release the element's engine at any
 * moment: queries from upstream's streaming thread, and the application's
 * threads. */
static ClfEngine *
gst_cl_filter_ref_engine (GstClFilter * self)
{
  ClfEngine *engine;

  GST_OBJECT_LOCK (self);
  engine = self->engine ? clf_engine_ref (self->engine) : NULL;
  GST_OBJECT_UNLOCK (self);
  return engine;
}

/* Posts the engine's error with the GStreamer domain and code that fit. */
static void
gst_cl_filter_post_error (GstClFilter * self, const ClfError * err)
{
  const gchar *detail = err->detail ? err->detail : "";

  switch (err->code) {
    case CLF_ERROR_NOT_FOUND:
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("%s", err->message),
          ("%s", detail));
      break;
    case CLF_ERROR_BUILD:
      GST_ELEMENT_ERROR (self, LIBRARY, INIT, ("%s", err->message),
          ("Build log:\n%s", detail));
      break;
    case CLF_ERROR_INVALID:
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", err->message),
          ("%s", detail));
      break;
    case CLF_ERROR_FRAME:
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", err->message),
          ("%s", detail));
      break;
    default:
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("OpenCL error on %s: %s", self->device_name, err->message),
          ("%s", detail));
      break;
  }
}

static gchar *
gst_cl_filter_device_spec (GstClFilter * self)
{
  gchar *spec;

  GST_OBJECT_LOCK (self);
  spec = g_strdup (self->device);
  GST_OBJECT_UNLOCK (self);
  return spec;
}

static void
gst_cl_filter_set_context (GstElement * element, GstContext * context)
{
  GstClFilter *self = GST_CL_FILTER (element);
  gchar *spec = gst_cl_filter_device_spec (self);

  gst_cl_take_context (element, context, spec, &self->engine);
  g_free (spec);
  GST_OBJECT_LOCK (self);
  gst_cl_cuda_handle_set_context (element, context, &self->cuda_context);
  GST_OBJECT_UNLOCK (self);
  GST_ELEMENT_CLASS (gst_cl_filter_parent_class)->set_context (element,
      context);
}

/* The raw formats named in `caps`, into `formats`; TRUE when one of them
 * is a format clfilter takes. */
static gboolean
caps_formats (GstCaps * caps, GArray * formats)
{
  gboolean taken = FALSE;

  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    const GValue *value = gst_structure_get_value (s, "format");
    guint n = value && GST_VALUE_HOLDS_LIST (value) ?
        gst_value_list_get_size (value) : 1;

    if (!gst_structure_has_name (s, "video/x-raw") || !value)
      continue;
    for (guint k = 0; k < n; k++) {
      const GValue *one = GST_VALUE_HOLDS_LIST (value) ?
          gst_value_list_get_value (value, k) : value;
      GstVideoFormat format = G_VALUE_HOLDS_STRING (one) ?
          gst_video_format_from_string (g_value_get_string (one)) :
          GST_VIDEO_FORMAT_UNKNOWN;

      if (format == GST_VIDEO_FORMAT_UNKNOWN)
        continue;
      taken |= gst_cl_format_is_supported (format);
      g_array_append_val (formats, format);
    }
  }
  return taken;
}

/* Raw video that cannot negotiate because clfilter takes none of its
 * formats: a WARNING in the log (GST_DEBUG=clfilter:3) naming the format,
 * the nearest one clfilter takes, and how to convert; once for each
 * format refused in a row. */
static void
gst_cl_filter_explain_refused (GstClFilter * self, GstCaps * caps)
{
  GArray *formats = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));

  if (!caps_formats (caps, formats) && formats->len > 0) {
    GstVideoFormat format = g_array_index (formats, GstVideoFormat, 0);
    const gchar *nearest =
        gst_video_format_to_string (gst_cl_format_nearest_supported (format));

    if (format != self->explained_format)
      GST_WARNING_OBJECT (self, "clfilter does not take %s video%s: its "
          "samples are not whole bytes or 16-bit words of their own (the "
          "formats it takes are in gst-inspect-1.0 clfilter). The nearest "
          "format it takes is %s: put a converter before it, e.g. \"... ! "
          "videoconvert ! video/x-raw,format=%s ! clfilter ...\"",
          gst_video_format_to_string (format), formats->len > 1 ?
          " (nor the other formats offered)" : "", nearest, nearest);
    self->explained_format = format;
  }
  g_array_unref (formats);
}

static gboolean
gst_cl_filter_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps)
{
  gboolean accepted =
      GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->accept_caps
      (trans, direction, caps);

  if (!accepted)
    gst_cl_filter_explain_refused (GST_CL_FILTER (trans), caps);
  return accepted;
}

/* The frames-in-flight property (changeable while playing), auto (0)
 * resolved for the device the element started on. */
static guint
gst_cl_filter_flight_limit (GstClFilter * self)
{
  guint limit;

  GST_OBJECT_LOCK (self);
  limit = self->frames_in_flight;
  /* Frames in CUDA memory have no transfers to overlap with the kernels
   * (their copies are on the device): 8 decode chains ran no faster with
   * 3 in flight (1431 fps against 1434), which only add latency, memory
   * and the hand-overs. */
  if (limit == 0)
    limit = self->staged && !self->cuda ? AUTO_FRAMES_IN_FLIGHT_STAGED : 1;
  GST_OBJECT_UNLOCK (self);
  return limit;
}

/* What downstream (or a frame that failed) said last, where it refuses
 * the next frame until a flush or a stop: an error, EOS, flushing.  Not
 * linked is only passed on (the pad may be linked again). */
static GstFlowReturn
gst_cl_filter_refusal (GstClFilter * self)
{
  GstFlowReturn ret;

  g_mutex_lock (&self->thread_lock);
  ret = self->out_flow;
  g_mutex_unlock (&self->thread_lock);
  return ret == GST_FLOW_NOT_LINKED ? GST_FLOW_OK : ret;
}

/* Upstream's latency; the maximum grows by a frame for each frame in
 * flight beyond the first, which the element can hold while downstream
 * is slow.  The minimum does not: a frame waits for the device only, as
 * in any filter. */

static gboolean
gst_cl_filter_latency_query (GstClFilter * self, GstQuery * query)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClockTime min, max, held = 0;
  gboolean live;
  guint extra;

  if (!GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->query (trans,
          GST_PAD_SRC, query))
    return FALSE;
  extra = gst_cl_filter_flight_limit (self) - 1;
  if (extra == 0)
    return TRUE;
  if (GST_VIDEO_INFO_FPS_N (&self->in_info) > 0)
    held = gst_util_uint64_scale_int (extra * GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&self->in_info),
        GST_VIDEO_INFO_FPS_N (&self->in_info));
  gst_query_parse_latency (query, &live, &min, &max);
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += held;
  gst_query_set_latency (query, live, min, max);
  return TRUE;
}

static gboolean
gst_cl_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstClFilter *self = GST_CL_FILTER (trans);

  /* A serialized query (drain, allocation) comes after the frames in
   * flight. */
  if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED (query))
    gst_cl_filter_drain (self, TRUE);
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    return gst_cl_filter_latency_query (self, query);

  /* Upstream asks what we take, offering its formats: none of ours is
   * the not-negotiated to come. */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *filter = NULL, *result = NULL;
    gboolean answered =
        GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->query (trans,
        direction, query);

    gst_query_parse_caps (query, &filter);
    gst_query_parse_caps_result (query, &result);
    if (answered && filter && result && gst_caps_is_empty (result))
      gst_cl_filter_explain_refused (self, filter);
    return answered;
  }
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    ClfEngine *engine = gst_cl_filter_ref_engine (self);
    gboolean answered;

    answered = gst_cl_answer_context_query (GST_ELEMENT (self), query,
        engine);
    clf_engine_unref (engine);
    answered = answered || gst_cl_cuda_handle_context_query (GST_ELEMENT
        (self), query, &self->cuda_context);
    if (answered)
      return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->query (trans,
      direction, query);
}

static gboolean
gst_cl_filter_start (GstBaseTransform * trans)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  ClfError err = { 0 };
  gchar *spec = gst_cl_filter_device_spec (self);
  gboolean found;

  found = gst_cl_ensure_engine (GST_ELEMENT (self), spec, &self->engine,
      &err);
  g_free (spec);
  if (!found)
    goto no_device;

  GST_INFO_OBJECT (self, "using %s", clf_engine_device_name (self->engine));
  GST_OBJECT_LOCK (self);
  g_free (self->device_name);
  self->device_name = g_strdup (clf_engine_device_name (self->engine));
  self->sharing = self->zero_copy;
  self->staged = !clf_engine_host_unified (self->engine);
  self->slow_known = FALSE;
  g_atomic_int_set (&self->stopping, 0);
  self->frames = 0;
  self->last_kernel_ns = 0;
  clf_time_stats_reset (self->kernel_times);
  GST_OBJECT_UNLOCK (self);
  g_object_notify (G_OBJECT (self), "device-name");
  return TRUE;

  /* ERRORS */
no_device:
  {
    gst_cl_filter_post_error (self, &err);
    clf_error_clear (&err);
    return FALSE;
  }
}

static gboolean
gst_cl_filter_stop (GstBaseTransform * trans)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  ClfEngine *engine;

  /* The streaming thread has stopped: frames still in flight are
   * waited for and dropped. */
  gst_cl_filter_drain (self, FALSE);
  gst_cl_filter_end_threads (self);
  g_clear_pointer (&self->plan, clf_plan_free);
  g_clear_pointer (&self->field_plan, clf_plan_free);
  g_clear_pointer (&self->cuda, gst_cl_cuda_unref);
  gst_clear_caps (&self->refused_caps);
  gst_clear_caps (&self->unplanned_caps);
  GST_OBJECT_LOCK (self);
  engine = self->engine;
  self->engine = NULL;
  GST_OBJECT_UNLOCK (self);
  clf_engine_unref (engine);
  return TRUE;
}

/* The filter's settings now (the properties may change from any thread). */
static void
gst_cl_filter_read_params (GstClFilter * self, ClfParams * params)
{
  GST_OBJECT_LOCK (self);
  params->mode = (ClfMode) self->mode;
  params->radius = self->radius;
  params->border = (ClfBorder) self->border;
  GST_OBJECT_UNLOCK (self);
}

static bool
gst_cl_filter_frame_cancelled (void *data)
{
  GstClFilter *self = data;

  return g_atomic_int_get (&self->stopping) != 0;
}

/* A frame that will take longer than SLOW_FRAME_NS: said once for each
 * setting, with what gives the same bytes faster. */
static void
gst_cl_filter_frame_slow (uint64_t estimated_ns, void *data)
{
  GstClFilter *self = data;
  ClfParams params = self->running;

  if (self->slow_known && params.mode == self->slow_reported.mode
      && params.radius == self->slow_reported.radius
      && params.border == self->slow_reported.border)
    return;
  self->slow_reported = params;
  self->slow_known = TRUE;
  GST_ELEMENT_WARNING (self, RESOURCE, BUSY,
      ("mode=%s radius=%u takes about %.1f s a frame on %s; mode=sliding "
          "gives the same bytes at a cost that does not grow with the "
          "radius", clf_mode_name (params.mode), params.radius,
          estimated_ns / 1e9, clf_engine_device_name (self->engine)),
      ("%s %dx%d; the frame runs in launches of about 50 ms, so a flush or "
          "a stop waits for one launch at most",
          gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&self->in_info)),
          self->in_info.width, self->in_info.height));
}

/* Interlaced frames are filtered field by field, never across fields: the
 * engine takes each plane as two planes, the top field's rows (0, 2, 4...)
 * and the bottom field's (1, 3, ...), each every other row.  A plane of
 * one row has no bottom field. */
static guint
field_rows (const ClfFrameFormat * format, guint plane, guint field)
{
  guint rows = clf_frame_format_rows (format, plane);

  return field ? rows / 2 : (rows + 1) / 2;
}

static void
field_format_from_frame (const ClfFrameFormat * frame,
    ClfFrameFormat * fields)
{
  memset (fields, 0, sizeof *fields);
  for (guint i = 0; i < frame->n_planes; i++)
    for (guint f = 0; f < 2; f++) {
      guint rows = field_rows (frame, i, f);

      if (!rows)
        continue;
      for (guint c = 0; c < frame->n_components; c++) {
        ClfComponent *field = &fields->components[fields->n_components];

        if (frame->components[c].plane != i)
          continue;
        *field = frame->components[c];
        field->plane = fields->n_planes;
        field->height = rows;
        fields->n_components++;
      }
      fields->n_planes++;
    }
}

/* The fields of `frame` (checked against its memory already) as the
 * planes of field_format_from_frame(). */
static void
field_frame_from_frame (const ClfFrameFormat * format, const ClfFrame * frame,
    ClfFrame * fields)
{
  guint n = 0;

  memset (fields, 0, sizeof *fields);
  for (guint i = 0; i < format->n_planes; i++)
    for (guint f = 0; f < 2; f++) {
      gsize skip = f * frame->stride[i];

      if (!field_rows (format, i, f))
        continue;
      fields->mem[n] = frame->mem[i];
      fields->offset[n] = frame->mem[i] ? frame->offset[i] + skip : 0;
      fields->data[n] = frame->mem[i] ? NULL : frame->data[i] + skip;
      fields->size[n] = frame->mem[i] ? 0 : frame->size[i] - skip;
      fields->stride[n] = 2 * frame->stride[i];
      n++;
    }
}

/* Whether `buffer` is filtered as two fields. */
static gboolean
gst_cl_filter_buffer_interlaced (GstClFilter * self, GstBuffer * buffer)
{
  switch (GST_VIDEO_INFO_INTERLACE_MODE (&self->in_info)) {
    case GST_VIDEO_INTERLACE_MODE_INTERLEAVED:
      return TRUE;
    case GST_VIDEO_INTERLACE_MODE_MIXED:
      return GST_BUFFER_FLAG_IS_SET (buffer,
          GST_VIDEO_BUFFER_FLAG_INTERLACED);
    default:
      return FALSE;
  }
}

/* A plan for `format` that can filter in `mode` now, with the element's
 * interrupt; NULL with `err` set.  A flush or a stop does not wait for
 * the kernels' build (CLF_ERROR_CANCELLED). */
static ClfPlan *
gst_cl_filter_new_plan (GstClFilter * self, ClfEngine * engine,
    const ClfFrameFormat * format, ClfMode mode, ClfError * err)
{
  ClfPlan *plan = clf_plan_new_full (engine, format, &(ClfInterrupt) {
        gst_cl_filter_frame_cancelled, gst_cl_filter_frame_slow,
      SLOW_FRAME_NS, self}, err);

  /* A frame too large for the blurs is still sharpened: refused only
   * when the mode asks for a blur (at the caps now, or at a later frame). */
  if (plan && !clf_plan_supports (plan, mode, err))
    g_clear_pointer (&plan, clf_plan_free);
  return plan;
}

/* Frames of the plans set_caps() replaces may still be in flight (caps
 * events drain them first, but a renegotiation in the streaming thread
 * does not): those plans are freed once the frames have landed. */
static void
gst_cl_filter_retire_plans (GstClFilter * self)
{
  ClfPlan *plans[2] = { g_steal_pointer (&self->plan),
    g_steal_pointer (&self->field_plan)
  };

  g_mutex_lock (&self->thread_lock);
  for (guint i = 0; i < G_N_ELEMENTS (plans); i++) {
    if (plans[i] && (!g_queue_is_empty (&self->flight) || self->out_busy))
      self->retired_plans = g_slist_prepend (self->retired_plans, plans[i]);
    else if (plans[i])
      clf_plan_free (plans[i]);
  }
  g_mutex_unlock (&self->thread_lock);
}

/* Once no frame is in flight (under thread_lock), the plans retired
 * meanwhile go. */
static void
gst_cl_filter_free_retired_plans (GstClFilter * self)
{
  if (g_queue_is_empty (&self->flight) && !self->out_busy)
    g_clear_slist (&self->retired_plans, (GDestroyNotify) clf_plan_free);
}

/* With caps in CUDA memory, the engine's use of the CUDA context (kept
 * across renegotiations); none otherwise.  FALSE with `err` set where the
 * engine's device cannot take CUDA memory. */
static gboolean
gst_cl_filter_ensure_cuda (GstClFilter * self, ClfEngine * engine,
    GstCaps * caps, ClfError * err)
{
  if (!gst_cl_caps_are_cuda (caps)) {
    g_clear_pointer (&self->cuda, gst_cl_cuda_unref);
    return TRUE;
  }
  if (self->cuda)
    return TRUE;
  /* Not under the object lock: the search for a neighbour's context
   * answers through set_context(), which stores it in cuda_context, as
   * GStreamer's CUDA elements do. */
  self->cuda = gst_cl_cuda_new (GST_ELEMENT (self), &self->cuda_context,
      engine, err);
  if (!self->cuda && !err->detail)
    err->detail = strdup ("Frames in CUDA memory need the NVIDIA driver "
        "(libcuda.so.1) and clfilter's OpenCL device to be that CUDA device "
        "(property device). Elsewhere, download them first: \"... ! "
        "cudadownload ! clfilter ! ...\"");
  return self->cuda != NULL;
}

/* The plans for `incaps` (described by `info` and `format`), in place of
 * the last ones; FALSE with `err` set where they cannot be built
 * (CLF_ERROR_CANCELLED: a flush or a stop came), or with no code where
 * the element has stopped. */
static gboolean
gst_cl_filter_build_plans (GstClFilter * self, GstCaps * incaps,
    const GstVideoInfo * info, const ClfFrameFormat * format, ClfError * err)
{
  ClfFrameFormat fields;
  ClfPlan *plan, *field_plan = NULL;
  ClfEngine *engine;
  ClfParams params;

  field_format_from_frame (format, &fields);
  gst_cl_filter_read_params (self, &params);
  /* An allocation query renegotiates in upstream's thread: a reference
   * of our own, in case a stop comes meanwhile. */
  engine = gst_cl_filter_ref_engine (self);
  if (!engine)
    return FALSE;
  plan = gst_cl_filter_new_plan (self, engine, format, params.mode, err);
  if (plan && GST_VIDEO_INFO_IS_INTERLACED (info)
      && !(field_plan = gst_cl_filter_new_plan (self, engine, &fields,
              params.mode, err)))
    g_clear_pointer (&plan, clf_plan_free);
  if (plan && !gst_cl_filter_ensure_cuda (self, engine, incaps, err)) {
    g_clear_pointer (&plan, clf_plan_free);
    g_clear_pointer (&field_plan, clf_plan_free);
  }
  clf_engine_unref (engine);
  if (!plan)
    return FALSE;
  gst_cl_filter_retire_plans (self);
  self->plan = plan;
  self->field_plan = field_plan;
  gst_clear_caps (&self->unplanned_caps);
  return TRUE;
}

/* The caps cannot be filtered: said once for them (GstBaseTransform
 * tries refused caps again with the next buffer). */
static void
gst_cl_filter_refuse_caps (GstClFilter * self, GstCaps * incaps,
    ClfError * err)
{
  GST_ERROR_OBJECT (self, "cannot filter %" GST_PTR_FORMAT ": %s", incaps,
      err->message);
  gst_caps_replace (&self->refused_caps, incaps);
  gst_cl_filter_post_error (self, err);
  clf_error_clear (err);
}

static gboolean
gst_cl_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstVideoInfo in_info, out_info;
  ClfFrameFormat format;
  ClfError err = { 0 };

  if (!gst_video_info_from_caps (&in_info, incaps)
      || !gst_video_info_from_caps (&out_info, outcaps))
    goto invalid_caps;
  if (GST_VIDEO_INFO_FORMAT (&in_info) != GST_VIDEO_INFO_FORMAT (&out_info)
      || in_info.width != out_info.width || in_info.height != out_info.height)
    goto different_caps;

  /* GstBaseTransform tries refused caps again with the next buffer: the
   * error was posted once already. */
  if (self->refused_caps && gst_caps_is_equal (incaps, self->refused_caps))
    goto refused_before;
  if (!gst_cl_format_describe (&in_info, &format))
    goto unsupported_format;
  if (!gst_cl_filter_build_plans (self, incaps, &in_info, &format, &err)) {
    if (err.code == CLF_ERROR_CANCELLED)
      goto build_stopped;
    if (err.code == CLF_ERROR_NONE)
      goto stopped;
    goto no_plan;
  }
  gst_clear_caps (&self->refused_caps);
  self->format = format;
  self->in_info = in_info;
  self->out_info = out_info;
  GST_DEBUG_OBJECT (self, "ready for %s %dx%d %s",
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&in_info)),
      in_info.width, in_info.height,
      gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE
          (&in_info)));
  return TRUE;

  /* ERRORS */
stopped:
  {
    GST_DEBUG_OBJECT (self, "stopped: no engine to plan with");
    return FALSE;
  }
build_stopped:
  {
    /* Not an error: the caps are fine.  GstBaseTransform does not call
     * set_caps() again for caps it has, so the next frame builds the
     * plans (after the flush). */
    GST_DEBUG_OBJECT (self, "%s", err.message);
    clf_error_clear (&err);
    gst_cl_filter_retire_plans (self);
    gst_caps_replace (&self->unplanned_caps, incaps);
    gst_clear_caps (&self->refused_caps);
    self->format = format;
    self->in_info = in_info;
    self->out_info = out_info;
    return TRUE;
  }
refused_before:
  {
    GST_DEBUG_OBJECT (self, "caps refused before: %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
invalid_caps:
  {
    GST_ERROR_OBJECT (self, "not raw video caps: %" GST_PTR_FORMAT " -> %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
unsupported_format:
  {
    GST_ERROR_OBJECT (self, "cannot describe the components of %"
        GST_PTR_FORMAT, incaps);
    return FALSE;
  }
different_caps:
  {
    GST_ERROR_OBJECT (self, "input and output must have the same format and "
        "size: %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
no_plan:
  {
    gst_cl_filter_refuse_caps (self, incaps, &err);
    return FALSE;
  }
}

/* A frame of caps whose build a flush or a stop cut short (set_caps())
 * builds their plans now. */
static GstFlowReturn
gst_cl_filter_plan_late (GstClFilter * self)
{
  ClfError err = { 0 };
  GstCaps *caps;

  if (g_atomic_int_get (&self->stopping))
    return GST_FLOW_FLUSHING;
  caps = gst_caps_ref (self->unplanned_caps);
  if (!gst_cl_filter_build_plans (self, caps, &self->in_info, &self->format,
          &err)) {
    gst_clear_caps (&self->unplanned_caps);
    if (err.code == CLF_ERROR_CANCELLED || err.code == CLF_ERROR_NONE) {
      /* Cut short again: the next frame tries again. */
      gst_caps_replace (&self->unplanned_caps, caps);
      clf_error_clear (&err);
      gst_caps_unref (caps);
      return GST_FLOW_FLUSHING;
    }
    gst_cl_filter_refuse_caps (self, caps, &err);
    gst_caps_unref (caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  gst_caps_unref (caps);
  GST_DEBUG_OBJECT (self, "planned after the flush");
  return GST_FLOW_OK;
}

/* The output size follows from the output caps alone: input buffers may be
 * larger (decoders pad their planes; the video meta says where they are). */
static gboolean
gst_cl_filter_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, othercaps))
    return FALSE;
  *othersize = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

/* `pool`, or else a new pool of buffers of `engine`, configured for
 * `caps` with `size`, `min` and `max`, with a GstVideoMeta on each buffer
 * if `video_meta`. */
static GstBufferPool *
gst_cl_filter_configure_pool (GstClFilter * self, ClfEngine * engine,
    GstBufferPool * pool, GstCaps * caps, guint size, guint min, guint max,
    gboolean video_meta)
{
  if (!pool)
    pool = gst_cl_buffer_pool_new (engine);
  if (!gst_cl_buffer_pool_configure (pool, caps, size, min, max,
          video_meta)) {
    GST_WARNING_OBJECT (self, "%" GST_PTR_FORMAT " refused the configuration "
        "for %" GST_PTR_FORMAT, pool, caps);
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* Offers upstream what the ways in for a frame ask for (our pool and
 * allocator, so producers write frames straight into memory the device
 * uses).  Runs in upstream's streaming thread, without our stream lock:
 * it keeps its own engine reference. */
static gboolean
gst_cl_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  gboolean zero_copy, proposed;
  ClfEngine *engine;

  if (!GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->propose_allocation
      (trans, decide_query, query))
    return FALSE;
  GST_OBJECT_LOCK (self);
  zero_copy = self->sharing;
  GST_OBJECT_UNLOCK (self);
  engine = gst_cl_filter_ref_engine (self);
  proposed = gst_cl_upload_propose_allocation (engine, zero_copy, query);
  if (engine)
    clf_engine_unref (engine);
  if (!proposed)
    GST_WARNING_OBJECT (self, "could not offer a pool for %" GST_PTR_FORMAT,
        query);
  return proposed;
}

/* Memory of `other` is usable in place by `ours`: the same OpenCL
 * context. */
static gboolean
engines_share_context (ClfEngine * ours, ClfEngine * other)
{
  return clf_engine_context (other) == clf_engine_context (ours);
}

static gboolean
engine_owns_pool (ClfEngine * engine, GstBufferPool * pool)
{
  ClfEngine *owner = pool && GST_IS_CL_BUFFER_POOL (pool) ?
      gst_cl_buffer_pool_get_engine (GST_CL_BUFFER_POOL (pool)) : NULL;

  return owner && engines_share_context (engine, owner);
}

/* Puts `pool` (taken) first in the allocation query's answer. */
static void
answer_pool (GstQuery * query, GstBufferPool * pool, guint size, guint min,
    guint max)
{
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
}

/* Output in CUDA memory comes from a GstCudaBufferPool of the shared
 * context: the frame is copied there on the device once the kernels are
 * done. */
static gboolean
gst_cl_filter_decide_cuda_allocation (GstClFilter * self, GstQuery * query,
    GstCaps * caps)
{
  GstVideoInfo info;
  guint size, min = 0, max = 0;
  GstBufferPool *pool;

  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  size = info.size;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &min, &max);
  g_atomic_int_set (&self->output_to_filter, FALSE);
  pool = gst_cl_cuda_pool_new (self->cuda, caps, size, min, max);
  if (!pool) {
    GST_ERROR_OBJECT (self, "no CUDA buffer pool for %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  answer_pool (query, pool, size, min, max);
  return TRUE;
}

/* Output buffers come from a pool of ours: downstream's when it offers one
 * in our OpenCL context (another clfilter), else a new one.  May run in
 * upstream's thread (an allocation query renegotiates), so it holds its
 * own engine reference. */
static gboolean
gst_cl_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  GstCaps *caps;
  guint size, min = 0, max = 0;
  gboolean video_meta;
  ClfEngine *engine;

  gst_query_parse_allocation (query, &caps, NULL);
  if (self->cuda && gst_cl_caps_are_cuda (caps))
    return gst_cl_filter_decide_cuda_allocation (self, query, caps);
  if (!self->sharing) {
    g_atomic_int_set (&self->output_to_filter, FALSE);
    /* Without downstream's pool, one whose buffers' row padding is zeroed
     * once (the base class's would carry a freed buffer's bytes). */
    if (gst_query_get_n_allocation_pools (query) == 0 && caps
        && gst_video_info_from_caps (&info, caps))
      answer_pool (query, gst_cl_buffer_pool_new_host (), info.size, 0, 0);
    return GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->
        decide_allocation (trans, query);
  }

  if (!caps || !gst_video_info_from_caps (&info, caps))
    goto invalid_caps;
  engine = gst_cl_filter_ref_engine (self);
  if (!engine)
    goto stopped;
  size = info.size;
  for (guint i = 0; i < gst_query_get_n_allocation_pools (query) && !pool;
      i++) {
    GstBufferPool *offered;
    guint offered_size;

    gst_query_parse_nth_allocation_pool (query, i, &offered, &offered_size,
        &min, &max);
    if (engine_owns_pool (engine, offered)) {
      pool = offered;
      size = MAX (size, offered_size);
    } else {
      gst_clear_object (&offered);
    }
  }
  video_meta = gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
      NULL);
  GST_DEBUG_OBJECT (self, "output from %s pool, video meta %d",
      pool ? "downstream's" : "our own", video_meta);
  g_atomic_int_set (&self->output_to_filter, pool != NULL);
  pool = gst_cl_filter_configure_pool (self, engine, pool, caps, size,
      min, max, video_meta);
  clf_engine_unref (engine);
  if (!pool)
    return FALSE;
  answer_pool (query, pool, size, min, max);
  return TRUE;

  /* ERRORS */
stopped:
  {
    GST_DEBUG_OBJECT (self, "stopped: no engine to allocate from");
    return FALSE;
  }
invalid_caps:
  {
    GST_ERROR_OBJECT (self, "no raw video caps in the allocation query");
    return FALSE;
  }
}

/* Gives the engine the buffer's frame, the first way that takes it
 * (gst/gstclupload.h: in place when it is in our memory, else through a
 * CPU mapping), and checks that every plane, as the buffer's GstVideoMeta
 * describes it, lies inside the buffer's memory (else CLF_ERROR_FRAME, the
 * message naming `what`).  FALSE with err unset when mapping failed. */
static gboolean
gst_cl_filter_frame_open (GstClFilter * self, GstBuffer * buffer,
    const GstVideoInfo * info, GstMapFlags flags, const gchar * what,
    GstClUpload * access, ClfError * err)
{
  if (!gst_cl_upload_open (access, self->engine, &self->format, buffer, info,
          flags, self->sharing, self->cuda, err))
    return FALSE;
  if (!clf_plan_check_frame (self->plan, &access->frame, what, err)) {
    gst_cl_upload_close (access);
    return FALSE;
  }
  return TRUE;
}

/* The planes a buffer's GstVideoMeta gives, and the buffer's size, for an
 * error about them. */
static gchar *
describe_buffer_layout (GstBuffer * buffer)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "a buffer of %" G_GSIZE_FORMAT " bytes in %u "
      "memories", gst_buffer_get_size (buffer), gst_buffer_n_memory (buffer));
  if (!meta)
    return g_string_free (g_string_append (text, ", with the caps' layout"),
        FALSE);
  g_string_append (text, "; its GstVideoMeta gives");
  for (guint i = 0; i < meta->n_planes; i++)
    g_string_append_printf (text, "%s plane %u offset %" G_GSIZE_FORMAT
        " stride %d", i ? "," : "", i, meta->offset[i], meta->stride[i]);
  return g_string_free (text, FALSE);
}

/* A buffer whose planes do not fit its memory: a STREAM error naming the
 * neighbour that made it, instead of reading or writing outside it. */
static void
gst_cl_filter_post_bad_buffer (GstClFilter * self, GstBuffer * buffer,
    gboolean input, const ClfError * err)
{
  gchar *layout = describe_buffer_layout (buffer);

  if (input)
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Invalid input buffer: %s", err->message),
        ("Upstream sent %s. The element before clfilter (or its buffer "
            "pool) describes planes that do not lie inside the buffer; "
            "that element needs fixing", layout));
  else
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Invalid output buffer: %s", err->message),
        ("The buffer pool downstream gave %s. Its buffers are smaller than "
            "their GstVideoMeta says; with zero-copy=true (the default) "
            "clfilter uses its own pool instead", layout));
  g_free (layout);
}

static void
gst_cl_filter_stats_message_freed (gpointer data, GstMiniObject * message)
{
  GstClFilter *self = data;     /* alive: the message holds it */

  g_atomic_int_add (&self->unread_stats, -1);
}

/* Whether another clfilter-stats fits on the bus: not while
 * MAX_UNREAD_STATS are unread.  Holding them back is said once, with what
 * to do; posting resumes as soon as the bus is read. */
static gboolean
gst_cl_filter_bus_has_room (GstClFilter * self)
{
  if (g_atomic_int_get (&self->unread_stats) < MAX_UNREAD_STATS) {
    if (self->stats_held)
      GST_INFO_OBJECT (self, "the bus is being read: posting clfilter-stats "
          "again");
    self->stats_held = FALSE;
    return TRUE;
  }
  if (!self->stats_held)
    GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT,
        ("%d clfilter-stats messages on the bus are unread: no more are "
            "posted until the application reads its bus", MAX_UNREAD_STATS),
        ("Set stats-interval=0 when nothing reads the bus; each frame's "
            "figures are also in its GstClFilterMeta, in the INFO log "
            "(GST_DEBUG=clfilter:4) and summed up in clfilter-summary"));
  self->stats_held = TRUE;
  return FALSE;
}

/* A frame's figures, written once for the clfilter-stats message and the
 * stats meta, so that the two always carry the same fields. */
static void
gst_cl_filter_set_figures (GstStructure * s, guint64 frame,
    const ClfParams * params, const ClfFrameStats * stats,
    gboolean passthrough)
{
  gst_structure_set (s,
      "passthrough", G_TYPE_BOOLEAN, passthrough,
      "frame", G_TYPE_UINT64, frame,
      "mode", G_TYPE_STRING, clf_mode_name (params->mode),
      "radius", G_TYPE_UINT, params->radius,
      "border", G_TYPE_STRING, clf_border_name (params->border),
      "kernel-ns", G_TYPE_UINT64, stats->kernel_ns,
      "upload-ns", G_TYPE_UINT64, stats->upload_ns,
      "download-ns", G_TYPE_UINT64, stats->download_ns,
      "copies", G_TYPE_UINT, stats->copies,
      "device-copies", G_TYPE_UINT, stats->device_copies,
      NULL);
}

static void
gst_cl_filter_post_stats (GstClFilter * self, guint64 frame,
    const ClfParams * params, const ClfFrameStats * stats, GstClockTime pts,
    gboolean passthrough)
{
  GstMessage *message;
  GstStructure *s;

  if (!gst_cl_filter_bus_has_room (self))
    return;
  s = gst_structure_new_empty ("clfilter-stats");
  gst_cl_filter_set_figures (s, frame, params, stats, passthrough);
  gst_structure_set (s,
      "device", G_TYPE_STRING, clf_engine_device_name (self->engine),
      "pts", G_TYPE_UINT64, pts,
      NULL);
  message = gst_message_new_element (GST_OBJECT (self), s);
  g_atomic_int_inc (&self->unread_stats);
  gst_mini_object_weak_ref (GST_MINI_OBJECT (message),
      gst_cl_filter_stats_message_freed, self);
  gst_element_post_message (GST_ELEMENT (self), message);
}

/* The frame's figures on the output buffer, for applications.  An upstream
 * clfilter's metas were not copied to it (transform_meta): a buffer
 * carries the figures of the filter that made it. */
static void
gst_cl_filter_add_meta (GstBuffer * outbuf, guint64 frame,
    const ClfParams * params, const ClfFrameStats * stats)
{
  GstClFilterMeta *meta = gst_buffer_add_cl_filter_meta (outbuf);
  GstStructure *s;

  meta->frame = frame;
  meta->mode = clf_mode_name (params->mode);
  meta->radius = params->radius;
  meta->border = clf_border_name (params->border);
  meta->kernel_ns = stats->kernel_ns;
  meta->upload_ns = stats->upload_ns;
  meta->download_ns = stats->download_ns;
  meta->copies = stats->copies;
  meta->device_copies = stats->device_copies;
  /* The same figures for bindings (Python cannot read the struct above). */
  s = gst_buffer_writable_cl_filter_stats (outbuf);
  if (s)
    gst_cl_filter_set_figures (s, frame, params, stats, FALSE);
}

/* The clfilter-summary message: the kernel times since start (see
 * ClfTimeStats for how the median and p95 stay in bounded memory). */
static GstMessage *
gst_cl_filter_summary_message (GstClFilter * self)
{
  ClfTimeStats *times = g_new (ClfTimeStats, 1);
  ClfTimeSummary sum;

  GST_OBJECT_LOCK (self);
  *times = *self->kernel_times;
  GST_OBJECT_UNLOCK (self);
  if (!clf_time_stats_summary (times, &sum))
    GST_WARNING_OBJECT (self, "out of memory for the summary's median");
  g_free (times);
  return gst_message_new_element (GST_OBJECT (self),
      gst_structure_new ("clfilter-summary",
          "frames", G_TYPE_UINT64, sum.frames,
          "mean-kernel-ns", G_TYPE_UINT64, sum.mean_ns,
          "min-kernel-ns", G_TYPE_UINT64, sum.min_ns,
          "median-kernel-ns", G_TYPE_UINT64, sum.median_ns,
          "p95-kernel-ns", G_TYPE_UINT64, sum.p95_ns,
          "max-kernel-ns", G_TYPE_UINT64, sum.max_ns,
          "device", G_TYPE_STRING, clf_engine_device_name (self->engine),
          NULL));
}

/* A flush or a stop begins (or ends): a long frame ends at its next
 * launch, and the streaming thread stops waiting for room. */
static void
gst_cl_filter_set_stopping (GstClFilter * self, gboolean stopping)
{
  g_mutex_lock (&self->thread_lock);
  g_atomic_int_set (&self->stopping, stopping);
  g_cond_broadcast (&self->thread_cond);
  g_mutex_unlock (&self->thread_lock);
}

static gboolean
gst_cl_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstClFilter *self = GST_CL_FILTER (trans);

  /* Frames in flight go out before what follows them in the stream (caps,
   * segments, EOS); a flush drops them. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    gst_cl_filter_drain (self, FALSE);
  else if (GST_EVENT_IS_SERIALIZED (event))
    gst_cl_filter_drain (self, TRUE);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      if (self->engine)
        gst_element_post_message (GST_ELEMENT (self),
            gst_cl_filter_summary_message (self));
      break;
    case GST_EVENT_FLUSH_START:
      /* Not serialized: a long frame may be running now, or the
       * streaming thread waiting for room. */
      gst_cl_filter_set_stopping (self, TRUE);
      GST_DEBUG_OBJECT (self, "flushing: a frame or a build in progress "
          "stops at its next check");
      break;
    case GST_EVENT_FLUSH_STOP:
      gst_cl_filter_set_stopping (self, FALSE);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->sink_event
      (trans, event);
}

/* Going down to READY deactivates the pads, which waits for the frame in
 * progress: a long one is stopped at its next launch first. */
static GstStateChangeReturn
gst_cl_filter_change_state (GstElement * element, GstStateChange transition)
{
  GstClFilter *self = GST_CL_FILTER (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    gst_cl_filter_set_stopping (self, TRUE);
  ret = GST_ELEMENT_CLASS (gst_cl_filter_parent_class)->change_state (element,
      transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY
      && ret == GST_STATE_CHANGE_FAILURE)
    gst_cl_filter_set_stopping (self, FALSE);
  return ret;
}

/* Adds the frame to the statistics; TRUE when its message is due. */
static gboolean
gst_cl_filter_record_frame (GstClFilter * self, const ClfFrameStats * stats,
    guint64 * frame)
{
  gboolean post;

  GST_OBJECT_LOCK (self);
  *frame = self->frames++;
  self->last_kernel_ns = stats->kernel_ns;
  clf_time_stats_add (self->kernel_times, stats->kernel_ns);
  post = self->stats_interval && *frame % self->stats_interval == 0;
  GST_OBJECT_UNLOCK (self);
  return post;
}


/* A frame on the device, from its enqueueing in transform() to its
 * landing (gst_cl_filter_land): the accesses stay open (host planes
 * stay mapped) until the device is done with them.  A frame `pushed`
 * went downstream at once and lands for its figures only (if handed to
 * the device thread, with its write promised on the output's memory); the
 * others hold their output buffer until they land. */
struct _FlightFrame
{
  ClfInFlight *job;
  ClfPlan *plan;
  GstClUpload in, out;
  /* What the plan filters: the frames as opened, or their fields apart. */
  ClfFrame src, dst;
  GstBuffer *outbuf;
  gboolean pushed;
  /* A buffer passed through (a blur of radius 0) behind frames that leave
   * from the output thread: no job; it follows them there. */
  gboolean passed_through;
  /* Handed to the device thread: it holds the input buffer until it has
   * enqueued the frame (after that the memories' readiness keeps it), then
   * sets `enqueued` (under thread_lock), or says in `err` why it could
   * not; a frame it dropped has neither job nor error. */
  gboolean on_thread;
  GstBuffer *inbuf;
  gboolean enqueued;
  ClfError err;
  ClfParams params;
  GstClockTime pts;
};

/* Frames pushed before their figures were known, at most, before the
 * element waits for the oldest: they bound the device's work queued. */
#define MAX_PUSHED_IN_FLIGHT 16

/* Frames whose buffers have yet to go downstream (under thread_lock). */
static guint
gst_cl_filter_held_frames (GstClFilter * self)
{
  guint held = self->out_held;

  for (GList * l = self->flight.head; l; l = l->next)
    held += !((FlightFrame *) l->data)->pushed;
  return held;
}

/* A frame written into the memory of the clfilter downstream goes on at
 * once: that clfilter enqueues its own frame behind this one's readiness
 * (gst_cl_memory_device_wait_list, which waits for a write the device
 * thread has yet to enqueue), so neither waits for the device between
 * them.  Only behind no frame held back, so that buffers keep their
 * order. */
static gboolean
gst_cl_filter_pushes_early (GstClFilter * self, const FlightFrame * f)
{
  gboolean early;

  if (!g_atomic_int_get (&self->output_to_filter)
      || g_strcmp0 (f->out.method, "device-memory") != 0)
    return FALSE;
  g_mutex_lock (&self->thread_lock);
  early = gst_cl_filter_held_frames (self) == 0;
  g_mutex_unlock (&self->thread_lock);
  return early;
}

static void
flight_frame_free (FlightFrame * f)
{
  gst_cl_upload_close (&f->out);
  gst_cl_upload_close (&f->in);
  gst_clear_buffer (&f->outbuf);
  g_free (f);
}

/* What the plan of an interlaced buffer filters: each plane's two fields
 * apart; else the frames as opened. */
static void
gst_cl_filter_plan_frame (GstClFilter * self, GstBuffer * inbuf,
    FlightFrame * f)
{
  if (!gst_cl_filter_buffer_interlaced (self, inbuf)) {
    f->plan = self->plan;
    f->src = f->in.frame;
    f->dst = f->out.frame;
    return;
  }
  f->plan = self->field_plan;
  field_frame_from_frame (&self->format, &f->in.frame, &f->src);
  field_frame_from_frame (&self->format, &f->out.frame, &f->dst);
}

/* Enqueues the frame behind the device commands on its memories, and
 * records it on them. */
static gboolean
gst_cl_filter_enqueue (GstClFilter * self, FlightFrame * f, ClfError * err)
{
  cl_event wait[2 * GST_CL_UPLOAD_MAX_WAIT];
  /* The frame waits for the readiness of the memories it reads and
   * writes, and is then their last reader and writer. */
  guint n_wait = gst_cl_upload_wait_list (&f->in, GST_MAP_READ, wait);

  n_wait += gst_cl_upload_wait_list (&f->out, GST_MAP_WRITE, wait + n_wait);

  self->running = f->params;
  f->job = clf_plan_enqueue (f->plan, &f->params, &f->src, &f->dst, wait,
      n_wait, err);
  for (guint i = 0; i < n_wait; i++)
    clReleaseEvent (wait[i]);
  if (!f->job)
    return FALSE;
  gst_cl_upload_done (&f->in, GST_MAP_READ, clf_in_flight_event (f->job));
  gst_cl_upload_done (&f->out, GST_MAP_WRITE, clf_in_flight_event (f->job));
  if (!g_atomic_int_get (&self->output_to_filter))
    gst_cl_upload_prefetch (&f->out);
  return TRUE;
}

/* The device thread: enqueues the frames handed to it, in order (none
 * while told to drop them), and says so on each. */
static gpointer
gst_cl_filter_device_thread (gpointer data)
{
  GstClFilter *self = data;
  FlightFrame *f;

  g_mutex_lock (&self->thread_lock);
  while (TRUE) {
    gboolean drops;

    if (!(f = g_queue_pop_head (&self->to_enqueue))) {
      if (self->thread_quits)
        break;
      g_cond_wait (&self->thread_cond, &self->thread_lock);
      continue;
    }
    drops = self->thread_drops;
    g_mutex_unlock (&self->thread_lock);
    if (!drops)
      gst_cl_filter_enqueue (self, f, &f->err);
    /* A write not enqueued (dropped, failed) is given up, so that nothing
     * downstream waits for it. */
    gst_cl_upload_withdraw (&f->out);
    gst_clear_buffer (&f->inbuf);
    g_mutex_lock (&self->thread_lock);
    f->enqueued = TRUE;
    g_cond_broadcast (&self->thread_cond);
  }
  g_mutex_unlock (&self->thread_lock);
  return NULL;
}

/* Frames held back go through the device thread with frames-in-flight
 * above 1, and while any frame handed to it is in flight (or leaving from
 * the output thread), so that frames reach the device, and leave, in
 * order.  Every frame after one handed over is handed over too, so the
 * newest frame in flight says whether any is. */
static gboolean
gst_cl_filter_uses_device_thread (GstClFilter * self)
{
  const FlightFrame *newest;
  gboolean uses;

  if (gst_cl_filter_flight_limit (self) > 1)
    return TRUE;
  g_mutex_lock (&self->thread_lock);
  newest = g_queue_peek_tail (&self->flight);
  uses = self->out_busy || (newest && newest->on_thread);
  g_mutex_unlock (&self->thread_lock);
  return uses;
}

/* Frames pushed early go there too on a device with memory of its own,
 * where each launch costs the streaming thread 15 us or more (NVIDIA): a
 * chain's filters then all enqueue off it.  Where the device works in
 * host memory (a CPU driver), its kernels run on the cores those threads
 * would take, and a thread more per filter made the chain slower (PoCL, 2
 * cores); there a frame is pushed early only behind no frame handed over
 * (gst_cl_filter_pushes_early), so frames still reach the device in
 * order. */
static gboolean
gst_cl_filter_hands_over (GstClFilter * self, const FlightFrame * f)
{
  return (!f->pushed || self->staged)
      && gst_cl_filter_uses_device_thread (self);
}

static gpointer gst_cl_filter_output_thread (gpointer data);

/* The device and output threads, from the first frame handed over (or
 * passed through behind such frames) to the stop. */
static void
gst_cl_filter_ensure_threads (GstClFilter * self)
{
  if (!self->device_thread)
    self->device_thread = g_thread_new ("clfilter-device",
        gst_cl_filter_device_thread, self);
  if (!self->output_thread)
    self->output_thread = g_thread_new ("clfilter-output",
        gst_cl_filter_output_thread, self);
}

/* Gives the frame to the device thread to enqueue; generate_output() puts
 * it in flight for the output thread once its buffer is the frame's
 * alone. */
static void
gst_cl_filter_hand_over (GstClFilter * self, FlightFrame * f,
    GstBuffer * inbuf)
{
  f->on_thread = TRUE;
  f->inbuf = gst_buffer_ref (inbuf);
  gst_cl_filter_ensure_threads (self);
  g_mutex_lock (&self->thread_lock);
  g_queue_push_tail (&self->to_enqueue, f);
  g_cond_broadcast (&self->thread_cond);
  g_mutex_unlock (&self->thread_lock);
}

/* A frame handed over lands once the device thread has enqueued it (long
 * since, but for the frame handed over last). */
static void
gst_cl_filter_wait_enqueued (GstClFilter * self, FlightFrame * f)
{
  g_mutex_lock (&self->thread_lock);
  while (!f->enqueued)
    g_cond_wait (&self->thread_cond, &self->thread_lock);
  g_mutex_unlock (&self->thread_lock);
}

/* After a stop (no frame in flight): the device and output threads end. */
static void
gst_cl_filter_end_threads (GstClFilter * self)
{
  g_mutex_lock (&self->thread_lock);
  self->thread_quits = TRUE;
  g_cond_broadcast (&self->thread_cond);
  g_mutex_unlock (&self->thread_lock);
  if (self->device_thread)
    g_thread_join (g_steal_pointer (&self->device_thread));
  if (self->output_thread)
    g_thread_join (g_steal_pointer (&self->output_thread));
  self->thread_quits = FALSE;
}

/* Whether every filtered sample fills its container: a blur writes the
 * bits around a value as 0 (P010's low 6, I420_10LE's high 6), so only
 * then does a blur of radius 0 give back every byte. */
static gboolean
format_has_no_spare_bits (const ClfFrameFormat * format)
{
  for (guint i = 0; i < format->n_components; i++) {
    const ClfComponent *c = &format->components[i];
    guint container_bits = c->depth + c->shift <= 8 ? 8 : 16;

    if (c->role != CLF_COMPONENT_COPIED && (c->shift != 0
            || c->depth != container_bits))
      return FALSE;
  }
  return TRUE;
}

/* A blur of radius 0 is the identity where no sample has spare bits: the
 * element passes frames through untouched, with no kernel and no copy. */
static gboolean
gst_cl_filter_is_identity (GstClFilter * self, const ClfParams * params)
{
  return params->mode != CLF_MODE_LAPLACE && params->radius == 0
      && format_has_no_spare_bits (&self->format);
}

/* Caps that came while passing through decided no output pool: leaving
 * passthrough, the source pad renegotiates for one.  Otherwise the pool
 * decided before is still there, and no frame waits for a new one. */
static void
gst_cl_filter_ensure_output_pool (GstClFilter * self)
{
  GstBufferPool *pool =
      gst_base_transform_get_buffer_pool (GST_BASE_TRANSFORM (self));

  if (pool)
    gst_object_unref (pool);
  else
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

/* Before each frame: the controlled properties take their values at the
 * frame's stream time (an application may animate the radius), then the
 * element goes into or out of passthrough for them. */
static void
gst_cl_filter_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstClockTime stream_time = gst_segment_to_stream_time (&trans->segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (buffer));
  const ClfParams *params = &self->frame_params;
  gboolean identity;

  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (self), stream_time);
  gst_cl_filter_read_params (self, &self->frame_params);
  identity = gst_cl_filter_is_identity (self, params);
  if (identity == gst_base_transform_is_passthrough (trans))
    return;
  GST_DEBUG_OBJECT (self, "%s passthrough: %s r=%u", identity ? "entering" :
      "leaving", clf_mode_name (params->mode), params->radius);
  gst_base_transform_set_passthrough (trans, identity);
  if (!identity)
    gst_cl_filter_ensure_output_pool (self);
}

/* A frame passed through: counted, with no kernel time and no copy, and
 * said in its clfilter-stats (passthrough=true), after the frames still
 * in flight, which go out first.  The buffer is not ours to change, so
 * it carries no meta of this element. */
static void
gst_cl_filter_count_passed (GstClFilter * self, const ClfParams * params,
    GstClockTime pts)
{
  ClfFrameStats stats = { 0 };
  guint64 frame;

  if (gst_cl_filter_record_frame (self, &stats, &frame))
    gst_cl_filter_post_stats (self, frame, params, &stats, pts, TRUE);
  GST_INFO_OBJECT (self, "frame %" G_GUINT64_FORMAT " passed through (%s "
      "r=0)", frame, clf_mode_name (params->mode));
}

/* Where frames leave from the output thread, the buffer passed through
 * follows them there (so that basetransform pushes none of its own
 * between them); else it is counted now, once the frames in flight went
 * out. */
static GstFlowReturn
gst_cl_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstFlowReturn ret = gst_cl_filter_refusal (self);
  FlightFrame *f;

  if (ret != GST_FLOW_OK)
    return ret;
  if (gst_cl_filter_uses_device_thread (self)) {
    f = g_new0 (FlightFrame, 1);
    f->passed_through = f->on_thread = f->enqueued = TRUE;
    f->params = self->frame_params;
    f->pts = GST_BUFFER_PTS (buffer);
    f->outbuf = gst_buffer_ref (buffer);
    self->entered = f;
    gst_cl_filter_ensure_threads (self);
    return GST_FLOW_OK;
  }
  ret = gst_cl_filter_drain (self, TRUE);
  if (ret == GST_FLOW_OK)
    gst_cl_filter_count_passed (self, &self->frame_params,
        GST_BUFFER_PTS (buffer));
  return ret;
}

/* Metas of the input that still hold for the filtered frame are copied to
 * the output, as GstVideoFilter does: those with no tags or only video,
 * size and orientation ones (crop, regions of interest, AFD, bar data).
 * A GstVideoMeta (memory tag) describes the input's layout, and this
 * element's own metas an upstream clfilter's figures: the output gets its
 * own. */
static gboolean
gst_cl_filter_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  static const gchar *const kept_tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR, NULL
  };
  GType api = meta->info->api;
  const gchar *const *tags = gst_meta_api_type_get_tags (api);

  if (api == gst_cl_filter_meta_get_info ()->api
      || gst_cl_filter_stats_meta_api_is (api))
    return FALSE;
  /* gst_meta_api_type_tags_contain_only() is GStreamer 1.24's. */
  for (guint i = 0; tags && tags[i]; i++)
    if (!g_strv_contains (kept_tags, tags[i]))
      return FALSE;
  return TRUE;
}

/* A frame that failed on the device: a flush or a stop ending a long
 * frame between two launches, or an OpenCL error. */
static GstFlowReturn
gst_cl_filter_frame_failed (GstClFilter * self, ClfError * err)
{
  GstFlowReturn ret = err->code == CLF_ERROR_CANCELLED ? GST_FLOW_FLUSHING :
      GST_FLOW_ERROR;

  /* Said before the error is posted: from then on no frame comes in (an
   * application that saw the error sees no later frame). */
  g_mutex_lock (&self->thread_lock);
  if (self->out_flow == GST_FLOW_OK)
    self->out_flow = ret;
  g_mutex_unlock (&self->thread_lock);
  if (err->code == CLF_ERROR_CANCELLED)
    GST_DEBUG_OBJECT (self, "frame stopped: %s", err->message);
  else
    gst_cl_filter_post_error (self, err);
  clf_error_clear (err);
  return ret;
}

/* Waits for a frame taken from the flight queue (the oldest) and closes
 * its accesses.  With `deliver`, the frame is counted, its figures go on
 * its buffer and the bus, and the buffer to `*outbuf`; without, or when a
 * flush or a stop began to drop frames while the device finished it, it
 * is dropped. */
static GstFlowReturn
gst_cl_filter_land (GstClFilter * self, FlightFrame * f, gboolean deliver,
    GstBuffer ** outbuf)
{
  ClfFrameStats stats;
  ClfError err = { 0 };
  gboolean ok;
  ClfParams params = f->params;
  GstClockTime pts = f->pts;
  GstBuffer *buf = g_steal_pointer (&f->outbuf);
  gboolean passed_through;
  guint64 frame;

  GST_LOG_OBJECT (self, "landing the frame of %" GST_TIME_FORMAT "%s",
      GST_TIME_ARGS (pts), f->pushed ? " (pushed already)" : "");
  if (f->on_thread)
    gst_cl_filter_wait_enqueued (self, f);
  if (f->job) {
    ok = clf_plan_finish (f->plan, f->job, &stats, &err)
        && gst_cl_upload_complete (&f->out, &err);
    stats.device_copies = gst_cl_upload_device_copies (&f->in)
        + gst_cl_upload_device_copies (&f->out);
  } else if (f->passed_through) {
    ok = TRUE;
  } else {
    /* Not enqueued: why, or nothing where the device thread dropped it. */
    ok = FALSE;
    err = f->err;
    memset (&f->err, 0, sizeof f->err);
  }
  GST_LOG_OBJECT (self, "finished");
  passed_through = f->passed_through;
  flight_frame_free (f);
  *outbuf = NULL;
  g_mutex_lock (&self->thread_lock);
  deliver = deliver && !self->thread_drops;
  g_mutex_unlock (&self->thread_lock);
  if (!deliver || !ok) {
    gst_clear_buffer (&buf);
    if (!deliver)
      clf_error_clear (&err);
    return deliver ? gst_cl_filter_frame_failed (self, &err) : GST_FLOW_OK;
  }
  if (passed_through) {
    gst_cl_filter_count_passed (self, &params, pts);
    *outbuf = buf;
    return GST_FLOW_OK;
  }

  GST_INFO_OBJECT (self, "frame %" G_GUINT64_FORMAT " %s r=%u: kernel %"
      G_GUINT64_FORMAT " ns, upload %" G_GUINT64_FORMAT " ns, download %"
      G_GUINT64_FORMAT " ns, %u copies", self->frames,
      clf_mode_name (params.mode), params.radius, stats.kernel_ns,
      stats.upload_ns, stats.download_ns, stats.copies);
  if (gst_cl_filter_record_frame (self, &stats, &frame))
    gst_cl_filter_post_stats (self, frame, &params, &stats, pts, FALSE);
  if (buf)
    gst_cl_filter_add_meta (buf, frame, &params, &stats);
  GST_LOG_OBJECT (self, "landed");
  *outbuf = buf;
  return GST_FLOW_OK;
}

/* Takes the oldest frame from the flight queue (under thread_lock).  The
 * frame behind it may be one for the other thread to land (the output
 * thread waits for a frame handed over to reach the head; the streaming
 * thread, in drain() or make_room(), for one that was not): both are
 * woken, as on every change of the state they wait on. */
static FlightFrame *
gst_cl_filter_pop_oldest (GstClFilter * self)
{
  FlightFrame *f = g_queue_pop_head (&self->flight);

  g_cond_broadcast (&self->thread_cond);
  return f;
}

/* Lands the oldest frame in flight on the streaming thread, which holds
 * thread_lock, and takes it again: that frame was not handed over. */
static GstFlowReturn
gst_cl_filter_land_oldest (GstClFilter * self, gboolean deliver,
    GstBuffer ** outbuf)
{
  FlightFrame *f = gst_cl_filter_pop_oldest (self);
  GstFlowReturn ret;

  g_mutex_unlock (&self->thread_lock);
  ret = gst_cl_filter_land (self, f, deliver, outbuf);
  g_mutex_lock (&self->thread_lock);
  gst_cl_filter_free_retired_plans (self);
  return ret;
}

/* The output thread: lands the frames handed over, oldest first, as the
 * device finishes them, and pushes those held back downstream (none while
 * a flush or a stop drops them); downstream's answer is kept for the
 * streaming thread.  Frames not handed over are the streaming thread's,
 * and come before them. */
static gpointer
gst_cl_filter_output_thread (gpointer data)
{
  GstClFilter *self = data;
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);
  FlightFrame *f;

  g_mutex_lock (&self->thread_lock);
  while (TRUE) {
    GstBuffer *buf = NULL;
    GstFlowReturn ret;

    f = g_queue_peek_head (&self->flight);
    if (!f || !f->on_thread) {
      if (self->thread_quits)
        break;
      g_cond_wait (&self->thread_cond, &self->thread_lock);
      continue;
    }
    gst_cl_filter_pop_oldest (self);
    self->out_busy = TRUE;
    self->out_held = !f->pushed;
    g_mutex_unlock (&self->thread_lock);

    ret = gst_cl_filter_land (self, f, TRUE, &buf);
    if (buf)
      ret = gst_pad_push (srcpad, g_steal_pointer (&buf));

    g_mutex_lock (&self->thread_lock);
    if (!self->thread_drops && (self->out_held || ret != GST_FLOW_OK))
      self->out_flow = ret;
    self->out_busy = self->out_held = FALSE;
    gst_cl_filter_free_retired_plans (self);
    g_cond_broadcast (&self->thread_cond);
  }
  g_mutex_unlock (&self->thread_lock);
  return NULL;
}

/* Lands the frames at the head that were pushed already (and not handed
 * over), for their figures, in order: those done on the device, and the
 * oldest while more than MAX_PUSHED_IN_FLIGHT are in flight.  Stops at
 * `leaving`, a frame whose buffer has not left yet: its figures come
 * after it. */
static GstFlowReturn
gst_cl_filter_collect (GstClFilter * self, const FlightFrame * leaving)
{
  GstFlowReturn ret = GST_FLOW_OK;
  FlightFrame *f;

  g_mutex_lock (&self->thread_lock);
  while (ret == GST_FLOW_OK && (f = g_queue_peek_head (&self->flight))
      && f != leaving && f->pushed && !f->on_thread && (!f->job
          || clf_in_flight_done (f->job)
          || g_queue_get_length (&self->flight) > MAX_PUSHED_IN_FLIGHT)) {
    GstBuffer *none = NULL;

    ret = gst_cl_filter_land_oldest (self, TRUE, &none);
  }
  g_mutex_unlock (&self->thread_lock);
  return ret;
}

/* Lands every frame in flight, in order: pushed downstream with
 * `deliver`, else dropped (and those handed over are then neither
 * enqueued nor pushed).  The frames handed over leave from the output
 * thread, waited for here.  The first flow that is not OK is returned
 * (and later frames dropped). */
static GstFlowReturn
gst_cl_filter_drain (GstClFilter * self, gboolean deliver)
{
  GstFlowReturn ret = GST_FLOW_OK;

  g_mutex_lock (&self->thread_lock);
  if (!deliver)
    self->thread_drops = TRUE;
  while (!g_queue_is_empty (&self->flight) || self->out_busy) {
    const FlightFrame *oldest = g_queue_peek_head (&self->flight);
    GstBuffer *buf = NULL;
    GstFlowReturn landed;

    if (!oldest || oldest->on_thread) {
      g_cond_wait (&self->thread_cond, &self->thread_lock);
      continue;
    }
    landed = gst_cl_filter_land_oldest (self, deliver
        && ret == GST_FLOW_OK, &buf);
    if (buf) {
      g_mutex_unlock (&self->thread_lock);
      landed = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
      g_mutex_lock (&self->thread_lock);
    }
    if (ret == GST_FLOW_OK)
      ret = landed;
  }
  if (deliver && ret == GST_FLOW_OK)
    ret = self->out_flow;
  if (!deliver) {
    self->thread_drops = FALSE;
    self->out_flow = GST_FLOW_OK;
  }
  g_mutex_unlock (&self->thread_lock);
  return ret;
}

/* Whether the next frame must wait for room (under thread_lock): while
 * frames-in-flight frames are held back, or too many pushed ones are in
 * flight. */
static gboolean
gst_cl_filter_needs_room (GstClFilter * self, guint limit)
{
  return gst_cl_filter_held_frames (self) >= limit
      || g_queue_get_length (&self->flight) > MAX_PUSHED_IN_FLIGHT;
}

/* Makes room for the next frame: the oldest frames not handed over land
 * here (pushed ones for their figures; a held one goes out, the one frame
 * a buffer in gives, in `*outbuf`, which holds none then); frames handed
 * over are waited for while the output thread sends them on.  Returns
 * what downstream last answered the output thread, or FLUSHING once a
 * flush or a stop began. */
static GstFlowReturn
gst_cl_filter_make_room (GstClFilter * self, GstBuffer ** outbuf)
{
  guint limit = gst_cl_filter_flight_limit (self);
  GstFlowReturn ret = GST_FLOW_OK;
  GstBuffer *landed = NULL;

  g_mutex_lock (&self->thread_lock);
  while (ret == GST_FLOW_OK && !landed
      && gst_cl_filter_needs_room (self, limit)) {
    const FlightFrame *oldest = g_queue_peek_head (&self->flight);

    if (oldest && !oldest->on_thread)
      ret = gst_cl_filter_land_oldest (self, TRUE, &landed);
    else if (g_atomic_int_get (&self->stopping))
      ret = GST_FLOW_FLUSHING;
    else
      g_cond_wait (&self->thread_cond, &self->thread_lock);
  }
  if (ret == GST_FLOW_OK)
    ret = self->out_flow;
  g_mutex_unlock (&self->thread_lock);
  if (landed)
    *outbuf = landed;
  if (ret != GST_FLOW_OK)
    gst_clear_buffer (outbuf);
  return ret;
}

/* The frame joins the flight queue; the output thread may take it now. */
static void
gst_cl_filter_put_in_flight (GstClFilter * self, FlightFrame * f)
{
  g_mutex_lock (&self->thread_lock);
  g_queue_push_tail (&self->flight, f);
  g_cond_broadcast (&self->thread_cond);
  g_mutex_unlock (&self->thread_lock);
}

/* Maps (or wraps) both buffers and enqueues the frame (or hands it to the
 * device thread); it lands in generate_output() or on the output
 * thread. */
static GstFlowReturn
gst_cl_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  FlightFrame *f;
  ClfError err = { 0 };
  GstBuffer *bad;
  GstFlowReturn ret;

  /* A flush or a stop came while the kernels built (set_caps()). */
  if (!self->plan && self->unplanned_caps
      && (ret = gst_cl_filter_plan_late (self)) != GST_FLOW_OK)
    return ret;
  if (!self->plan)
    goto not_negotiated;
  if ((ret = gst_cl_filter_refusal (self)) != GST_FLOW_OK)
    return ret;

  f = g_new0 (FlightFrame, 1);
  f->params = self->frame_params;
  f->pts = GST_BUFFER_PTS (inbuf);

  bad = inbuf;
  if (!gst_cl_filter_frame_open (self, inbuf, &self->in_info, GST_MAP_READ,
          "input", &f->in, &err))
    goto open_failed;
  bad = outbuf;
  if (!gst_cl_filter_frame_open (self, outbuf, &self->out_info,
          GST_MAP_WRITE, "output", &f->out, &err))
    goto open_failed;
  GST_LOG_OBJECT (self, "frames opened");
  gst_cl_filter_plan_frame (self, inbuf, f);
  f->pushed = gst_cl_filter_pushes_early (self, f);
  f->outbuf = f->pushed ? NULL : gst_buffer_ref (outbuf);
  if (gst_cl_filter_hands_over (self, f)) {
    if (f->pushed)
      gst_cl_upload_promise (&f->out);
    self->entered = f;
    gst_cl_filter_hand_over (self, f, inbuf);
    GST_LOG_OBJECT (self, "handed to the device thread");
    return GST_FLOW_OK;
  }
  if (!gst_cl_filter_enqueue (self, f, &err)) {
    flight_frame_free (f);
    return gst_cl_filter_frame_failed (self, &err);
  }
  self->entered = f;
  gst_cl_filter_put_in_flight (self, f);
  GST_LOG_OBJECT (self, "enqueued");
  return GST_FLOW_OK;

  /* ERRORS */
not_negotiated:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("a buffer arrived before caps were set"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
open_failed:
  {
    flight_frame_free (f);
    if (err.code == CLF_ERROR_FRAME) {
      gst_cl_filter_post_bad_buffer (self, bad, bad == inbuf, &err);
      clf_error_clear (&err);
      return GST_FLOW_ERROR;
    }
    if (err.code != CLF_ERROR_NONE)
      return gst_cl_filter_frame_failed (self, &err);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Could not map a video frame for reading or writing"),
        ("the buffer does not match the negotiated caps %s",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT
                (&self->in_info))));
    return GST_FLOW_ERROR;
  }
}

/* After transform() enqueued a frame, its buffer waits in flight: with
 * frames-in-flight 1 it lands and goes out at once; above, the output
 * thread sends it on when the device is done, and the next buffer comes
 * in once fewer than frames-in-flight are held.  A buffer passed through
 * (or otherwise not filtered) goes out after the frames before it. */
static GstFlowReturn
gst_cl_filter_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  FlightFrame *leaving = NULL;
  GstFlowReturn ret;

  self->entered = NULL;
  ret = GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->generate_output
      (trans, outbuf);
  if (ret != GST_FLOW_OK)
    return ret;
  if (self->entered) {
    FlightFrame *f = self->entered;

    /* A frame held back keeps its buffer until it lands; one pushed
     * early gives it now.  A frame handed over goes in flight for the
     * output thread only now, its buffer writable (for the meta), and
     * says a drop before it as basetransform would. */
    if (!f->pushed)
      gst_clear_buffer (outbuf);
    if (f->on_thread && f->outbuf && self->discont) {
      f->outbuf = gst_buffer_make_writable (f->outbuf);
      GST_BUFFER_FLAG_SET (f->outbuf, GST_BUFFER_FLAG_DISCONT);
    }
    self->discont = FALSE;
    if (f->on_thread)
      gst_cl_filter_put_in_flight (self, f);
    else
      leaving = f;
  } else if (!*outbuf) {
    /* Dropped before any kernel (QoS). */
    self->discont = TRUE;
  } else {
    ret = gst_cl_filter_drain (self, TRUE);
    if (ret != GST_FLOW_OK)
      gst_clear_buffer (outbuf);
    return ret;
  }
  ret = gst_cl_filter_collect (self, leaving);
  if (ret != GST_FLOW_OK) {
    gst_clear_buffer (outbuf);
    return ret;
  }
  return gst_cl_filter_make_room (self, outbuf);
}
