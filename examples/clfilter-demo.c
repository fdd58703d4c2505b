/* The movie demo: plays a video file through
 *   filesrc ! decodebin ! clfilter ! sink
 * and shows what each frame's image processing costs on the OpenCL device.
 *
 * With a display (DISPLAY or WAYLAND_DISPLAY, and no --headless) the movie
 * plays in real time in a window with a line on it: mode, radius (the
 * preset for convolve), border, device, this frame's kernel ms, the
 * average, and frames/s.  A frame already late for the clock is dropped
 * (QoS) rather than filtered; the summary counts them.  Keys:
 *   1 box  2 separable  3 sliding  4 laplace  5 convolve  6 gaussian
 *   7 unsharp  p the next convolve preset (and mode convolve)
 *   + / - radius (gaussian, unsharp: sigma)  a / z unsharp's amount
 *   b border  s side by side (original | filtered)  q quit
 * Either way a line is printed for every frame filtered.
 * Headless it runs as fast as it can and prints a line per frame, a
 * summary, and writes a PNG of one frame, original | filtered, into the
 * temporary directory unless --png says where.
 *
 * Usage: clfilter-demo [--mode M] [--preset P] [--radius R] [--sigma S]
 *                      [--amount A] [--border B] [--device D] [--frames N]
 *                      [--headless] [--png PATH] MOVIE
 */
#include <gst/gst.h>
#include <gst/video/navigation.h>
#include <gst/video/video.h>
#include <string.h>
#ifdef CLF_DEMO_X11_TITLE
#include <gst/gl/gl.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <unistd.h>
#endif

/* The window's size: the movie is scaled to it. */
#define VIEW_WIDTH 1280
#define VIEW_HEIGHT 720
#define MAX_RADIUS 1023
/* Sigma's steps (a factor, for the same feel at 1 and at 100), its
 * range, and amount's steps and range. */
#define SIGMA_STEP 1.25
#define MIN_SIGMA 0.3
#define MAX_SIGMA 250.0
#define AMOUNT_STEP 0.25
#define MIN_AMOUNT -2.0
#define MAX_AMOUNT 10.0

typedef struct
{
  gchar *mode;
  gchar *preset;                /* NULL: the element's default */
  gint radius;
  gdouble sigma, amount;
  gchar *border;
  gchar *device;
  gint frames;
  gboolean headless;
  gchar *png;
} Options;

/* The frame of the PNG: its buffer and caps before and after the filter. */
typedef struct
{
  guint64 index;
  GstSample *original;
  GstSample *filtered;
} Snapshot;

typedef struct
{
  GMainLoop *loop;
  GstElement *pipeline, *decoded, *filter, *text, *mixer;
  gboolean window;
  gboolean side_by_side;
  gint status;
  guint64 frame_limit;          /* 0: the whole movie */
  guint64 frames_decoded;       /* buffers out of the decoder */
  guint64 frames_in, frames_out;        /* buffers into and out of the filter */
  guint64 frames_timed;         /* clfilter-stats messages: frame lines */
  guint64 frames_late;          /* dropped by the filter's QoS */
  gint64 first_frame_us, last_frame_us;
  GstStructure *summary;        /* the filter's clfilter-summary, at EOS */
  gdouble framerate;            /* the movie's, for the real-time verdict */
  gchar *format_in, *format_out;        /* the filter's, as negotiated */
  Snapshot snapshot;
} Demo;

static gboolean
has_display (void)
{
  return g_getenv ("DISPLAY") || g_getenv ("WAYLAND_DISPLAY");
}

