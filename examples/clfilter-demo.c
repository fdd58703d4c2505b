/* The movie demo: plays a video file through
 *   filesrc ! decodebin ! clfilter ! sink
 * and prints each frame's OpenCL kernel time from the element's
 * clfilter-stats messages, then a summary.
 *
 * Usage: clfilter-demo [--mode M] [--radius R] [--border B] [--device D]
 *                      [--frames N] [--headless] MOVIE
 * With a display (DISPLAY or WAYLAND_DISPLAY) and without --headless the
 * video plays in a window in real time; headless it runs as fast as it can.
 */
#include <gst/gst.h>
#include <stdlib.h>

typedef struct
{
  gchar *mode;
  gint radius;
  gchar *border;
  gchar *device;
  gint frames;
  gboolean headless;
} Options;

/* --frames: exactly this many frames reach the filter. */
typedef struct
{
  gint max;
  gint seen;
} FrameLimit;

static GstPadProbeReturn
limit_frames (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  FrameLimit *limit = user_data;

  if (limit->seen++ < limit->max)
    return GST_PAD_PROBE_OK;
  /* The main thread ends the stream; until then later frames are dropped. */
  if (limit->seen == limit->max + 1)
    gst_element_post_message (GST_PAD_PARENT (pad),
        gst_message_new_application (GST_OBJECT (GST_PAD_PARENT (pad)),
            gst_structure_new_empty ("clfilter-demo-done")));
  return GST_PAD_PROBE_DROP;
}

typedef struct
{
  GArray *kernel_ns;            /* guint64 per frame */
  gint64 first_frame_us;
  gint64 last_frame_us;
} Timing;

static gboolean
has_display (void)
{
  return g_getenv ("DISPLAY") || g_getenv ("WAYLAND_DISPLAY");
}

static gchar *
pipeline_description (const Options * o, const gchar * movie, gboolean window)
{
  gchar *location = g_strescape (movie, NULL);
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
      "videoconvert ! clfilter name=filter mode=%s radius=%d border=%s "
      "device=\"%s\" ! %s", location, o->mode, o->radius, o->border,
      o->device, window ? "videoconvert ! autovideosink" :
      "fakesink sync=false");
  g_free (location);
  return desc;
}

static void
print_frame (const GstStructure * s, Timing * t)
{
  guint64 frame = 0, kernel = 0, up = 0, down = 0;
  guint radius = 0, copies = 0;

  gst_structure_get (s, "frame", G_TYPE_UINT64, &frame, "kernel-ns",
      G_TYPE_UINT64, &kernel, "upload-ns", G_TYPE_UINT64, &up, "download-ns",
      G_TYPE_UINT64, &down, "radius", G_TYPE_UINT, &radius, "copies",
      G_TYPE_UINT, &copies, NULL);
  g_print ("frame %4" G_GUINT64_FORMAT "  kernel %7.3f ms  upload %6.3f ms  "
      "download %6.3f ms  copies %u  %s r=%u\n", frame, kernel / 1e6,
      up / 1e6, down / 1e6, copies, gst_structure_get_string (s, "mode"),
      radius);
  g_array_append_val (t->kernel_ns, kernel);
  t->last_frame_us = g_get_monotonic_time ();
  if (!t->first_frame_us)
    t->first_frame_us = t->last_frame_us;
}

static gint
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

static void
print_summary (Timing * t, const gchar * device)
{
  guint n = t->kernel_ns->len;
  guint64 *ns = (guint64 *) t->kernel_ns->data;
  gdouble sum = 0, seconds, fps;

  if (n == 0) {
    g_print ("no frames were filtered\n");
    return;
  }
  for (guint i = 0; i < n; i++)
    sum += ns[i];
  g_array_sort (t->kernel_ns, compare_u64);
  g_print ("\nsummary: %u frames on %s\n"
      "  kernel ms per frame: mean %.3f  median %.3f  p95 %.3f  max %.3f\n",
      n, device, sum / n / 1e6, ns[n / 2] / 1e6,
      ns[(guint) ((n - 1) * 0.95)] / 1e6, ns[n - 1] / 1e6);
  seconds = (t->last_frame_us - t->first_frame_us) / 1e6;
  if (n < 2 || seconds <= 0) {
    g_print ("  end to end: needs two frames or more\n");
    return;
  }
  fps = (n - 1) / seconds;
  g_print ("  end to end: %.1f frames/s (%s real time at 30 frames/s)\n", fps,
      fps >= 30 ? "faster than" : "slower than");
}

