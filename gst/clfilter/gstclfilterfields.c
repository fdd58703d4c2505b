/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

/* Interlaced video: each plane filtered as its two fields apart. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclfilter-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cl_filter_debug);
#define GST_CAT_DEFAULT gst_cl_filter_debug

/* Interlaced frames are filtered field by field, never across fields: the
 * engine takes each plane as two planes, the top field's rows (0, 2, 4...)
 * and the bottom field's (1, 3, ...), each every other row.  A plane of
 * one row has no bottom field. */
static guint
field_rows (const ClfFrameFormat * format, guint plane, guint field)
{
  guint rows = clf_frame_format_rows (format, plane);

  return field ? rows / 2 : (rows + 1) / 2;
}

void
gst_cl_filter_field_format (const ClfFrameFormat * frame,
    ClfFrameFormat * fields)
{
  memset (fields, 0, sizeof *fields);
  for (guint i = 0; i < frame->n_planes; i++)
    for (guint f = 0; f < 2; f++) {
      guint rows = field_rows (frame, i, f);

      if (!rows)
        continue;
      for (guint c = 0; c < frame->n_components; c++) {
        ClfComponent *field = &fields->components[fields->n_components];

        if (frame->components[c].plane != i)
          continue;
        *field = frame->components[c];
        field->plane = fields->n_planes;
        field->height = rows;
        fields->n_components++;
      }
      fields->n_planes++;
    }
}

/* The fields of `frame` (checked against its memory already) as the
 * planes of gst_cl_filter_field_format(). */
static void
field_frame_from_frame (const ClfFrameFormat * format, const ClfFrame * frame,
    ClfFrame * fields)
{
  guint n = 0;

  memset (fields, 0, sizeof *fields);
  for (guint i = 0; i < format->n_planes; i++)
    for (guint f = 0; f < 2; f++) {
      gsize skip = f * frame->stride[i];

      if (!field_rows (format, i, f))
        continue;
      fields->mem[n] = frame->mem[i];
      fields->offset[n] = frame->mem[i] ? frame->offset[i] + skip : 0;
      fields->data[n] = frame->mem[i] ? NULL : frame->data[i] + skip;
      fields->size[n] = frame->mem[i] ? 0 : frame->size[i] - skip;
      fields->stride[n] = 2 * frame->stride[i];
      n++;
    }
}

/* Whether `buffer` is filtered as two fields. */
static gboolean
gst_cl_filter_buffer_interlaced (GstClFilter * self, GstBuffer * buffer)
{
  switch (GST_VIDEO_INFO_INTERLACE_MODE (&self->in_info)) {
    case GST_VIDEO_INTERLACE_MODE_INTERLEAVED:
      return TRUE;
    case GST_VIDEO_INTERLACE_MODE_MIXED:
      return GST_BUFFER_FLAG_IS_SET (buffer, GST_VIDEO_BUFFER_FLAG_INTERLACED);
    default:
      return FALSE;
  }
}

/* What the plan of an interlaced buffer filters: each plane's two fields
 * apart; else the frames as opened. */
void
gst_cl_filter_plan_frame (GstClFilter * self, GstBuffer * inbuf,
    GstClFlightFrame * f)
{
  if (!gst_cl_filter_buffer_interlaced (self, inbuf)) {
    f->plan = self->plan;
    f->src = f->in.frame;
    f->dst = f->out.frame;
    return;
  }
  f->plan = self->field_plan;
  field_frame_from_frame (&self->format, &f->in.frame, &f->src);
  field_frame_from_frame (&self->format, &f->out.frame, &f->dst);
}