static gchar *
pipeline_description (const Options * o, const gchar * movie, gboolean window)
{
  gchar *location = g_strescape (movie, NULL);
  gchar *preset = o->preset ? g_strdup_printf (" preset=%s", o->preset) :
      g_strdup ("");
  gchar sigma[G_ASCII_DTOSTR_BUF_SIZE], amount[G_ASCII_DTOSTR_BUF_SIZE];
  gchar *filter = g_strdup_printf ("clfilter name=filter mode=%s%s radius=%d "
      "sigma=%s amount=%s border=%s device=\"%s\"", o->mode, preset,
      o->radius, g_ascii_dtostr (sigma, sizeof sigma, o->sigma),
      g_ascii_dtostr (amount, sizeof amount, o->amount), o->border,
      o->device);
  gchar *desc;

  /* No videoconvert: the decoder's frames (8- or 10-bit, 4:2:0 or 4:2:2)
   * go into clfilter as they are, and the compositor gives the sink a
   * format it takes. */
  if (window)
    /* The original and the filtered frame meet in a compositor; the
     * filtered one is on top, full size, until 's' puts them side by side. */
    desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
        "identity name=decoded ! tee name=split "
        "split. ! queue ! mixer.sink_0 "
        "split. ! queue ! %s ! mixer.sink_1 "
        "compositor name=mixer background=black "
        "sink_0::width=%d sink_0::height=%d sink_0::alpha=0 "
        "sink_1::width=%d sink_1::height=%d ! "
        "video/x-raw,width=%d,height=%d ! "
        "textoverlay name=text valignment=top halignment=left "
        "line-alignment=left wrap-mode=none font-desc=\"Monospace 12\" "
        "shaded-background=true ! autovideosink", location, filter,
        VIEW_WIDTH, VIEW_HEIGHT, VIEW_WIDTH, VIEW_HEIGHT, VIEW_WIDTH,
        VIEW_HEIGHT);
  else
    desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
        "identity name=decoded ! %s ! fakesink sync=false", location, filter);
  g_free (filter);
  g_free (preset);
  g_free (location);
  return desc;
}

static gdouble
frames_per_second (const Demo * d)
{
  gdouble seconds = (d->last_frame_us - d->first_frame_us) / 1e6;
  return d->frames_timed > 1 && seconds > 0 ?
      (d->frames_timed - 1) / seconds : 0;
}

/* The values of the filter's preset property, in the element's order. */
static GEnumClass *
preset_enum (GstElement * filter)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
      (filter), "preset");

  return G_PARAM_SPEC_ENUM (pspec)->enum_class;
}

static const gchar *
preset_name (GstElement * filter)
{
  gint preset = 0;
  GEnumValue *value;

  g_object_get (filter, "preset", &preset, NULL);
  value = g_enum_get_value (preset_enum (filter), preset);
  return value ? value->value_nick : "?";
}

/* A frame's settings as its clfilter-stats give them: "sliding r=7 clamp",
 * or "laplace clamp", as laplace is 3x3 whatever the radius property says.
 * The stats do not name convolve's kernel, so "convolve sharpen clamp"
 * takes the preset from the property: a frame filtered just before a 'p'
 * may be named after the new one. */
static gchar *
describe_settings (GstElement * filter, const GstStructure * stats)
{
  const gchar *mode = gst_structure_get_string (stats, "mode");
  const gchar *border = gst_structure_get_string (stats, "border");
  guint radius = 0;

  if (!g_strcmp0 (mode, "laplace"))
    return g_strdup_printf ("%s %s", mode, border);
  if (!g_strcmp0 (mode, "convolve"))
    return g_strdup_printf ("%s %s %s", mode, preset_name (filter), border);
  if (!g_strcmp0 (mode, "gaussian") || !g_strcmp0 (mode, "unsharp")) {
    /* The stats do not name sigma or amount: the properties'. */
    gdouble sigma = 0, amount = 0;
    g_object_get (filter, "sigma", &sigma, "amount", &amount, NULL);
    if (!g_strcmp0 (mode, "gaussian"))
      return g_strdup_printf ("%s sigma=%.2f %s", mode, sigma, border);
    return g_strdup_printf ("%s sigma=%.2f amount=%.2f %s", mode, sigma,
        amount, border);
  }
  gst_structure_get_uint (stats, "radius", &radius);
  return g_strdup_printf ("%s r=%u %s", mode, radius, border);
}

/* --frames: lets that many frames out of the decoder, drops the
 * rest, and has the main loop end the stream.  Before the window's tee, so
 * both of the compositor's inputs stop: dropped after the tee, on the
 * filter's input alone, the compositor waited for a filtered frame, the
 * original's queue filled, the decoder blocked and EOS never came. */
static GstPadProbeReturn
limit_frames (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Demo *d = user_data;
  guint64 seen = d->frames_decoded++;

  if (seen < d->frame_limit)
    return GST_PAD_PROBE_OK;
  if (seen == d->frame_limit)
    gst_element_post_message (d->decoded,
        gst_message_new_application (GST_OBJECT (d->decoded),
            gst_structure_new_empty ("clfilter-demo-done")));
  return GST_PAD_PROBE_DROP;
}

/* ---- the live view ---------------------------------------------------- */

