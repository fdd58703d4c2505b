/* GStreamer
 * gst-check tests of clfilter's OpenCL memory and buffer pool, without the
 * element: CPU writes through a map reach the device, device writes reach
 * a later map, nested and shared maps, zeroed edges, and the pool's video
 * meta and alignment options.
 */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "gstclbufferpool.h"
#include "gstclcontext.h"
#include "gstclmemory.h"
#include "gstclupload.h"
#include "reference.h"

static ClfEngine *engine;
static GstAllocator *allocator;

static void
setup (void)
{
  GError *err = NULL;

  engine = clf_engine_new ("auto", &err);
  fail_unless (engine != NULL, "no OpenCL device: %s", err->message);
  allocator = gst_cl_allocator_new (engine);
}

/* As a discrete GPU's memory, on any device: a device buffer and a pinned
 * staging buffer, whose transfers go on their own queues (see
 * clf_engine_host_unified). */
static void
setup_discrete (void)
{
  g_setenv ("CLF_TEST_HOST_UNIFIED", "0", TRUE);
  setup ();
}

static void
teardown (void)
{
  gst_object_unref (allocator);
  clf_engine_unref (engine);
}

static void
fill_random (guint8 * data, gsize size)
{
  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) g_random_int ();
}

/* Enqueues the frame src -> dst as the element does: behind the device
 * wait lists of the memories it reads and writes (`read`, `written`, or
 * NULL), recording its event on them; returns without waiting for it. */
static ClfInFlight *
enqueue_with_readiness (ClfPlan * plan, const ClfParams * params,
    const ClfFrame * src, const ClfFrame * dst, GstMemory * read,
    GstMemory * written)
{
  cl_event wait[2 * GST_CL_MEMORY_MAX_WAIT];
  guint n = 0, added = 0;
  GError *err = NULL;
  ClfInFlight *frame;

  if (read)
    fail_unless (gst_cl_memory_device_wait_list (read, GST_MAP_READ,
            wait + n, &added, &err), "%s", err ? err->message : "");
  n += added;
  added = 0;
  if (written)
    fail_unless (gst_cl_memory_device_wait_list (written, GST_MAP_WRITE,
            wait + n, &added, &err), "%s", err ? err->message : "");
  n += added;
  frame = clf_plan_enqueue (plan, params, src, dst, wait, n, &err);
  fail_unless (frame != NULL, "%s", err->message);
  for (guint i = 0; i < n; i++)
    clReleaseEvent (wait[i]);
  if (read)
    gst_cl_memory_device_done (read, GST_MAP_READ,
        clf_in_flight_event (frame));
  if (written)
    gst_cl_memory_device_done (written, GST_MAP_WRITE,
        clf_in_flight_event (frame));
  return frame;
}

/* The way (gst/gstclupload.h) an RGBA frame in `buf` reaches the device
 * to be read. */
static const gchar *
upload_way (GstBuffer * buf, const GstVideoInfo * info, gboolean zero_copy)
{
  const ClfFrameFormat format = clf_ref_byte_plane (GST_VIDEO_INFO_WIDTH
      (info), GST_VIDEO_INFO_HEIGHT (info), 4, 0x7, 0x7);
  GstClUpload upload;
  GError *err = NULL;
  const gchar *way;

  fail_unless (gst_cl_upload_open (&upload, engine, &format, buf, info,
          GST_MAP_READ, zero_copy, NULL, &err), "%s", err ? err->message :
      "the buffer could not be mapped");
  way = upload.method;
  gst_cl_upload_close (&upload);
  return way;
}

/* The ways in, in order: our memory in place; on a device that works on
 * host memory, system memory wrapped; else, and without zero copy, a
 * copy.  Our memory that the CPU holds mapped is copied on a discrete
 * device, where the device's bytes are not the CPU's. */
GST_START_TEST (test_upload_ways)
{
  GstAllocationParams page = { 0, 4095, 0, 0 };
  gboolean unified = clf_engine_host_unified (engine);
  GstVideoInfo info;
  GstBuffer *ours, *system;
  GstMapInfo map;

  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 13,
          11));
  ours = gst_buffer_new_allocate (allocator, info.size, NULL);
  system = gst_buffer_new_allocate (NULL, info.size, &page);
  fail_unless_equals_string (upload_way (ours, &info, TRUE), "device-memory");
  fail_unless_equals_string (upload_way (system, &info, TRUE),
      unified ? "wrapped-host" : "copied-host");
  fail_unless_equals_string (upload_way (ours, &info, FALSE), "copied-host");
  fail_unless_equals_string (upload_way (system, &info, FALSE),
      "copied-host");
  fail_unless (gst_buffer_map (ours, &map, GST_MAP_READ));
  fail_unless_equals_string (upload_way (ours, &info, TRUE),
      unified ? "device-memory" : "copied-host");
  gst_buffer_unmap (ours, &map);
  gst_buffer_unref (ours);
  gst_buffer_unref (system);
}

