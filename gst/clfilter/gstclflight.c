/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

/* Frames in flight: the frames of one clfilter between their enqueueing on
 * the device and their finishing (the device done, their statistics
 * known, their buffer pushed), and the two threads of the element's own
 * that move them.
 *
 * Threads and what each owns:
 * - the streaming thread (transform(), generate_output(), events and
 *   serialized queries) opens each frame and either enqueues it itself and
 *   puts it in flight, or sends it to the device thread; it finishes the
 *   frames it enqueued itself (make_room, drain);
 * - the device thread (frames-in-flight above 1, or behind a frame sent
 *   to it) takes the frames from `to_enqueue`, in order, enqueues them
 *   (none while `drops`) and sets each one's `enqueued`;
 * - the output thread finishes the frames sent to the device thread, from
 *   the head of the flight queue, once they are enqueued and done, and
 *   pushes them downstream; it sets `out_busy` while it finishes one and
 *   keeps downstream's answer in `out_flow`;
 * - any thread (flush-start, flush-stop, PAUSED to READY) sets `stopping`.
 *
 * State, all under `lock`: the flight queue, `to_enqueue`, each frame's
 * `enqueued`, `drops`, `quits`, `out_busy`, `out_flow`, `posting`,
 * `retired_plans`; `stopping` is also atomic, since the plan's callbacks
 * read it between launches without the lock.
 *
 * Who waits on `cond`, and for what:
 * - device thread: a frame in `to_enqueue`, or `quits`;
 * - output thread: a frame `on_thread` at the head of the queue, or
 *   `quits`; then (wait_enqueued) that frame's `enqueued`;
 * - streaming thread in drain(): a frame not `on_thread` at the head, or
 *   the queue empty and `out_busy` clear;
 * - streaming thread in make_room(): a frame not `on_thread` at the head,
 *   room (fewer than frames-in-flight in flight), or `stopping`;
 * - streaming thread reading `out_flow`: `posting` back to 0.
 *
 * The rule: every change to what a waiter waits for (the queue, its head,
 * `to_enqueue`, `enqueued`, `out_busy`, `posting`, `quits`, `stopping`) is
 * made under `lock` and broadcasts `cond`, waking every waiter, which
 * checks its own condition again.  `drops` and `out_flow` are read by the
 * threads once awake, never waited for.
 *
 * A frame's path: opened (streaming) -> enqueued (streaming, or sent to
 * the device thread and enqueued there) -> in the flight queue ->
 * finished by the thread that owns it (the output thread for frames
 * `on_thread`, else the streaming thread) -> pushed, or dropped by a flush
 * or a stop.  Frames leave the queue only from its head, so buffers keep
 * their order.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclflight.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cl_filter_debug);
#define GST_CAT_DEFAULT gst_cl_filter_debug

struct _GstClFlight
{
  /* The element the frames are for (it owns this object), its source pad
   * and what the flight asks of it. */
  GstElement *element;
  GstPad *srcpad;
  GstClFlightHooks hooks;
  /* From gst_cl_flight_start(): the device has memory of its own. */
  gboolean staged;
  /* Set (atomic) by gst_cl_flight_set_output_to_filter(). */
  gint output_to_filter;

  GMutex lock;
  GCond cond;
  /* Frames enqueued on the device (or sent to the device thread) and not
   * yet finished, oldest first. */
  GQueue queue;
  /* Frames sent to the device thread and not yet enqueued, oldest
   * first. */
  GQueue to_enqueue;
  /* Plans that set_caps() replaced while frames of theirs were in flight. */
  GSList *retired_plans;
  GThread *device_thread;
  GThread *output_thread;
  /* A flush or a stop: enqueue and push no more. */
  gboolean drops;
  gboolean quits;
  /* The output thread took a frame from the queue and is finishing it and
   * pushing its buffer downstream. */
  gboolean out_busy;
  /* What downstream answered the output thread's last push (or a frame
   * that failed): the streaming thread returns it upstream. */
  GstFlowReturn out_flow;
  /* Threads posting a failed frame's error: until they are done,
   * `out_flow` is not returned upstream (an application that sees
   * GST_FLOW_ERROR finds the error on the bus). */
  guint posting;
  /* Set (atomic) by a flush or a stop: a long frame ends at its next
   * launch (see ClfPlanCallbacks), so the stop does not wait for it. */
  gint stopping;
};

