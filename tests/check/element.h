/* What the files of the element suite (element*.c, the meson test
 * `element`) share: its stats messages, a gate standing as a device
 * write, a log of GStreamer's warnings, and each file's tests added to the
 * suite's test cases. */
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "clf.h"

GstMessage *pop_stats (GstBus * bus);

guint64 stats_uint64 (GstMessage * msg, const gchar * field);

/* A user event standing as the input's last device write, opened once:
 * by the second filter's sink pad, or by a timer. */
typedef struct
{
  cl_event gate;
  gint opened;
  cl_int writer_state;          /* of the frame the second filter got */
} ChainGate;

void open_gate (ChainGate * g);

gpointer open_gate_later (gpointer data);

/* GStreamer's WARNING lines, with their text, while a test listens. */
typedef struct
{
  GMutex lock;
  GString *text;
  guint count;
} WarningLog;

/* Listens to WARNING lines of every category.  Checks that it hears one
 * first, so that a run where the log is off cannot pass unheard. */
void warning_log_start (WarningLog * log);

void warning_log_stop (WarningLog * log);

guint64 frames_filtered (GstHarness * h);

/* Each file's tests, added to the suite's test cases: "general" (the
 * memory the device has), "zero-copy" and "discrete" (memory as on a
 * discrete GPU). */
void element_formats_add_tests (TCase * general, TCase * discrete);
void element_properties_add_tests (TCase * general);
void element_in_flight_add_tests (TCase * general, TCase * discrete);
void element_zero_copy_add_tests (TCase * zero_copy, TCase * discrete);
