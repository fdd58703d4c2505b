/* Soak: a long run of clfilter while its settings change under it.
 *
 *   videotestsrc num-buffers=N pattern=smpte horizontal-speed=7
 *     ! video/x-raw,format=F,width=1280,height=720,framerate=30/1
 *     ! clfilter ! fakesink sync=false
 *
 * A storm thread sets mode, radius or border every 1 to 5 ms while frames
 * flow as fast as they can.  Pad probes on clfilter count the frames going
 * in and out and check that each output carries its input's timestamps,
 * offset and flags on an unbroken 30/1 timeline, and a GstClFilterMeta that
 * names the frame and the same settings as its clfilter-stats message.
 * Every K-th frame is copied on both sides and compared byte for byte with
 * the C reference (tests/reference.c) for the settings its meta names,
 * there and then: the pipeline waits, and the time is reported apart.
 * Resident memory (VmRSS) is read after a warm-up and at the end.
 *
 * Exit status 0 only when every frame came out, every check held, no error
 * or warning was posted, and VmRSS grew by at most --max-growth KiB.
 *
 * With frames in flight (--frames-in-flight, or the element's default on
 * a discrete GPU) outputs leave behind their inputs, from the element's
 * output thread: each output is matched with the oldest input still in
 * the element.
 *
 * Usage: clf-soak [--frames N] [--format F] [--device D] [--check-every K]
 *                 [--warmup W] [--max-growth KIB] [--frames-in-flight N]
 *                 [--discrete]
 * --discrete keeps frames as on a discrete GPU whatever the device
 * (through the test layer, tests/layer/, with CLF_TEST_HOST_UNIFIED=0:
 * device buffers with pinned staging, and frames-in-flight 3 by
 * default).
 */
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/clfilter/gstclfiltermeta.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "framecheck.h"

#define WIDTH 1280
#define HEIGHT 720
#define FPS 30
/* Problems of each kind printed in full; the rest are only counted. */
#define MAX_PRINTED 10
#define N_TENTHS 10

/* The largest radius the storm sets in each mode, in ClfMode order, so
 * that one frame stays cheap.  box reads (2r+1)^2 samples per pixel:
 * a 720p I420 frame takes 21 ms at r=1 and 62 ms at r=2 on PoCL here.
 * separable reads 2(2r+1): 3 ms at r=15, 14 ms at r=31.  sliding costs at
 * most 12 ms at any radius, and laplace ignores it: those two get the
 * property's whole range, radii larger than the frame included. */
static const guint max_radius[] = { 1, 15, 1023, 1023 };

#define N_MODES G_N_ELEMENTS (max_radius)

typedef enum
{
  PROBLEM_LOST,                 /* a frame in without one out, or the reverse */
  PROBLEM_TIMELINE,             /* timestamps, offset or flags */
  PROBLEM_META,                 /* meta or clfilter-stats */
  PROBLEM_MISMATCH,             /* bytes differ from the reference */
  PROBLEM_BUS,                  /* an error or warning message */
  N_PROBLEMS
} ProblemKind;

static const gchar *const problem_names[] = { "lost frames", "timeline",
  "meta/stats", "mismatches", "bus errors/warnings"
};

/* A frame's planes with their rows packed. */
typedef struct
{
  ClfHostFrame host;
  guint8 *data;
} FrameCopy;

/* Inputs in clfilter at most (its frames-in-flight are at most 16; twice
 * that and two, to spare): one more is a frame lost. */
#define MAX_IN_ELEMENT 34

/* An input buffer clfilter is working on: what its output must repeat. */
typedef struct
{
  guint64 index;
  GstClockTime pts, dts, duration;
  guint64 offset;
  GstBufferFlags flags;
  gboolean copied;              /* into Soak.check_in, to be checked */
} InFrame;

/* The settings a clfilter-stats message gave a frame. */
typedef struct
{
  guint64 frame, pts;
  gchar *mode, *border;
  guint radius;
  gboolean passthrough;         /* a blur of radius 0: no meta, no kernel */
} StatsRecord;

