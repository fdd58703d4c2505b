/* What the files of the memory suite (memory*.c, the meson test `memory`)
 * share: the engine and allocator, random bytes, a frame enqueued as the
 * element does, failing libgstcl-1.0's calls, and each file's tests added
 * to the suite's test cases. */
#pragma once

#include <gst/check/gstcheck.h>

#include "clf.h"

/* The test case's engine and allocator (its fixtures make them). */
extern ClfEngine *engine;
extern GstAllocator *allocator;

void fill_random (guint8 * data, gsize size);

/* Enqueues the frame src -> dst as the element does: behind the device
 * wait lists of the memories it reads and writes (`read`, `written`, or
 * NULL), recording its event on them; returns without waiting for it. */
ClfInFlight *enqueue_with_readiness (ClfPlan * plan, const ClfParams * params,
    const ClfFrame * src, const ClfFrame * dst, GstMemory * read,
    GstMemory * written);

/* From now on, the calls of libgstcl-1.0 (the memory's own) that `spec`
 * names fail, as CLF_TEST_FAIL_CALL says (tests/layer/); NULL: none. */
void fail_gstcl_calls (const gchar * spec);

/* A 37x23 gray plane at byte 8 of the memory, rows 40 bytes apart: the
 * CPU writes it through a map (the calls `upload_fault` names failing at
 * the unmap), the device sharpens it into a second memory, and a map of
 * that shows the reference's bytes. */
void map_write_kernel_map_read (const gchar * upload_fault);

/* Each file's tests, added to the suite's test cases: "general" (the
 * memory the device has) and "discrete" (staged, as on a discrete GPU). */
void memory_failures_add_tests (TCase * general, TCase * discrete);
void memory_readiness_add_tests (TCase * general, TCase * discrete);
