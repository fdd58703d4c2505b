/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/* What the files of the clfilter element share: its instance and the
 * functions each file gives the others.  Not installed. */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "clf.h"
#include "gstclcuda.h"
#include "gstclfilter.h"
#include "gstclflight.h"
#include "gstcldeviceframe.h"

G_BEGIN_DECLS

/* frames-in-flight 0, the default, is this many on a device with memory of
 * its own (a discrete GPU: the upload, kernels and download of
 * neighbouring frames overlap), and 1 where the device works in host
 * memory (a CPU driver, whose kernels need the cores the element's
 * threads would take). */
#define DEFAULT_FRAMES_IN_FLIGHT 0
#define AUTO_FRAMES_IN_FLIGHT_STAGED 3
#define MAX_FRAMES_IN_FLIGHT 16
/* A frame estimated to take longer than this on the device is reported
 * with a WARNING (once for each setting): video cannot play like that. */
#define SLOW_FRAME_NS (1 * GST_SECOND)

/* The element's properties, one table for the files that install them. */
typedef enum
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
  PROP_SIGMA,
  PROP_AMOUNT,
  PROP_THRESHOLD,
  /* gstclfilterconvolve.c's */
  PROP_KERNEL,
  PROP_DIVISOR,
  PROP_BIAS,
  PROP_PRESET,
  N_PROPS
} GstClFilterProp;

struct _GstClFilter
{
  GstBaseTransform parent;

  /* Properties and statistics, under the object lock. */
  GstClFilterMode mode;
  guint radius;
  gdouble sigma, amount;        /* gaussian, unsharp */
  guint threshold;              /* unsharp */
  GstClFilterBorder border;
  ClfKernel kernel;             /* mode=convolve, with divisor and bias */
  GstClFilterPreset preset;
  /* A refused kernel not yet posted (set before the element had a bus). */
  gchar *refused_kernel;
  /* A convolve property was set since the element started, and whether
   * its going unused (mode not convolve) was said. */
  gboolean convolve_set, convolve_unused_said;
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
  gboolean started_zero_copy;
  /* The settings a slow frame was reported for (the thread that
   * enqueues: see the device thread). */
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
  /* The format of the plans, and the modes whose kernels' build from
   * source was said for it (atomic bits, 1 << mode). */
  GstVideoFormat plans_format;
  guint building_told;
  /* Caps taken while a flush or a stop cut their kernels' build short:
   * the next frame builds them. */
  GstCaps *unplanned_caps;
  ClfFrameFormat format;
  GstVideoInfo in_info;
  GstVideoInfo out_info;
  /* Where downstream takes another format: the conversion the plans
   * make, and the output's frames (else `format`). */
  gboolean converting;
  ClfConversion conversion;
  ClfFrameFormat out_format;
  /* The last format refused at negotiation and explained in the log. */
  GstVideoFormat explained_format;

  /* The frames between their enqueueing and their finishing, and the
   * element's device and output threads (gstclflight.c). */
  GstClFlight *flight;
  /* The frame transform() (or transform_ip()) made of the buffer in hand,
   * for generate_output() (streaming thread). */
  GstClFlightFrame *entered;
  /* The settings of the buffer in hand, read once in before_transform()
   * (streaming thread): the ones it decided passthrough by. */
  ClfParams frame_params;
  /* A frame was dropped (QoS) since the last one out: the next that leaves
   * from the output thread is marked DISCONT, as basetransform marks the
   * next it pushes (streaming thread). */
  gboolean discont;
};

/* GstBaseTransform's class, for the methods the element's files chain up
 * to (the element derives from it directly). */
#define GST_CL_FILTER_PARENT_CLASS \
  ((GstBaseTransformClass *) g_type_class_peek (GST_TYPE_BASE_TRANSFORM))

/* gstclfiltererror.c: what went wrong, on the bus. */
/* The engine's error with the GStreamer domain and code that fit. */
void gst_cl_filter_post_error (GstClFilter * self, const GError * error);
/* A buffer whose planes do not fit its memory: a STREAM error naming the
 * neighbour that made it (`input`: upstream, else downstream's pool). */
void gst_cl_filter_post_bad_buffer (GstClFilter * self, GstBuffer * buffer,
    gboolean input, const GError * error);

