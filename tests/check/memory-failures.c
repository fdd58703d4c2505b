/* GStreamer
 * The memory suite (memory.c): transfers that fail (libgstcl-1.0's
 * calls, through the test layer): uploads and downloads retried or
 * failing every later access with an error, a zero fill, a buffer's
 * mapping and unmapping.
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
  fail_unless (memcmp (device, want, size) == 0, "the device lacks %s", lacks);
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
 * access (read, write) fails with the error, and no
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

void
memory_failures_add_tests (TCase * general, TCase * discrete)
{
  tcase_add_test (general, test_failed_map_and_unmap_of_buffers);

  /* Staged memory only: transfers between its two buffers. */
  tcase_add_test (discrete, test_failed_upload_retried);
  tcase_add_test (discrete, test_failed_flush_after_upload);
  tcase_add_test (discrete, test_failed_upload_fails_device_access);
  tcase_add_loop_test (discrete, test_failed_download_retried, 0, 2);
  tcase_add_test (discrete, test_failed_zero_fill);
  tcase_add_test (discrete, test_failed_map_and_unmap_of_buffers);
}