static void
update_overlay (Demo * d, const GstStructure * stats, guint64 kernel)
{
  gchar *device = NULL, *settings = describe_settings (d->filter, stats);
  guint64 mean = 0;
  gchar *line;

  g_object_get (d->filter, "device-name", &device, "mean-kernel-ns", &mean,
      NULL);
  line = g_strdup_printf ("%s%s\nkernel %.2f ms | average %.2f ms | "
      "%.1f frames/s\n%s", settings,
      d->side_by_side ? " | original | filtered" : "", kernel / 1e6,
      mean / 1e6, frames_per_second (d), device ? device : "?");
  g_object_set (d->text, "text", line, NULL);
  g_free (line);
  g_free (settings);
  g_free (device);
}

/* Original | filtered, each at half size, or the filtered frame alone. */
static void
set_side_by_side (Demo * d, gboolean on)
{
  GstPad *original = gst_element_get_static_pad (d->mixer, "sink_0");
  GstPad *filtered = gst_element_get_static_pad (d->mixer, "sink_1");
  gint w = on ? VIEW_WIDTH / 2 : VIEW_WIDTH, h = on ? VIEW_HEIGHT / 2 :
      VIEW_HEIGHT, y = on ? VIEW_HEIGHT / 4 : 0;

  d->side_by_side = on;
  g_object_set (original, "alpha", on ? 1.0 : 0.0, "xpos", 0, "ypos", y,
      "width", w, "height", h, NULL);
  g_object_set (filtered, "xpos", on ? w : 0, "ypos", y, "width", w,
      "height", h, NULL);
  gst_object_unref (original);
  gst_object_unref (filtered);
}

static void
step_mode (Demo * d, const gchar * mode)
{
  gst_util_set_object_arg (G_OBJECT (d->filter), "mode", mode);
  g_print ("key: mode %s\n", mode);
}

/* The preset after the filter's, in the enum's order, round to the first;
 * custom is passed over, as it names no kernel.  From another mode, the
 * mode is set after the preset, so that no frame is convolved with the old
 * one. */
static void
step_preset (Demo * d)
{
  GEnumClass *presets = preset_enum (d->filter);
  guint n = presets->n_values, i = n - 1;
  const GEnumValue *next;
  gint preset = 0;

  g_object_get (d->filter, "preset", &preset, NULL);
  for (guint j = 0; j < n; j++)
    if (presets->values[j].value == preset)
      i = j;
  for (guint step = 0; step < n; step++) {
    i = (i + 1) % n;
    if (strcmp (presets->values[i].value_nick, "custom"))
      break;
  }
  next = &presets->values[i];
  g_object_set (d->filter, "preset", next->value, NULL);
  gst_util_set_object_arg (G_OBJECT (d->filter), "mode", "convolve");
  g_print ("key: preset %s\n", next->value_nick);
}

static void
step_radius (Demo * d, gint delta)
{
  guint radius;

  g_object_get (d->filter, "radius", &radius, NULL);
  radius = (guint) CLAMP ((gint) radius + delta, 0, MAX_RADIUS);
  g_object_set (d->filter, "radius", radius, NULL);
  g_print ("key: radius %u\n", radius);
}

/* + and - in gaussian and unsharp: sigma by a factor. */
static gboolean
step_sigma (Demo * d, gint delta)
{
  gint mode = 0;
  gdouble sigma = 0;

  g_object_get (d->filter, "mode", &mode, "sigma", &sigma, NULL);
  if (mode != 5 && mode != 6)
    return FALSE;
  sigma = CLAMP (delta > 0 ? sigma * SIGMA_STEP : sigma / SIGMA_STEP,
      MIN_SIGMA, MAX_SIGMA);
  g_object_set (d->filter, "sigma", sigma, NULL);
  g_print ("key: sigma %.2f\n", sigma);
  return TRUE;
}

static void
step_amount (Demo * d, gdouble delta)
{
  gdouble amount = 0;

  g_object_get (d->filter, "amount", &amount, NULL);
  amount = CLAMP (amount + delta, MIN_AMOUNT, MAX_AMOUNT);
  g_object_set (d->filter, "amount", amount, NULL);
  g_print ("key: amount %.2f\n", amount);
}

static void
toggle_border (Demo * d)
{
  gint border;

  g_object_get (d->filter, "border", &border, NULL);
  gst_util_set_object_arg (G_OBJECT (d->filter), "border",
      border ? "clamp" : "mirror");
  g_print ("key: border %s\n", border ? "clamp" : "mirror");
}

