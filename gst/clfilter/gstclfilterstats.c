/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

/* A frame's statistics: the element's statistics, the clfilter-stats
 * messages (held back while the bus is not read), the metas on the output
 * buffers and the clfilter-summary at EOS. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfilter-private.h"
#include "gstclfiltermeta-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cl_filter_debug);
#define GST_CAT_DEFAULT gst_cl_filter_debug

/* clfilter-stats messages a bus may hold unread (about 1 KB each): an
 * application that never reads its bus must not grow without end. */
#define MAX_UNREAD_STATS 4096

/* Adds the frame to the statistics; TRUE when its message is due. */
static gboolean
gst_cl_filter_record_frame (GstClFilter * self, const ClfFrameStats * stats,
    guint64 * frame)
{
  gboolean post;

  GST_OBJECT_LOCK (self);
  *frame = self->frames++;
  self->last_kernel_ns = stats->kernel_ns;
  clf_time_stats_add (self->kernel_times, stats->kernel_ns);
  post = self->stats_interval && *frame % self->stats_interval == 0;
  GST_OBJECT_UNLOCK (self);
  return post;
}

static void
gst_cl_filter_stats_message_freed (gpointer data, GstMiniObject * message)
{
  GstClFilter *self = data;     /* alive: the message holds it */

  g_atomic_int_add (&self->unread_stats, -1);
}

/* Whether another clfilter-stats fits on the bus: not while
 * MAX_UNREAD_STATS are unread.  Holding them back is said once, with what
 * to do; posting resumes as soon as the bus is read. */
static gboolean
gst_cl_filter_bus_has_room (GstClFilter * self)
{
  if (g_atomic_int_get (&self->unread_stats) < MAX_UNREAD_STATS) {
    if (self->stats_held)
      GST_INFO_OBJECT (self, "the bus is being read: posting clfilter-stats "
          "again");
    self->stats_held = FALSE;
    return TRUE;
  }
  if (!self->stats_held)
    GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT,
        ("%d clfilter-stats messages on the bus are unread: no more are "
            "posted until the application reads its bus", MAX_UNREAD_STATS),
        ("Set stats-interval=0 when nothing reads the bus; each frame's "
            "statistics are also in its GstClFilterMeta, in the INFO log "
            "(GST_DEBUG=clfilter:4) and summed up in clfilter-summary"));
  self->stats_held = TRUE;
  return FALSE;
}

/* A frame's statistics, written once for the clfilter-stats message and the
 * stats meta, so that the two always carry the same fields. */
static void
gst_cl_filter_set_stats_fields (GstStructure * s, guint64 frame,
    const ClfParams * params, const ClfFrameStats * stats, gboolean passthrough)
{
  gst_structure_set (s,
      "passthrough", G_TYPE_BOOLEAN, passthrough,
      "frame", G_TYPE_UINT64, frame,
      "mode", G_TYPE_STRING, clf_mode_name (params->mode),
      "radius", G_TYPE_UINT, params->radius,
      "border", G_TYPE_STRING, clf_border_name (params->border),
      "kernel-ns", G_TYPE_UINT64, stats->kernel_ns,
      "upload-ns", G_TYPE_UINT64, stats->upload_ns,
      "download-ns", G_TYPE_UINT64, stats->download_ns,
      "copies", G_TYPE_UINT, stats->copies,
      "device-copies", G_TYPE_UINT, stats->device_copies, NULL);
}

static void
gst_cl_filter_post_stats (GstClFilter * self, guint64 frame,
    const ClfParams * params, const ClfFrameStats * stats, GstClockTime pts,
    gboolean passthrough)
{
  GstMessage *message;
  GstStructure *s;

  if (!gst_cl_filter_bus_has_room (self))
    return;
  s = gst_structure_new_empty ("clfilter-stats");
  gst_cl_filter_set_stats_fields (s, frame, params, stats, passthrough);
  gst_structure_set (s,
      "device", G_TYPE_STRING, clf_engine_device_name (self->engine),
      "pts", G_TYPE_UINT64, pts, NULL);
  message = gst_message_new_element (GST_OBJECT (self), s);
  g_atomic_int_inc (&self->unread_stats);
  gst_mini_object_weak_ref (GST_MINI_OBJECT (message),
      gst_cl_filter_stats_message_freed, self);
  gst_element_post_message (GST_ELEMENT (self), message);
}

/* The frame's statistics on the output buffer, for applications.  An upstream
 * clfilter's metas were not copied to it (transform_meta): a buffer
 * carries the statistics of the filter that made it. */
