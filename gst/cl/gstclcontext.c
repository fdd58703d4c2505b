/* GStreamer
 * gst-clfilter: one OpenCL engine shared by the elements of a pipeline.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclcontext.h"

GST_DEBUG_CATEGORY_STATIC (gst_cl_context_debug);
#define GST_CAT_DEFAULT gst_cl_context_debug

static void gst_cl_engine_register_transforms (GType type);

G_DEFINE_BOXED_TYPE_WITH_CODE (ClfEngine, gst_cl_engine, clf_engine_ref,
    clf_engine_unref, GST_DEBUG_CATEGORY_INIT (gst_cl_context_debug,
        "clcontext", 0, "OpenCL engine sharing for clfilter");
    gst_cl_engine_register_transforms (g_define_type_id));

/* "ClfEngine 0x... on <platform / device>": the address tells elements
 * that share one engine from those that have their own, as an object's
 * name does for GstObject-based contexts (GstCudaContext). */
static void
gst_cl_engine_to_string (const GValue * src, GValue * dest)
{
  ClfEngine *engine = g_value_get_boxed (src);

  g_value_take_string (dest, engine ? g_strdup_printf ("ClfEngine %p on %s",
          (gpointer) engine, clf_engine_device_name (engine)) : NULL);
}

/* GStreamer prints a context (gst-launch-1.0's "Got context", the debug
 * log) by serializing its structure, and serializes a boxed value it has
 * no function for through a transform to a string: without one it logged
 * a warning and printed the engine as NULL. */
static void
gst_cl_engine_register_transforms (GType type)
{
  g_value_register_transform_func (type, G_TYPE_STRING,
      gst_cl_engine_to_string);
}

GstContext *
gst_cl_context_new (ClfEngine * engine)
{
  GstContext *context = gst_context_new (GST_CL_CONTEXT_TYPE, TRUE);

  gst_structure_set (gst_context_writable_structure (context),
      "engine", GST_TYPE_CL_ENGINE, engine,
      "device", G_TYPE_STRING, clf_engine_device_name (engine), NULL);
  return context;
}

ClfEngine *
gst_cl_context_get_engine (GstContext * context)
{
  ClfEngine *engine = NULL;

  if (g_strcmp0 (gst_context_get_context_type (context),
          GST_CL_CONTEXT_TYPE) != 0)
    return NULL;
  gst_structure_get (gst_context_get_structure (context), "engine",
      GST_TYPE_CL_ENGINE, &engine, NULL);
  return engine;
}

void
gst_cl_take_context (GstElement * element, GstContext * context,
    const gchar * device_spec, ClfEngine ** engine)
{
  ClfEngine *offered;

  /* Bins set their contexts again on every state change: an element that
   * has its engine keeps it, without listing the devices again. */
  GST_OBJECT_LOCK (element);
  offered = *engine ? NULL : gst_cl_context_get_engine (context);
  GST_OBJECT_UNLOCK (element);
  if (!offered)
    return;
  if (!clf_engine_matches (offered, device_spec)) {
    GST_INFO_OBJECT (element, "not sharing %s: device=%s selects another "
        "device", clf_engine_device_name (offered), device_spec);
    clf_engine_unref (offered);
    return;
  }
  GST_OBJECT_LOCK (element);
  if (!*engine) {
    GST_DEBUG_OBJECT (element, "sharing %s", clf_engine_device_name (offered));
    *engine = offered;
    offered = NULL;
  }
  GST_OBJECT_UNLOCK (element);
  clf_engine_unref (offered);
}

gboolean
gst_cl_answer_context_query (GstElement * element, GstQuery * query,
    ClfEngine * engine)
{
  const gchar *type;
  GstContext *context;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT || !engine
      || !gst_query_parse_context_type (query, &type)
      || g_strcmp0 (type, GST_CL_CONTEXT_TYPE) != 0)
    return FALSE;
  context = gst_cl_context_new (engine);
  gst_query_set_context (query, context);
  gst_context_unref (context);
  GST_DEBUG_OBJECT (element, "answered a context query with %s",
      clf_engine_device_name (engine));
  return TRUE;
}

static gboolean
has_engine (GstElement * element, ClfEngine ** engine)
{
  gboolean has;

  GST_OBJECT_LOCK (element);
  has = *engine != NULL;
  GST_OBJECT_UNLOCK (element);
  return has;
}

/* Asks the peers of the element's pads of one direction for an engine. */
static void
query_peers (GstElement * element, GstPadDirection direction)
{
  GList *pads = direction == GST_PAD_SRC ? element->srcpads : element->sinkpads;
  GstQuery *query = gst_query_new_context (GST_CL_CONTEXT_TYPE);

  /* The pads of a transform element are static: no lock needed for the
   * list, and a peer answering posts no message back to us. */
  for (GList * l = pads; l; l = l->next) {
    GstContext *context = NULL;
    if (gst_pad_peer_query (GST_PAD (l->data), query)) {
      gst_query_parse_context (query, &context);
      if (context)
        gst_element_set_context (element, context);
      break;
    }
  }
  gst_query_unref (query);
}

gboolean
gst_cl_ensure_engine (GstElement * element, const gchar * device_spec,
    ClfEngine ** engine, GError ** error)
{
  ClfEngine *own;
  GstContext *context;

  if (has_engine (element, engine))
    return TRUE;
  query_peers (element, GST_PAD_SRC);
  if (!has_engine (element, engine))
    query_peers (element, GST_PAD_SINK);
  /* Bins answer from the contexts their elements announced; an
   * application may answer from a sync bus handler. */
  if (!has_engine (element, engine))
    gst_element_post_message (element,
        gst_message_new_need_context (GST_OBJECT (element),
            GST_CL_CONTEXT_TYPE));
  if (has_engine (element, engine))
    return TRUE;

  own = clf_engine_new (device_spec, error);
  if (!own)
    return FALSE;
  GST_OBJECT_LOCK (element);
  if (!*engine) {
    *engine = own;
    own = NULL;
  }
  GST_OBJECT_UNLOCK (element);
  clf_engine_unref (own);

  context = gst_cl_context_new (*engine);
  gst_element_set_context (element, context);
  GST_INFO_OBJECT (element, "announcing %s", clf_engine_device_name (*engine));
  gst_element_post_message (element,
      gst_message_new_have_context (GST_OBJECT (element), context));
  return TRUE;
}