GST_END_TEST;

/* From now on, the calls of libgstcl-1.0 (the memory's own) that `spec`
 * names fail, as CLF_TEST_FAIL_CALL says (tests/layer/); NULL: none. */
static void
fail_gstcl_calls (const gchar * spec)
{
  if (!spec) {
    g_unsetenv ("CLF_TEST_FAIL_CALL");
    g_unsetenv ("CLF_TEST_FAIL_CALLER");
    return;
  }
  g_setenv ("CLF_TEST_FAIL_CALLER", "libgstcl-1.0", TRUE);
  g_setenv ("CLF_TEST_FAIL_CALL", spec, TRUE);
}

/* A 37x23 gray plane at byte 8 of the memory, rows 40 bytes apart: the
 * CPU writes it through a map (the calls `upload_fault` names failing at
 * the unmap), the device sharpens it into a second memory, and a map of
 * that shows the reference's bytes. */
static void
map_write_kernel_map_read (const gchar * upload_fault)
{
  const ClfFrameFormat format = clf_ref_byte_plane (37, 23, 1, 1, 1);
  const ClfParams params = { CLF_MODE_LAPLACE, 0, CLF_BORDER_MIRROR };
  const gsize offset = 8, stride = 40, size = offset + stride * 23;
  GstMemory *in = gst_allocator_alloc (allocator, size, NULL);
  GstMemory *out = gst_allocator_alloc (allocator, size, NULL);
  guint8 *written = g_malloc (size), *want = g_malloc (size);
  ClfFrame src = { {0} }, dst = { {0} };
  ClfFrameStats stats;
  GError *err = NULL;
  ClfPlan *plan;
  GstMapInfo map;
  gsize mem_offset;

  fail_unless (gst_is_cl_memory (in) && gst_is_cl_memory (out));
  fail_unless (gst_memory_map (in, &map, GST_MAP_WRITE));
  fail_unless (gst_cl_memory_is_mapped (in));
  fill_random (map.data, size);
  memcpy (written, map.data, size);
  fail_gstcl_calls (upload_fault);
  gst_memory_unmap (in, &map);
  fail_gstcl_calls (NULL);
  fail_if (gst_cl_memory_is_mapped (in));

  src.mem[0] = gst_cl_memory_get_buffer (in, &mem_offset);
  src.offset[0] = mem_offset + offset;
  src.stride[0] = stride;
  dst.mem[0] = gst_cl_memory_get_buffer (out, &mem_offset);
  dst.offset[0] = mem_offset + offset;
  dst.stride[0] = stride;
  plan = clf_plan_new (engine, &format, &err);
  fail_unless (plan != NULL, "%s", err->message);
  fail_unless (clf_plan_finish (plan, enqueue_with_readiness (plan, &params,
              &src, &dst, in, out), &stats, &err), "%s", err->message);
  fail_unless_equals_int (stats.copies, 0);

  clf_ref_filter_frame (&params, &format, &(ClfHostFrame) { {
          written + offset}, {stride}}, &(ClfHostFrame) { {
          want + offset}, {stride}});
  fail_unless (gst_memory_map (out, &map, GST_MAP_READ));
  for (guint y = 0; y < 23; y++)
    fail_unless (memcmp (map.data + offset + y * stride,
            want + offset + y * stride, 37) == 0, "row %u differs", y);
  gst_memory_unmap (out, &map);
  /* The input still holds what the CPU wrote. */
  fail_unless (gst_memory_map (in, &map, GST_MAP_READ));
  fail_unless (memcmp (map.data, written, size) == 0);
  gst_memory_unmap (in, &map);

  clf_plan_free (plan);
  g_free (written);
  g_free (want);
  gst_memory_unref (in);
  gst_memory_unref (out);
}

GST_START_TEST (test_map_write_kernel_map_read)
{
  map_write_kernel_map_read (NULL);
}

GST_END_TEST;

/* ---- transfers that fail (staged memory) ------------------------------ */

/* The upload of the CPU's write fails at the unmap: the kernel's wait
 * list uploads it again first, and the kernel filters the CPU's bytes.
 * (Seen failing with the failure only logged: the kernel read the device
 * buffer's older bytes.) */
GST_START_TEST (test_failed_upload_retried)
{
  map_write_kernel_map_read ("clEnqueueWriteBuffer:1");
}

GST_END_TEST;

/* The flush after the upload fails: the upload is enqueued all the same,
 * and the kernel waits for it. */
GST_START_TEST (test_failed_flush_after_upload)
{
  map_write_kernel_map_read ("clFlush:1");
}

GST_END_TEST;

/* The device's bytes of `mem` (its buffer, not the CPU's copy) from
 * `offset` in the buffer, read behind its readiness. */
