/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

/* Negotiation: the caps the element takes and, in the log, why it refuses
 * others; the queries; set_caps(), which plans the filtering of the
 * negotiated frames; and, at start, the kernels' builds for the one format
 * upstream can give. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfilter-private.h"
#include "gstclcontext.h"
#include "gstclconvert.h"
#include "gstclformat.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cl_filter_debug);
#define GST_CAT_DEFAULT gst_cl_filter_debug

/* The raw formats named in `caps`, into `formats`; TRUE when one of them
 * is a format clfilter takes. */
static gboolean
caps_formats (GstCaps * caps, GArray * formats)
{
  gboolean taken = FALSE;

  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    const GValue *value = gst_structure_get_value (s, "format");
    guint n = value && GST_VALUE_HOLDS_LIST (value) ?
        gst_value_list_get_size (value) : 1;

    if (!gst_structure_has_name (s, "video/x-raw") || !value)
      continue;
    for (guint k = 0; k < n; k++) {
      const GValue *one = GST_VALUE_HOLDS_LIST (value) ?
          gst_value_list_get_value (value, k) : value;
      GstVideoFormat format = G_VALUE_HOLDS_STRING (one) ?
          gst_video_format_from_string (g_value_get_string (one)) :
          GST_VIDEO_FORMAT_UNKNOWN;

      if (format == GST_VIDEO_FORMAT_UNKNOWN)
        continue;
      taken |= gst_cl_format_is_supported (format);
      g_array_append_val (formats, format);
    }
  }
  return taken;
}

/* Raw video that cannot negotiate because clfilter takes none of its
 * formats: a WARNING in the log (GST_DEBUG=clfilter:3) naming the format,
 * the nearest one clfilter takes, and how to convert; once for each
 * format refused in a row. */
static void
gst_cl_filter_explain_refused (GstClFilter * self, GstCaps * caps)
{
  GArray *formats = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));

  if (!caps_formats (caps, formats) && formats->len > 0) {
    GstVideoFormat format = g_array_index (formats, GstVideoFormat, 0);
    const gchar *nearest =
        gst_video_format_to_string (gst_cl_format_nearest_supported (format));

    if (format != self->explained_format)
      GST_WARNING_OBJECT (self, "clfilter does not take %s video%s: its "
          "samples are not whole bytes or 16-bit words of their own (the "
          "formats it takes are in gst-inspect-1.0 clfilter). The nearest "
          "format it takes is %s: put a converter before it, e.g. \"... ! "
          "videoconvert ! video/x-raw,format=%s ! clfilter ...\"",
          gst_video_format_to_string (format), formats->len > 1 ?
          " (nor the other formats offered)" : "", nearest, nearest);
    self->explained_format = format;
  }
  g_array_unref (formats);
}

/* The formats named in `caps`, comma-separated (a new string); "any" for
 * caps without a format list. */
static gchar *
caps_format_names (GstCaps * caps)
{
  GArray *formats = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));
  GString *names = g_string_new (NULL);

  caps_formats (caps, formats);
  for (guint i = 0; i < formats->len; i++) {
    GstVideoFormat format = g_array_index (formats, GstVideoFormat, i);
    gboolean named = FALSE;

    /* Each once: the caps' structures may name a format again. */
    for (guint k = 0; k < i && !named; k++)
      named = g_array_index (formats, GstVideoFormat, k) == format;
    if (!named)
      g_string_append_printf (names, "%s%s", names->len ? ", " : "",
          gst_video_format_to_string (format));
  }
  g_array_unref (formats);
  if (!names->len)
    g_string_append (names, "any");
  return g_string_free (names, FALSE);
}

/* The negotiation error for `incaps`, none of whose formats (nor their
 * conversions) downstream, which `accepted`, takes; once for the same
 * caps in a row. */