/* A key from the window (a navigation event on its way upstream). */
static void
handle_key (Demo * d, const gchar * key)
{
  static const gchar *const modes[] = { "box", "separable", "sliding",
    "laplace", "convolve", "gaussian", "unsharp"
  };

  if (key[0] >= '1' && key[0] <= '7' && !key[1])
    step_mode (d, modes[key[0] - '1']);
  else if (!strcmp (key, "p"))
    step_preset (d);
  else if (!strcmp (key, "plus") || !strcmp (key, "KP_Add")
      || !strcmp (key, "equal")) {
    if (!step_sigma (d, 1))
      step_radius (d, 1);
  } else if (!strcmp (key, "minus") || !strcmp (key, "KP_Subtract")) {
    if (!step_sigma (d, -1))
      step_radius (d, -1);
  } else if (!strcmp (key, "a"))
    step_amount (d, AMOUNT_STEP);
  else if (!strcmp (key, "z"))
    step_amount (d, -AMOUNT_STEP);
  else if (!strcmp (key, "b"))
    toggle_border (d);
  else if (!strcmp (key, "s")) {
    set_side_by_side (d, !d->side_by_side);
    g_print ("key: side by side %s\n", d->side_by_side ? "on" : "off");
  } else if (!strcmp (key, "q") || !strcmp (key, "Escape")) {
    /* Through EOS, so that the filter posts its summary. */
    g_print ("key: quit\n");
    gst_element_send_event (d->pipeline, gst_event_new_eos ());
  }
}

static gboolean
handle_key_in_main (gpointer data)
{
  gpointer *args = data;
  handle_key (args[0], args[1]);
  g_free (args[1]);
  g_free (args);
  return G_SOURCE_REMOVE;
}

/* Keys arrive on a streaming thread; they are acted on in the main loop. */
static GstPadProbeReturn
watch_keys (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  const gchar *key;

  if (GST_EVENT_TYPE (event) == GST_EVENT_NAVIGATION
      && gst_navigation_event_get_type (event) ==
      GST_NAVIGATION_EVENT_KEY_PRESS
      && gst_navigation_event_parse_key_event (event, &key)) {
    gpointer *args = g_new (gpointer, 2);
    args[0] = user_data;
    args[1] = g_strdup (key);
    g_idle_add (handle_key_in_main, args);
  }
  return GST_PAD_PROBE_OK;
}

/* ---- headless: the summary and the PNG --------------------------------- */

/* Headless, within 5% of the movie's rate counts as real time: the rate is
 * taken between the first and the last frame's stats, whose arrival
 * jitters by a few ms. */
static const gchar *
real_time_verdict (gdouble fps, gdouble movie_fps)
{
  if (fps < 0.95 * movie_fps)
    return "SLOWER than real time";
  if (fps <= 1.05 * movie_fps)
    return "real time";
  return "faster than real time";
}

/* What became of each frame that reached the filter: filtered (and printed
 * as a frame line), or dropped there because the clock had passed it (the
 * filter's QoS messages count those).  How many are dropped depends on the
 * machine's load; that the counts add up does not. */
static void
print_frames (const Demo * d)
{
  g_print ("  frames: %" G_GUINT64_FORMAT " into the filter, %"
      G_GUINT64_FORMAT " out, %" G_GUINT64_FORMAT " dropped as late, %"
      G_GUINT64_FORMAT " frame lines\n", d->frames_in, d->frames_out,
      d->frames_late, d->frames_timed);
}

/* The filter's clfilter-summary, with the frames/s seen here. */
static void
print_summary (Demo * d)
{
  guint64 frames = 0, mean = 0, median = 0, p95 = 0, max = 0;
  gdouble fps = frames_per_second (d);

  if (!d->summary || !gst_structure_get (d->summary, "frames", G_TYPE_UINT64,
          &frames, "mean-kernel-ns", G_TYPE_UINT64, &mean,
          "median-kernel-ns", G_TYPE_UINT64, &median, "p95-kernel-ns",
          G_TYPE_UINT64, &p95, "max-kernel-ns", G_TYPE_UINT64, &max, NULL)
      || frames == 0) {
    g_print ("no frames were filtered\n");
    print_frames (d);
    return;
  }
  g_print ("\nsummary: %" G_GUINT64_FORMAT " frames on %s\n"
      "  kernel ms per frame: mean %.3f  median %.3f  p95 %.3f  max %.3f\n",
      frames, gst_structure_get_string (d->summary, "device"), mean / 1e6,
      median / 1e6, p95 / 1e6, max / 1e6);
  g_print ("  formats: %s into the filter, %s out of it\n", d->format_in,
      d->format_out);
  print_frames (d);
  /* In the window the sink keeps the clock, and late frames are dropped
   * rather than shown late: the rate is how many the machine filtered in
   * time, and says nothing about whether the movie kept its pace. */
  if (fps > 0 && d->window)
    g_print ("  end to end: %.1f frames/s filtered (%.4g frames/s movie, "
        "played in sync with the clock)\n", fps, d->framerate);
  else if (fps > 0)
    g_print ("  end to end: %.1f frames/s: %s (%.4g frames/s movie, "
        "as fast as it goes)\n", fps, real_time_verdict (fps, d->framerate),
        d->framerate);
}