typedef struct
{
  /* Set up once. */
  guint frames, check_every, warmup;
  guint64 max_growth_kib;
  const FormatCase *fc;
  GstVideoInfo info;
  ClfFrameFormat format;
  GstElement *pipeline, *filter;

  /* The inputs in clfilter, oldest first (InFrame), and whether one of
   * them was copied into check_in: the sink pad's probe adds, the source
   * pad's takes (another thread, with frames in flight), under lock. */
  GMutex lock;
  GQueue inside;
  gboolean check_pending;

  /* The probes' and the bus sync handler's (in is the sink pad's). */
  guint64 in, out, stats_messages;
  StatsRecord stats;
  ClfParams previous;
  guint64 per_mode[N_MODES], mirrored, settings_changed;
  guint new_in_memories, new_out_memories;
  gsize rss_start, rss_tenths[N_TENTHS];
  /* Allocated once, so that the checks add nothing to VmRSS as they go. */
  FrameCopy check_in, check_out, check_want;
  guint checked;
  gint64 check_us;

  /* The storm thread's, read after it stops. */
  GThread *storm;
  gint stop;
  guint64 changes[3];           /* mode, radius, border */

  /* Any thread. */
  gint problems[N_PROBLEMS];

  /* The main thread's. */
  GstStructure *summary;
  gsize rss_end;
} Soak;

/* *INDENT-OFF* */
static void problem (Soak * soak, ProblemKind kind, const gchar * format, ...)
    G_GNUC_PRINTF (3, 4);
/* *INDENT-ON* */

static void
problem (Soak * soak, ProblemKind kind, const gchar * format, ...)
{
  va_list args;
  gchar *text;

  if (g_atomic_int_add (&soak->problems[kind], 1) >= MAX_PRINTED)
    return;
  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("clf-soak: %s\n", text);
  g_free (text);
}

/* VmRSS from /proc/self/status, in KiB (0 if it cannot be read). */
static gsize
resident_kib (void)
{
  gchar *status = NULL, *line;
  gsize kib = 0;

  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL)
      && (line = strstr (status, "\nVmRSS:")))
    kib = g_ascii_strtoull (line + strlen ("\nVmRSS:"), NULL, 10);
  g_free (status);
  return kib;
}

static GstClockTime
frame_pts (guint64 index)
{
  return gst_util_uint64_scale (index, GST_SECOND, FPS);
}

/* Room for a frame with its planes' rows packed. */
static void
frame_alloc (const ClfFrameFormat * format, FrameCopy * copy)
{
  gsize size = 0;

  memset (&copy->host, 0, sizeof copy->host);
  for (guint i = 0; i < format->n_planes; i++)
    size += clf_frame_format_row_bytes (format, i) *
        clf_frame_format_rows (format, i);
  copy->data = g_malloc (size);
  size = 0;
  for (guint i = 0; i < format->n_planes; i++) {
    copy->host.data[i] = copy->data + size;
    copy->host.stride[i] = clf_frame_format_row_bytes (format, i);
    size += copy->host.stride[i] * clf_frame_format_rows (format, i);
  }
}

/* Copies a buffer's frame into `copy` (from frame_alloc). */
static gboolean
frame_copy (Soak * soak, GstBuffer * buf, FrameCopy * copy)
{
  GstVideoFrame vframe;

  if (!gst_video_frame_map (&vframe, &soak->info, buf, GST_MAP_READ))
    return FALSE;
  for (guint i = 0; i < soak->format.n_planes; i++) {
    const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (&vframe, i);
    gsize row = copy->host.stride[i];

    for (guint y = 0; y < clf_frame_format_rows (&soak->format, i); y++)
      memcpy (copy->host.data[i] + y * row,
          src + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&vframe, i), row);
  }
  gst_video_frame_unmap (&vframe);
  return TRUE;
}