static void
read_device (GstMemory * mem, gsize offset, guint8 * data, gsize size)
{
  cl_event wait[GST_CL_MEMORY_MAX_WAIT];
  GError *err = NULL;
  cl_mem buffer = gst_cl_memory_get_buffer (mem, NULL);
  guint n;

  fail_unless (gst_cl_memory_device_wait_list (mem, GST_MAP_READ, wait, &n,
          &err), "%s", err ? err->message : "");
  fail_unless_equals_int (clEnqueueReadBuffer (clf_engine_queue (engine),
          buffer, CL_TRUE, offset, size, data, n, n ? wait : NULL, NULL),
      CL_SUCCESS);
  for (guint i = 0; i < n; i++)
    clReleaseEvent (wait[i]);
}

/* A CPU map for reading of `mem` shows `want`. */
static void
check_mapped (GstMemory * mem, const guint8 * want, gsize size)
{
  GstMapInfo map;

  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  fail_unless (memcmp (map.data, want, size) == 0);
  gst_memory_unmap (mem, &map);
}

/* The device's bytes of `mem` are `want`; `lacks` says what it lacks
 * otherwise. */
static void
check_on_device (GstMemory * mem, const guint8 * want, gsize size,
    const gchar * lacks)
{
  guint8 *device = g_malloc (size);

  read_device (mem, 0, device, size);
  fail_unless (memcmp (device, want, size) == 0, "the device lacks %s",
      lacks);
  g_free (device);
}

/* The device access failed as the CPU's write could not be uploaded: the
 * error names the call and the CL error, and says what to do. */
static void
check_upload_error (GError * err)
{
  fail_unless (g_error_matches (err, CLF_ERROR, CLF_ERROR_OPENCL), "%s",
      err ? err->message : "no error");
  fail_unless (strstr (err->message, "clEnqueueWriteBuffer") != NULL
      && strstr (err->message, "CL_OUT_OF_RESOURCES") != NULL, "%s",
      err->message);
  fail_unless (clf_error_get_detail (err) != NULL
      && strstr (clf_error_get_detail (err), "frames-in-flight") != NULL,
      "no hint: %s", clf_error_get_detail (err));
}

/* The upload fails at the unmap and again at each device access: every
 * access (read, write, a promised write) fails with the error, and no
 * events; the CPU still sees its own bytes.  Once the fault is gone, the
 * next access uploads them. */
GST_START_TEST (test_failed_upload_fails_device_access)
{
  const gsize size = 1013;
  GstMemory *mem = gst_allocator_alloc (allocator, size, NULL);
  guint8 *written = g_malloc (size);
  const GstMapFlags access[] = { GST_MAP_READ, GST_MAP_WRITE };
  cl_event wait[GST_CL_MEMORY_MAX_WAIT];
  GError *err = NULL;
  GstMapInfo map;
  guint64 ticket;
  guint n;

  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  fill_random (map.data, size);
  memcpy (written, map.data, size);
  fail_gstcl_calls ("clEnqueueWriteBuffer:1+");
  gst_memory_unmap (mem, &map);
  for (guint i = 0; i < G_N_ELEMENTS (access); i++) {
    n = 99;
    fail_if (gst_cl_memory_device_wait_list (mem, access[i], wait, &n,
            &err), "a device access to bytes that never reached the device");
    fail_unless_equals_int (n, 0);
    check_upload_error (err);
    g_clear_error (&err);
  }
  ticket = gst_cl_memory_promise_write (mem);
  fail_if (gst_cl_memory_promised_wait_list (mem, ticket, wait, &n, &err));
  check_upload_error (err);
  g_clear_error (&err);
  gst_cl_memory_keep_promise (mem, ticket, NULL);

  check_mapped (mem, written, size);
  fail_gstcl_calls (NULL);
  check_on_device (mem, written, size, "the CPU's write once the upload "
      "works");

  g_free (written);
  gst_memory_unref (mem);
}

GST_END_TEST;

/* A device write of random bytes into `mem` (the test's own, recorded as
 * the memory's writer); the bytes in `data`. */
static void
device_writes (GstMemory * mem, guint8 * data, gsize size)
{
  cl_event wait[GST_CL_MEMORY_MAX_WAIT], done;
  GError *err = NULL;
  gsize offset;
  cl_mem buffer = gst_cl_memory_get_buffer (mem, &offset);
  guint n;

  fill_random (data, size);
  fail_unless (gst_cl_memory_device_wait_list (mem, GST_MAP_WRITE, wait, &n,
          &err), "%s", err ? err->message : "");
  fail_unless_equals_int (clEnqueueWriteBuffer (clf_engine_queue (engine),
          buffer, CL_TRUE, offset, size, data, n, n ? wait : NULL, &done),
      CL_SUCCESS);
  gst_cl_memory_device_done (mem, GST_MAP_WRITE, done);
  clReleaseEvent (done);
  for (guint i = 0; i < n; i++)
    clReleaseEvent (wait[i]);
}