/* Keeps frame `index` as it enters (original) or leaves (filtered) the
 * filter. */
static GstPadProbeReturn
keep_snapshot (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Demo *d = user_data;
  gboolean entering = GST_PAD_DIRECTION (pad) == GST_PAD_SINK;
  GstSample **slot = entering ? &d->snapshot.original : &d->snapshot.filtered;
  guint64 seen = entering ? d->frames_in++ : d->frames_out++;

  if (seen == d->snapshot.index && !*slot) {
    GstCaps *caps = gst_pad_get_current_caps (pad);
    *slot = gst_sample_new (GST_PAD_PROBE_INFO_BUFFER (info), caps, NULL, NULL);
    gst_caps_unref (caps);
  }
  return GST_PAD_PROBE_OK;
}

/* A sample as RGBA pixels of its own size. */
static GstSample *
to_rgba (GstSample * sample, GError ** error)
{
  const GstStructure *s = gst_caps_get_structure (gst_sample_get_caps
      (sample), 0);
  gint w = 0, h = 0;
  gst_structure_get_int (s, "width", &w);
  gst_structure_get_int (s, "height", &h);
  GstCaps *rgba = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      "RGBA", "width", G_TYPE_INT, w, "height", G_TYPE_INT, h, NULL);
  GstSample *out = gst_video_convert_sample (sample, rgba, GST_SECOND * 10,
      error);
  gst_caps_unref (rgba);
  return out;
}

/* Original | filtered in one RGBA sample twice as wide. */
static GstSample *
side_by_side_sample (GstSample * left, GstSample * right)
{
  GstVideoInfo info, wide;
  GstVideoFrame a, b, out;
  GstBuffer *buffer;
  GstCaps *caps;

  gst_video_info_from_caps (&info, gst_sample_get_caps (left));
  gst_video_info_set_format (&wide, GST_VIDEO_FORMAT_RGBA, info.width * 2,
      info.height);
  buffer = gst_buffer_new_allocate (NULL, wide.size, NULL);
  gst_video_frame_map (&a, &info, gst_sample_get_buffer (left), GST_MAP_READ);
  gst_video_frame_map (&b, &info, gst_sample_get_buffer (right), GST_MAP_READ);
  gst_video_frame_map (&out, &wide, buffer, GST_MAP_WRITE);
  for (gint y = 0; y < info.height; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&out, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&out, 0);
    memcpy (row, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&a, 0), info.width * 4);
    memcpy (row + info.width * 4, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, 0), info.width * 4);
  }
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&b);
  gst_video_frame_unmap (&a);
  caps = gst_video_info_to_caps (&wide);
  GstSample *sample = gst_sample_new (buffer, caps, NULL, NULL);
  gst_caps_unref (caps);
  gst_buffer_unref (buffer);
  return sample;
}

/* Writes the PNG to `path`, relative to the current directory, and names it
 * in full. */
static gboolean
write_png (Demo * d, const gchar * path)
{
  gchar *full_path = g_canonicalize_filename (path, NULL);
  GError *error = NULL;
  GstSample *left = NULL, *right = NULL, *wide = NULL, *png = NULL;
  GstCaps *png_caps = gst_caps_new_empty_simple ("image/png");
  gboolean ok = FALSE;
  GstMapInfo map;

  if (!d->snapshot.original || !d->snapshot.filtered) {
    g_printerr ("no frame %" G_GUINT64_FORMAT " to picture\n",
        d->snapshot.index);
    gst_caps_unref (png_caps);
    g_free (full_path);
    return FALSE;
  }
  if ((left = to_rgba (d->snapshot.original, &error))
      && (right = to_rgba (d->snapshot.filtered, &error))) {
    wide = side_by_side_sample (left, right);
    png = gst_video_convert_sample (wide, png_caps, GST_SECOND * 10, &error);
  }
  if (png && gst_buffer_map (gst_sample_get_buffer (png), &map, GST_MAP_READ)) {
    ok = g_file_set_contents (full_path, (const gchar *) map.data, map.size,
        &error);
    gst_buffer_unmap (gst_sample_get_buffer (png), &map);
  }
  if (ok)
    g_print ("picture of frame %" G_GUINT64_FORMAT " (original | filtered): "
        "%s\n", d->snapshot.index, full_path);
  else
    g_printerr ("could not write %s: %s\n", full_path,
        error ? error->message : "no PNG encoder");
  g_clear_error (&error);
  g_clear_pointer (&left, gst_sample_unref);
  g_clear_pointer (&right, gst_sample_unref);
  g_clear_pointer (&wide, gst_sample_unref);
  g_clear_pointer (&png, gst_sample_unref);
  gst_caps_unref (png_caps);
  g_free (full_path);
  return ok;
}