GstClFlight *
gst_cl_flight_new (GstElement * element, GstPad * srcpad,
    const GstClFlightHooks * hooks)
{
  GstClFlight *flight = g_new0 (GstClFlight, 1);

  flight->element = element;
  flight->srcpad = srcpad;
  flight->hooks = *hooks;
  g_mutex_init (&flight->lock);
  g_cond_init (&flight->cond);
  g_queue_init (&flight->queue);
  g_queue_init (&flight->to_enqueue);
  return flight;
}

void
gst_cl_flight_free (GstClFlight * flight)
{
  g_mutex_clear (&flight->lock);
  g_cond_clear (&flight->cond);
  g_free (flight);
}

gboolean
gst_cl_flight_is_stopping (GstClFlight * flight)
{
  return g_atomic_int_get (&flight->stopping) != 0;
}

static gpointer gst_cl_flight_output_thread (gpointer data);

/* `out_flow` (under the lock), once no error is being posted. */
static GstFlowReturn
gst_cl_flight_out_flow (GstClFlight * flight)
{
  while (flight->posting)
    g_cond_wait (&flight->cond, &flight->lock);
  return flight->out_flow;
}

/* The flow return downstream (or a frame that failed) gave last, where it
 * refuses the next frame until a flush or a stop: an error, EOS,
 * flushing.  Not linked is only passed on (the pad may be linked
 * again). */
GstFlowReturn
gst_cl_flight_get_flow_return (GstClFlight * flight)
{
  GstFlowReturn ret;

  g_mutex_lock (&flight->lock);
  ret = gst_cl_flight_out_flow (flight);
  g_mutex_unlock (&flight->lock);
  return ret == GST_FLOW_NOT_LINKED ? GST_FLOW_OK : ret;
}

void
gst_cl_flight_start (GstClFlight * flight, gboolean staged)
{
  flight->staged = staged;
  gst_cl_flight_set_stopping (flight, FALSE);
}

gboolean
gst_cl_flight_is_staged (GstClFlight * flight)
{
  return flight->staged;
}

void
gst_cl_flight_set_output_to_filter (GstClFlight * flight, gboolean to_filter)
{
  g_atomic_int_set (&flight->output_to_filter, to_filter);
}

/* A flush or a stop begins (or ends): a long frame ends at its next
 * launch, and the streaming thread stops waiting for room. */
void
gst_cl_flight_set_stopping (GstClFlight * flight, gboolean stopping)
{
  g_mutex_lock (&flight->lock);
  g_atomic_int_set (&flight->stopping, stopping);
  g_cond_broadcast (&flight->cond);
  g_mutex_unlock (&flight->lock);
}

/* Frames of the plans set_caps() replaces may still be in flight (caps
 * events drain them first, but a renegotiation in the streaming thread
 * does not): those plans are freed once the frames have finished. */
void
gst_cl_flight_retire_plans (GstClFlight * flight, ClfPlan * plan,
    ClfPlan * field_plan)
{
  ClfPlan *plans[2] = { plan, field_plan };

  g_mutex_lock (&flight->lock);
  for (guint i = 0; i < G_N_ELEMENTS (plans); i++) {
    if (plans[i] && (!g_queue_is_empty (&flight->queue) || flight->out_busy))
      flight->retired_plans = g_slist_prepend (flight->retired_plans, plans[i]);
    else if (plans[i])
      clf_plan_free (plans[i]);
  }
  g_mutex_unlock (&flight->lock);
}