/* Into clfilter: remembers what the output must repeat. */
static GstPadProbeReturn
frame_in (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Soak *soak = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  InFrame *cur = g_new0 (InFrame, 1);
  InFrame *lost = NULL;
  gboolean check;

  cur->index = soak->in++;
  cur->pts = GST_BUFFER_PTS (buf);
  cur->dts = GST_BUFFER_DTS (buf);
  cur->duration = GST_BUFFER_DURATION (buf);
  cur->offset = GST_BUFFER_OFFSET (buf);
  cur->flags = GST_BUFFER_FLAGS (buf);
  if (cur->pts != frame_pts (cur->index))
    problem (soak, PROBLEM_TIMELINE, "input %" G_GUINT64_FORMAT ": pts %"
        GST_TIME_FORMAT ", want %" GST_TIME_FORMAT, cur->index,
        GST_TIME_ARGS (cur->pts), GST_TIME_ARGS (frame_pts (cur->index)));
  g_mutex_lock (&soak->lock);
  /* One copy waits for its output at a time. */
  check = cur->index % soak->check_every == 0 && !soak->check_pending;
  soak->check_pending |= check;
  g_mutex_unlock (&soak->lock);
  cur->copied = check && frame_copy (soak, buf, &soak->check_in);
  if (check && !cur->copied)
    problem (soak, PROBLEM_MISMATCH, "frame %" G_GUINT64_FORMAT ": could "
        "not map the input", cur->index);
  count_new_memories (buf, &soak->new_in_memories);

  g_mutex_lock (&soak->lock);
  if (check && !cur->copied)
    soak->check_pending = FALSE;
  g_queue_push_tail (&soak->inside, cur);
  if (g_queue_get_length (&soak->inside) > MAX_IN_ELEMENT)
    lost = g_queue_pop_head (&soak->inside);
  if (lost && lost->copied)
    soak->check_pending = FALSE;
  g_mutex_unlock (&soak->lock);
  if (lost)
    problem (soak, PROBLEM_LOST, "frame %" G_GUINT64_FORMAT " went into "
        "clfilter and did not come out", lost->index);
  g_free (lost);
  return GST_PAD_PROBE_OK;
}

/* Flags that belong to the stream, which clfilter must pass on. */
#define STREAM_FLAGS (GST_BUFFER_FLAG_LIVE | GST_BUFFER_FLAG_DECODE_ONLY | \
    GST_BUFFER_FLAG_DISCONT | GST_BUFFER_FLAG_RESYNC | \
    GST_BUFFER_FLAG_CORRUPTED | GST_BUFFER_FLAG_MARKER | \
    GST_BUFFER_FLAG_HEADER | GST_BUFFER_FLAG_GAP | \
    GST_BUFFER_FLAG_DROPPABLE | GST_BUFFER_FLAG_DELTA_UNIT)

/* The output repeats its input's timestamps, offset and stream flags
 * (the input's pts was checked on the way in), and is discontinuous only
 * at the start. */
static void
check_timeline (Soak * soak, const InFrame * in, guint64 index, GstBuffer * buf)
{
  GstBufferFlags flags = GST_BUFFER_FLAGS (buf) & STREAM_FLAGS;

  if (GST_BUFFER_PTS (buf) != in->pts || GST_BUFFER_DTS (buf) != in->dts ||
      GST_BUFFER_DURATION (buf) != in->duration ||
      GST_BUFFER_OFFSET (buf) != in->offset)
    problem (soak, PROBLEM_TIMELINE, "frame %" G_GUINT64_FORMAT ": pts %"
        GST_TIME_FORMAT ", duration %" GST_TIME_FORMAT ", offset %"
        G_GUINT64_FORMAT " out; %" GST_TIME_FORMAT ", %" GST_TIME_FORMAT
        ", %" G_GUINT64_FORMAT " in", index,
        GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
        GST_TIME_ARGS (GST_BUFFER_DURATION (buf)), GST_BUFFER_OFFSET (buf),
        GST_TIME_ARGS (in->pts), GST_TIME_ARGS (in->duration), in->offset);
  if (flags != (in->flags & STREAM_FLAGS) ||
      (in->index > 0 && (flags & GST_BUFFER_FLAG_DISCONT)))
    problem (soak, PROBLEM_TIMELINE, "frame %" G_GUINT64_FORMAT ": flags "
        "0x%x out, 0x%x in", index, flags, in->flags & STREAM_FLAGS);
}

static gboolean
params_from_names (const gchar * mode, guint radius, const gchar * border,
    ClfParams * params)
{
  gint m = -1, b = -1;

  for (gint i = 0; i < (gint) N_MODES; i++)
    if (!g_strcmp0 (mode, clf_mode_name ((ClfMode) i)))
      m = i;
  for (gint i = 0; i < 2; i++)
    if (!g_strcmp0 (border, clf_border_name ((ClfBorder) i)))
      b = i;
  params->mode = (ClfMode) m;
  params->radius = radius;
  params->border = (ClfBorder) b;
  return m >= 0 && b >= 0;
}

