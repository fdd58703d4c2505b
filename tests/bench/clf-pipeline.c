/* clf-pipeline: frames per second of whole pipelines with a consumer that
 * reads every frame, as a sink or an encoder would, side by side.
 *
 *   SOURCE ! X ! appsink   (the application maps each buffer for reading
 *                           and touches a byte every 4 KiB of it)
 *
 * for X = identity (the reference), clfilter alone and a chain of three,
 * each pipeline once a round, in turn; the table gives each one's median
 * over the rounds of: frames per second from PLAYING to the last frame
 * ("whole"); the time to the first frame (what starting the pipeline
 * costs: device, programs, pools); frames per second once frames flow,
 * from the first frame to the last ("flow"); frames per second after a
 * warm-up of a tenth of the frames ("steady": the pools have allocated
 * what frames in flight and the consumer's queue hold, which the first
 * frames of a 4K pipeline wait for, some 15 ms per pinned buffer on an
 * NVIDIA GPU); the consumer's mean time in
 * a map (where a download would show) and with each frame (map, reads,
 * unmap).  The ratios to identity ("vs first") are the medians of each
 * round's ratio, of runs made one after the other: a shared machine's
 * speed drifts between rounds more than between neighbouring runs.
 *
 * With --keep-context, the program does what an application that runs
 * pipeline after pipeline can do to start each in less time: it keeps the
 * "gst.clfilter.engine" context the first clfilter announces (have-context)
 * and sets it on every later pipeline, whose clfilters then share that
 * OpenCL engine instead of opening one each (a device context costs
 * about 0.1 s on an NVIDIA GPU).
 *
 * Usage: clf-pipeline [--rounds N] [--frames N] [--size WxH]
 *                     [--format F] [--device D] [--keep-context] [X ...]
 * Without X: identity, "clfilter mode=laplace", "clfilter mode=sliding
 * radius=7" and three clfilters in a row.  GST_PLUGIN_PATH must name the
 * build's gst/ directory (tests/bench/run.sh sets it).
 */
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct
{
  guint rounds, frames, width, height;
  const gchar *format, *device;
  GPtrArray *filters;           /* gchar *: what goes between source and sink */
  gboolean keep_context;
  GstContext *engine_context;   /* with keep_context: the one kept */
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

/* One run's results. */
typedef struct
{
  gdouble seconds;              /* PLAYING to the last frame consumed */
  gdouble first_ms;             /* PLAYING to the first frame consumed */
  gdouble flowing_fps;          /* frames after the first, per second */
  gdouble steady_fps;           /* frames after the warm-up, per second */
  gdouble map_ms;               /* the consumer's mean time in a map */
  gdouble consume_ms;           /* its mean time with each frame */
  gdouble whole_ratio, flowing_ratio, steady_ratio;     /* to the round's
                                                         * first pipeline */
} Run;

/* Keeps the first engine context a clfilter of `pipeline` announced (the
 * bus holds the have-context messages until the pipeline stops). */
static void
keep_engine_context (Options * o, GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_HAVE_CONTEXT))) {
    GstContext *context;

    gst_message_parse_have_context (msg, &context);
    if (!o->engine_context && !g_strcmp0 (gst_context_get_context_type
            (context), "gst.clfilter.engine"))
      o->engine_context = gst_context_ref (context);
    gst_context_unref (context);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
}

/* Runs the pipeline once; FALSE on failure. */
static gboolean
run_once (Options * o, const gchar * filter, Run * run)
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
  gint64 start, first = 0, warm = 0, map_us = 0, consume_us = 0;
  guint warm_up = MAX (o->frames / 10, 1);
  gboolean ok = FALSE;

  if (!pipeline) {
    g_printerr ("clf-pipeline: %s: %s\n", desc, error->message);
    g_clear_error (&error);
    g_free (desc);
    return FALSE;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  if (o->engine_context)
    gst_element_set_context (pipeline, o->engine_context);
  start = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    gint64 pulled = g_get_monotonic_time ();

    if (consume (gst_sample_get_buffer (sample), &map_us) == G_MAXUINT)
      g_printerr ("clf-pipeline: a frame could not be mapped\n");
    gst_sample_unref (sample);
    consume_us += g_get_monotonic_time () - pulled;
    if (frames++ == 0)
      first = g_get_monotonic_time ();
    if (frames == warm_up)
      warm = g_get_monotonic_time ();
  }
  if (frames == o->frames && frames > warm_up) {
    gint64 end = g_get_monotonic_time ();
    run->seconds = (end - start) / 1e6;
    run->first_ms = (first - start) / 1e3;
    run->flowing_fps = (frames - 1) / ((end - first) / 1e6);
    run->steady_fps = (frames - warm_up) / ((end - warm) / 1e6);
    run->map_ms = map_us / 1e3 / frames;
    run->consume_ms = consume_us / 1e3 / frames;
    ok = TRUE;
  } else
    g_printerr ("clf-pipeline: %s: %u of %u frames came out\n", desc, frames,
        o->frames);
  if (o->keep_context)
    keep_engine_context (o, pipeline);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  return ok;
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
  o->keep_context = FALSE;
  o->engine_context = NULL;
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
    else if (!strcmp (argv[i], "--keep-context"))
      o->keep_context = TRUE;
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