/* ---- the bus ----------------------------------------------------------- */

static void
record_frame (Demo * d, const GstStructure * s)
{
  guint64 frame = 0, kernel = 0, up = 0, down = 0;
  guint copies = 0;
  gchar *settings = describe_settings (d->filter, s);

  gst_structure_get (s, "frame", G_TYPE_UINT64, &frame, "kernel-ns",
      G_TYPE_UINT64, &kernel, "upload-ns", G_TYPE_UINT64, &up, "download-ns",
      G_TYPE_UINT64, &down, "copies", G_TYPE_UINT, &copies, NULL);
  d->frames_timed++;
  d->last_frame_us = g_get_monotonic_time ();
  if (!d->first_frame_us)
    d->first_frame_us = d->last_frame_us;
  g_print ("frame %4" G_GUINT64_FORMAT "  kernel %7.3f ms  upload %6.3f ms  "
      "download %6.3f ms  copies %u  %s\n", frame, kernel / 1e6, up / 1e6,
      down / 1e6, copies, settings);
  g_free (settings);
  if (d->window)
    update_overlay (d, s, kernel);
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Demo *d = user_data;
  const GstStructure *s = gst_message_get_structure (msg);
  GError *error = NULL;
  gchar *debug = NULL;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:
      if (gst_structure_has_name (s, "clfilter-stats"))
        record_frame (d, s);
      else if (gst_structure_has_name (s, "clfilter-summary")) {
        g_clear_pointer (&d->summary, gst_structure_free);
        d->summary = gst_structure_copy (s);
      }
      break;
    case GST_MESSAGE_ERROR:
      gst_message_parse_error (msg, &error, &debug);
      g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME
          (GST_MESSAGE_SRC (msg)), error->message, debug ? debug : "");
      g_clear_error (&error);
      g_free (debug);
      d->status = 1;
      g_main_loop_quit (d->loop);
      break;
    case GST_MESSAGE_QOS:
      if (GST_MESSAGE_SRC (msg) == GST_OBJECT (d->filter)) {
        GstFormat format;
        guint64 processed, dropped;

        gst_message_parse_qos_stats (msg, &format, &processed, &dropped);
        if (format == GST_FORMAT_BUFFERS && dropped != (guint64) - 1)
          d->frames_late = MAX (d->frames_late, dropped);
      }
      break;
    case GST_MESSAGE_APPLICATION:      /* --frames reached */
      gst_element_send_event (d->pipeline, gst_event_new_eos ());
      break;
    case GST_MESSAGE_EOS:
      g_main_loop_quit (d->loop);
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

/* The movie's frame rate, from the caps the filter negotiated. */
static gdouble
negotiated_framerate (GstElement * filter)
{
  GstPad *pad = gst_element_get_static_pad (filter, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gint num = 0, den = 1;

  if (caps) {
    gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
        "framerate", &num, &den);
    gst_caps_unref (caps);
  }
  gst_object_unref (pad);
  return num > 0 && den > 0 ? (gdouble) num / den : 30.0;
}

/* The video format negotiated on the filter's pad, or "none". */
static gchar *
negotiated_format (GstElement * filter, const gchar * pad_name)
{
  GstPad *pad = gst_element_get_static_pad (filter, pad_name);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  const gchar *format = caps ?
      gst_structure_get_string (gst_caps_get_structure (caps, 0), "format") :
      NULL;
  gchar *copy = g_strdup (format ? format : "none");

  if (caps)
    gst_caps_unref (caps);
  gst_object_unref (pad);
  return copy;
}

static void
add_probe (GstElement * element, const gchar * pad_name, GstPadProbeType type,
    GstPadProbeCallback callback, gpointer data)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);
  gst_pad_add_probe (pad, type, callback, data, NULL);
  gst_object_unref (pad);
}

