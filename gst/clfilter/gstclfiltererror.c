/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

/* What went wrong, said on the bus: the engine's errors with the
 * GStreamer domain and code that fit, and buffers whose planes do not fit
 * their memory. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfilter-private.h"

/* Posts the engine's error with the GStreamer domain and code that fit. */
void
gst_cl_filter_post_error (GstClFilter * self, const GError * error)
{
  const gchar *detail = clf_error_get_detail (error);

  if (!detail)
    detail = "";

  switch (error->code) {
    case CLF_ERROR_NOT_FOUND:
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("%s", error->message),
          ("%s", detail));
      break;
    case CLF_ERROR_BUILD:
      GST_ELEMENT_ERROR (self, LIBRARY, INIT, ("%s", error->message),
          ("Build log:\n%s", detail));
      break;
    case CLF_ERROR_INVALID:
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", error->message),
          ("%s", detail));
      break;
    case CLF_ERROR_FRAME:
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", error->message),
          ("%s", detail));
      break;
    case CLF_ERROR_SYSTEM:
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("%s", error->message),
          ("%s", detail));
      break;
    default:
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("OpenCL error on %s: %s", self->device_name, error->message),
          ("%s", detail));
      break;
  }
}

/* The planes a buffer's GstVideoMeta gives, and the buffer's size, for an
 * error about them. */
static gchar *
describe_buffer_layout (GstBuffer * buffer)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "a buffer of %" G_GSIZE_FORMAT " bytes in %u "
      "memories", gst_buffer_get_size (buffer), gst_buffer_n_memory (buffer));
  if (!meta)
    return g_string_free (g_string_append (text, ", with the caps' layout"),
        FALSE);
  g_string_append (text, "; its GstVideoMeta gives");
  for (guint i = 0; i < meta->n_planes; i++)
    g_string_append_printf (text, "%s plane %u offset %" G_GSIZE_FORMAT
        " stride %d", i ? "," : "", i, meta->offset[i], meta->stride[i]);
  return g_string_free (text, FALSE);
}

/* A buffer whose planes do not fit its memory: a STREAM error naming the
 * neighbour that made it, instead of reading or writing outside it. */
void
gst_cl_filter_post_bad_buffer (GstClFilter * self, GstBuffer * buffer,
    gboolean input, const GError * error)
{
  gchar *layout = describe_buffer_layout (buffer);

  if (input)
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Invalid input buffer: %s", error->message),
        ("Upstream sent %s. The element before clfilter (or its buffer "
            "pool) describes planes that do not lie inside the buffer; "
            "that element needs fixing", layout));
  else
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Invalid output buffer: %s", error->message),
        ("The buffer pool downstream gave %s. Its buffers are smaller than "
            "their GstVideoMeta says; with zero-copy=true (the default) "
            "clfilter uses its own pool instead", layout));
  g_free (layout);
}
