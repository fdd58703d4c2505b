/* GStreamer
 * gst-clfilter: one OpenCL engine shared by the elements of a pipeline.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
#pragma once

#include <gst/gst.h>

#include "clf.h"

G_BEGIN_DECLS

/* The GstContext type that carries an engine.  Its structure holds
 * "engine" (GST_TYPE_CL_ENGINE) and "device" (the device's name). */
#define GST_CL_CONTEXT_TYPE "gst.clfilter.engine"

#define GST_TYPE_CL_ENGINE (gst_cl_engine_get_type ())
GType gst_cl_engine_get_type (void);

GstContext *gst_cl_context_new (ClfEngine * engine);
/* The context's engine (a new reference), or NULL when `context` is of
 * another type. */
ClfEngine *gst_cl_context_get_engine (GstContext * context);

/* Where an element finds the engine it shares (after
 * gst_cuda_ensure_element_context): one already set on it, else one a
 * neighbour answers GST_QUERY_CONTEXT with (downstream first), else one
 * the application or a bin gives for need-context; else it opens its own
 * for `device_spec` and announces it with have-context.  `*engine` may be
 * set by set_context() meanwhile, so it is read under the object lock. */
gboolean gst_cl_ensure_engine (GstElement * element, const gchar * device_spec,
    ClfEngine ** engine, GError ** error);

/* For set_context(): takes the context's engine when the element has none
 * and the engine runs on the device `device_spec` selects. */
void gst_cl_take_context (GstElement * element, GstContext * context,
    const gchar * device_spec, ClfEngine ** engine);

/* For query(): answers GST_QUERY_CONTEXT with `engine`.  TRUE if answered. */
gboolean gst_cl_answer_context_query (GstElement * element, GstQuery * query,
    ClfEngine * engine);

G_END_DECLS
