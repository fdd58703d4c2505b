/* GStreamer
 * The memory suite (memory.c): readiness: a CPU map waits for a device
 * write, a CPU write waits for a device read, and a read whose queue
 * cannot be known stays in the write's wait list.
 */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "gstclbufferpool.h"
#include "gstclcontext.h"
#include "gstclmemory.h"
#include "gstcldeviceframe.h"
#include "memory.h"
#include "reference.h"

/* ---- readiness -------------------------------------------------------- */

/* A frame big enough that the device is still filtering it when the test
 * maps its memory right after enqueueing it: 3840x2160 RGBA, the sliding
 * blur (one launch, not split: see ClfPlanCallbacks). */
#define SLOW_W 3840
#define SLOW_H 2160
#define SLOW_BPP 4

typedef struct
{
  ClfFrameFormat format;
  ClfParams params;
  gsize size;
  ClfPlan *plan;
} SlowFrame;

static void
slow_frame_init (SlowFrame * f)
{
  GError *err = NULL;

  f->format = clf_ref_byte_plane (SLOW_W, SLOW_H, SLOW_BPP, 0xf, 0xf);
  f->params = (ClfParams) {
  CLF_MODE_SLIDING, 40, CLF_BORDER_MIRROR};
  f->size = (gsize) SLOW_W *SLOW_H * SLOW_BPP;
  f->plan = clf_plan_new (engine, &f->format, &err);
  fail_unless (f->plan != NULL, "%s", err->message);
}

static void
device_plane_of (GstMemory * mem, ClfFrame * frame)
{
  gsize offset;

  frame->mem[0] = gst_cl_memory_get_buffer (mem, &offset);
  frame->offset[0] = offset;
  frame->stride[0] = SLOW_BPP * (gsize) SLOW_W;
}

static void
host_plane_of (guint8 * data, gsize size, ClfFrame * frame)
{
  frame->data[0] = data;
  frame->stride[0] = SLOW_BPP * (gsize) SLOW_W;
  frame->size[0] = size;
}

static void
want_filtered (SlowFrame * f, guint8 * from, guint8 * want)
{
  gsize stride = SLOW_BPP * (gsize) SLOW_W;

  /* *INDENT-OFF* */
  clf_ref_filter_frame (&f->params, &f->format, &(ClfHostFrame) { {
          from}, {stride}}, &(ClfHostFrame) { {
          want}, {stride}});
  /* *INDENT-ON* */
}

static ClfInFlight *
enqueue_recorded (SlowFrame * f, const ClfFrame * src, const ClfFrame * dst,
    GstMemory * read, GstMemory * written)
{
  return enqueue_with_readiness (f->plan, &f->params, src, dst, read, written);
}

static void
finish (SlowFrame * f, ClfInFlight * frame)
{
  ClfFrameStats stats;
  GError *err = NULL;

  fail_unless (clf_plan_finish (f->plan, frame, &stats, &err), "%s",
      err->message);
  fail_unless (stats.kernel_ns > 0);
}

/* A CPU map right after a device write was enqueued shows the written
 * bytes: the map waits for the memory's writer.  (Mapped for the
 * buffer's life on a host-unified device, the memory was read while the
 * kernel still wrote it: seen failing before readiness.) */
GST_START_TEST (test_cpu_map_waits_for_device_write)
{
  SlowFrame f;
  GstMemory *out;
  guint8 *in, *want;
  ClfFrame src = { {0} }, dst = { {0} };
  ClfInFlight *frame;
  GstMapInfo map;

  slow_frame_init (&f);
  in = g_malloc (f.size);
  want = g_malloc (f.size);
  fill_random (in, f.size);
  want_filtered (&f, in, want);
  out = gst_allocator_alloc (allocator, f.size, NULL);
  for (guint round = 0; round < 3; round++) {
    /* The memory's old bytes differ from the frame's everywhere. */
    fail_unless (gst_memory_map (out, &map, GST_MAP_WRITE));
    for (gsize i = 0; i < f.size; i++)
      map.data[i] = ~want[i];
    gst_memory_unmap (out, &map);

    host_plane_of (in, f.size, &src);
    device_plane_of (out, &dst);
    frame = enqueue_recorded (&f, &src, &dst, NULL, out);
    fail_unless (gst_memory_map (out, &map, GST_MAP_READ));
    fail_unless (memcmp (map.data, want, f.size) == 0, "round %u: a CPU "
        "map saw the frame before its kernel finished", round);
    gst_memory_unmap (out, &map);
    finish (&f, frame);
  }
  gst_memory_unref (out);
  clf_plan_free (f.plan);
  g_free (in);
  g_free (want);
}

