/* What the files of the robustness suite (robustness*.c, the meson test
 * `robustness`) share: the frame log (probes on an element's pads that log
 * each frame in and out, checked against its stats messages and the
 * reference), pipelines, and each file's tests added to the suite. */
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "framecheck.h"

/* Long enough for PoCL on a loaded machine, short of a hang. */
#define WAIT_TIMEOUT (60 * GST_SECOND)

typedef struct
{
  GstBuffer *buf;               /* until checked */
  GstClockTime pts;
  GstBufferFlags flags;
  GstVideoInfo info;            /* the caps on the pad it passed */
  guint epoch;                  /* flushes done before it passed */
  GstSegment segment;           /* outputs: the segment it was pushed in */
  gboolean came_out;            /* inputs: checked against an output */
} LoggedFrame;

typedef struct
{
  GstElement *filter;
  GstPad *sink, *src;
  gulong probes[3];
  GMutex lock;
  GCond cond;
  GPtrArray *in, *out;          /* LoggedFrame */
  GPtrArray *stats;             /* GstStructure: clfilter-stats in order */
  GstStructure *summary;        /* the last clfilter-summary */
  guint epoch;
} FrameLog;

/* How an input may go missing: only when a flush (seek) or a stop (state
 * change down) caught it between the element's pads; the element itself
 * must still have filtered and reported it. */
typedef enum
{
  LOSS_NONE = 0,
  LOSS_AT_FLUSH = 1 << 0,
  LOSS_AT_STOP = 1 << 1,
} LossAllowed;

guint64 field_uint64 (const GstStructure * s, const gchar * name);

/* The settings a frame was filtered with, as its stats message says. */
ClfParams stats_params (const GstStructure * s);

gboolean same_params (const ClfParams * a, const ClfParams * b);

FrameLog *frame_log_new (GstElement * filter);

/* For a new run of the element (its frame count starts again at 0). */
void frame_log_reset (FrameLog * log);

void frame_log_free (FrameLog * log);

guint frame_log_n_out (FrameLog * log);

/* Waits until `n` frames have come out. */
void frame_log_wait_out (FrameLog * log, guint n);

/* The bus takes the logs (an array the caller no longer needs). */
void watch_bus (GstBus * bus, GPtrArray * logs);

GPtrArray *logs_of (FrameLog * log);

/* Every input was filtered and reported, in order, and came out, unless
 * a flush or a stop caught it (only as `loss` allows); returns how many
 * were caught. */
guint frame_log_check (FrameLog * log, LossAllowed loss);

GstElement *launch (const gchar * description);

GstElement *by_name (GstElement * pipeline, const gchar * name);

void set_state (GstElement * pipeline, GstState state);

/* Waits for EOS: NULL, else what came instead (an error, or nothing in
 * time).  Fails nothing itself, for threads: a test fails in its own. */
gchar *eos_or_problem (GstElement * pipeline);

void wait_eos (GstElement * pipeline);

/* Frame n of a 30/1 stream: timestamps, offsets and flags. */
void stamp_frame (GstBuffer * buf, guint64 n);

/* A pipeline with a clfilter named f, logged, its frames stamped at a
 * source named src. */
GstElement *logged_pipeline (const gchar * description, FrameLog ** log);

/* A random input frame the way an application hands it over: padded
 * rows described by a meta, or unaligned. */
GstBuffer *app_frame (const FormatCase * fc, const GstVideoInfo * info, guint64 n);

/* Each file's tests, added to the suite's test case. */
void robustness_storm_add_tests (TCase * tc);
void robustness_flow_add_tests (TCase * tc);
void robustness_building_add_tests (TCase * tc);