/* The window's title.  ximagesink and xvimagesink name the window they
 * make after the program (g_get_application_name: clfilter-demo), and
 * ximagesink sets its _NET_WM_PID.  glimagesink, which autovideosink
 * takes where the GL plugins are installed and there is no XVideo (Xvfb,
 * many VMs), names its X window "OpenGL renderer".  So on X11 the demo
 * gives its window, whichever of these sinks made it, the program's name,
 * class and process ID.  glimagesink asks for a window handle
 * (prepare-window-handle) right after it made its window and before it
 * maps it, in the thread that sets the pipeline's state; the X sinks say
 * which window they made (have-window-handle) once they mapped it. */
#ifdef CLF_DEMO_X11_TITLE
static void
title_x11_window (guintptr handle)
{
  const gchar *name = g_get_application_name ();
  Window window = (Window) handle;
  Display *display = XOpenDisplay (NULL);
  XClassHint *hint;
  long pid = (long) getpid ();

  if (!display)
    return;
  XStoreName (display, window, name);
  XChangeProperty (display, window, XInternAtom (display, "_NET_WM_NAME",
          False), XInternAtom (display, "UTF8_STRING", False), 8,
      PropModeReplace, (const unsigned char *) name, (int) strlen (name));
  XChangeProperty (display, window, XInternAtom (display, "_NET_WM_PID",
          False), XA_CARDINAL, 32, PropModeReplace,
      (const unsigned char *) &pid, 1);
  hint = XAllocClassHint ();
  if (hint) {
    hint->res_name = (char *) name;
    hint->res_class = (char *) "GStreamer";
    XSetClassHint (display, window, hint);
    XFree (hint);
  }
  XCloseDisplay (display);      /* sends the requests */
}

/* glimagesink's window on X11, or 0. */
static guintptr
gl_x11_window (GObject * sink)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (sink),
      "context");
  GstGLContext *context = NULL;
  GstGLWindow *window;
  guintptr handle = 0;

  if (!pspec || !g_type_is_a (pspec->value_type, GST_TYPE_GL_CONTEXT))
    return 0;
  g_object_get (sink, "context", &context, NULL);
  if (!context)
    return 0;
  window = gst_gl_context_get_window (context);
  if (window && !strcmp (G_OBJECT_TYPE_NAME (window), "GstGLWindowX11"))
    handle = gst_gl_window_get_window_handle (window);
  g_clear_object (&window);
  gst_object_unref (context);
  return handle;
}

static GstBusSyncReply
title_window (GstBus * bus, GstMessage * msg, gpointer data)
{
  GstObject *src = GST_MESSAGE_SRC (msg);
  const GstStructure *s = gst_message_get_structure (msg);
  GstElementFactory *factory;
  guint64 handle = 0;

  if (gst_is_video_overlay_prepare_window_handle_message (msg))
    handle = gl_x11_window (G_OBJECT (src));
  else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
      && gst_structure_has_name (s, "have-window-handle")
      && GST_IS_ELEMENT (src)
      && (factory = gst_element_get_factory (GST_ELEMENT (src)))
      && (!strcmp (GST_OBJECT_NAME (factory), "ximagesink")
          || !strcmp (GST_OBJECT_NAME (factory), "xvimagesink")))
    gst_structure_get_uint64 (s, "window-handle", &handle);
  if (handle)
    title_x11_window ((guintptr) handle);
  return GST_BUS_PASS;
}
#endif

