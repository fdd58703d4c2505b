/* clf-pipeline: frames per second of whole pipelines with a consumer that
 * reads every frame, as a sink or an encoder would, side by side.
 *
 *   SOURCE ! X ! appsink   (the application maps each buffer for reading
 *                           and touches a byte every 4 KiB of it)
 *
 * for X = identity (the reference), clfilter alone and a chain of three,
 * each pipeline once a round, in turn; the table gives each one's median
 * over the rounds, its ratio to identity's median, and the median of the
 * consumer's mean time in a map (where a download would show).
 *
 * Usage: clf-pipeline [--rounds N] [--frames N] [--size WxH]
 *                     [--format F] [--device D] [X ...]
 * Without X: identity, "clfilter mode=laplace", "clfilter mode=sliding
 * radius=7" and three clfilters in a row.  GST_PLUGIN_PATH must name the
 * build's gst/ directory (tests/bench/run.sh sets it).
 */
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  guint rounds, frames, width, height;
  const gchar *format, *device;
  GPtrArray *filters;           /* gchar *: what goes between source and sink */
} Options;

/* Maps the buffer for reading and touches a byte every 4 KiB of each of
 * its memories: the pixels must be where the CPU reads them.  Adds the
 * microseconds spent in the maps to `*map_us`. */
static guint
consume (GstBuffer * buf, gint64 * map_us)
{
  guint sum = 0;

  for (guint m = 0; m < gst_buffer_n_memory (buf); m++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, m);
    GstMapInfo map;
    gint64 start = g_get_monotonic_time ();
    gboolean mapped = gst_memory_map (mem, &map, GST_MAP_READ);

    *map_us += g_get_monotonic_time () - start;
    if (!mapped)
      return G_MAXUINT;
    for (gsize i = 0; i < map.size; i += 4096)
      sum += map.data[i];
    gst_memory_unmap (mem, &map);
  }
  return sum;
}

/* Seconds from PLAYING to the last frame consumed; < 0 on failure.  The
 * consumer's mean time in a map, in ms, goes to `*map_ms`. */
static gdouble
run_once (const Options * o, const gchar * filter, gdouble * map_ms)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=black "
      "! video/x-raw,format=%s,width=%u,height=%u,framerate=30/1 ! %s ! "
      "appsink name=sink sync=false max-buffers=2", o->frames, o->format,
      o->width, o->height, filter);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *sink;
  GstSample *sample;
  guint frames = 0;
  gint64 start, map_us = 0;
  gdouble seconds = -1;

  if (!pipeline) {
    g_printerr ("clf-pipeline: %s: %s\n", desc, error->message);
    g_clear_error (&error);
    g_free (desc);
    return -1;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  start = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    if (consume (gst_sample_get_buffer (sample), &map_us) == G_MAXUINT)
      g_printerr ("clf-pipeline: a frame could not be mapped\n");
    gst_sample_unref (sample);
    frames++;
  }
  if (frames == o->frames) {
    seconds = (g_get_monotonic_time () - start) / 1e6;
    *map_ms = map_us / 1e3 / frames;
  }
  else
    g_printerr ("clf-pipeline: %s: %u of %u frames came out\n", desc, frames,
        o->frames);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  return seconds;
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return (x > y) - (x < y);
}

static gdouble
median (GArray * values)
{
  g_array_sort (values, compare_doubles);
  return values->len ? g_array_index (values, gdouble,
      (values->len - 1) / 2) : -1;
}

static gboolean
parse_options (int argc, char **argv, Options * o)
{
  o->rounds = 5;
  o->frames = 300;
  o->width = 3840;
  o->height = 2160;
  o->format = "RGBA";
  o->device = "auto";
  o->filters = g_ptr_array_new_with_free_func (g_free);
  for (int i = 1; i < argc; i++) {
    const gchar *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp (argv[i], "--rounds") && value)
      o->rounds = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--frames") && value)
      o->frames = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--size") && value) {
      if (sscanf (argv[++i], "%ux%u", &o->width, &o->height) != 2)
        return FALSE;
    } else if (!strcmp (argv[i], "--format") && value)
      o->format = argv[++i];
    else if (!strcmp (argv[i], "--device") && value)
      o->device = argv[++i];
    else if (argv[i][0] != '-')
      g_ptr_array_add (o->filters, g_strdup (argv[i]));
    else
      return FALSE;
  }
  if (o->filters->len == 0) {
    const gchar *d = o->device;
    g_ptr_array_add (o->filters, g_strdup ("identity"));
    g_ptr_array_add (o->filters, g_strdup_printf ("clfilter device=%s "
            "mode=laplace", d));
    g_ptr_array_add (o->filters, g_strdup_printf ("clfilter device=%s "
            "mode=sliding radius=7", d));
    g_ptr_array_add (o->filters, g_strdup_printf ("clfilter device=%s "
            "mode=laplace ! clfilter device=%s mode=sliding radius=7 ! "
            "clfilter device=%s mode=laplace", d, d, d));
  }
  return o->rounds > 0 && o->frames > 0 && o->width > 0 && o->height > 0;
}

int
main (int argc, char **argv)
{
  Options o;
  GArray **runs, **maps;
  gdouble reference = -1, map_ms;
  gboolean failed = FALSE;

  gst_init (&argc, &argv);
  if (!parse_options (argc, argv, &o)) {
    g_printerr ("usage: clf-pipeline [--rounds N] [--frames N] [--size WxH] "
        "[--format F] [--device D] [X ...]\n");
    return 2;
  }
  runs = g_new (GArray *, o.filters->len);
  maps = g_new (GArray *, o.filters->len);
  for (guint f = 0; f < o.filters->len; f++) {
    runs[f] = g_array_new (FALSE, FALSE, sizeof (gdouble));
    maps[f] = g_array_new (FALSE, FALSE, sizeof (gdouble));
  }
  /* A first run of each, not counted: programs compile, caches fill. */
  for (guint f = 0; f < o.filters->len; f++)
    run_once (&o, g_ptr_array_index (o.filters, f), &map_ms);
  for (guint r = 0; r < o.rounds; r++)
    for (guint f = 0; f < o.filters->len; f++) {
      gdouble s = run_once (&o, g_ptr_array_index (o.filters, f), &map_ms);
      if (s > 0) {
        g_array_append_val (runs[f], s);
        g_array_append_val (maps[f], map_ms);
      } else
        failed = TRUE;
    }

  g_print ("videotestsrc pattern=black ! %s %ux%u ! X ! appsink (maps each "
      "frame, reads a byte every 4 KiB)\n%u frames, median of %u rounds\n",
      o.format, o.width, o.height, o.frames, o.rounds);
  g_print ("%-78s %9s %8s %9s %7s\n", "X", "frames/s", "ms/frame",
      "vs first", "map ms");
  for (guint f = 0; f < o.filters->len; f++) {
    gdouble s = median (runs[f]);
    gdouble fps = s > 0 ? o.frames / s : 0;
    if (f == 0)
      reference = fps;
    g_print ("%-78s %9.1f %8.2f %8.0f%% %7.3f\n",
        (const gchar *) g_ptr_array_index (o.filters, f), fps,
        fps > 0 ? 1000 / fps : 0, reference > 0 ? 100 * fps / reference : 0,
        median (maps[f]));
    g_array_unref (runs[f]);
    g_array_unref (maps[f]);
  }
  g_free (runs);
  g_free (maps);
  g_ptr_array_unref (o.filters);
  return failed ? 1 : 0;
}
