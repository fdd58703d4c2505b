/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
#pragma once

#include <gst/gst.h>

#include "clf.h"
#include "gstcldeviceframe.h"

G_BEGIN_DECLS

/* The frames of one clfilter between their enqueueing and their finishing,
 * and the element's two threads that move them (gstclflight.c says who
 * owns what). */
typedef struct _GstClFlight GstClFlight;
typedef struct _GstClFlightFrame GstClFlightFrame;

/* What the flight asks of the element whose frames it moves, from the
 * streaming, device and output threads. */
typedef struct
{
  /* How many frames may be held back now (frames-in-flight). */
  guint (*limit) (GstElement * element);
  /* A frame finished with its statistics; `outbuf` is its buffer, yet to
   * go downstream, for a meta. */
  void (*finished) (GstElement * element, const ClfParams * params,
      const ClfFrameStats * stats, GstClockTime pts, GstBuffer * outbuf);
  /* A buffer passed through finished (after the frames before it). */
  void (*passed) (GstElement * element, const ClfParams * params,
      GstClockTime pts);
  /* A frame failed, other than by a flush or a stop: the error to post. */
  void (*failed) (GstElement * element, const GError * error);
} GstClFlightHooks;

/* A frame on the device, from its enqueueing in transform() to its
 * finishing (gst_cl_flight_finish_frame): the accesses stay open (host
 * planes stay mapped) until the device is done with them, and the frame
 * holds its output buffer until it finishes. */
struct _GstClFlightFrame
{
  ClfInFlight *job;
  ClfPlan *plan;
  GstClDeviceFrame in, out;
  /* What the plan filters: the frames as opened, or their fields apart. */
  ClfFrame src, dst;
  GstBuffer *outbuf;
  /* A buffer passed through (a blur of radius 0) behind frames that leave
   * from the output thread: no job; it follows them there. */
  gboolean passed_through;
  /* Sent to the device thread: it holds the input buffer until it has
   * enqueued the frame (after that the memories' readiness keeps it), then
   * sets `enqueued` (under the flight's lock), or says in `err` why it
   * could not; a frame it dropped has neither job nor error. */
  gboolean on_thread;
  GstBuffer *inbuf;
  gboolean enqueued;
  GError *err;
  ClfParams params;
  GstClockTime pts;
};

/* Frames of `element`, which owns the flight, leave through `srcpad`. */
GstClFlight *gst_cl_flight_new (GstElement * element, GstPad * srcpad,
    const GstClFlightHooks * hooks);
/* After gst_cl_flight_end_threads(), with no frame in flight. */
void gst_cl_flight_free (GstClFlight * flight);

/* At the element's start: whether its device has memory of its own (a
 * discrete GPU, frames staged in host memory). */
void gst_cl_flight_start (GstClFlight * flight, gboolean staged);
gboolean gst_cl_flight_is_staged (GstClFlight * flight);
/* Whether outputs go to the pool of a clfilter downstream, which reads
 * them on the device (so nothing downloads them), or to a consumer that
 * reads them on the CPU (so their download starts once the frame is
 * enqueued); from decide_allocation(). */
void gst_cl_flight_set_output_to_filter (GstClFlight * flight,
    gboolean to_filter);
void gst_cl_flight_set_stopping (GstClFlight * flight, gboolean stopping);
gboolean gst_cl_flight_is_stopping (GstClFlight * flight);
GstFlowReturn gst_cl_flight_get_flow_return (GstClFlight * flight);
void gst_cl_flight_retire_plans (GstClFlight * flight, ClfPlan * plan,
    ClfPlan * field_plan);

void gst_cl_flight_frame_free (GstClFlightFrame * f);
gboolean gst_cl_flight_enqueue (GstClFlight * flight, GstClFlightFrame * f,
    GError ** error);
gboolean gst_cl_flight_uses_device_thread (GstClFlight * flight);
void gst_cl_flight_ensure_threads (GstClFlight * flight);
void gst_cl_flight_send_to_device_thread (GstClFlight * flight,
    GstClFlightFrame * f, GstBuffer * inbuf);
void gst_cl_flight_put_in_flight (GstClFlight * flight, GstClFlightFrame * f);
GstFlowReturn gst_cl_flight_frame_failed (GstClFlight * flight,
    GError * error);

GstFlowReturn gst_cl_flight_make_room (GstClFlight * flight,
    GstBuffer ** outbuf);
GstFlowReturn gst_cl_flight_drain (GstClFlight * flight, gboolean deliver);
void gst_cl_flight_end_threads (GstClFlight * flight);

G_END_DECLS