/* A frame passed through (a blur of radius 0): its message names it, and
 * says so for a radius of 0; the buffer is the input, with no meta. */
static gboolean
check_passed_through (Soak * soak, guint64 index, GstBuffer * buf,
    ClfParams * params)
{
  const StatsRecord *st = &soak->stats;

  if (st->frame != index || st->pts != GST_BUFFER_PTS (buf) || st->radius
      || !params_from_names (st->mode, st->radius, st->border, params)
      || params->mode == CLF_MODE_LAPLACE) {
    problem (soak, PROBLEM_META, "frame %" G_GUINT64_FORMAT ": passed "
        "through, but the last clfilter-stats says frame %" G_GUINT64_FORMAT
        " %s r=%u", index, st->frame, st->mode, st->radius);
    return FALSE;
  }
  return TRUE;
}

/* The meta names this frame, and the same settings as its message. */
static gboolean
check_meta (Soak * soak, guint64 index, GstBuffer * buf, ClfParams * params)
{
  GstClFilterMeta *meta = gst_buffer_get_cl_filter_meta (buf);
  const StatsRecord *st = &soak->stats;

  if (st->passthrough)
    return check_passed_through (soak, index, buf, params);
  if (!meta) {
    problem (soak, PROBLEM_META, "frame %" G_GUINT64_FORMAT ": no "
        "GstClFilterMeta", index);
    return FALSE;
  }
  if (meta->frame != index || st->frame != index ||
      st->pts != GST_BUFFER_PTS (buf) || g_strcmp0 (meta->mode, st->mode) ||
      meta->radius != st->radius || g_strcmp0 (meta->border, st->border) ||
      !params_from_names (meta->mode, meta->radius, meta->border, params)) {
    problem (soak, PROBLEM_META, "frame %" G_GUINT64_FORMAT ": meta frame %"
        G_GUINT64_FORMAT " %s r=%u %s, last clfilter-stats frame %"
        G_GUINT64_FORMAT " %s r=%u %s", index, meta->frame, meta->mode,
        meta->radius, meta->border, st->frame, st->mode, st->radius,
        st->border);
    return FALSE;
  }
  return TRUE;
}

/* How often each setting was used, and how often it changed. */
static void
count_settings (Soak * soak, guint64 index, const ClfParams * params)
{
  const ClfParams *prev = &soak->previous;

  soak->per_mode[params->mode]++;
  soak->mirrored += params->border == CLF_BORDER_MIRROR;
  if (index > 0 && (params->mode != prev->mode ||
          params->radius != prev->radius || params->border != prev->border))
    soak->settings_changed++;
  soak->previous = *params;
}

static void
sample_resident (Soak * soak, guint64 done)
{
  guint64 tenth = MAX (soak->frames / N_TENTHS, 1);

  if (done == soak->warmup)
    soak->rss_start = resident_kib ();
  if (done % tenth == 0 && done / tenth <= N_TENTHS)
    soak->rss_tenths[done / tenth - 1] = resident_kib ();
}

/* Compares a plane with the reference's; reports the first difference. */
static gboolean
plane_matches (Soak * soak, guint64 index, const ClfParams * params,
    guint plane)
{
  gsize row = soak->check_out.host.stride[plane];
  gsize size = row * clf_frame_format_rows (&soak->format, plane);
  const guint8 *got = soak->check_out.host.data[plane];
  const guint8 *want = soak->check_want.host.data[plane];
  gsize at = 0;

  if (memcmp (got, want, size) == 0)
    return TRUE;
  while (got[at] == want[at])
    at++;
  problem (soak, PROBLEM_MISMATCH, "frame %" G_GUINT64_FORMAT " (%s r=%u %s)"
      ": plane %u row %" G_GSIZE_FORMAT " byte %" G_GSIZE_FORMAT ": got %u, "
      "the reference %u", index, clf_mode_name (params->mode),
      params->radius, clf_border_name (params->border), plane, at / row,
      at % row, got[at], want[at]);
  return FALSE;
}