static void
gst_cl_filter_post_unreachable (GstClFilter * self, GstCaps * incaps,
    GstCaps * accepted)
{
  GstPad *peer = gst_pad_get_peer (GST_BASE_TRANSFORM (self)->srcpad);
  GstObject *downstream = NULL;
  gchar *offered_names, *accepted_names;

  if (self->refused_caps && gst_caps_is_equal (incaps, self->refused_caps)) {
    gst_clear_object (&peer);
    return;
  }
  gst_caps_replace (&self->refused_caps, incaps);
  if (peer)
    downstream = gst_pad_get_parent (peer);
  /* A pad of no element (an application's, a harness's): its own name. */
  if (peer && !downstream)
    downstream = gst_object_ref (peer);
  offered_names = caps_format_names (incaps);
  accepted_names = caps_format_names (accepted);
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("clfilter cannot pass %s video on: downstream (%s) takes only %s, "
          "and clfilter writes the format it reads, RGB from YUV or 4:2:0 "
          "YUV from RGB. Put a converter after it: \"... ! clfilter ! "
          "videoconvert ! ...\"", offered_names,
          downstream ? GST_OBJECT_NAME (downstream) : "not linked",
          accepted_names),
      ("upstream offers %" GST_PTR_FORMAT "; downstream accepts %"
          GST_PTR_FORMAT, incaps, accepted));
  g_free (offered_names);
  g_free (accepted_names);
  gst_clear_object (&downstream);
  gst_clear_object (&peer);
}

void
gst_cl_filter_explain_not_negotiated (GstClFilter * self, GstCaps * incaps)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstCaps *accepted, *given;

  /* set_caps() said why it refused them. */
  if (self->refused_caps && gst_caps_is_equal (incaps, self->refused_caps))
    return;
  /* What clfilter gives for the caps: them, or their conversions. */
  given = gst_cl_convert_transform_caps (GST_PAD_SINK, incaps);
  accepted = gst_pad_peer_query_caps (trans->srcpad, NULL);
  if (!gst_caps_can_intersect (given, accepted))
    gst_cl_filter_post_unreachable (self, incaps, accepted);
  gst_caps_unref (given);
  gst_caps_unref (accepted);
}

/* Whether every structure of `caps` is raw video in system memory. */
static gboolean
is_system_memory_video (GstCaps * caps)
{
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (caps, i);

    if (!gst_structure_has_name (gst_caps_get_structure (caps, i),
            "video/x-raw") || (features
            && !gst_caps_features_is_equal (features,
                GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)))
      return FALSE;
  }
  return !gst_caps_is_empty (caps);
}

/* Upstream asked what clfilter takes, offering `offered` (formats clfilter
 * takes), and the answer was none: what downstream takes cannot be
 * reached from them (RGB into RGB of another order, for one).  Upstream's
 * not-negotiated error comes next and names neither side: clfilter's
 * error comes first.  Only for raw video in system memory (whatever
 * upstream offers there, it insists on) and a downstream that takes some
 * raw video. */
static void
gst_cl_filter_explain_unreachable (GstClFilter * self, GstCaps * offered)
{
  GArray *formats = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));
  GstCaps *accepted;

  if (!is_system_memory_video (offered) || !caps_formats (offered, formats)) {
    g_array_unref (formats);
    return;
  }
  g_array_unref (formats);
  accepted = gst_pad_peer_query_caps (GST_BASE_TRANSFORM (self)->srcpad, NULL);
  if (!gst_caps_is_any (accepted) && !gst_caps_is_empty (accepted))
    gst_cl_filter_post_unreachable (self, offered, accepted);
  gst_caps_unref (accepted);
}

GstCaps *
gst_cl_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *result = gst_cl_convert_transform_caps (direction, caps);

  if (filter) {
    GstCaps *both = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (result);
    result = both;
  }
  return result;
}

GstCaps *
gst_cl_filter_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  return gst_cl_convert_fixate_caps (caps, othercaps);
}

gboolean
gst_cl_filter_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps)
{
  gboolean accepted =
      GST_CL_FILTER_PARENT_CLASS->accept_caps (trans, direction, caps);

  if (!accepted)
    gst_cl_filter_explain_refused (GST_CL_FILTER (trans), caps);
  return accepted;
}

/* The output size follows from the output caps alone: input buffers may be
 * larger (decoders pad their planes; the video meta says where they are). */
gboolean
gst_cl_filter_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, othercaps))
    return FALSE;
  *othersize = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

static gboolean
gst_cl_filter_latency_query (GstClFilter * self, GstQuery * query)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClockTime min, max, held = 0;
  gboolean live;
  guint extra;

  if (!GST_CL_FILTER_PARENT_CLASS->query (trans, GST_PAD_SRC, query))
    return FALSE;
  extra = gst_cl_filter_flight_limit (self) - 1;
  if (extra == 0)
    return TRUE;
  if (GST_VIDEO_INFO_FPS_N (&self->in_info) > 0)
    held = gst_util_uint64_scale_int (extra * GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&self->in_info),
        GST_VIDEO_INFO_FPS_N (&self->in_info));
  gst_query_parse_latency (query, &live, &min, &max);
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += held;
  gst_query_set_latency (query, live, min, max);
  return TRUE;
}