/* Reads of `mem` fail: on the device, naming the failed write's call,
 * with no events; on the CPU, for reading and for reading and writing. */
static void
check_reads_fail (GstMemory * mem, const gchar * when)
{
  cl_event wait[GST_CL_MEMORY_MAX_WAIT];
  GError *err = NULL;
  GstMapInfo map;
  guint n = 99;

  fail_if (gst_cl_memory_device_wait_list (mem, GST_MAP_READ, wait, &n,
          &err), "%s: a device read of bytes never written", when);
  fail_unless_equals_int (n, 0);
  fail_unless (g_error_matches (err, CLF_ERROR, CLF_ERROR_OPENCL), "%s: %s",
      when, err ? err->message : "no error");
  fail_unless (strstr (err->message, "clEnqueueNDRangeKernel") != NULL
      && strstr (err->message, "CL_OUT_OF_RESOURCES") != NULL, "%s: %s",
      when, err->message);
  g_clear_error (&err);
  fail_if (gst_memory_map (mem, &map, GST_MAP_READ), "%s: a CPU map for "
      "reading of bytes never written", when);
  fail_if (gst_memory_map (mem, &map, GST_MAP_READWRITE), "%s: a CPU map "
      "for reading and writing of bytes never written", when);
}

/* The device write promised on a memory fails (the promise is broken):
 * every read of the memory fails, device and CPU, also after a later
 * promise is withdrawn, until it is written again: by a device write,
 * then by a CPU map for writing only, each of which goes ahead.  (Without
 * the mark, a downstream clfilter filtered the memory's older bytes.) */
GST_START_TEST (test_broken_promise_fails_reads)
{
  const gsize size = 1531;
  GstMemory *mem = gst_allocator_alloc (allocator, size, NULL);
  guint8 *written = g_malloc (size);
  cl_event wait[GST_CL_MEMORY_MAX_WAIT];
  GError *failure = NULL, *err = NULL;
  GstMapInfo map;
  guint64 ticket;
  guint n;

  g_set_error (&failure, CLF_ERROR, CLF_ERROR_OPENCL,
      "clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES (-5)");
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  fill_random (map.data, size);
  gst_memory_unmap (mem, &map);

  ticket = gst_cl_memory_promise_write (mem);
  fail_unless (gst_cl_memory_promised_wait_list (mem, ticket, wait, &n,
          &err), "%s", err ? err->message : "");
  for (guint i = 0; i < n; i++)
    clReleaseEvent (wait[i]);
  gst_cl_memory_break_promise (mem, ticket, failure);
  check_reads_fail (mem, "broken");
  ticket = gst_cl_memory_promise_write (mem);
  gst_cl_memory_keep_promise (mem, ticket, NULL);
  check_reads_fail (mem, "broken, then withdrawn");

  /* A device write makes the bytes anew. */
  device_writes (mem, written, size);
  check_mapped (mem, written, size);

  /* So does a CPU write. */
  ticket = gst_cl_memory_promise_write (mem);
  gst_cl_memory_break_promise (mem, ticket, failure);
  check_reads_fail (mem, "broken again");
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE), "a CPU map for "
      "writing only of bytes never written");
  fill_random (map.data, size);
  memcpy (written, map.data, size);
  gst_memory_unmap (mem, &map);
  check_mapped (mem, written, size);
  check_on_device (mem, written, size, "the CPU's write");

  g_error_free (failure);
  g_free (written);
  gst_memory_unref (mem);
}

GST_END_TEST;

/* The download of what the device wrote fails: at a map (which fails),
 * or at a prefetch (which says nothing); the next map downloads, and shows
 * the device's bytes. */
GST_START_TEST (test_failed_download_retried)
{
  const gboolean prefetch = __i__ == 1;
  const gsize size = 2011;
  GstMemory *mem = gst_allocator_alloc (allocator, size, NULL);
  guint8 *written = g_malloc (size);
  GstMapInfo map;

  device_writes (mem, written, size);
  fail_gstcl_calls ("clEnqueueReadBuffer:1");
  if (prefetch)
    gst_cl_memory_prefetch (mem);
  else
    fail_if (gst_memory_map (mem, &map, GST_MAP_READ), "a map without the "
        "device's bytes");
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  fail_gstcl_calls (NULL);
  fail_unless (memcmp (map.data, written, size) == 0, "the map does not "
      "show what the device wrote");
  gst_memory_unmap (mem, &map);
  g_free (written);
  gst_memory_unref (mem);
}

GST_END_TEST;

/* The device's zeros of a zeroed prefix and padding fail to be filled:
 * the allocation fails.  The next one (of the same buffer, kept spare)
 * has them zeroed on the device and for the CPU, though the buffer held
 * random bytes there. */