/* Once no frame is in flight (under the lock), the plans retired
 * meanwhile go. */
static void
gst_cl_flight_free_retired_plans (GstClFlight * flight)
{
  if (g_queue_is_empty (&flight->queue) && !flight->out_busy)
    g_clear_slist (&flight->retired_plans, (GDestroyNotify) clf_plan_free);
}

/* Frames whose buffers have yet to go downstream (under the lock). */
static guint
gst_cl_flight_held_frames (GstClFlight * flight)
{
  return g_queue_get_length (&flight->queue) + flight->out_busy;
}

void
gst_cl_flight_frame_free (GstClFlightFrame * f)
{
  gst_cl_device_frame_close (&f->out);
  gst_cl_device_frame_close (&f->in);
  gst_clear_buffer (&f->outbuf);
  g_clear_error (&f->err);
  g_free (f);
}

/* Enqueues the frame behind the device commands on its memories, and
 * records it on them. */
gboolean
gst_cl_flight_enqueue (GstClFlight * flight, GstClFlightFrame * f,
    GError ** error)
{
  f->job = gst_cl_device_frame_enqueue (&f->in, &f->out, f->plan, &f->params,
      &f->src, &f->dst, error);
  if (!f->job)
    return FALSE;
  if (!g_atomic_int_get (&flight->output_to_filter))
    gst_cl_device_frame_prefetch (&f->out);
  return TRUE;
}

/* The device thread: enqueues the frames sent to it, in order (none
 * while told to drop them), and says so on each. */
static gpointer
gst_cl_flight_device_thread (gpointer data)
{
  GstClFlight *flight = data;
  GstClFlightFrame *f;

  g_mutex_lock (&flight->lock);
  while (TRUE) {
    gboolean drops;

    if (!(f = g_queue_pop_head (&flight->to_enqueue))) {
      if (flight->quits)
        break;
      g_cond_wait (&flight->cond, &flight->lock);
      continue;
    }
    drops = flight->drops;
    g_mutex_unlock (&flight->lock);
    if (!drops)
      gst_cl_flight_enqueue (flight, f, &f->err);
    gst_clear_buffer (&f->inbuf);
    g_mutex_lock (&flight->lock);
    f->enqueued = TRUE;
    g_cond_broadcast (&flight->cond);
  }
  g_mutex_unlock (&flight->lock);
  return NULL;
}

/* Frames go through the device thread with frames-in-flight above 1, and
 * while any frame sent to it is in flight (or leaving from the output
 * thread), so that frames reach the device, and leave, in order.  Every
 * frame after one sent there is sent there too, so the newest frame in
 * flight says whether any is. */
gboolean
gst_cl_flight_uses_device_thread (GstClFlight * flight)
{
  const GstClFlightFrame *newest;
  gboolean uses;

  if (flight->hooks.limit (flight->element) > 1)
    return TRUE;
  g_mutex_lock (&flight->lock);
  newest = g_queue_peek_tail (&flight->queue);
  uses = flight->out_busy || (newest && newest->on_thread);
  g_mutex_unlock (&flight->lock);
  return uses;
}

/* The device and output threads, from the first frame sent to the device
 * thread (or passed through behind such frames) to the stop. */
void
gst_cl_flight_ensure_threads (GstClFlight * flight)
{
  if (!flight->device_thread)
    flight->device_thread = g_thread_new ("clfilter-device",
        gst_cl_flight_device_thread, flight);
  if (!flight->output_thread)
    flight->output_thread = g_thread_new ("clfilter-output",
        gst_cl_flight_output_thread, flight);
}

/* Sends the frame to the device thread to enqueue; generate_output() puts
 * it in flight for the output thread once its buffer is the frame's
 * alone. */
