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
 * and reports how long the device spent on each frame.  The filters (box,
 * separable and sliding box blurs, a Laplace sharpen, any K x K integer
 * convolution) are integer arithmetic: every device gives the same bytes,
 * those of the C reference and of OpenCV.  The properties say the rest of
 * the settings; the README (Properties, Formats and memory, Timing, Errors
 * and troubleshooting) describes the element in full.
 *
 * What gst-inspect cannot show:
 * - each frame's timing reaches an application as an element message
 *   `clfilter-stats` (every `stats-interval` frames), a #GstClFilterMeta
 *   on the output buffer (`#include <gst/clfilter/gstclfiltermeta.h>`),
 *   a #GstCustomMeta named `clfilter-stats` for language bindings, and a
 *   `GST_INFO` line (`GST_DEBUG=clfilter:4`); at EOS `clfilter-summary`
 *   gives the mean, median, p95 and extremes of the kernel times;
 * - the first use of a format and mode on a device posts
 *   `clfilter-building` while the kernels compile (later starts load them
 *   from the cache);
 * - every failure is an element error that says what went wrong and what
 *   to do (no device: RESOURCE/NOT_FOUND; kernels that do not build:
 *   LIBRARY/INIT with the build log; a buffer whose planes do not fit its
 *   memory: STREAM/FAILED; an OpenCL call failing: RESOURCE/FAILED naming
 *   the call); frames never pass through unfiltered;
 * - warnings: `device` or `zero-copy` set while running, a kernel refused,
 *   convolve settings while `mode` is another (RESOURCE/SETTINGS); a frame
 *   estimated above 1 s (RESOURCE/BUSY), which then runs in launches of
 *   about 50 ms so that a flush or a stop does not wait for it.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=movie.mp4 ! decodebin ! clfilter mode=laplace ! videoconvert ! autovideosink
 * ]| Sharpens a movie.
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=100 ! video/x-raw,format=RGBA,width=1280,height=720 ! clfilter mode=sliding radius=31 ! fakesink
 * ]| Blurs 720p test frames and prints each frame's `clfilter-stats`.
 * |[
 * gst-launch-1.0 videotestsrc ! clfilter mode=box radius=3 border=mirror device=cpu ! videoconvert ! autovideosink
 * ]| The naive blur on the CPU device, mirrored at the edges.
 * |[
 * gst-launch-1.0 videotestsrc ! clfilter mode=convolve preset=sobel-y ! videoconvert ! autovideosink
 * ]| Horizontal edges over mid grey.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfilter-private.h"

#include "gstclcontext.h"
#include "gstclfiltermeta-private.h"
#include "gstclformat.h"

GST_DEBUG_CATEGORY (gst_cl_filter_debug);
#define GST_CAT_DEFAULT gst_cl_filter_debug