/* The output against the reference, from the input copied on its way in. */
static void
check_bytes (Soak * soak, guint64 index, GstBuffer * buf,
    const ClfParams * params)
{
  gint64 start = g_get_monotonic_time ();
  gboolean same = TRUE;

  if (!frame_copy (soak, buf, &soak->check_out)) {
    problem (soak, PROBLEM_MISMATCH, "frame %" G_GUINT64_FORMAT ": could "
        "not map the output", index);
    return;
  }
  clf_ref_filter_frame (params, &soak->format, &soak->check_in.host,
      &soak->check_want.host);
  for (guint i = 0; i < soak->format.n_planes && same; i++)
    same = plane_matches (soak, index, params, i);
  soak->checked++;
  soak->check_us += g_get_monotonic_time () - start;
}

/* Out of clfilter: the output against its input and its message. */
static GstPadProbeReturn
frame_out (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Soak *soak = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 index = soak->out++;
  ClfParams params;
  InFrame *in;

  count_new_memories (buf, &soak->new_out_memories);
  g_mutex_lock (&soak->lock);
  in = g_queue_pop_head (&soak->inside);
  g_mutex_unlock (&soak->lock);
  if (!in) {
    problem (soak, PROBLEM_LOST, "output %" G_GUINT64_FORMAT " came out of "
        "clfilter with no frame in", index);
    return GST_PAD_PROBE_OK;
  }
  check_timeline (soak, in, index, buf);
  if (check_meta (soak, index, buf, &params)) {
    count_settings (soak, index, &params);
    if (in->copied)
      check_bytes (soak, index, buf, &params);
  }
  if (in->copied) {
    g_mutex_lock (&soak->lock);
    soak->check_pending = FALSE;
    g_mutex_unlock (&soak->lock);
  }
  g_free (in);
  sample_resident (soak, index + 1);
  return GST_PAD_PROBE_OK;
}

/* clfilter-stats, in the streaming thread just before the frame's output
 * leaves: kept for frame_out, and dropped so the bus stays short. */
static GstBusSyncReply
read_stats (GstBus * bus, GstMessage * msg, gpointer data)
{
  Soak *soak = data;
  const GstStructure *s = gst_message_get_structure (msg);
  StatsRecord *st = &soak->stats;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT ||
      !gst_structure_has_name (s, "clfilter-stats"))
    return GST_BUS_PASS;
  g_clear_pointer (&st->mode, g_free);
  g_clear_pointer (&st->border, g_free);
  if (!gst_structure_get (s, "frame", G_TYPE_UINT64, &st->frame,
          "pts", G_TYPE_UINT64, &st->pts, "mode", G_TYPE_STRING, &st->mode,
          "radius", G_TYPE_UINT, &st->radius, "border", G_TYPE_STRING,
          &st->border, "passthrough", G_TYPE_BOOLEAN, &st->passthrough, NULL))
    problem (soak, PROBLEM_META, "a clfilter-stats message lacks a field: "
        "%" GST_PTR_FORMAT, s);
  soak->stats_messages++;
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

/* A radius up to `bound`, small ones as likely as large: a random number
 * of bits, then a random radius below that power of two. */
static guint
random_radius (GRand * rng, guint bound)
{
  guint limit = 1u << g_rand_int_range (rng, 0, g_bit_storage (bound) + 1);
  return g_rand_int_range (rng, 0, MIN (limit, bound + 1));
}

static void
storm_set (Soak * soak, guint which, const gchar * name, gint value)
{
  g_object_set (soak->filter, name, value, NULL);
  soak->changes[which]++;
}

/* Changes one setting.  The radius never exceeds the bound of the mode the
 * element might read with it: it is lowered before a switch to a mode with
 * a lower bound, and raised only within the current mode's. */
static void
storm_step (Soak * soak, GRand * rng, guint * mode, guint * radius,
    guint * border)
{
  switch (g_rand_int_range (rng, 0, 3)) {
    case 0:
      *mode = (*mode + g_rand_int_range (rng, 1, N_MODES)) % N_MODES;
      if (*radius > max_radius[*mode]) {
        *radius = random_radius (rng, max_radius[*mode]);
        storm_set (soak, 1, "radius", *radius);
      }
      storm_set (soak, 0, "mode", *mode);
      break;
    case 1:
      *radius = random_radius (rng, max_radius[*mode]);
      storm_set (soak, 1, "radius", *radius);
      break;
    default:
      *border = !*border;
      storm_set (soak, 2, "border", *border);
      break;
  }
}