/* Runs the pipeline to EOS or error; returns the exit status. */
static gint
run (GstElement * pipeline, Timing * t)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gint status = 0;
  gboolean done = FALSE;

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    status = 1;                 /* the error message follows on the bus */
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT |
        GST_MESSAGE_APPLICATION);
    const GstStructure *s = gst_message_get_structure (msg);
    GError *error = NULL;
    gchar *debug = NULL;

    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ELEMENT:
        if (gst_structure_has_name (s, "clfilter-stats"))
          print_frame (s, t);
        break;
      case GST_MESSAGE_ERROR:
        gst_message_parse_error (msg, &error, &debug);
        g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME
            (GST_MESSAGE_SRC (msg)), error->message, debug ? debug : "");
        g_clear_error (&error);
        g_free (debug);
        status = 1;
        done = TRUE;
        break;
      case GST_MESSAGE_APPLICATION:    /* --frames reached */
        gst_element_send_event (pipeline, gst_event_new_eos ());
        break;
      default:                 /* EOS */
        done = TRUE;
        break;
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return status;
}

int
main (int argc, char **argv)
{
  Options o = { NULL, 7, NULL, NULL, 0, FALSE };
  GOptionEntry entries[] = {
    {"mode", 0, 0, G_OPTION_ARG_STRING, &o.mode,
        "box, separable, sliding or laplace (default laplace)", "M"},
    {"radius", 0, 0, G_OPTION_ARG_INT, &o.radius,
        "blur radius, 0..1023 (default 7)", "R"},
    {"border", 0, 0, G_OPTION_ARG_STRING, &o.border,
        "clamp or mirror (default clamp)", "B"},
    {"device", 0, 0, G_OPTION_ARG_STRING, &o.device,
        "OpenCL device: auto, gpu, cpu, P:D or part of a name", "D"},
    {"frames", 0, 0, G_OPTION_ARG_INT, &o.frames,
        "stop after this many frames (default: the whole movie)", "N"},
    {"headless", 0, 0, G_OPTION_ARG_NONE, &o.headless,
        "no window, even with a display; run as fast as possible", NULL},
    {NULL}
  };
  GOptionContext *context = g_option_context_new ("MOVIE");
  GError *error = NULL;
  Timing timing = { g_array_new (FALSE, FALSE, sizeof (guint64)), 0, 0 };
  FrameLimit limit = { 0, 0 };
  GstElement *pipeline, *filter;
  gchar *desc, *device_name = NULL;
  gboolean window;
  gint status;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, gst_init_get_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2) {
    g_printerr ("%s\n%s", error ? error->message : "give one movie file",
        g_option_context_get_help (context, TRUE, NULL));
    return 2;
  }
  g_option_context_free (context);
  if (!o.mode)
    o.mode = g_strdup ("laplace");
  if (!o.border)
    o.border = g_strdup ("clamp");
  if (!o.device)
    o.device = g_strdup ("auto");

  window = !o.headless && has_display ();
  desc = pipeline_description (&o, argv[1], window);
  g_print ("pipeline: %s\n", desc);
  pipeline = gst_parse_launch (desc, &error);
  if (!pipeline) {
    g_printerr ("cannot build the pipeline: %s\n", error->message);
    return 1;
  }
  filter = gst_bin_get_by_name (GST_BIN (pipeline), "filter");
  if (o.frames > 0) {
    GstPad *sink = gst_element_get_static_pad (filter, "sink");
    limit.max = o.frames;
    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, limit_frames, &limit,
        NULL);
    gst_object_unref (sink);
  }
  status = run (pipeline, &timing);

  g_object_get (filter, "device-name", &device_name, NULL);
  print_summary (&timing, device_name ? device_name : "(no device)");

  g_free (device_name);
  gst_object_unref (filter);
  gst_object_unref (pipeline);
  g_array_unref (timing.kernel_ns);
  g_free (desc);
  g_free (o.mode);
  g_free (o.border);
  g_free (o.device);
  return status;
}