void
gst_cl_flight_send_to_device_thread (GstClFlight * flight, GstClFlightFrame * f,
    GstBuffer * inbuf)
{
  f->on_thread = TRUE;
  f->inbuf = gst_buffer_ref (inbuf);
  gst_cl_flight_ensure_threads (flight);
  g_mutex_lock (&flight->lock);
  g_queue_push_tail (&flight->to_enqueue, f);
  g_cond_broadcast (&flight->cond);
  g_mutex_unlock (&flight->lock);
}

/* A frame sent to the device thread finishes once that thread has
 * enqueued it (long since, but for the frame sent last). */
static void
gst_cl_flight_wait_enqueued (GstClFlight * flight, GstClFlightFrame * f)
{
  g_mutex_lock (&flight->lock);
  while (!f->enqueued)
    g_cond_wait (&flight->cond, &flight->lock);
  g_mutex_unlock (&flight->lock);
}

/* After a stop (no frame in flight): the device and output threads end. */
void
gst_cl_flight_end_threads (GstClFlight * flight)
{
  g_mutex_lock (&flight->lock);
  flight->quits = TRUE;
  g_cond_broadcast (&flight->cond);
  g_mutex_unlock (&flight->lock);
  if (flight->device_thread)
    g_thread_join (g_steal_pointer (&flight->device_thread));
  if (flight->output_thread)
    g_thread_join (g_steal_pointer (&flight->output_thread));
  flight->quits = FALSE;
}

/* A frame that failed on the device: a flush or a stop ending a long
 * frame between two launches, or an OpenCL error.  Takes `error`. */
GstFlowReturn
gst_cl_flight_frame_failed (GstClFlight * flight, GError * error)
{
  gboolean stopped = g_error_matches (error, CLF_ERROR, CLF_ERROR_CANCELLED);
  GstFlowReturn ret = stopped ? GST_FLOW_FLUSHING : GST_FLOW_ERROR;

  /* Said before the error is posted: from then on no frame comes in (an
   * application that saw the error sees no later frame).  It is returned
   * upstream only once posted. */
  g_mutex_lock (&flight->lock);
  if (flight->out_flow == GST_FLOW_OK)
    flight->out_flow = ret;
  flight->posting++;
  g_mutex_unlock (&flight->lock);
  if (stopped)
    GST_DEBUG_OBJECT (flight->element, "frame stopped: %s", error->message);
  else
    flight->hooks.failed (flight->element, error);
  g_error_free (error);
  g_mutex_lock (&flight->lock);
  flight->posting--;
  g_cond_broadcast (&flight->cond);
  g_mutex_unlock (&flight->lock);
  return ret;
}

/* Waits for a frame taken from the flight queue (the oldest) and closes
 * its accesses.  With `deliver`, the frame is counted, its statistics go
 * on its buffer and the bus, and the buffer to `*outbuf`; without, or
 * when a flush or a stop began to drop frames while the device finished
 * it, it is dropped.  So is a frame behind one that failed or that
 * downstream refused: that flow is returned again. */