/* gstclfiltercaps.c: negotiation and queries. */
/* A CAPS event that failed: where downstream takes none of the formats
 * clfilter gives for `incaps`, an element error (CORE, NEGOTIATION)
 * naming both sides and the converter that fixes it, once for the caps. */
void gst_cl_filter_explain_not_negotiated (GstClFilter * self,
    GstCaps * incaps);
gboolean gst_cl_filter_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps);
GstCaps *gst_cl_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
GstCaps *gst_cl_filter_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);
gboolean gst_cl_filter_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
gboolean gst_cl_filter_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize);
GstFlowReturn gst_cl_filter_plan_late (GstClFilter * self);
gboolean gst_cl_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps);
/* At start, where upstream can give one format only: its kernels start
 * building, and nobody waits for them. */
void gst_cl_filter_build_at_start (GstClFilter * self);

/* gstclfilterallocation.c: the engine, contexts, pools and buffers. */
ClfEngine *gst_cl_filter_ref_engine (GstClFilter * self);
gchar *gst_cl_filter_device_spec (GstClFilter * self);
void gst_cl_filter_set_context (GstElement * element, GstContext * context);
#if CLF_HAVE_CUDA
gboolean gst_cl_filter_ensure_cuda (GstClFilter * self, ClfEngine * engine,
    GstCaps * caps, GError ** error);
#endif
gboolean gst_cl_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query);
gboolean gst_cl_filter_decide_allocation (GstBaseTransform * trans,
    GstQuery * query);
void gst_cl_filter_ensure_output_pool (GstClFilter * self);
gboolean gst_cl_filter_frame_open (GstClFilter * self, GstBuffer * buffer,
    gboolean output, GstMapFlags flags, GstClDeviceFrame * access,
    GError ** error);

/* gstclfilterfields.c: interlaced video. */
void gst_cl_filter_field_format (const ClfFrameFormat * frame,
    ClfFrameFormat * fields);
void gst_cl_filter_plan_frame (GstClFilter * self, GstBuffer * inbuf,
    GstClFlightFrame * f);

/* gstclfilterpassthrough.c: each frame's settings; a blur of radius 0. */
void gst_cl_filter_read_params (GstClFilter * self,
    const ClfFrameFormat * format, ClfParams * params);
/* frames-in-flight, auto (0) resolved for the device it started on. */
guint gst_cl_filter_flight_limit (GstClFilter * self);
void gst_cl_filter_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer);
GstFlowReturn gst_cl_filter_transform_ip (GstBaseTransform * trans,
    GstBuffer * buffer);

/* gstclfilterconvolve.c: mode=convolve's properties (kernel, divisor,
 * bias and preset), installed and set there. */
void gst_cl_filter_convolve_install (GObjectClass * gobject_class);
gboolean gst_cl_filter_convolve_owns (guint prop_id);
void gst_cl_filter_convolve_init (GstClFilter * self);
void gst_cl_filter_convolve_set_property (GstClFilter * self,
    GstClFilterProp prop, const GValue * value);
void gst_cl_filter_convolve_get_property (GstClFilter * self,
    GstClFilterProp prop, GValue * value);
/* The kernel frames of `depth`-bit samples (0: not known yet) are filtered
 * with: a preset's mid-grey bias is the mid value of that depth.  Called
 * with the object lock. */
void gst_cl_filter_convolve_kernel_for_depth (GstClFilter * self,
    guint depth, ClfKernel * kernel);
/* Posts what set_property() could not: a kernel refused before the element
 * had a bus. */
void gst_cl_filter_convolve_post_pending (GstClFilter * self);
/* Before a frame with `mode`: a convolve property set while the mode is
 * another is said once a start, as a warning message. */
void gst_cl_filter_convolve_check_used (GstClFilter * self, ClfMode mode);

/* gstclfilterstats.c: statistics, messages and metas. */
/* A frame filtered: counted, said in the INFO log and (every
 * stats-interval) a clfilter-stats message, and put on `outbuf`, yet to
 * leave, as a meta. */
void gst_cl_filter_count_frame (GstClFilter * self, const ClfParams * params,
    const ClfFrameStats * stats, GstClockTime pts, GstBuffer * outbuf);
void gst_cl_filter_count_passed (GstClFilter * self, const ClfParams * params,
    GstClockTime pts);
GstMessage *gst_cl_filter_summary_message (GstClFilter * self);
gboolean gst_cl_filter_transform_meta (GstBaseTransform * trans,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf);

G_END_DECLS