gboolean
gst_cl_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstClFilter *self = GST_CL_FILTER (trans);

  /* A serialized query (drain, allocation) comes after the frames in
   * flight. */
  if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED (query))
    gst_cl_flight_drain (self->flight, TRUE);
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    return gst_cl_filter_latency_query (self, query);

  /* Upstream asks what we take, offering its formats: none of ours, or
   * none that reaches downstream, is the not-negotiated to come. */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *filter = NULL, *result = NULL;
    gboolean answered = GST_CL_FILTER_PARENT_CLASS->query (trans,
        direction, query);

    gst_query_parse_caps (query, &filter);
    gst_query_parse_caps_result (query, &result);
    if (answered && filter && result && gst_caps_is_empty (result)) {
      gst_cl_filter_explain_refused (self, filter);
      if (direction == GST_PAD_SINK)
        gst_cl_filter_explain_unreachable (self, filter);
    }
    return answered;
  }
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    ClfEngine *engine = gst_cl_filter_ref_engine (self);
    gboolean answered;

    answered = gst_cl_answer_context_query (GST_ELEMENT (self), query, engine);
    clf_engine_unref (engine);
#if CLF_HAVE_CUDA
    answered = answered || gst_cl_cuda_handle_context_query (GST_ELEMENT
        (self), query, &self->cuda_context);
#endif
    if (answered)
      return TRUE;
  }
  return GST_CL_FILTER_PARENT_CLASS->query (trans, direction, query);
}

static bool
gst_cl_filter_frame_cancelled (void *data)
{
  GstClFilter *self = data;

  return gst_cl_flight_is_stopping (self->flight);
}

/* Whether two frames' settings are one setting: a blur's radius, or
 * convolve's kernel, and the border. */
static gboolean
gst_cl_filter_same_setting (const ClfParams * a, const ClfParams * b)
{
  if (a->mode != b->mode || a->border != b->border)
    return FALSE;
  if (a->mode == CLF_MODE_CONVOLVE)
    return memcmp (&a->kernel, &b->kernel, sizeof a->kernel) == 0;
  return a->radius == b->radius;
}

/* A frame that will take longer than SLOW_FRAME_NS: said once for each
 * setting, with what gives the same bytes faster (a blur's). */
static void
gst_cl_filter_frame_slow (const ClfParams * frame_params,
    uint64_t estimated_ns, void *data)
{
  GstClFilter *self = data;
  ClfParams params = *frame_params;
  gchar *setting;

  if (self->slow_known
      && gst_cl_filter_same_setting (&params, &self->slow_reported))
    return;
  self->slow_reported = params;
  self->slow_known = TRUE;
  if (params.mode == CLF_MODE_CONVOLVE)
    setting = g_strdup_printf ("mode=convolve with a %ux%u kernel takes "
        "about %.1f s a frame on %s", params.kernel.size, params.kernel.size,
        estimated_ns / 1e9, clf_engine_device_name (self->engine));
  else
    setting = g_strdup_printf ("mode=%s radius=%u takes about %.1f s a "
        "frame on %s; mode=sliding gives the same bytes at a cost that "
        "does not grow with the radius", clf_mode_name (params.mode),
        params.radius, estimated_ns / 1e9,
        clf_engine_device_name (self->engine));
  GST_ELEMENT_WARNING (self, RESOURCE, BUSY, ("%s", setting),
      ("%s %dx%d; the frame runs in launches of about 50 ms, so a flush or "
          "a stop waits for one launch at most",
          gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&self->in_info)),
          self->in_info.width, self->in_info.height));
  g_free (setting);
}

/* The kernels of `mode` for the caps compile from source (seconds, the
 * first time a format and mode meet a device): said once a mode for the
 * caps, in the INFO log and a clfilter-building message, so that an
 * application can tell its user why the first frame waits. */
static void
gst_cl_filter_kernels_building (ClfMode mode, void *data)
{
  GstClFilter *self = data;
  const gchar *format = gst_video_format_to_string (self->plans_format);
  /* A build started by an allocation query runs in upstream's thread,
   * where stop() may let the element's engine go at any moment. */
  ClfEngine *engine = gst_cl_filter_ref_engine (self);
  const gchar *device;

  if (!engine)
    return;
  if (g_atomic_int_or (&self->building_told, 1u << mode) & (1u << mode)) {
    clf_engine_unref (engine);
    return;
  }
  device = clf_engine_device_name (engine);
  GST_INFO_OBJECT (self, "building the OpenCL kernels of mode %s for %s on "
      "%s: the first time takes seconds, later starts load them from the "
      "cache", clf_mode_name (mode), format, device);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("clfilter-building",
              "device", G_TYPE_STRING, device,
              "format", G_TYPE_STRING, format,
              "mode", G_TYPE_STRING, clf_mode_name (mode), NULL)));
  clf_engine_unref (engine);
}