static GstFlowReturn
gst_cl_flight_finish_frame (GstClFlight * flight, GstClFlightFrame * f,
    gboolean deliver, GstBuffer ** outbuf)
{
  GstElement *self = flight->element;
  ClfFrameStats stats;
  GError *err = NULL;
  gboolean ok;
  ClfParams params = f->params;
  GstClockTime pts = f->pts;
  GstBuffer *buf = g_steal_pointer (&f->outbuf);
  GstFlowReturn refused = GST_FLOW_OK;
  gboolean passed_through;

  GST_LOG_OBJECT (self, "finishing the frame of %" GST_TIME_FORMAT,
      GST_TIME_ARGS (pts));
  if (f->on_thread)
    gst_cl_flight_wait_enqueued (flight, f);
  if (f->job) {
    ok = clf_plan_finish (f->plan, f->job, &stats, &err)
        && gst_cl_device_frame_complete (&f->out, &err);
    stats.device_copies = gst_cl_device_frame_device_copies (&f->in)
        + gst_cl_device_frame_device_copies (&f->out);
  } else if (f->passed_through) {
    ok = TRUE;
  } else {
    /* Not enqueued: why, or nothing where the device thread dropped it. */
    ok = FALSE;
    err = g_steal_pointer (&f->err);
  }
  GST_LOG_OBJECT (self, "done on the device");
  passed_through = f->passed_through;
  gst_cl_flight_frame_free (f);
  *outbuf = NULL;
  g_mutex_lock (&flight->lock);
  deliver = deliver && !flight->drops;
  if (deliver && flight->out_flow != GST_FLOW_NOT_LINKED)
    refused = flight->out_flow;
  g_mutex_unlock (&flight->lock);
  if (refused != GST_FLOW_OK) {
    gst_clear_buffer (&buf);
    g_clear_error (&err);
    return refused;
  }
  if (!deliver || !ok) {
    gst_clear_buffer (&buf);
    if (!deliver)
      g_clear_error (&err);
    return deliver ? gst_cl_flight_frame_failed (flight,
        g_steal_pointer (&err)) : GST_FLOW_OK;
  }
  if (passed_through)
    flight->hooks.passed (self, &params, pts);
  else
    flight->hooks.finished (self, &params, &stats, pts, buf);
  GST_LOG_OBJECT (self, "finished");
  *outbuf = buf;
  return GST_FLOW_OK;
}

/* Takes the oldest frame from the flight queue (under the lock).  The
 * frame behind it may be one for the other thread to finish (the output
 * thread waits for a frame `on_thread` to reach the head; the streaming
 * thread, in drain() or make_room(), for one that is not): both are
 * woken, as on every change of the state they wait on. */
static GstClFlightFrame *
gst_cl_flight_pop_oldest (GstClFlight * flight)
{
  GstClFlightFrame *f = g_queue_pop_head (&flight->queue);

  g_cond_broadcast (&flight->cond);
  return f;
}

/* Finishes the oldest frame in flight on the streaming thread, which holds
 * the lock, and takes it again: that frame is not `on_thread`. */
static GstFlowReturn
gst_cl_flight_finish_oldest (GstClFlight * flight, gboolean deliver,
    GstBuffer ** outbuf)
{
  GstClFlightFrame *f = gst_cl_flight_pop_oldest (flight);
  GstFlowReturn ret;

  g_mutex_unlock (&flight->lock);
  ret = gst_cl_flight_finish_frame (flight, f, deliver, outbuf);
  g_mutex_lock (&flight->lock);
  gst_cl_flight_free_retired_plans (flight);
  return ret;
}

/* The output thread: finishes the frames `on_thread`, oldest first, as the
 * device finishes them, and pushes them downstream (none while
 * a flush or a stop drops them); downstream's answer is kept for the
 * streaming thread.  Frames not `on_thread` are the streaming thread's,
 * and come before them. */
static gpointer
gst_cl_flight_output_thread (gpointer data)
{
  GstClFlight *flight = data;
  GstClFlightFrame *f;

  g_mutex_lock (&flight->lock);
  while (TRUE) {
    GstBuffer *buf = NULL;
    GstFlowReturn ret;

    f = g_queue_peek_head (&flight->queue);
    if (!f || !f->on_thread) {
      if (flight->quits)
        break;
      g_cond_wait (&flight->cond, &flight->lock);
      continue;
    }
    gst_cl_flight_pop_oldest (flight);
    flight->out_busy = TRUE;
    g_mutex_unlock (&flight->lock);

    ret = gst_cl_flight_finish_frame (flight, f, TRUE, &buf);
    if (buf)
      ret = gst_pad_push (flight->srcpad, g_steal_pointer (&buf));

    g_mutex_lock (&flight->lock);
    if (!flight->drops)
      flight->out_flow = ret;
    flight->out_busy = FALSE;
    gst_cl_flight_free_retired_plans (flight);
    g_cond_broadcast (&flight->cond);
  }
  g_mutex_unlock (&flight->lock);
  return NULL;
}