GST_START_TEST (test_failed_zero_fill)
{
  GstAllocationParams params;
  GstMemory *mem;
  guint8 *device;
  GstMapInfo map;
  gsize maxsize;

  gst_allocation_params_init (&params);
  params.prefix = 67;
  params.padding = 35;
  mem = gst_allocator_alloc (allocator, 101, &params);
  gst_memory_get_sizes (mem, NULL, &maxsize);
  device = g_malloc (maxsize);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  fill_random (map.data - params.prefix, maxsize);
  gst_memory_unmap (mem, &map);
  gst_memory_unref (mem);

  params.flags = GST_MEMORY_FLAG_ZERO_PREFIXED | GST_MEMORY_FLAG_ZERO_PADDED;
  fail_gstcl_calls ("clEnqueueFillBuffer:1");
  fail_unless (gst_allocator_alloc (allocator, 101, &params) == NULL,
      "allocated without the zeros it asked for");
  mem = gst_allocator_alloc (allocator, 101, &params);
  fail_gstcl_calls (NULL);
  fail_unless (mem != NULL);
  read_device (mem, 0, device, maxsize);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  for (gsize i = 0; i < params.prefix; i++)
    fail_unless (device[i] == 0 && map.data[(gssize) i - 67] == 0,
        "prefix byte %" G_GSIZE_FORMAT " not zeroed", i);
  for (gsize i = params.prefix + 101; i < maxsize; i++)
    fail_unless (device[i] == 0 && map.data[i - params.prefix] == 0,
        "padding byte %" G_GSIZE_FORMAT " not zeroed", i);
  gst_memory_unmap (mem, &map);
  gst_memory_unref (mem);
  g_free (device);
}

GST_END_TEST;

/* The mapping of a new buffer fails: the allocation fails, and the next
 * works.  Unmappings of freed buffers fail: they are still released. */
GST_START_TEST (test_failed_map_and_unmap_of_buffers)
{
  GstMemory *mem, *many[12];
  GstMapInfo map;

  fail_gstcl_calls ("clEnqueueMapBuffer:1");
  fail_unless (gst_allocator_alloc (allocator, 3001, NULL) == NULL);
  mem = gst_allocator_alloc (allocator, 3001, NULL);
  fail_gstcl_calls (NULL);
  fail_unless (mem != NULL);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  memset (map.data, 0x3c, 3001);
  gst_memory_unmap (mem, &map);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  fail_unless_equals_int (map.data[3000], 0x3c);
  gst_memory_unmap (mem, &map);
  gst_memory_unref (mem);

  /* More than the spares kept: some are released at once. */
  for (guint i = 0; i < G_N_ELEMENTS (many); i++)
    many[i] = gst_allocator_alloc (allocator, 2999, NULL);
  fail_gstcl_calls ("clEnqueueUnmapMemObject:1+");
  for (guint i = 0; i < G_N_ELEMENTS (many); i++)
    gst_memory_unref (many[i]);
  fail_gstcl_calls (NULL);
}

GST_END_TEST;

/* Nested maps share one mapping, and cannot widen its access. */
GST_START_TEST (test_nested_maps)
{
  GstMemory *mem = gst_allocator_alloc (allocator, 4096, NULL);
  GstMapInfo outer, inner, write;

  fail_unless (gst_memory_map (mem, &outer, GST_MAP_READWRITE));
  fail_unless (gst_memory_map (mem, &inner, GST_MAP_READ));
  fail_unless (inner.data == outer.data);
  memset (outer.data, 0x5a, 4096);
  fail_unless_equals_int (inner.data[4095], 0x5a);
  gst_memory_unmap (mem, &inner);
  fail_unless (gst_cl_memory_is_mapped (mem));
  gst_memory_unmap (mem, &outer);
  fail_if (gst_cl_memory_is_mapped (mem));

  fail_unless (gst_memory_map (mem, &outer, GST_MAP_READ));
  fail_if (gst_memory_map (mem, &write, GST_MAP_WRITE),
      "a write map nested in a read map");
  fail_unless_equals_int (outer.data[17], 0x5a);
  gst_memory_unmap (mem, &outer);
  fail_if (gst_cl_memory_is_mapped (mem));
  gst_memory_unref (mem);
}

GST_END_TEST;

/* A shared sub-memory is a window on the same OpenCL buffer and maps
 * through its parent. */
GST_START_TEST (test_shared_memory)
{
  GstMemory *mem = gst_allocator_alloc (allocator, 1000, NULL);
  GstMemory *sub = gst_memory_share (mem, 100, 50);
  GstMapInfo parent_map, sub_map;
  gsize parent_offset, sub_offset;

  fail_unless (gst_is_cl_memory (sub));
  fail_unless_equals_int (gst_memory_get_sizes (sub, NULL, NULL), 50);
  fail_unless (gst_cl_memory_get_buffer (sub, &sub_offset) ==
      gst_cl_memory_get_buffer (mem, &parent_offset));
  fail_unless_equals_int (sub_offset, parent_offset + 100);

  fail_unless (gst_memory_map (mem, &parent_map, GST_MAP_READWRITE));
  parent_map.data[100] = 42;
  fail_unless (gst_memory_map (sub, &sub_map, GST_MAP_READ));
  fail_unless (sub_map.data == parent_map.data + 100);
  fail_unless_equals_int (sub_map.data[0], 42);
  gst_memory_unmap (sub, &sub_map);
  gst_memory_unmap (mem, &parent_map);
  fail_if (gst_cl_memory_is_mapped (sub));

  gst_memory_unref (sub);
  gst_memory_unref (mem);
}

