/* GStreamer
 * gst-check tests of clfilter's OpenCL memory and buffer pool, without the
 * element, the meson test `memory`: CPU writes through a map reach the
 * device, device writes reach a later map, nested and shared maps, zeroed
 * edges, the ways in, and the pool's video meta and alignment options
 * (here); transfers that fail (memory-failures.c); readiness, the waits
 * between the CPU and the device (memory-readiness.c).  This file makes
 * the suite and holds what its files share (memory.h).
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

ClfEngine *engine;
GstAllocator *allocator;

void
fill_random (guint8 * data, gsize size)
{
  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) g_random_int ();
}

ClfInFlight *
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
    gst_cl_memory_device_done (read, GST_MAP_READ, clf_in_flight_event (frame));
  if (written)
    gst_cl_memory_device_done (written, GST_MAP_WRITE,
        clf_in_flight_event (frame));
  return frame;
}

void
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

void
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

  /* *INDENT-OFF* */
  clf_ref_filter_frame (&params, &format, &(ClfHostFrame) { {
          written + offset}, {stride}}, &(ClfHostFrame) { {
          want + offset}, {stride}});
  /* *INDENT-ON* */
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

/* The way (gst/cl/gstcldeviceframe.h) an RGBA frame in `buf` reaches the device
 * to be read. */
static const gchar *
upload_way (GstBuffer * buf, const GstVideoInfo * info, gboolean zero_copy)
{
  const ClfFrameFormat format = clf_ref_byte_plane (GST_VIDEO_INFO_WIDTH
      (info), GST_VIDEO_INFO_HEIGHT (info), 4, 0x7, 0x7);
  GstClDeviceFrame upload;
  GError *err = NULL;
  const gchar *way;

  fail_unless (gst_cl_device_frame_open (&upload, engine, &format, buf, info,
          GST_MAP_READ, zero_copy, NULL, &err), "%s", err ? err->message :
      "the buffer could not be mapped");
  way = upload.method;
  gst_cl_device_frame_close (&upload);
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
  fail_unless_equals_string (upload_way (system, &info, FALSE), "copied-host");
  fail_unless (gst_buffer_map (ours, &map, GST_MAP_READ));
  fail_unless_equals_string (upload_way (ours, &info, TRUE),
      unified ? "device-memory" : "copied-host");
  gst_buffer_unmap (ours, &map);
  gst_buffer_unref (ours);
  gst_buffer_unref (system);
}

GST_END_TEST;

GST_START_TEST (test_map_write_kernel_map_read)
{
  map_write_kernel_map_read (NULL);
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
  fail_unless_equals_int (meta->alignment.padding_left, adjusted.padding_left);
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
memory_suite (void)
{
  Suite *s = suite_create ("clmemory");
  TCase *tc = tcase_create ("general");
  TCase *discrete;

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
  tcase_add_test (tc, test_upload_ways);

  /* The staged memory of discrete devices: a pinned staging buffer beside
   * the device's, whose transfers wait for the memory's events (seen
   * failing without the wait list). */
  discrete = tcase_create ("discrete");
  suite_add_tcase (s, discrete);
  tcase_add_checked_fixture (discrete, setup_discrete, teardown);
  tcase_add_test (discrete, test_map_write_kernel_map_read);
  tcase_add_test (discrete, test_nested_maps);
  tcase_add_test (discrete, test_shared_memory);
  tcase_add_test (discrete, test_zeroed_prefix_and_padding);
  tcase_add_test (discrete, test_freed_buffers_reused);
  tcase_add_test (discrete, test_upload_ways);

  memory_readiness_add_tests (tc, discrete);
  memory_failures_add_tests (tc, discrete);
  return s;
}

GST_CHECK_MAIN (memory);