/* The median over `runs` (an array of Run) of the gdouble at `offset`. */
static gdouble
median_of (GArray * runs, gsize offset)
{
  GArray *values = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gdouble m;

  for (guint i = 0; i < runs->len; i++)
    g_array_append_val (values, G_STRUCT_MEMBER (gdouble,
            &g_array_index (runs, Run, i), offset));
  m = values->len ? clf_test_median ((gdouble *) values->data, values->len)
      : -1;
  g_array_unref (values);
  return m;
}

int
main (int argc, char **argv)
{
  Options o;
  GArray **runs;
  Run run;
  gboolean failed = FALSE;

  gst_init (&argc, &argv);
  if (!parse_options (argc, argv, &o)) {
    g_printerr ("usage: clf-pipeline [--rounds N] [--frames N] [--size WxH] "
        "[--format F] [--device D] [--keep-context] [X ...]\n");
    return 2;
  }
  runs = g_new (GArray *, o.filters->len);
  for (guint f = 0; f < o.filters->len; f++)
    runs[f] = g_array_new (FALSE, FALSE, sizeof (Run));
  /* A first run of each, not counted: programs compile, caches fill. */
  for (guint f = 0; f < o.filters->len; f++)
    run_once (&o, g_ptr_array_index (o.filters, f), &run);
  for (guint r = 0; r < o.rounds; r++) {
    Run first = { 0 };

    for (guint f = 0; f < o.filters->len; f++) {
      if (!run_once (&o, g_ptr_array_index (o.filters, f), &run)) {
        failed = TRUE;
        continue;
      }
      if (f == 0)
        first = run;
      /* Ratios of this round's runs; none where identity failed. */
      run.whole_ratio = first.seconds > 0 ? first.seconds / run.seconds : -1;
      run.flowing_ratio = first.flowing_fps > 0 ?
          run.flowing_fps / first.flowing_fps : -1;
      run.steady_ratio = first.steady_fps > 0 ?
          run.steady_fps / first.steady_fps : -1;
      g_array_append_val (runs[f], run);
    }
  }

  g_print ("videotestsrc pattern=black ! %s %ux%u ! X ! appsink (maps each "
      "frame, reads a byte every 4 KiB)\n%u frames, median of %u rounds; "
      "whole: PLAYING to the last frame, flow: first frame to the last, "
      "steady: frame %u to the last%s\n", o.format, o.width, o.height,
      o.frames, o.rounds, MAX (o.frames / 10, 1), o.keep_context ?
      "\nclfilters share the engine of the first pipeline (--keep-context)"
      : "");
  g_print ("%-64s %9s %8s %8s %9s %8s %10s %8s %7s %7s\n", "X",
      "whole fps", "vs first", "first ms", "flow fps", "vs first",
      "steady fps", "vs first", "map ms", "use ms");
  for (guint f = 0; f < o.filters->len; f++) {
    gdouble s = median_of (runs[f], G_STRUCT_OFFSET (Run, seconds));

    g_print ("%-64s %9.1f %7.0f%% %8.1f %9.1f %7.0f%% %10.1f %7.0f%% %7.3f "
        "%7.3f\n",
        (const gchar *) g_ptr_array_index (o.filters, f),
        s > 0 ? o.frames / s : 0,
        100 * median_of (runs[f], G_STRUCT_OFFSET (Run, whole_ratio)),
        median_of (runs[f], G_STRUCT_OFFSET (Run, first_ms)),
        median_of (runs[f], G_STRUCT_OFFSET (Run, flowing_fps)),
        100 * median_of (runs[f], G_STRUCT_OFFSET (Run, flowing_ratio)),
        median_of (runs[f], G_STRUCT_OFFSET (Run, steady_fps)),
        100 * median_of (runs[f], G_STRUCT_OFFSET (Run, steady_ratio)),
        median_of (runs[f], G_STRUCT_OFFSET (Run, map_ms)),
        median_of (runs[f], G_STRUCT_OFFSET (Run, consume_ms)));
    g_array_unref (runs[f]);
  }
  g_free (runs);
  g_ptr_array_unref (o.filters);
  if (o.engine_context)
    gst_context_unref (o.engine_context);
  return failed ? 1 : 0;
}