GST_END_TEST;

/* Allocation parameters: prefix and padding, zeroed when asked. */
GST_START_TEST (test_zeroed_prefix_and_padding)
{
  GstAllocationParams params;
  GstMemory *mem;
  GstMapInfo map;
  gsize offset, maxsize;

  gst_allocation_params_init (&params);
  params.prefix = 64;
  params.padding = 32;
  params.flags = GST_MEMORY_FLAG_ZERO_PREFIXED | GST_MEMORY_FLAG_ZERO_PADDED;
  mem = gst_allocator_alloc (allocator, 100, &params);
  fail_unless_equals_int (gst_memory_get_sizes (mem, &offset, &maxsize), 100);
  fail_unless_equals_int (offset, 64);
  fail_unless_equals_int (maxsize, 196);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  for (gint i = -64; i < 0; i++)
    fail_unless_equals_int (map.data[i], 0);
  for (gsize i = 100; i < 132; i++)
    fail_unless_equals_int (map.data[i], 0);
  gst_memory_unmap (mem, &map);
  gst_memory_unref (mem);
}

GST_END_TEST;

/* A freed buffer is kept for the next allocation of its size (decoders
 * copy every frame they still reference), up to a bound. */
GST_START_TEST (test_freed_buffers_reused)
{
  GstMemory *mem = gst_allocator_alloc (allocator, 5000, NULL);
  cl_mem buffer = gst_cl_memory_get_buffer (mem, NULL);
  GstMemory *many[20];

  gst_memory_unref (mem);
  mem = gst_allocator_alloc (allocator, 5000, NULL);
  fail_unless (gst_cl_memory_get_buffer (mem, NULL) == buffer);
  gst_memory_unref (mem);
  mem = gst_allocator_alloc (allocator, 6000, NULL);
  fail_if (gst_cl_memory_get_buffer (mem, NULL) == buffer, "a buffer of "
      "another size was reused");
  gst_memory_unref (mem);

  /* Freeing many at once keeps a bounded number; the rest are released
   * (the leaks tracer and valgrind check that). */
  for (guint i = 0; i < G_N_ELEMENTS (many); i++)
    many[i] = gst_allocator_alloc (allocator, 7000, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (many); i++)
    gst_memory_unref (many[i]);
}

GST_END_TEST;

static GstBufferPool *
configured_pool (const gchar * caps_string, gboolean meta,
    const GstVideoAlignment * align)
{
  GstBufferPool *pool = gst_cl_buffer_pool_new (engine);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_caps_from_string (caps_string);
  GstVideoInfo info;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_buffer_pool_config_set_params (config, caps, info.size, 2, 4);
  if (meta)
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (align) {
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
    gst_buffer_pool_config_set_video_alignment (config, align);
  }
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_caps_unref (caps);
  return pool;
}

/* What a decoder asks for: padding around the frame and aligned strides;
 * the buffer's meta says where each plane is, as gst_video_info_align
 * lays them out. */
GST_START_TEST (test_pool_video_alignment)
{
  const gchar *caps = "video/x-raw,format=I420,width=13,height=11";
  GstVideoAlignment align, adjusted;
  GstVideoInfo want;
  GstCaps *c = gst_caps_from_string (caps);
  GstBufferPool *pool;
  GstBuffer *buf = NULL;
  GstVideoMeta *meta;

  fail_unless (gst_buffer_pool_has_option (pool =
          gst_cl_buffer_pool_new (engine), GST_BUFFER_POOL_OPTION_VIDEO_META));
  fail_unless (gst_buffer_pool_has_option (pool,
          GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT));
  gst_object_unref (pool);

  gst_video_alignment_reset (&align);
  align.padding_top = 2;
  align.padding_left = 32;
  align.padding_right = 3;
  align.padding_bottom = 5;
  align.stride_align[0] = 63;
  align.stride_align[1] = align.stride_align[2] = 31;
  fail_unless (gst_video_info_from_caps (&want, c));
  /* Aligning may widen the padding; the pool must do the same. */
  adjusted = align;
  fail_unless (gst_video_info_align (&want, &adjusted));
  pool = configured_pool (caps, TRUE, &align);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_is_cl_memory (gst_buffer_peek_memory (buf, 0)));
  fail_unless (gst_buffer_get_size (buf) >= want.size);
  meta = gst_buffer_get_video_meta (buf);
  fail_unless (meta != NULL);
  for (guint i = 0; i < 3; i++) {
    fail_unless_equals_int (meta->stride[i], want.stride[i]);
    fail_unless_equals_uint64 (meta->offset[i], want.offset[i]);
    fail_unless_equals_int (meta->stride[i] % (i ? 32 : 64), 0);
  }
  fail_unless_equals_int (meta->alignment.padding_left,
      adjusted.padding_left);
  fail_unless_equals_int (meta->alignment.padding_bottom,
      adjusted.padding_bottom);
  gst_buffer_unref (buf);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);

  /* Without the meta option: plain layout, no meta. */
  pool = configured_pool (caps, FALSE, NULL);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_buffer_get_video_meta (buf) == NULL);
  gst_buffer_unref (buf);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (c);
}

