/* Embedding clfilter in an application: the smallest media app that
 * feeds its own frames to the element and takes them back.
 *
 *   appsrc (the app's RGBA frames) ! clfilter ! appsink (back to the app)
 *
 * The pipeline is built element by element, the mode is switched while it
 * plays, and each frame's kernel time is read two ways: from the
 * GstClFilterMeta on the buffer the appsink returns, and from the
 * element's clfilter-stats message on the bus.  At the end the app checks
 * that both arrived for every frame and agree, and prints the
 * clfilter-summary message the element posts at EOS.  Exit status 0 only
 * when all of that held.
 *
 * Usage: clfilter-embed [--frames N] [--device D]
 */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/clfilter/gstclfiltermeta.h>
#include <string.h>

#define WIDTH 320
#define HEIGHT 240
#define FRAME_BYTES (WIDTH * HEIGHT * 4)

static const gchar *const modes[] = { "laplace", "sliding", "separable",
  "box"
};

typedef struct
{
  GstElement *pipeline, *filter;
  GstAppSrc *src;
  GstAppSink *sink;
  guint frames;
  GArray *meta_ns;              /* kernel ns per frame, from the meta */
  GArray *message_ns;           /* the same, from clfilter-stats */
  GArray *meta_mode;            /* mode index per frame, from the meta */
} App;

static GstElement *
make (const gchar * factory)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  if (!e)
    g_printerr ("clfilter-embed: no element '%s': is GST_PLUGIN_PATH set to "
        "the build's gst folder?\n", factory);
  return e;
}

static gboolean
build_pipeline (App * app, const gchar * device)
{
  GstElement *src = make ("appsrc"), *filter = make ("clfilter"),
      *sink = make ("appsink");
  GstCaps *caps;

  app->pipeline = gst_pipeline_new ("embed");
  if (!src || !filter || !sink) {
    g_clear_object (&src);
    g_clear_object (&filter);
    g_clear_object (&sink);
    return FALSE;
  }
  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, "RGBA",
      "width", G_TYPE_INT, WIDTH, "height", G_TYPE_INT, HEIGHT, "framerate",
      GST_TYPE_FRACTION, 30, 1, NULL);
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, NULL);
  g_object_set (sink, "caps", caps, "sync", FALSE, NULL);
  gst_caps_unref (caps);
  g_object_set (filter, "device", device, "radius", 5, NULL);

  gst_bin_add_many (GST_BIN (app->pipeline), src, filter, sink, NULL);
  if (!gst_element_link_many (src, filter, sink, NULL)) {
    g_printerr ("clfilter-embed: could not link appsrc ! clfilter ! "
        "appsink\n");
    return FALSE;
  }
  app->src = GST_APP_SRC (src);
  app->sink = GST_APP_SINK (sink);
  app->filter = filter;
  return TRUE;
}

/* A frame of the app's own: a moving gradient. */
static GstBuffer *
make_frame (guint index)
{
  GstBuffer *buffer = gst_buffer_new_allocate (NULL, FRAME_BYTES, NULL);
  GstMapInfo map;

  gst_buffer_map (buffer, &map, GST_MAP_WRITE);
  for (guint i = 0; i < FRAME_BYTES; i++)
    map.data[i] = (guint8) (i * 7 + index * 13 + (i / (WIDTH * 4)) * 3);
  gst_buffer_unmap (buffer, &map);
  GST_BUFFER_PTS (buffer) = gst_util_uint64_scale (index, GST_SECOND, 30);
  GST_BUFFER_DURATION (buffer) = GST_SECOND / 30;
  return buffer;
}

static gint
mode_index (const gchar * mode)
{
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    if (!g_strcmp0 (mode, modes[i]))
      return (gint) i;
  return -1;
}

/* Takes the filtered frame back and reads its meta. */
static gboolean
take_frame (App * app)
{
  GstSample *sample = gst_app_sink_try_pull_sample (app->sink,
      10 * GST_SECOND);
  GstClFilterMeta *meta;
  gint mode;

  if (!sample) {
    g_printerr ("clfilter-embed: no frame came back\n");
    return FALSE;
  }
  meta = gst_buffer_get_cl_filter_meta (gst_sample_get_buffer (sample));
  if (meta) {
    mode = mode_index (meta->mode);
    g_array_append_val (app->meta_ns, meta->kernel_ns);
    g_array_append_val (app->meta_mode, mode);
    g_print ("frame %3" G_GUINT64_FORMAT "  %-9s  kernel %8.3f ms  "
        "(meta)\n", meta->frame, meta->mode, meta->kernel_ns / 1e6);
  }
  gst_sample_unref (sample);
  return TRUE;
}