GST_END_TEST;

/* A CPU write right after a device read was enqueued waits for the read:
 * the kernel filters the bytes that were there, not the CPU's new ones. */
GST_START_TEST (test_cpu_write_waits_for_device_read)
{
  SlowFrame f;
  GstMemory *in;
  guint8 *written, *want, *out;
  ClfFrame src = { {0}
  }, dst = { {0}
  };
  ClfInFlight *frame;
  GstMapInfo map;

  slow_frame_init (&f);
  written = g_malloc (f.size);
  want = g_malloc (f.size);
  out = g_malloc (f.size);
  in = gst_allocator_alloc (allocator, f.size, NULL);
  for (guint round = 0; round < 3; round++) {
    fail_unless (gst_memory_map (in, &map, GST_MAP_WRITE));
    fill_random (map.data, f.size);
    memcpy (written, map.data, f.size);
    gst_memory_unmap (in, &map);
    want_filtered (&f, written, want);

    device_plane_of (in, &src);
    host_plane_of (out, f.size, &dst);
    frame = enqueue_recorded (&f, &src, &dst, in, NULL);
    fail_unless (gst_memory_map (in, &map, GST_MAP_WRITE));
    memset (map.data, 0, f.size);
    gst_memory_unmap (in, &map);
    finish (&f, frame);
    fail_unless (memcmp (out, want, f.size) == 0, "round %u: the CPU wrote "
        "the frame while a kernel read it", round);
  }
  gst_memory_unref (in);
  clf_plan_free (f.plan);
  g_free (written);
  g_free (want);
  g_free (out);
}

GST_END_TEST;

/* Reads recorded on three queues, the first still gated; then a read on
 * the second queue whose queue cannot be known (libgstcl-1.0's
 * clGetEventInfo fails): the first queue's read is not forgotten, so a
 * device write (or a CPU write, on resident memory) still waits for it.
 * (Seen failing with the query unchecked: the read took the first queue's
 * slot, and the gated read was no longer waited for.) */
GST_START_TEST (test_read_of_unknown_queue)
{
  GstMemory *mem = gst_allocator_alloc (allocator, 4096, NULL);
  cl_context context = clf_engine_context (engine);
  cl_event wait[GST_CL_MEMORY_MAX_WAIT], reads[3], unknown, gate;
  cl_command_queue queues[3];
  gboolean waited = FALSE;
  GError *err = NULL;
  cl_int status;
  guint n;

  gate = clCreateUserEvent (context, &status);
  fail_unless_equals_int (status, CL_SUCCESS);
  for (guint q = 0; q < 3; q++) {
    queues[q] = clCreateCommandQueue (context, clf_engine_device (engine), 0,
        &status);
    fail_unless_equals_int (status, CL_SUCCESS);
    fail_unless_equals_int (clEnqueueMarkerWithWaitList (queues[q], q ? 0 : 1,
            q ? NULL : &gate, &reads[q]), CL_SUCCESS);
    gst_cl_memory_device_done (mem, GST_MAP_READ, reads[q]);
  }
  fail_unless_equals_int (clEnqueueMarkerWithWaitList (queues[1], 0, NULL,
          &unknown), CL_SUCCESS);
  fail_gstcl_calls ("clGetEventInfo:1");
  gst_cl_memory_device_done (mem, GST_MAP_READ, unknown);
  fail_gstcl_calls (NULL);

  fail_unless (gst_cl_memory_device_wait_list (mem, GST_MAP_WRITE, wait, &n,
          &err), "%s", err ? err->message : "");
  for (guint i = 0; i < n; i++) {
    waited |= wait[i] == reads[0];
    clReleaseEvent (wait[i]);
  }
  fail_unless (waited, "the read still gated is no longer waited for");

  fail_unless_equals_int (clSetUserEventStatus (gate, CL_COMPLETE), CL_SUCCESS);
  for (guint q = 0; q < 3; q++) {
    fail_unless_equals_int (clFinish (queues[q]), CL_SUCCESS);
    clReleaseEvent (reads[q]);
    clReleaseCommandQueue (queues[q]);
  }
  clReleaseEvent (unknown);
  clReleaseEvent (gate);
  gst_memory_unref (mem);
}

GST_END_TEST;

void
memory_readiness_add_tests (TCase * general, TCase * discrete)
{
  TCase *cases[] = { general, discrete };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    tcase_add_test (cases[i], test_cpu_map_waits_for_device_write);
    tcase_add_test (cases[i], test_cpu_write_waits_for_device_read);
    tcase_add_test (cases[i], test_read_of_unknown_queue);
  }
}
