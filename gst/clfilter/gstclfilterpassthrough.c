/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

/* Passthrough: a blur of radius 0 is the identity where samples fill their
 * bytes, and the buffer goes on as it came, counted but not filtered. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfilter-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cl_filter_debug);
#define GST_CAT_DEFAULT gst_cl_filter_debug

/* The filter's settings now (the properties may change from any thread),
 * for frames of `format`. */
void
gst_cl_filter_read_params (GstClFilter * self, const ClfFrameFormat * format,
    ClfParams * params)
{
  guint depth = 0;

  /* A format's filtered components share one depth. */
  for (guint i = 0; i < format->n_components && !depth; i++)
    if (format->components[i].role != CLF_COMPONENT_COPIED)
      depth = format->components[i].depth;
  GST_OBJECT_LOCK (self);
  params->mode = (ClfMode) self->mode;
  params->radius = self->radius;
  params->sigma = self->sigma;
  params->amount = self->amount;
  params->threshold = self->threshold;
  params->border = (ClfBorder) self->border;
  gst_cl_filter_convolve_kernel_for_depth (self, depth, &params->kernel);
  GST_OBJECT_UNLOCK (self);
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

/* A blur of radius 0 is the identity where no sample has spare bits and
 * nothing is converted: the
 * element passes frames through untouched, with no kernel and no copy. */
static gboolean
gst_cl_filter_is_identity (GstClFilter * self, const ClfParams * params)
{
  return clf_params_keep_values (params)
      && format_has_no_spare_bits (&self->format) && !self->converting;
}

/* Before each frame: the controlled properties take their values at the
 * frame's stream time (an application may animate the radius), then the
 * element goes into or out of passthrough for them. */
void
gst_cl_filter_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstClockTime stream_time = gst_segment_to_stream_time (&trans->segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (buffer));
  const ClfParams *params = &self->frame_params;
  gboolean identity;

  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (self), stream_time);
  gst_cl_filter_read_params (self, &self->format, &self->frame_params);
  gst_cl_filter_convolve_check_used (self, params->mode);
  identity = gst_cl_filter_is_identity (self, params);
  if (identity == gst_base_transform_is_passthrough (trans))
    return;
  GST_DEBUG_OBJECT (self, "%s passthrough: %s r=%u", identity ? "entering" :
      "leaving", clf_mode_name (params->mode), params->radius);
  gst_base_transform_set_passthrough (trans, identity);
  if (!identity)
    gst_cl_filter_ensure_output_pool (self);
}

/* Where frames leave from the output thread, the buffer passed through
 * follows them there (so that basetransform pushes none of its own
 * between them); else it is counted now, once the frames in flight went
 * out. */
GstFlowReturn
gst_cl_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstFlowReturn ret = gst_cl_flight_get_flow_return (self->flight);
  GstClFlightFrame *f;

  if (ret != GST_FLOW_OK)
    return ret;
  if (gst_cl_flight_uses_device_thread (self->flight)) {
    f = g_new0 (GstClFlightFrame, 1);
    f->passed_through = f->on_thread = f->enqueued = TRUE;
    f->params = self->frame_params;
    f->pts = GST_BUFFER_PTS (buffer);
    f->outbuf = gst_buffer_ref (buffer);
    self->entered = f;
    gst_cl_flight_ensure_threads (self->flight);
    return GST_FLOW_OK;
  }
  ret = gst_cl_flight_drain (self->flight, TRUE);
  if (ret == GST_FLOW_OK)
    gst_cl_filter_count_passed (self, &self->frame_params,
        GST_BUFFER_PTS (buffer));
  return ret;
}

/* frames-in-flight (changeable while playing), auto (0) resolved for the
 * device the element started on. */
guint
gst_cl_filter_flight_limit (GstClFilter * self)
{
  guint limit;

  GST_OBJECT_LOCK (self);
  limit = self->frames_in_flight;
  /* Frames in CUDA memory have no transfers to overlap with the kernels
   * (their copies are on the device): decode chains ran no faster with 3
   * in flight (docs/performance/), which only add latency, memory and the
   * passes between threads. */
  if (limit == 0)
    limit = gst_cl_flight_is_staged (self->flight) && !self->cuda ?
        AUTO_FRAMES_IN_FLIGHT_STAGED : 1;
  GST_OBJECT_UNLOCK (self);
  return limit;
}