#define DEFAULT_MODE GST_CL_FILTER_MODE_LAPLACE
#define DEFAULT_RADIUS 7
#define DEFAULT_SIGMA 2.0
#define DEFAULT_AMOUNT 1.0
#define DEFAULT_THRESHOLD 0
#define DEFAULT_BORDER GST_CL_FILTER_BORDER_CLAMP
#define DEFAULT_DEVICE "auto"
#define DEFAULT_STATS_INTERVAL 1
#define DEFAULT_ZERO_COPY TRUE

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
    {GST_CL_FILTER_MODE_CONVOLVE, "Any KxK integer kernel (kernel, divisor, "
          "bias, preset)", "convolve"},
    {GST_CL_FILTER_MODE_GAUSSIAN, "Gaussian blur by sigma, cost independent "
          "of sigma", "gaussian"},
    {GST_CL_FILTER_MODE_UNSHARP, "Unsharp mask: in + amount * (in - "
          "gaussian(in)) past a threshold", "unsharp"},
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
static GstFlowReturn gst_cl_filter_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf);
static GstFlowReturn gst_cl_filter_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);
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
          "Filter: box (naive 2D blur), separable (rows, then columns), "
          "sliding (running sums, any radius at one cost), laplace (3x3 "
          "sharpen), convolve (the kernel property), gaussian (by sigma) or "
          "unsharp (sigma, amount, threshold); the box blurs' bytes agree",
          GST_TYPE_CL_FILTER_MODE, DEFAULT_MODE,
          rw | GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_uint ("radius", "Radius",
          "Blur radius r in pixels: the window is (2r+1)x(2r+1). 0 passes "
          "frames through where samples fill their bytes. Ignored by laplace",
          0, CLF_MAX_RADIUS, DEFAULT_RADIUS,
          rw | GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Standard deviation of gaussian's and unsharp's blur, in each "
          "plane's own samples (as radius). Up to 8: OpenCV's 8-bit taps "
          "(GaussianBlur's bytes); above: three box blurs, at a cost "
          "independent of sigma. Below 1/12: the identity",
          0, CLF_MAX_SIGMA, DEFAULT_SIGMA,
          rw | GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_AMOUNT,
      g_param_spec_double ("amount", "Amount",
          "unsharp: out = in + amount * (in - gaussian(in)), in steps of "
          "1/256; negative amounts soften. Sharpens luma (or R, G, B, "
          "gray); chroma and alpha are copied",
          CLF_MIN_AMOUNT, CLF_MAX_AMOUNT, DEFAULT_AMOUNT,
          rw | GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_uint ("threshold", "Threshold",
          "unsharp: samples within this of their blur (in the sample's "
          "units: 0-255 for 8-bit, 0-1023 for 10-bit) are kept as they "
          "are, so flat areas and noise are not sharpened",
          0, G_MAXUINT16, DEFAULT_THRESHOLD,
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
          "Frames filtered since the element started", 0, G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_STATS_INTERVAL,
      g_param_spec_uint ("stats-interval", "Statistics interval",
          "Post a clfilter-stats message every this many frames (0 = never); "
          "past 4096 unread on the bus, further ones wait until the bus is "
          "read", 0, G_MAXUINT, DEFAULT_STATS_INTERVAL,
          rw | GST_PARAM_MUTABLE_PLAYING));
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
  gst_cl_filter_convolve_install (gobject_class);

  element_class->set_context = GST_DEBUG_FUNCPTR (gst_cl_filter_set_context);
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_cl_filter_change_state);
  /* Every raw format whose GstVideoFormatInfo the engine can take, and
   * those of them that GstCudaMemory holds, in CUDA memory. */
  system_caps = gst_cl_format_supported_caps ();
#if CLF_HAVE_CUDA
  caps = gst_cl_cuda_template_caps (system_caps);
  gst_caps_unref (system_caps);
#else
  caps = system_caps;
#endif
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_element_class_set_static_metadata (element_class,
      "OpenCL video filter", "Filter/Effect/Video/Hardware",
      "Bit-exact OpenCL video filters (box, separable and sliding box "
      "blurs, Laplace sharpening, K x K integer convolution) that report "
      "each frame's device time in clfilter-stats messages, a "
      "GstClFilterMeta and a GstCustomMeta, and at EOS in clfilter-summary",
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
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cl_filter_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_cl_filter_fixate_caps);
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

/* What the frames in flight ask of the element (gstclflight.h). */
static guint
gst_cl_filter_hook_limit (GstElement * element)
{
  return gst_cl_filter_flight_limit (GST_CL_FILTER (element));
}

static void
gst_cl_filter_hook_finished (GstElement * element, const ClfParams * params,
    const ClfFrameStats * stats, GstClockTime pts, GstBuffer * outbuf)
{
  gst_cl_filter_count_frame (GST_CL_FILTER (element), params, stats, pts,
      outbuf);
}

static void
gst_cl_filter_hook_passed (GstElement * element, const ClfParams * params,
    GstClockTime pts)
{
  gst_cl_filter_count_passed (GST_CL_FILTER (element), params, pts);
}

static void
gst_cl_filter_hook_failed (GstElement * element, const GError * error)
{
  gst_cl_filter_post_error (GST_CL_FILTER (element), error);
}

static const GstClFlightHooks flight_hooks = {
  gst_cl_filter_hook_limit, gst_cl_filter_hook_finished,
  gst_cl_filter_hook_passed, gst_cl_filter_hook_failed,
};

static void
gst_cl_filter_init (GstClFilter * self)
{
  self->mode = DEFAULT_MODE;
  self->radius = DEFAULT_RADIUS;
  self->sigma = DEFAULT_SIGMA;
  self->amount = DEFAULT_AMOUNT;
  self->threshold = DEFAULT_THRESHOLD;
  self->border = DEFAULT_BORDER;
  gst_cl_filter_convolve_init (self);
  self->device = g_strdup (DEFAULT_DEVICE);
  self->stats_interval = DEFAULT_STATS_INTERVAL;
  self->zero_copy = DEFAULT_ZERO_COPY;
  self->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
  self->flight = gst_cl_flight_new (GST_ELEMENT (self),
      GST_BASE_TRANSFORM_SRC_PAD (self), &flight_hooks);
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
  g_free (self->refused_kernel);
  g_free (self->kernel_times);
  gst_cl_flight_free (self->flight);

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

  if (gst_cl_filter_convolve_owns (prop_id)) {
    gst_cl_filter_convolve_set_property (self, prop_id, value);
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_RADIUS:
      self->radius = g_value_get_uint (value);
      break;
    case PROP_SIGMA:
      self->sigma = g_value_get_double (value);
      break;
    case PROP_AMOUNT:
      self->amount = g_value_get_double (value);
      break;
    case PROP_THRESHOLD:
      self->threshold = g_value_get_uint (value);
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

  if (gst_cl_filter_convolve_owns (prop_id)) {
    gst_cl_filter_convolve_get_property (self, prop_id, value);
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_RADIUS:
      g_value_set_uint (value, self->radius);
      break;
    case PROP_SIGMA:
      g_value_set_double (value, self->sigma);
      break;
    case PROP_AMOUNT:
      g_value_set_double (value, self->amount);
      break;
    case PROP_THRESHOLD:
      g_value_set_uint (value, self->threshold);
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

static gboolean
gst_cl_filter_start (GstBaseTransform * trans)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GError *err = NULL;
  gchar *spec = gst_cl_filter_device_spec (self);
  gboolean found;

  found = gst_cl_ensure_engine (GST_ELEMENT (self), spec, &self->engine, &err);
  g_free (spec);
  if (!found)
    goto no_device;

  GST_INFO_OBJECT (self, "using %s", clf_engine_device_name (self->engine));
  GST_OBJECT_LOCK (self);
  g_free (self->device_name);
  self->device_name = g_strdup (clf_engine_device_name (self->engine));
  self->started_zero_copy = self->zero_copy;
  self->slow_known = FALSE;
  self->convolve_unused_said = FALSE;
  self->frames = 0;
  self->last_kernel_ns = 0;
  clf_time_stats_reset (self->kernel_times);
  GST_OBJECT_UNLOCK (self);
  gst_cl_flight_start (self->flight, !clf_engine_host_unified (self->engine));
  gst_cl_filter_build_at_start (self);
  g_object_notify (G_OBJECT (self), "device-name");
  return TRUE;

  /* ERRORS */
no_device:
  {
    gst_cl_filter_post_error (self, err);
    g_clear_error (&err);
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
  gst_cl_flight_drain (self->flight, FALSE);
  gst_cl_flight_end_threads (self->flight);
  g_clear_pointer (&self->plan, clf_plan_free);
  g_clear_pointer (&self->field_plan, clf_plan_free);
#if CLF_HAVE_CUDA
  g_clear_pointer (&self->cuda, gst_cl_cuda_unref);
#endif
  gst_clear_caps (&self->refused_caps);
  gst_clear_caps (&self->unplanned_caps);
  GST_OBJECT_LOCK (self);
  engine = self->engine;
  self->engine = NULL;
  GST_OBJECT_UNLOCK (self);
  clf_engine_unref (engine);
  return TRUE;
}

static gboolean
gst_cl_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstCaps *caps = NULL;
  gboolean ret;

  /* Frames in flight go out before what follows them in the stream (caps,
   * segments, EOS); a flush drops them. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    gst_cl_flight_drain (self->flight, FALSE);
  else if (GST_EVENT_IS_SERIALIZED (event))
    gst_cl_flight_drain (self->flight, TRUE);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      if (self->engine)
        gst_element_post_message (GST_ELEMENT (self),
            gst_cl_filter_summary_message (self));
      break;
    case GST_EVENT_FLUSH_START:
      /* Not serialized: a long frame may be running now, or the
       * streaming thread waiting for room. */
      gst_cl_flight_set_stopping (self->flight, TRUE);
      GST_DEBUG_OBJECT (self, "flushing: a frame or a build in progress "
          "stops at its next check");
      break;
    case GST_EVENT_FLUSH_STOP:
      gst_cl_flight_set_stopping (self->flight, FALSE);
      break;
    case GST_EVENT_CAPS:
      gst_event_parse_caps (event, &caps);
      gst_caps_ref (caps);
      break;
    default:
      break;
  }
  ret = GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->sink_event
      (trans, event);
  /* Upstream's caps failing here end its stream with a not-negotiated
   * that names neither clfilter nor the fix: say both. */
  if (caps && !ret)
    gst_cl_filter_explain_not_negotiated (self, caps);
  gst_clear_caps (&caps);
  return ret;
}

/* Going down to READY deactivates the pads, which waits for the frame in
 * progress: a long one is stopped at its next launch first. */
static GstStateChangeReturn
gst_cl_filter_change_state (GstElement * element, GstStateChange transition)
{
  GstClFilter *self = GST_CL_FILTER (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    gst_cl_flight_set_stopping (self->flight, TRUE);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    gst_cl_filter_convolve_post_pending (self);
  ret = GST_ELEMENT_CLASS (gst_cl_filter_parent_class)->change_state (element,
      transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY
      && ret == GST_STATE_CHANGE_FAILURE)
    gst_cl_flight_set_stopping (self->flight, FALSE);
  return ret;
}

/* Maps (or wraps) both buffers and enqueues the frame (or sends it to the
 * device thread); it finishes in generate_output() or on the output
 * thread. */
static GstFlowReturn
gst_cl_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstClFlightFrame *f;
  GError *err = NULL;
  GstBuffer *bad;
  GstFlowReturn ret;

  /* A flush or a stop came while the kernels built (set_caps()). */
  if (!self->plan && self->unplanned_caps
      && (ret = gst_cl_filter_plan_late (self)) != GST_FLOW_OK)
    return ret;
  if (!self->plan)
    goto not_negotiated;
  if ((ret = gst_cl_flight_get_flow_return (self->flight)) != GST_FLOW_OK)
    return ret;

  f = g_new0 (GstClFlightFrame, 1);
  f->params = self->frame_params;
  f->pts = GST_BUFFER_PTS (inbuf);

  bad = inbuf;
  if (!gst_cl_filter_frame_open (self, inbuf, FALSE, GST_MAP_READ, &f->in,
          &err))
    goto open_failed;
  bad = outbuf;
  if (!gst_cl_filter_frame_open (self, outbuf, TRUE, GST_MAP_WRITE, &f->out,
          &err))
    goto open_failed;
  GST_LOG_OBJECT (self, "frames opened");
  gst_cl_filter_plan_frame (self, inbuf, f);
  f->outbuf = gst_buffer_ref (outbuf);
  if (gst_cl_flight_uses_device_thread (self->flight)) {
    self->entered = f;
    gst_cl_flight_send_to_device_thread (self->flight, f, inbuf);
    GST_LOG_OBJECT (self, "sent to the device thread");
    return GST_FLOW_OK;
  }
  if (!gst_cl_flight_enqueue (self->flight, f, &err)) {
    gst_cl_flight_frame_free (f);
    return gst_cl_flight_frame_failed (self->flight, g_steal_pointer (&err));
  }
  self->entered = f;
  gst_cl_flight_put_in_flight (self->flight, f);
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
    gst_cl_flight_frame_free (f);
    if (g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME)) {
      gst_cl_filter_post_bad_buffer (self, bad, bad == inbuf, err);
      g_clear_error (&err);
      return GST_FLOW_ERROR;
    }
    if (err)
      return gst_cl_flight_frame_failed (self->flight, g_steal_pointer (&err));
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Could not map a video frame for reading or writing"),
        ("the buffer does not match the negotiated caps %s",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT
                (&self->in_info))));
    return GST_FLOW_ERROR;
  }
}