static gpointer
storm (gpointer data)
{
  Soak *soak = data;
  GRand *rng = g_rand_new ();
  guint mode, radius, border;

  g_object_get (soak->filter, "mode", &mode, "radius", &radius, "border",
      &border, NULL);
  while (!g_atomic_int_get (&soak->stop)) {
    storm_step (soak, rng, &mode, &radius, &border);
    g_usleep (g_rand_int_range (rng, 1000, 5000));
  }
  g_rand_free (rng);
  return NULL;
}

static gboolean
build_pipeline (Soak * soak, const gchar * device)
{
  gchar *launch = g_strdup_printf ("videotestsrc num-buffers=%u "
      "pattern=smpte horizontal-speed=7 ! video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=%d/1 ! clfilter name=f ! fakesink sync=false",
      soak->frames, soak->fc->name, WIDTH, HEIGHT, FPS);
  GError *error = NULL;
  GstPad *sink, *src;

  soak->pipeline = gst_parse_launch (launch, &error);
  g_free (launch);
  if (!soak->pipeline) {
    g_printerr ("clf-soak: %s (is GST_PLUGIN_PATH set to the build's gst "
        "folder?)\n", error->message);
    g_clear_error (&error);
    return FALSE;
  }
  soak->filter = gst_bin_get_by_name (GST_BIN (soak->pipeline), "f");
  g_object_set (soak->filter, "device", device, "mode", CLF_MODE_SLIDING,
      "stats-interval", 1, NULL);
  sink = gst_element_get_static_pad (soak->filter, "sink");
  src = gst_element_get_static_pad (soak->filter, "src");
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, frame_in, soak, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, frame_out, soak, NULL);
  gst_object_unref (sink);
  gst_object_unref (src);
  return TRUE;
}

/* Until EOS or an error; keeps clfilter-summary. */
static void
wait_for_eos (Soak * soak)
{
  GstBus *bus = gst_element_get_bus (soak->pipeline);
  gboolean done = FALSE;

  while (!done) {
    GstMessage *msg = gst_bus_timed_pop (bus, GST_CLOCK_TIME_NONE);
    const GstStructure *s = gst_message_get_structure (msg);
    GError *error = NULL;
    gchar *debug = NULL;

    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ELEMENT:
        if (gst_structure_has_name (s, "clfilter-summary"))
          soak->summary = gst_structure_copy (s);
        break;
      case GST_MESSAGE_ERROR:
      case GST_MESSAGE_WARNING:
        if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
          gst_message_parse_error (msg, &error, &debug);
          done = TRUE;
        } else {
          gst_message_parse_warning (msg, &error, &debug);
        }
        problem (soak, PROBLEM_BUS, "%s from %s: %s (%s)",
            GST_MESSAGE_TYPE_NAME (msg), GST_MESSAGE_SRC_NAME (msg),
            error->message, debug ? debug : "");
        g_clear_error (&error);
        g_free (debug);
        break;
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      default:
        break;
    }
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
}

static gdouble
summary_ms (const Soak * soak, const gchar * field)
{
  guint64 ns = 0;

  if (soak->summary)
    gst_structure_get_uint64 (soak->summary, field, &ns);
  return ns / 1e6;
}