GST_END_TEST;

/* Buffers go back to the pool and come out again: 100 acquisitions use
 * only the pool's 2 preallocated buffers. */
GST_START_TEST (test_pool_reuses_buffers)
{
  GstBufferPool *pool = configured_pool
      ("video/x-raw,format=RGBA,width=64,height=48", TRUE, NULL);
  GHashTable *seen = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < 100; i++) {
    GstBuffer *buf = NULL;
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
            NULL), GST_FLOW_OK);
    g_hash_table_add (seen, gst_buffer_peek_memory (buf, 0));
    gst_buffer_unref (buf);
  }
  fail_unless_equals_int (g_hash_table_size (seen), 2);
  g_hash_table_unref (seen);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

GST_END_TEST;

/* ---- readiness -------------------------------------------------------- */

/* A frame big enough that the device is still filtering it when the test
 * maps its memory right after enqueueing it: 3840x2160 RGBA, the sliding
 * blur (one launch, not split: see ClfInterrupt). */
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
  f->params = (ClfParams) { CLF_MODE_SLIDING, 40, CLF_BORDER_MIRROR };
  f->size = (gsize) SLOW_W * SLOW_H * SLOW_BPP;
  f->plan = clf_plan_new (engine, &f->format, &err);
  fail_unless (f->plan != NULL, "%s", err->message);
}

static void
device_plane_of (GstMemory * mem, ClfFrame * frame)
{
  gsize offset;

  frame->mem[0] = gst_cl_memory_get_buffer (mem, &offset);
  frame->offset[0] = offset;
  frame->stride[0] = (gsize) SLOW_W * SLOW_BPP;
}

static void
host_plane_of (guint8 * data, gsize size, ClfFrame * frame)
{
  frame->data[0] = data;
  frame->stride[0] = (gsize) SLOW_W * SLOW_BPP;
  frame->size[0] = size;
}

static void
want_filtered (SlowFrame * f, guint8 * from, guint8 * want)
{
  gsize stride = (gsize) SLOW_W * SLOW_BPP;

  clf_ref_filter_frame (&f->params, &f->format, &(ClfHostFrame) { {
          from}, {stride}}, &(ClfHostFrame) { {
          want}, {stride}});
}