/* After transform() enqueued a frame, its buffer waits in flight: with
 * frames-in-flight 1 it finishes and goes out at once; above, the output
 * thread sends it on when the device is done, and the next buffer comes
 * in once fewer than frames-in-flight are held.  A buffer passed through
 * (or otherwise not filtered) goes out after the frames before it. */
static GstFlowReturn
gst_cl_filter_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstFlowReturn ret;

  self->entered = NULL;
  ret = GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->generate_output
      (trans, outbuf);
  if (ret != GST_FLOW_OK)
    return ret;
  if (self->entered) {
    GstClFlightFrame *f = self->entered;

    /* The frame keeps its buffer until it finishes.  A frame sent to the
     * device thread goes in flight for the output thread only now, its
     * buffer writable (for the meta), and says a drop before it as
     * basetransform would. */
    gst_clear_buffer (outbuf);
    if (f->on_thread && self->discont) {
      f->outbuf = gst_buffer_make_writable (f->outbuf);
      GST_BUFFER_FLAG_SET (f->outbuf, GST_BUFFER_FLAG_DISCONT);
    }
    self->discont = FALSE;
    if (f->on_thread)
      gst_cl_flight_put_in_flight (self->flight, f);
  } else if (!*outbuf) {
    /* Dropped before any kernel (QoS). */
    self->discont = TRUE;
  } else {
    ret = gst_cl_flight_drain (self->flight, TRUE);
    if (ret != GST_FLOW_OK)
      gst_clear_buffer (outbuf);
    return ret;
  }
  return gst_cl_flight_make_room (self->flight, outbuf);
}