int
main (int argc, char **argv)
{
  Options o = { NULL, NULL, 7, 2.0, 1.0, NULL, NULL, 0, FALSE, NULL };
  GOptionEntry entries[] = {
    {"mode", 0, 0, G_OPTION_ARG_STRING, &o.mode,
        "box, separable, sliding, laplace, convolve, gaussian or unsharp "
          "(default laplace)", "M"},
    {"preset", 0, 0, G_OPTION_ARG_STRING, &o.preset,
          "convolve's kernel: one of the filter's presets, which "
          "gst-inspect-1.0 clfilter lists (default: the filter's, sharpen)",
        "P"},
    {"radius", 0, 0, G_OPTION_ARG_INT, &o.radius,
        "blur radius, 0..1023 (default 7)", "R"},
    {"sigma", 0, 0, G_OPTION_ARG_DOUBLE, &o.sigma,
        "gaussian's and unsharp's sigma, 0..250 (default 2)", "S"},
    {"amount", 0, 0, G_OPTION_ARG_DOUBLE, &o.amount,
        "unsharp's amount, -2..10 (default 1)", "A"},
    {"border", 0, 0, G_OPTION_ARG_STRING, &o.border,
        "clamp or mirror (default clamp)", "B"},
    {"device", 0, 0, G_OPTION_ARG_STRING, &o.device,
        "OpenCL device: auto, gpu, cpu, P:D or part of a name", "D"},
    {"frames", 0, 0, G_OPTION_ARG_INT, &o.frames,
        "stop after this many frames (default: the whole movie)", "N"},
    {"headless", 0, 0, G_OPTION_ARG_NONE, &o.headless,
        "no window, even with a display; run as fast as possible", NULL},
    {"png", 0, 0, G_OPTION_ARG_FILENAME, &o.png,
          "headless: where the picture goes (default clfilter-demo-MODE.png "
          "in the temporary directory: $TMPDIR, else /tmp)",
        "PATH"},
    {NULL}
  };
  GOptionContext *context = g_option_context_new ("MOVIE");
  GError *error = NULL;
  Demo d = { 0 };
  GstBus *bus;
  gchar *desc;

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
  if (!o.png) {
    gchar *name = g_strdup_printf ("clfilter-demo-%s.png", o.mode);
    o.png = g_build_filename (g_get_tmp_dir (), name, NULL);
    g_free (name);
  }

  d.window = !o.headless && has_display ();
  d.frame_limit = (guint64) MAX (o.frames, 0);
  /* The pictured frame: a second in, or the middle of a shorter run. */
  d.snapshot.index = o.frames > 0 ? MIN (30, o.frames / 2) : 30;
  desc = pipeline_description (&o, argv[1], d.window);
  g_print ("pipeline: %s\n", desc);
  d.pipeline = gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS,
      &error);
  if (!d.pipeline) {
    g_printerr ("cannot build the pipeline: %s%s\n", error->message,
        g_error_matches (error, GST_PARSE_ERROR,
            GST_PARSE_ERROR_NO_SUCH_ELEMENT)
        ? " (is GST_PLUGIN_PATH set to the build's gst folder? "
        "examples/demo.sh sets it)" : "");
    g_clear_error (&error);
    return 1;
  }
  d.decoded = gst_bin_get_by_name (GST_BIN (d.pipeline), "decoded");
  d.filter = gst_bin_get_by_name (GST_BIN (d.pipeline), "filter");
  if (d.frame_limit > 0)
    add_probe (d.decoded, "src", GST_PAD_PROBE_TYPE_BUFFER, limit_frames, &d);
  add_probe (d.filter, "sink", GST_PAD_PROBE_TYPE_BUFFER, keep_snapshot, &d);
  add_probe (d.filter, "src", GST_PAD_PROBE_TYPE_BUFFER, keep_snapshot, &d);
  if (d.window) {
    d.text = gst_bin_get_by_name (GST_BIN (d.pipeline), "text");
    d.mixer = gst_bin_get_by_name (GST_BIN (d.pipeline), "mixer");
    add_probe (d.text, "src", GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, watch_keys,
        &d);
    g_print ("keys: 1 box  2 separable  3 sliding  4 laplace  5 convolve  "
        "6 gaussian  7 unsharp  p preset  +/- radius (gaussian, unsharp: "
        "sigma)  a/z amount  b border  s side by side  q quit\n");
  }

  d.loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (d.pipeline);
  gst_bus_add_watch (bus, on_message, &d);
#ifdef CLF_DEMO_X11_TITLE
  if (d.window)
    gst_bus_set_sync_handler (bus, title_window, NULL, NULL);
#endif
  if (gst_element_set_state (d.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    d.status = 1;               /* the error message follows on the bus */
  g_main_loop_run (d.loop);
  d.framerate = negotiated_framerate (d.filter);
  d.format_in = negotiated_format (d.filter, "sink");
  d.format_out = negotiated_format (d.filter, "src");
  gst_element_set_state (d.pipeline, GST_STATE_NULL);

  print_summary (&d);
  if (!d.window && d.status == 0 && !write_png (&d, o.png))
    d.status = 1;

  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  g_main_loop_unref (d.loop);
  g_clear_pointer (&d.snapshot.original, gst_sample_unref);
  g_clear_pointer (&d.snapshot.filtered, gst_sample_unref);
  g_clear_object (&d.text);
  g_clear_object (&d.mixer);
  gst_object_unref (d.filter);
  gst_object_unref (d.decoded);
  gst_object_unref (d.pipeline);
  g_clear_pointer (&d.summary, gst_structure_free);
  g_free (d.format_in);
  g_free (d.format_out);
  g_free (desc);
  g_free (o.mode);
  g_free (o.preset);
  g_free (o.border);
  g_free (o.device);
  g_free (o.png);
  return d.status;
}