/* Reads the bus: clfilter-stats, clfilter-summary, errors; waits for EOS
 * when asked to.  FALSE on an error, or when EOS did not come. */
static gboolean
drain_bus (App * app, gboolean wait_for_eos)
{
  GstBus *bus = gst_element_get_bus (app->pipeline);
  gboolean ok = TRUE, done = FALSE;

  while (!done) {
    GstMessage *msg = wait_for_eos ? gst_bus_timed_pop (bus, 10 * GST_SECOND)
        : gst_bus_pop (bus);
    if (!msg) {
      if (wait_for_eos)
        g_printerr ("clfilter-embed: no EOS within 10 s\n");
      ok = !wait_for_eos;
      break;
    }
    const GstStructure *s = gst_message_get_structure (msg);
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ELEMENT:
        if (gst_structure_has_name (s, "clfilter-stats")) {
          guint64 ns = 0;
          gst_structure_get_uint64 (s, "kernel-ns", &ns);
          g_array_append_val (app->message_ns, ns);
        } else if (gst_structure_has_name (s, "clfilter-summary")) {
          gchar *text = gst_structure_to_string (s);
          g_print ("%s\n", text);
          g_free (text);
        }
        break;
      case GST_MESSAGE_ERROR:{
        GError *error = NULL;
        gst_message_parse_error (msg, &error, NULL);
        g_printerr ("clfilter-embed: %s\n", error->message);
        g_clear_error (&error);
        ok = FALSE;
        done = TRUE;
        break;
      }
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      default:
        break;
    }
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return ok;
}

/* Both ways gave every frame, with the same times, in the modes set. */
static gboolean
check_times (const App * app)
{
  guint n = app->meta_ns->len;

  if (n != app->frames || app->message_ns->len != app->frames) {
    g_printerr ("clfilter-embed: %u frames sent, %u metas, %u messages\n",
        app->frames, n, app->message_ns->len);
    return FALSE;
  }
  for (guint i = 0; i < n; i++) {
    guint64 a = g_array_index (app->meta_ns, guint64, i);
    guint64 b = g_array_index (app->message_ns, guint64, i);
    gint mode = g_array_index (app->meta_mode, gint, i);
    if (!a || a != b || mode != (gint) (i / 4 % G_N_ELEMENTS (modes))) {
      g_printerr ("clfilter-embed: frame %u: meta %" G_GUINT64_FORMAT
          " ns in mode %d, message %" G_GUINT64_FORMAT " ns\n", i, a, mode, b);
      return FALSE;
    }
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  App app = { 0 };
  gint frames = 16;
  gchar *device = NULL;
  gboolean ok;
  GOptionEntry entries[] = {
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames, "Frames to send", "N"},
    {"device", 0, 0, G_OPTION_ARG_STRING, &device, "clfilter's device", "D"},
    {NULL}
  };
  GOptionContext *context = g_option_context_new ("- clfilter embedded");
  GError *error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, gst_init_get_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    g_printerr ("clfilter-embed: %s\n", error->message);
    return 2;
  }
  g_option_context_free (context);

  app.frames = (guint) MAX (frames, 1);
  app.meta_ns = g_array_new (FALSE, FALSE, sizeof (guint64));
  app.message_ns = g_array_new (FALSE, FALSE, sizeof (guint64));
  app.meta_mode = g_array_new (FALSE, FALSE, sizeof (gint));
  ok = build_pipeline (&app, device ? device : "auto");
  if (ok)
    ok = gst_element_set_state (app.pipeline, GST_STATE_PLAYING)
        != GST_STATE_CHANGE_FAILURE;

  /* One frame at a time: send it, take it back; a new mode every four. */
  for (guint i = 0; ok && i < app.frames; i++) {
    if (i % 4 == 0)
      gst_util_set_object_arg (G_OBJECT (app.filter), "mode",
          modes[i / 4 % G_N_ELEMENTS (modes)]);
    ok = gst_app_src_push_buffer (app.src, make_frame (i)) == GST_FLOW_OK
        && take_frame (&app) && drain_bus (&app, FALSE);
  }
  if (ok) {
    gst_app_src_end_of_stream (app.src);
    ok = drain_bus (&app, TRUE) && check_times (&app);
  }
  gst_element_set_state (app.pipeline, GST_STATE_NULL);
  gst_object_unref (app.pipeline);
  g_array_unref (app.meta_ns);
  g_array_unref (app.message_ns);
  g_array_unref (app.meta_mode);
  g_free (device);
  g_print ("%s: %u frames, kernel times from both the meta and the bus\n",
      ok ? "OK" : "FAILED", app.frames);
  return ok ? 0 : 1;
}