/* Finishes every frame in flight, in order: pushed downstream with
 * `deliver`, else dropped (and those `on_thread` are then neither
 * enqueued nor pushed).  The frames `on_thread` leave from the output
 * thread, waited for here.  The first flow that is not OK is returned
 * (and later frames dropped). */
GstFlowReturn
gst_cl_flight_drain (GstClFlight * flight, gboolean deliver)
{
  GstFlowReturn ret = GST_FLOW_OK;

  g_mutex_lock (&flight->lock);
  if (!deliver)
    flight->drops = TRUE;
  while (!g_queue_is_empty (&flight->queue) || flight->out_busy) {
    const GstClFlightFrame *oldest = g_queue_peek_head (&flight->queue);
    GstBuffer *buf = NULL;
    GstFlowReturn flow;

    if (!oldest || oldest->on_thread) {
      g_cond_wait (&flight->cond, &flight->lock);
      continue;
    }
    flow = gst_cl_flight_finish_oldest (flight, deliver
        && ret == GST_FLOW_OK, &buf);
    if (buf) {
      g_mutex_unlock (&flight->lock);
      flow = gst_pad_push (flight->srcpad, buf);
      g_mutex_lock (&flight->lock);
    }
    if (ret == GST_FLOW_OK)
      ret = flow;
  }
  if (deliver && ret == GST_FLOW_OK)
    ret = gst_cl_flight_out_flow (flight);
  if (!deliver) {
    flight->drops = FALSE;
    flight->out_flow = GST_FLOW_OK;
  }
  g_mutex_unlock (&flight->lock);
  return ret;
}

/* Whether the next frame must wait for room (under the lock): while
 * frames-in-flight frames are held back. */
static gboolean
gst_cl_flight_needs_room (GstClFlight * flight, guint limit)
{
  return gst_cl_flight_held_frames (flight) >= limit;
}

/* Makes room for the next frame: the oldest frame not `on_thread`
 * finishes here and goes out, the one frame a buffer in gives, in
 * `*outbuf`, which holds none then; frames `on_thread` are waited for
 * while the output thread pushes them.  Returns what downstream last
 * answered the output thread, or FLUSHING once a flush or a stop
 * began. */
GstFlowReturn
gst_cl_flight_make_room (GstClFlight * flight, GstBuffer ** outbuf)
{
  guint limit = flight->hooks.limit (flight->element);
  GstFlowReturn ret = GST_FLOW_OK;
  GstBuffer *finished = NULL;

  g_mutex_lock (&flight->lock);
  while (ret == GST_FLOW_OK && !finished
      && gst_cl_flight_needs_room (flight, limit)) {
    const GstClFlightFrame *oldest = g_queue_peek_head (&flight->queue);

    if (oldest && !oldest->on_thread)
      ret = gst_cl_flight_finish_oldest (flight, TRUE, &finished);
    else if (g_atomic_int_get (&flight->stopping))
      ret = GST_FLOW_FLUSHING;
    else
      g_cond_wait (&flight->cond, &flight->lock);
  }
  if (ret == GST_FLOW_OK)
    ret = gst_cl_flight_out_flow (flight);
  g_mutex_unlock (&flight->lock);
  if (finished)
    *outbuf = finished;
  if (ret != GST_FLOW_OK)
    gst_clear_buffer (outbuf);
  return ret;
}

/* The frame joins the flight queue; the output thread may take it now. */
void
gst_cl_flight_put_in_flight (GstClFlight * flight, GstClFlightFrame * f)
{
  g_mutex_lock (&flight->lock);
  g_queue_push_tail (&flight->queue, f);
  g_cond_broadcast (&flight->cond);
  g_mutex_unlock (&flight->lock);
}