/* A plan for `format` that can filter with `params` now, its kernels
 * built, with the element's callbacks; NULL with `error` set.  A flush or a
 * stop does not wait for the kernels' build (CLF_ERROR_CANCELLED). */
static ClfPlan *
gst_cl_filter_new_plan (GstClFilter * self, ClfEngine * engine,
    const ClfFrameFormat * format, const ClfConversion * conversion,
    const ClfParams * params, GError ** error)
{
  /* *INDENT-OFF* */
  ClfPlan *plan = clf_plan_new_converting (engine, format, conversion,
      &(ClfPlanCallbacks) {
        .cancelled = gst_cl_filter_frame_cancelled,.slow =
        gst_cl_filter_frame_slow,.slow_ns = SLOW_FRAME_NS,.building =
        gst_cl_filter_kernels_building,.data = self}, error);
  /* *INDENT-ON* */

  /* A frame too large for the blurs is still sharpened: refused only
   * when the mode asks for a blur (at the caps now, or at a later frame). */
  if (plan && (!clf_plan_supports (plan, params->mode, error)
          || !clf_plan_prepare (plan, params, error)))
    g_clear_pointer (&plan, clf_plan_free);
  return plan;
}

/* The plans for `incaps` (described by `info` and `format`, converted as
 * `conversion` says where it is not NULL), in place of the last ones;
 * FALSE with `error` set where they cannot be built (CLF_ERROR_CANCELLED:
 * a flush or a stop came), or unset where the element has stopped.
 * Interlaced frames are never converted (gst_cl_convert_for). */
static gboolean
gst_cl_filter_build_plans (GstClFilter * self, GstCaps * incaps,
    const GstVideoInfo * info, const ClfFrameFormat * format,
    const ClfConversion * conversion, GError ** error)
{
  ClfFrameFormat fields;
  ClfPlan *plan, *field_plan = NULL;
  ClfEngine *engine;
  ClfParams params;

  gst_cl_filter_field_format (format, &fields);
  gst_cl_filter_read_params (self, format, &params);
  self->plans_format = GST_VIDEO_INFO_FORMAT (info);
  g_atomic_int_set (&self->building_told, 0);
  /* An allocation query renegotiates in upstream's thread: a reference
   * of our own, in case a stop comes meanwhile. */
  engine = gst_cl_filter_ref_engine (self);
  if (!engine)
    return FALSE;
  plan = gst_cl_filter_new_plan (self, engine, format, conversion, &params,
      error);
  if (plan && GST_VIDEO_INFO_IS_INTERLACED (info)
      && !(field_plan = gst_cl_filter_new_plan (self, engine, &fields, NULL,
              &params, error)))
    g_clear_pointer (&plan, clf_plan_free);
#if CLF_HAVE_CUDA
  if (plan && !gst_cl_filter_ensure_cuda (self, engine, incaps, error)) {
    g_clear_pointer (&plan, clf_plan_free);
    g_clear_pointer (&field_plan, clf_plan_free);
  }
#endif
  clf_engine_unref (engine);
  if (!plan)
    return FALSE;
  gst_cl_flight_retire_plans (self->flight, g_steal_pointer (&self->plan),
      g_steal_pointer (&self->field_plan));
  self->plan = plan;
  self->field_plan = field_plan;
  gst_clear_caps (&self->unplanned_caps);
  return TRUE;
}

/* The negotiated caps' frames, and their conversion or NULL. */
static void
gst_cl_filter_keep_caps (GstClFilter * self, const ClfFrameFormat * format,
    const GstVideoInfo * in_info, const GstVideoInfo * out_info,
    const ClfConversion * conversion)
{
  self->format = *format;
  self->in_info = *in_info;
  self->out_info = *out_info;
  self->converting = conversion != NULL;
  if (conversion)
    self->conversion = *conversion;
  self->out_format = conversion ? conversion->format : *format;
}

/* The caps cannot be filtered: said once for them (GstBaseTransform
 * tries refused caps again with the next buffer).  Takes `error`. */
