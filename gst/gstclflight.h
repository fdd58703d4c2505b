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
#include "gstclfilter.h"
#include "gstclupload.h"

G_BEGIN_DECLS

/* The frames of one clfilter between their enqueueing and their landing,
 * and the element's two threads that move them (gstclflight.c says who
 * owns what). */
typedef struct _GstClFlight GstClFlight;
typedef struct _GstClFlightFrame GstClFlightFrame;

/* A frame on the device, from its enqueueing in transform() to its
 * landing (gst_cl_flight_land): the accesses stay open (host planes
 * stay mapped) until the device is done with them.  A frame `pushed`
 * went downstream at once and lands for its figures only (if handed to
 * the device thread, with its write promised on the output's memory); the
 * others hold their output buffer until they land. */
struct _GstClFlightFrame
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
   * sets `enqueued` (under the flight's lock), or says in `err` why it
   * could not; a frame it dropped has neither job nor error. */
  gboolean on_thread;
  GstBuffer *inbuf;
  gboolean enqueued;
  GError *err;
  ClfParams params;
  GstClockTime pts;
};

GstClFlight *gst_cl_flight_new (GstClFilter * filter);
/* After gst_cl_flight_end_threads(), with no frame in flight. */
void gst_cl_flight_free (GstClFlight * flight);

void gst_cl_flight_set_stopping (GstClFlight * flight, gboolean stopping);
gboolean gst_cl_flight_is_stopping (GstClFlight * flight);
GstFlowReturn gst_cl_flight_refusal (GstClFlight * flight);
void gst_cl_flight_retire_plans (GstClFlight * flight, ClfPlan * plan,
    ClfPlan * field_plan);

void gst_cl_flight_frame_free (GstClFlightFrame * f);
gboolean gst_cl_flight_pushes_early (GstClFlight * flight,
    const GstClFlightFrame * f);
gboolean gst_cl_flight_enqueue (GstClFlight * flight, GstClFlightFrame * f,
    GError ** error);
gboolean gst_cl_flight_uses_device_thread (GstClFlight * flight);
gboolean gst_cl_flight_hands_over (GstClFlight * flight,
    const GstClFlightFrame * f);
void gst_cl_flight_ensure_threads (GstClFlight * flight);
void gst_cl_flight_hand_over (GstClFlight * flight, GstClFlightFrame * f,
    GstBuffer * inbuf);
void gst_cl_flight_put_in_flight (GstClFlight * flight, GstClFlightFrame * f);
GstFlowReturn gst_cl_flight_frame_failed (GstClFlight * flight,
    GError * error);

GstFlowReturn gst_cl_flight_collect (GstClFlight * flight,
    const GstClFlightFrame * leaving);
GstFlowReturn gst_cl_flight_make_room (GstClFlight * flight,
    GstBuffer ** outbuf);
GstFlowReturn gst_cl_flight_drain (GstClFlight * flight, gboolean deliver);
void gst_cl_flight_end_threads (GstClFlight * flight);

G_END_DECLS