static void
gst_cl_filter_add_meta (GstBuffer * outbuf, guint64 frame,
    const ClfParams * params, const ClfFrameStats * stats)
{
  GstClFilterMeta *meta = gst_buffer_add_cl_filter_meta (outbuf);
  GstStructure *s;

  meta->frame = frame;
  meta->mode = clf_mode_name (params->mode);
  meta->radius = params->radius;
  meta->border = clf_border_name (params->border);
  meta->kernel_ns = stats->kernel_ns;
  meta->upload_ns = stats->upload_ns;
  meta->download_ns = stats->download_ns;
  meta->copies = stats->copies;
  meta->device_copies = stats->device_copies;
  /* The same statistics for bindings (Python cannot read the struct above). */
  s = gst_buffer_writable_cl_filter_stats (outbuf);
  if (s)
    gst_cl_filter_set_stats_fields (s, frame, params, stats, FALSE);
}

void
gst_cl_filter_count_frame (GstClFilter * self, const ClfParams * params,
    const ClfFrameStats * stats, GstClockTime pts, GstBuffer * outbuf)
{
  guint64 frame;
  gboolean post = gst_cl_filter_record_frame (self, stats, &frame);

  GST_INFO_OBJECT (self, "frame %" G_GUINT64_FORMAT " %s r=%u: kernel %"
      G_GUINT64_FORMAT " ns, upload %" G_GUINT64_FORMAT " ns, download %"
      G_GUINT64_FORMAT " ns, %u copies", frame, clf_mode_name (params->mode),
      params->radius, stats->kernel_ns, stats->upload_ns, stats->download_ns,
      stats->copies);
  if (post)
    gst_cl_filter_post_stats (self, frame, params, stats, pts, FALSE);
  gst_cl_filter_add_meta (outbuf, frame, params, stats);
}

/* Metas of the input that still hold for the filtered frame are copied to
 * the output, as GstVideoFilter does: those with no tags or only video,
 * size and orientation ones (crop, regions of interest, AFD, bar data).
 * A GstVideoMeta (memory tag) describes the input's layout, and this
 * element's own metas an upstream clfilter's statistics: the output gets its
 * own. */
gboolean
gst_cl_filter_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  static const gchar *const kept_tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR, NULL
  };
  GType api = meta->info->api;
  const gchar *const *tags = gst_meta_api_type_get_tags (api);

  if (api == gst_cl_filter_meta_get_info ()->api
      || gst_cl_filter_stats_meta_api_is (api))
    return FALSE;
  /* gst_meta_api_type_tags_contain_only() is GStreamer 1.24's. */
  for (guint i = 0; tags && tags[i]; i++)
    if (!g_strv_contains (kept_tags, tags[i]))
      return FALSE;
  return TRUE;
}

/* A frame passed through: counted, with no kernel time and no copy, and
 * said in its clfilter-stats (passthrough=true), after the frames still
 * in flight, which go out first.  The buffer is not ours to change, so
 * it carries no meta of this element. */
void
gst_cl_filter_count_passed (GstClFilter * self, const ClfParams * params,
    GstClockTime pts)
{
  ClfFrameStats stats = { 0 };
  guint64 frame;

  if (gst_cl_filter_record_frame (self, &stats, &frame))
    gst_cl_filter_post_stats (self, frame, params, &stats, pts, TRUE);
  GST_INFO_OBJECT (self, "frame %" G_GUINT64_FORMAT " passed through (%s "
      "r=0)", frame, clf_mode_name (params->mode));
}

/* The clfilter-summary message: the kernel times since start (see
 * ClfTimeStats for how the median and p95 stay in bounded memory). */
GstMessage *
gst_cl_filter_summary_message (GstClFilter * self)
{
  ClfTimeStats *times = g_new (ClfTimeStats, 1);
  ClfTimeSummary sum;

  GST_OBJECT_LOCK (self);
  *times = *self->kernel_times;
  GST_OBJECT_UNLOCK (self);
  if (!clf_time_stats_summary (times, &sum))
    GST_WARNING_OBJECT (self, "out of memory for the summary's median");
  g_free (times);
  return gst_message_new_element (GST_OBJECT (self),
      gst_structure_new ("clfilter-summary",
          "frames", G_TYPE_UINT64, sum.frames,
          "mean-kernel-ns", G_TYPE_UINT64, sum.mean_ns,
          "min-kernel-ns", G_TYPE_UINT64, sum.min_ns,
          "median-kernel-ns", G_TYPE_UINT64, sum.median_ns,
          "p95-kernel-ns", G_TYPE_UINT64, sum.p95_ns,
          "max-kernel-ns", G_TYPE_UINT64, sum.max_ns,
          "device", G_TYPE_STRING, clf_engine_device_name (self->engine),
          NULL));
}