static void
gst_cl_filter_refuse_caps (GstClFilter * self, GstCaps * incaps, GError * error)
{
  GST_ERROR_OBJECT (self, "cannot filter %" GST_PTR_FORMAT ": %s", incaps,
      error->message);
  gst_caps_replace (&self->refused_caps, incaps);
  gst_cl_filter_post_error (self, error);
  g_error_free (error);
}

gboolean
gst_cl_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstVideoInfo in_info, out_info;
  ClfFrameFormat format;
  ClfConversion conversion;
  gboolean converting;
  GError *err = NULL;

  if (!gst_video_info_from_caps (&in_info, incaps)
      || !gst_video_info_from_caps (&out_info, outcaps))
    goto invalid_caps;
  if (in_info.width != out_info.width || in_info.height != out_info.height)
    goto different_caps;
  converting =
      GST_VIDEO_INFO_FORMAT (&in_info) != GST_VIDEO_INFO_FORMAT (&out_info);

  /* GstBaseTransform tries refused caps again with the next buffer: the
   * error was posted once already. */
  if (self->refused_caps && gst_caps_is_equal (incaps, self->refused_caps))
    goto refused_before;
  if (!gst_cl_format_describe (&in_info, &format))
    goto unsupported_format;
  if (converting && !gst_cl_convert_for (&in_info, &format, &out_info,
          &conversion))
    goto no_conversion;
  if (!gst_cl_filter_build_plans (self, incaps, &in_info, &format,
          converting ? &conversion : NULL, &err)) {
    if (g_error_matches (err, CLF_ERROR, CLF_ERROR_CANCELLED))
      goto build_stopped;
    if (!err)
      goto stopped;
    goto no_plan;
  }
  gst_clear_caps (&self->refused_caps);
  gst_cl_filter_keep_caps (self, &format, &in_info, &out_info,
      converting ? &conversion : NULL);
  GST_DEBUG_OBJECT (self, "ready for %s %dx%d %s%s%s",
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&in_info)),
      in_info.width, in_info.height,
      gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE
          (&in_info)), converting ? ", converted to " : "",
      converting ? gst_video_format_to_string (GST_VIDEO_INFO_FORMAT
          (&out_info)) : "");
  return TRUE;

  /* ERRORS */
stopped:
  {
    GST_DEBUG_OBJECT (self, "stopped: no engine to plan with");
    return FALSE;
  }
build_stopped:
  {
    /* Not an error: the caps are fine.  GstBaseTransform does not call
     * set_caps() again for caps it has, so the next frame builds the
     * plans (after the flush). */
    GST_DEBUG_OBJECT (self, "%s", err->message);
    g_clear_error (&err);
    gst_cl_flight_retire_plans (self->flight, g_steal_pointer (&self->plan),
        g_steal_pointer (&self->field_plan));
    gst_caps_replace (&self->unplanned_caps, incaps);
    gst_clear_caps (&self->refused_caps);
    gst_cl_filter_keep_caps (self, &format, &in_info, &out_info,
        converting ? &conversion : NULL);
    return TRUE;
  }