static gboolean
report (Soak * soak, gdouble seconds)
{
  gint64 growth = (gint64) soak->rss_end - (gint64) soak->rss_start;
  guint64 summary_frames = 0;
  gint failures = 0;
  gchar *device = NULL;

  g_object_get (soak->filter, "device-name", &device, NULL);
  if (soak->summary)
    gst_structure_get_uint64 (soak->summary, "frames", &summary_frames);
  g_print ("\nclf-soak: %u frames %dx%d %s, %s\n", soak->frames, WIDTH,
      HEIGHT, soak->fc->name, device);
  g_print ("frames:  in %" G_GUINT64_FORMAT ", out %" G_GUINT64_FORMAT
      ", lost %" G_GINT64_FORMAT "; clfilter-stats %" G_GUINT64_FORMAT
      ", summary frames %" G_GUINT64_FORMAT "\n", soak->in, soak->out,
      (gint64) soak->in - (gint64) soak->out, soak->stats_messages,
      summary_frames);
  g_print ("storm:   %" G_GUINT64_FORMAT " changes (mode %" G_GUINT64_FORMAT
      ", radius %" G_GUINT64_FORMAT ", border %" G_GUINT64_FORMAT "); %"
      G_GUINT64_FORMAT " frames in other settings than the frame before\n",
      soak->changes[0] + soak->changes[1] + soak->changes[2],
      soak->changes[0], soak->changes[1], soak->changes[2],
      soak->settings_changed);
  g_print ("modes:   box %" G_GUINT64_FORMAT ", separable %" G_GUINT64_FORMAT
      ", sliding %" G_GUINT64_FORMAT ", laplace %" G_GUINT64_FORMAT
      "; mirror %" G_GUINT64_FORMAT "\n", soak->per_mode[0],
      soak->per_mode[1], soak->per_mode[2], soak->per_mode[3], soak->mirrored);
  g_print ("checks:  %u frames against the reference (every %u), %d "
      "mismatches, %.1f s\n", soak->checked, soak->check_every,
      soak->problems[PROBLEM_MISMATCH], soak->check_us / 1e6);
  g_print ("memory:  VmRSS %" G_GSIZE_FORMAT " KiB after frame %u, %"
      G_GSIZE_FORMAT " KiB at the end: %+" G_GINT64_FORMAT " KiB (limit +%"
      G_GUINT64_FORMAT "); pool memories in %u, out %u\n", soak->rss_start,
      soak->warmup, soak->rss_end, growth, soak->max_growth_kib,
      soak->new_in_memories, soak->new_out_memories);
  g_print ("         VmRSS by tenths (KiB):");
  for (guint i = 0; i < N_TENTHS; i++)
    if (soak->rss_tenths[i])
      g_print (" %" G_GSIZE_FORMAT, soak->rss_tenths[i]);
    else
      g_print (" -");
  g_print ("\ntime:    %.1f s, %.1f frames/s; %.1f frames/s without the "
      "checks\n", seconds, soak->out / seconds,
      soak->out / (seconds - soak->check_us / 1e6));
  g_print ("kernel:  median %.3f ms, mean %.3f, p95 %.3f, max %.3f "
      "(clfilter-summary)\n", summary_ms (soak, "median-kernel-ns"),
      summary_ms (soak, "mean-kernel-ns"), summary_ms (soak, "p95-kernel-ns"),
      summary_ms (soak, "max-kernel-ns"));
  for (guint i = 0; i < N_PROBLEMS; i++)
    if (soak->problems[i]) {
      g_print ("problem: %d %s\n", soak->problems[i], problem_names[i]);
      failures++;
    }
  if (soak->out != soak->frames || summary_frames != soak->frames) {
    g_print ("problem: %" G_GUINT64_FORMAT " of %u frames came out, the "
        "summary counted %" G_GUINT64_FORMAT "\n", soak->out, soak->frames,
        summary_frames);
    failures++;
  }
  if (soak->rss_start && growth > (gint64) soak->max_growth_kib) {
    g_print ("problem: VmRSS grew by %" G_GINT64_FORMAT " KiB\n", growth);
    failures++;
  }
  g_print ("%s\n", failures ? "FAILED" : "PASSED");
  g_free (device);
  return failures == 0;
}

static const FormatCase *
find_format (const gchar * name)
{
  for (guint i = 0; i < n_formats; i++)
    if (!g_ascii_strcasecmp (formats[i].name, name))
      return &formats[i];
  return NULL;
}