static ClfInFlight *
enqueue_recorded (SlowFrame * f, const ClfFrame * src, const ClfFrame * dst,
    GstMemory * read, GstMemory * written)
{
  return enqueue_with_readiness (f->plan, &f->params, src, dst, read,
      written);
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

/* A device write promised on `out`, enqueued from another thread a
 * moment later: the promised wait list, then the kept promise. */
typedef struct
{
  SlowFrame *f;
  ClfFrame src, dst;
  GstMemory *out;
  guint64 ticket;
  ClfInFlight *frame;
} PromisedWrite;

static gpointer
enqueue_promised_later (gpointer data)
{
  PromisedWrite *w = data;
  cl_event wait[GST_CL_MEMORY_MAX_WAIT];
  GError *err = NULL;
  guint n;

  g_usleep (G_USEC_PER_SEC / 5);
  fail_unless (gst_cl_memory_promised_wait_list (w->out, w->ticket, wait,
          &n, &err), "%s", err ? err->message : "");
  w->frame = clf_plan_enqueue (w->f->plan, &w->f->params, &w->src, &w->dst,
      wait, n, &err);
  for (guint i = 0; i < n; i++)
    clReleaseEvent (wait[i]);
  gst_cl_memory_keep_promise (w->out, w->ticket, w->frame ?
      clf_in_flight_event (w->frame) : NULL);
  g_clear_error (&err);
  return NULL;
}

/* A CPU map of memory whose device write is promised but not yet
 * enqueued waits for the promise, then for the write: it shows the
 * written bytes.  (Seen failing with the map not waiting for promises.) */
GST_START_TEST (test_cpu_map_waits_for_promised_write)
{
  SlowFrame f;
  PromisedWrite w = { &f };
  guint8 *in, *want;
  GstMapInfo map;
  GThread *thread;

  slow_frame_init (&f);
  in = g_malloc (f.size);
  want = g_malloc (f.size);
  fill_random (in, f.size);
  want_filtered (&f, in, want);
  w.out = gst_allocator_alloc (allocator, f.size, NULL);
  fail_unless (gst_memory_map (w.out, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < f.size; i++)
    map.data[i] = ~want[i];
  gst_memory_unmap (w.out, &map);
  host_plane_of (in, f.size, &w.src);
  device_plane_of (w.out, &w.dst);

  w.ticket = gst_cl_memory_promise_write (w.out);
  thread = g_thread_new ("promised", enqueue_promised_later, &w);
  fail_unless (gst_memory_map (w.out, &map, GST_MAP_READ));
  fail_unless (memcmp (map.data, want, f.size) == 0, "a CPU map saw the "
      "frame before its promised write was enqueued and done");
  gst_memory_unmap (w.out, &map);
  g_thread_join (thread);
  fail_unless (w.frame != NULL);
  finish (&f, w.frame);
  gst_memory_unref (w.out);
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
  ClfFrame src = { {0} }, dst = { {0} };
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

  fail_unless_equals_int (clSetUserEventStatus (gate, CL_COMPLETE),
      CL_SUCCESS);
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

/* The glue is one shared library: a program that links it (as this test
 * does) and loads the plugin has each type once, so the plugin's memory is
 * the memory this program knows.  With the glue compiled into both, the
 * plugin registered the types again: g_type_register_static criticals,
 * and the plugin's memory was not GstClMemory here. */
GST_START_TEST (test_plugin_shares_the_glue)
{
  GstElement *pipeline, *sink;
  GstSample *sample;
  GstBuffer *buf;

  fail_unless (gst_cl_engine_get_type () != 0);
  fail_unless (GST_TYPE_CL_BUFFER_POOL != 0);
  pipeline = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! clfilter ! "
      "appsink name=sink", NULL);
  fail_unless (pipeline != NULL, "clfilter did not load");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless_equals_int (gst_element_set_state (pipeline,
          GST_STATE_PLAYING), GST_STATE_CHANGE_ASYNC);
  sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  fail_unless (sample != NULL);
  buf = gst_sample_get_buffer (sample);
  fail_unless (gst_is_cl_memory (gst_buffer_peek_memory (buf, 0)),
      "the plugin's output memory is not this program's GstClMemory");
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static Suite *
clmemory_suite (void)
{
  Suite *s = suite_create ("clmemory");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_map_write_kernel_map_read);
  tcase_add_test (tc, test_nested_maps);
  tcase_add_test (tc, test_shared_memory);
  tcase_add_test (tc, test_zeroed_prefix_and_padding);
  tcase_add_test (tc, test_freed_buffers_reused);
  tcase_add_test (tc, test_pool_video_alignment);
  tcase_add_test (tc, test_pool_reuses_buffers);
  tcase_add_test (tc, test_plugin_shares_the_glue);
  tcase_add_test (tc, test_cpu_map_waits_for_device_write);
  tcase_add_test (tc, test_cpu_map_waits_for_promised_write);
  tcase_add_test (tc, test_cpu_write_waits_for_device_read);
  tcase_add_test (tc, test_upload_ways);
  tcase_add_test (tc, test_failed_map_and_unmap_of_buffers);
  tcase_add_test (tc, test_read_of_unknown_queue);
  tcase_add_test (tc, test_broken_promise_fails_reads);

  /* The staged memory of discrete devices: a pinned staging buffer beside
   * the device's, whose transfers wait for the memory's events (seen
   * failing without the wait list). */
  tc = tcase_create ("discrete");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup_discrete, teardown);
  tcase_add_test (tc, test_map_write_kernel_map_read);
  tcase_add_test (tc, test_nested_maps);
  tcase_add_test (tc, test_shared_memory);
  tcase_add_test (tc, test_zeroed_prefix_and_padding);
  tcase_add_test (tc, test_freed_buffers_reused);
  tcase_add_test (tc, test_cpu_map_waits_for_device_write);
  tcase_add_test (tc, test_cpu_map_waits_for_promised_write);
  tcase_add_test (tc, test_cpu_write_waits_for_device_read);
  tcase_add_test (tc, test_upload_ways);
  tcase_add_test (tc, test_failed_upload_retried);
  tcase_add_test (tc, test_failed_flush_after_upload);
  tcase_add_test (tc, test_failed_upload_fails_device_access);
  tcase_add_loop_test (tc, test_failed_download_retried, 0, 2);
  tcase_add_test (tc, test_failed_zero_fill);
  tcase_add_test (tc, test_failed_map_and_unmap_of_buffers);
  tcase_add_test (tc, test_read_of_unknown_queue);
  tcase_add_test (tc, test_broken_promise_fails_reads);
  return s;
}

GST_CHECK_MAIN (clmemory);