refused_before:
  {
    GST_DEBUG_OBJECT (self, "caps refused before: %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
invalid_caps:
  {
    GST_ERROR_OBJECT (self, "not raw video caps: %" GST_PTR_FORMAT " -> %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
unsupported_format:
  {
    GST_ERROR_OBJECT (self, "cannot describe the components of %"
        GST_PTR_FORMAT, incaps);
    return FALSE;
  }
different_caps:
  {
    GST_ERROR_OBJECT (self, "input and output must have the same size: %"
        GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
no_conversion:
  {
    GST_ERROR_OBJECT (self, "no conversion from %s to %s: %" GST_PTR_FORMAT
        " -> %" GST_PTR_FORMAT,
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&in_info)),
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&out_info)),
        incaps, outcaps);
    return FALSE;
  }
no_plan:
  {
    gst_cl_filter_refuse_caps (self, incaps, g_steal_pointer (&err));
    return FALSE;
  }
}

/* A frame of caps whose build a flush or a stop cut short (set_caps())
 * builds their plans now. */
GstFlowReturn
gst_cl_filter_plan_late (GstClFilter * self)
{
  GError *err = NULL;
  GstCaps *caps;

  if (gst_cl_flight_is_stopping (self->flight))
    return GST_FLOW_FLUSHING;
  caps = gst_caps_ref (self->unplanned_caps);
  if (!gst_cl_filter_build_plans (self, caps, &self->in_info, &self->format,
          self->converting ? &self->conversion : NULL, &err)) {
    if (!err || g_error_matches (err, CLF_ERROR, CLF_ERROR_CANCELLED)) {
      /* Cut short again: the next frame tries again. */
      g_clear_error (&err);
      gst_caps_unref (caps);
      return GST_FLOW_FLUSHING;
    }
    gst_clear_caps (&self->unplanned_caps);
    gst_cl_filter_refuse_caps (self, caps, g_steal_pointer (&err));
    gst_caps_unref (caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  gst_caps_unref (caps);
  GST_DEBUG_OBJECT (self, "planned after the flush");
  return GST_FLOW_OK;
}

/* The one raw format that every structure of `caps` names, fixed; UNKNOWN
 * where they name several, none, or any. */
static GstVideoFormat
caps_one_format (GstCaps * caps)
{
  GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;

  if (gst_caps_is_any (caps))
    return GST_VIDEO_FORMAT_UNKNOWN;
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const gchar *name =
        gst_structure_get_string (gst_caps_get_structure (caps, i), "format");
    GstVideoFormat one = name ? gst_video_format_from_string (name) :
        GST_VIDEO_FORMAT_UNKNOWN;

    if (one == GST_VIDEO_FORMAT_UNKNOWN || (i > 0 && one != format))
      return GST_VIDEO_FORMAT_UNKNOWN;
    format = one;
  }
  return format;
}

/* A frame's size where upstream has not fixed one: the programs follow
 * the format's layout, not the size. */
#define START_FRAME_SIZE 64

/* Frames of `format` at the size `caps` fix, else a small one. */
static gboolean
start_frame_info (GstCaps * caps, GstVideoFormat format, GstVideoInfo * info)
{
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  gint width = 0, height = 0;

  if (!gst_structure_get_int (s, "width", &width) || width <= 0
      || !gst_structure_get_int (s, "height", &height) || height <= 0)
    width = height = START_FRAME_SIZE;
  gst_video_info_init (info);
  return gst_video_info_set_format (info, format, width, height);
}

/* Where upstream can give one pixel format only, the kernels that format
 * needs with the element's settings start building now, so that the
 * caps, when they come, wait only for what is still building.  Nobody
 * waits for these builds: the engine keeps them (a stop or a flush does
 * not wait for them), and the plan made to name them goes at once.
 * Interlaced frames need no other kernels (their fields have the frame's
 * layout).  Anything else, or any failure, leaves the caps to build as
 * they would have: the start never fails for it. */
void
gst_cl_filter_build_at_start (GstClFilter * self)
{
  GstPad *sinkpad = GST_BASE_TRANSFORM_SINK_PAD (self);
  GstCaps *templ = gst_pad_get_pad_template_caps (sinkpad);
  GstCaps *caps = gst_pad_peer_query_caps (sinkpad, templ);
  GstVideoFormat format = caps_one_format (caps);
  ClfEngine *engine = NULL;
  ClfPlan *plan = NULL;
  ClfFrameFormat frame;
  GstVideoInfo info;
  ClfParams params;
  GError *err = NULL;

  if (format == GST_VIDEO_FORMAT_UNKNOWN)
    goto not_one_format;
  if (!start_frame_info (caps, format, &info)
      || !gst_cl_format_describe (&info, &frame))
    goto not_described;
  engine = gst_cl_filter_ref_engine (self);
  if (!engine)
    goto done;
  gst_cl_filter_read_params (self, &frame, &params);
  plan = clf_plan_new (engine, &frame, &err);
  if (!plan || !clf_plan_start_builds (plan, &params, &err))
    goto not_started;
  GST_INFO_OBJECT (self, "building the kernels at start: mode %s for %s, "
      "the one format upstream can give", clf_mode_name (params.mode),
      gst_video_format_to_string (format));

done:
  clf_plan_free (plan);
  clf_engine_unref (engine);
  gst_caps_unref (caps);
  gst_caps_unref (templ);
  return;

  /* ERRORS */
not_one_format:
  {
    GST_DEBUG_OBJECT (self, "no kernels built at start: upstream can give %"
        GST_PTR_FORMAT, caps);
    goto done;
  }
not_described:
  {
    GST_DEBUG_OBJECT (self, "no kernels built at start: %s frames not "
        "described", gst_video_format_to_string (format));
    goto done;
  }
not_started:
  {
    GST_DEBUG_OBJECT (self, "no kernels built at start: %s", err->message);
    g_clear_error (&err);
    goto done;
  }
}