static gboolean
run (Soak * soak)
{
  gint64 start = g_get_monotonic_time ();
  gdouble seconds;

  if (gst_element_set_state (soak->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    problem (soak, PROBLEM_BUS, "the pipeline did not start");
  else
    soak->storm = g_thread_new ("storm", storm, soak);
  wait_for_eos (soak);
  seconds = (g_get_monotonic_time () - start) / 1e6;
  g_atomic_int_set (&soak->stop, 1);
  if (soak->storm)
    g_thread_join (soak->storm);
  soak->rss_end = resident_kib ();
  gst_element_set_state (soak->pipeline, GST_STATE_NULL);
  return report (soak, seconds);
}

int
main (int argc, char **argv)
{
  Soak soak = { 0 };
  gint frames = 100000, check_every = 1000, warmup = 1000;
  gint max_growth = 512, in_flight = -1;
  gboolean discrete = FALSE;
  gchar *format = NULL, *device = NULL;
  GOptionEntry entries[] = {
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames, "Frames to run (100000)",
        "N"},
    {"format", 0, 0, G_OPTION_ARG_STRING, &format, "Video format (I420)",
        "F"},
    {"device", 0, 0, G_OPTION_ARG_STRING, &device, "clfilter's device "
          "(auto)", "D"},
    {"check-every", 0, 0, G_OPTION_ARG_INT, &check_every,
        "Check every K-th frame against the reference (1000)", "K"},
    {"warmup", 0, 0, G_OPTION_ARG_INT, &warmup,
        "Read the starting VmRSS after this many frames (1000)", "W"},
    {"max-growth", 0, 0, G_OPTION_ARG_INT, &max_growth,
        "Fail when VmRSS grows by more than this (512)", "KIB"},
    {"frames-in-flight", 0, 0, G_OPTION_ARG_INT, &in_flight,
        "clfilter's frames-in-flight (its default)", "N"},
    {"discrete", 0, 0, G_OPTION_ARG_NONE, &discrete,
        "Frames as on a discrete GPU (CLF_TEST_HOST_UNIFIED=0)", NULL},
    {NULL}
  };
  GOptionContext *context = g_option_context_new ("- clfilter soak test");
  GError *error = NULL;
  gboolean ok;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, gst_init_get_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error) ||
      frames < 2 || check_every < 1 || warmup < 1 || max_growth < 0 ||
      in_flight > 16 || !(soak.fc = find_format (format ? format : "I420"))) {
    g_printerr ("clf-soak: %s\n", error ? error->message : "--frames needs "
        "2 or more, --check-every and --warmup 1 or more, "
        "--frames-in-flight 16 or less, --format one of "
        "tests/check/framecheck.c's");
    return 2;
  }
  g_option_context_free (context);
  if (discrete) {
    /* Before any OpenCL call: the ICD loader reads it once. */
    g_setenv ("OPENCL_LAYERS", CLF_TEST_LAYER, FALSE);
    g_setenv ("CLF_TEST_HOST_UNIFIED", "0", TRUE);
    if (!g_file_test (g_getenv ("OPENCL_LAYERS"), G_FILE_TEST_EXISTS)) {
      g_printerr ("clf-soak: --discrete needs the test layer %s (ninja "
          "clf-test-layer)\n", g_getenv ("OPENCL_LAYERS"));
      return 2;
    }
  }

  soak.frames = (guint) frames;
  soak.check_every = (guint) check_every;
  soak.warmup = MIN ((guint) warmup, soak.frames / 2);
  soak.max_growth_kib = (guint64) max_growth;
  soak.format = frame_format (soak.fc, WIDTH, HEIGHT);
  gst_video_info_set_format (&soak.info,
      gst_video_format_from_string (soak.fc->name), WIDTH, HEIGHT);
#ifdef __GLIBC__
  /* A fixed threshold: blocks of 1 MiB and more are mapped, and unmapped
   * when freed.  glibc's moving one would keep the reference's 7 MiB
   * scratch on the heap from the second check on, which VmRSS would show
   * as growth that is the soak's own. */
  mallopt (M_MMAP_THRESHOLD, 1024 * 1024);
#endif
  frame_alloc (&soak.format, &soak.check_in);
  frame_alloc (&soak.format, &soak.check_out);
  frame_alloc (&soak.format, &soak.check_want);

  ok = build_pipeline (&soak, device ? device : "auto");
  if (ok && in_flight >= 0)
    g_object_set (soak.filter, "frames-in-flight", (guint) in_flight, NULL);
  if (ok) {
    GstBus *bus = gst_element_get_bus (soak.pipeline);
    gst_bus_set_sync_handler (bus, read_stats, &soak, NULL);
    gst_object_unref (bus);
    ok = run (&soak);
  }
  g_clear_object (&soak.filter);
  g_clear_object (&soak.pipeline);
  g_clear_pointer (&soak.summary, gst_structure_free);
  g_free (soak.stats.mode);
  g_free (soak.stats.border);
  g_free (soak.check_in.data);
  g_free (soak.check_out.data);
  g_free (soak.check_want.data);
  g_free (format);
  g_free (device);
  return ok ? 0 : 1;
}
