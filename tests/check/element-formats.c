/* GStreamer
 * The element suite (element.c): every format through the element against
 * the C reference at every radius, interlaced frames, the bytes no
 * component holds, formats described as written, a refused format
 * explained, and real decodes.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <unistd.h>
#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/controller.h>
#include <gst/video/video.h>

#include <gst/clfilter/gstclfiltermeta.h>
#include "element.h"
#include "framecheck.h"
#include "gstclformat.h"
#include "gstclmemory.h"

/* Every format, every mode, both borders, at odd sizes (renegotiating the
 * same element between sizes), each frame from clfilter's own pool, with
 * padded rows, and unaligned; gaussian and unsharp at 13x11, with taps and
 * with boxes (the quick tier: a third of the formats, turned by the
 * seed). */
GST_START_TEST (test_every_format_matches_reference)
{
  static const guint sizes[][2] = { {13, 11}, {1, 1}, {70, 5} };
  const FormatCase *fc = &formats[__i__];
  GstHarness *h = gst_harness_new ("clfilter");
  GstVideoInfo info;

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
    set_caps (h, fc->name, sizes[s][0], sizes[s][1], &info);
    for (ClfMode mode = CLF_MODE_BOX; mode <= CLF_MODE_LAPLACE; mode++)
      for (ClfBorder border = CLF_BORDER_CLAMP; border <= CLF_BORDER_MIRROR;
          border++) {
        ClfParams params = { mode, mode == CLF_MODE_BOX ? 2 : 5, border };
        for (InputKind kind = 0; kind < N_INPUT_KINDS; kind++)
          push_and_check (h, fc, &info, &params, kind);
      }
    for (ClfMode mode = CLF_MODE_GAUSSIAN; s == 0 && test_sampled (__i__, 3)
        && mode <= CLF_MODE_UNSHARP; mode++)
      for (ClfBorder border = CLF_BORDER_CLAMP; border <= CLF_BORDER_MIRROR;
          border++) {
        ClfParams params = {.mode = mode,.border = border,
          .sigma = border ? 9.5 : 1.3,.amount = 1.5,.threshold = 2
        };
        for (InputKind kind = 0; kind < N_INPUT_KINDS; kind++)
          push_and_check (h, fc, &info, &params, kind);
      }
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The sizes and radii for every format: 1x1, 37x21 and 720p, radii
 * 0, 1, 9, 140 and 1023 (16-bit window sums pass 2^32 above 127), both
 * borders.  Within what a CPU does in seconds: the naive box (O(r^2) reads
 * a pixel) to r=140 at 37x21 and r=1 at 720p, the separable blur (O(r))
 * to r=9 at 720p; sliding and laplace at every radius and size. */
static gboolean
affordable (ClfMode mode, guint radius, guint width)
{
  switch (mode) {
    case CLF_MODE_BOX:
      return width <= 1 || radius <= (width < 100 ? 140u : 1u);
    case CLF_MODE_SEPARABLE:
      return width < 100 || radius <= 9;
    default:
      return TRUE;
  }
}

GST_START_TEST (test_every_format_at_every_radius)
{
  static const guint sizes[][2] = { {1, 1}, {37, 21}, {1280, 720} };
  static const guint radii[] = { 0, 1, 9, 140, 1023 };
  const FormatCase *fc = &formats[__i__];
  GstHarness *h = gst_harness_new ("clfilter");
  GstVideoInfo info;
  /* The quick tier runs all of it for one format in eight; the others at
   * 1x1 every radius, at 37x21 one radius a mode (over the formats each
   * radius still meets each mode), not at 720p. */
  gboolean all_cases = test_sampled (__i__, 8);

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
    if (!all_cases && sizes[s][0] > 100)
      continue;
    set_caps (h, fc->name, sizes[s][0], sizes[s][1], &info);
    for (guint r = 0; r < G_N_ELEMENTS (radii); r++)
      for (ClfMode mode = CLF_MODE_BOX; mode <= CLF_MODE_LAPLACE; mode++) {
        ClfParams clamp = { mode, radii[r], CLF_BORDER_CLAMP };
        ClfParams mirror = { mode, radii[r], CLF_BORDER_MIRROR };

        /* laplace has no radius: once per size */
        if ((mode == CLF_MODE_LAPLACE && r > 0)
            || !affordable (mode, radii[r], sizes[s][0]))
          continue;
        if (!all_cases && sizes[s][0] > 1 && mode != CLF_MODE_LAPLACE
            && !test_sampled (__i__ + r + mode, G_N_ELEMENTS (radii)))
          continue;
        push_and_check (h, fc, &info, &clamp, INPUT_FROM_POOL);
        push_and_check (h, fc, &info, &mirror, INPUT_FROM_POOL);
      }
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- interlaced frames ---------------------------------------------- */

static void
set_interlaced_caps (GstHarness * h, const gchar * format, guint width,
    guint height, const gchar * mode, GstVideoInfo * info)
{
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
      "framerate=30/1,interlace-mode=%s", format, width, height, mode);
  GstCaps *c = gst_caps_from_string (caps);

  fail_unless (gst_video_info_from_caps (info, c));
  gst_harness_set_src_caps (h, c);
  g_free (caps);
}

/* The case: a black field and a white one.  Filtered as one
 * picture the blur mixed them (40 on row 0); field by field each field is
 * flat, so every blur and laplace leave the frame as it is. */
GST_START_TEST (test_interlaced_fields_not_mixed)
{
  GstHarness *h = gst_harness_new ("clfilter");
  GstVideoInfo info;
  GstMapInfo map;
  GstBuffer *in, *out;

  set_interlaced_caps (h, "GRAY8", 16, 8, "interleaved", &info);
  for (ClfMode mode = CLF_MODE_BOX; mode <= CLF_MODE_LAPLACE; mode++) {
    g_object_set (h->element, "mode", mode, "radius", 3, NULL);
    in = gst_buffer_new_allocate (NULL, 16 * 8, NULL);
    fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
    for (guint y = 0; y < 8; y++)
      memset (map.data + y * 16, y % 2 ? 255 : 0, 16);
    gst_buffer_unmap (in, &map);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    for (guint i = 0; i < map.size; i++)
      fail_unless_equals_int (map.data[i], (i / 16) % 2 ? 255 : 0);
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Interlaced frames of random bytes in several formats and odd sizes (a
 * plane of one row has no bottom field), every mode, both borders, each
 * kind of input: every field equals the reference run on that field
 * alone.  With interlace-mode=mixed only the frames flagged interlaced
 * are split, the others are filtered whole. */
GST_START_TEST (test_interlaced_matches_reference)
{
  static const gchar *names[] = { "GRAY8", "RGBA", "I420", "NV12", "Y42B" };
  static const guint sizes[][2] = { {13, 11}, {7, 1}, {9, 2}, {20, 6} };
  gboolean mixed = __i__ == 1;
  GstHarness *h = gst_harness_new ("clfilter");
  GstVideoInfo info;

  for (guint f = 0; f < G_N_ELEMENTS (names); f++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
      const FormatCase *fc = format_case (names[f]);

      set_interlaced_caps (h, names[f], sizes[s][0], sizes[s][1],
          mixed ? "mixed" : "interleaved", &info);
      for (ClfMode mode = CLF_MODE_BOX; mode <= CLF_MODE_UNSHARP; mode++)
        for (ClfBorder border = CLF_BORDER_CLAMP;
            border <= CLF_BORDER_MIRROR; border++)
          for (InputKind kind = 0; mode != CLF_MODE_CONVOLVE
              && kind < N_INPUT_KINDS; kind++) {
            ClfParams params = {.mode = mode,.radius = mode == CLF_MODE_BOX ?
                  2 : 4,.border = border,.sigma = border ? 9.5 : 1.3,
              .amount = 1.5,.threshold = 2
            };
            GstBuffer *in = input_buffer (h, fc, &info, kind), *out;
            gboolean fields = !mixed || (kind + mode) % 2 == 0;

            if (fields)
              GST_BUFFER_FLAG_SET (in, GST_VIDEO_BUFFER_FLAG_INTERLACED);
            g_object_set (h->element, "mode", mode, "radius", params.radius,
                "border", border, "sigma", params.sigma, "amount",
                params.amount, "threshold", params.threshold, NULL);
            fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
                GST_FLOW_OK);
            out = gst_harness_pull (h);
            check_output_fields (fc, &info, &params, fields ? "fields" :
                "whole", in, out, fields);
            gst_buffer_unref (out);
            gst_buffer_unref (in);
          }
    }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The component whose sample byte `b` of a row of plane `plane` belongs
 * to, or -1 for a byte of none (padding such as RGBx's x, or the half-used
 * last pixel of odd-width packed 4:2:2). */
static gint
byte_owner (const ClfFrameFormat * format, guint plane, gsize b)
{
  for (guint c = 0; c < format->n_components; c++) {
    const ClfComponent *k = &format->components[c];
    gsize size = k->depth + k->shift > 8 ? 2 : 1;

    if (k->plane == plane && b >= k->offset && (b - k->offset) % k->pstride
        < size && (b - k->offset) / k->pstride < k->width)
      return (gint) c;
  }
  return -1;
}

/* What is not filtered is copied, byte for byte: alpha, padding and the
 * bytes of no sample, chroma under laplace. */
GST_START_TEST (test_unfiltered_bytes_copied)
{
  static const gchar *names[] = { "RGBA", "ARGB", "xBGR", "I420", "NV21",
    "YUY2", "UYVY", "AYUV", "A420", "RGBA64_LE", "P010_10LE", "GRAY16_BE"
  };
  for (guint n = 0; n < G_N_ELEMENTS (names); n++)
    for (ClfMode mode = CLF_MODE_SLIDING; mode <= CLF_MODE_LAPLACE; mode++) {
      const FormatCase *fc = format_case (names[n]);
      ClfFrameFormat format = frame_format (fc, 31, 9);
      GstHarness *h = gst_harness_new ("clfilter");
      GstVideoInfo info;
      GstVideoFrame vin, vout;
      ClfHostFrame a, b;
      GstBuffer *in, *out;

      set_caps (h, names[n], 31, 9, &info);
      g_object_set (h->element, "mode", mode, "radius", 3, NULL);
      in = random_buffer (GST_VIDEO_INFO_SIZE (&info));
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
          GST_FLOW_OK);
      out = gst_harness_pull (h);
      fail_unless (gst_video_frame_map (&vin, &info, in, GST_MAP_READ));
      fail_unless (gst_video_frame_map (&vout, &info, out, GST_MAP_READ));
      host_frame (&vin, &a);
      host_frame (&vout, &b);
      for (guint p = 0; p < format.n_planes; p++)
        for (guint y = 0; y < clf_frame_format_rows (&format, p); y++)
          for (gsize x = 0; x < clf_frame_format_row_bytes (&format, p); x++) {
            gint owner = byte_owner (&format, p, x);
            ClfComponentRole role = owner < 0 ? CLF_COMPONENT_COPIED :
                format.components[owner].role;

            if (role == CLF_COMPONENT_COPIED || (mode == CLF_MODE_LAPLACE
                    && role == CLF_COMPONENT_BLURRED))
              fail_unless (a.data[p][y * a.stride[p] + x] ==
                  b.data[p][y * b.stride[p] + x], "%s %s: plane %u row %u "
                  "byte %" G_GSIZE_FORMAT " (component %d) changed",
                  names[n], clf_mode_name (mode), p, y, x, owner);
          }
      gst_video_frame_unmap (&vout);
      gst_video_frame_unmap (&vin);
      gst_buffer_unref (out);
      gst_buffer_unref (in);
      gst_harness_teardown (h);
    }
}

GST_END_TEST;

static gboolean
template_has (GstCaps * caps, const gchar * name)
{
  GstCaps *one = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      name, NULL);
  gboolean has = gst_caps_can_intersect (caps, one);

  gst_caps_unref (one);
  return has;
}

/* Field by field: a memcmp would also compare the padding after
 * big_endian, which nothing initialises (it failed that way in CI). */
static gboolean
components_equal (const ClfComponent * a, const ClfComponent * b)
{
  return a->plane == b->plane && a->offset == b->offset
      && a->pstride == b->pstride && a->width == b->width
      && a->height == b->height && a->depth == b->depth
      && a->shift == b->shift && a->big_endian == b->big_endian
      && a->role == b->role;
}

/* The element takes every format the issue names, and describes every
 * format it takes as the hand-written table does (component by component,
 * at odd sizes): a format whose GstVideoFormatInfo was misread cannot hide
 * behind a reference built from the same reading.  Formats whose samples
 * share bits or bytes (v210, RGB16, UYVP) are not offered. */
GST_START_TEST (test_formats_described_as_written)
{
  static const guint sizes[][2] = { {1, 1}, {37, 21}, {6, 4} };
  static const gchar *refused[] = { "v210", "RGB16", "UYVP", "IYU1",
    "NV12_10LE32", "RGB8P"
  };
  GstElementFactory *factory = gst_element_factory_find ("clfilter");
  GstCaps *caps = gst_caps_new_empty ();
  guint offered = 0, offered_in_cuda = 0;

  for (const GList * t = gst_element_factory_get_static_pad_templates
      (factory); t; t = t->next)
    gst_caps_append (caps, gst_static_caps_get (&((GstStaticPadTemplate *)
                t->data)->static_caps));
  for (guint i = 0; required_formats[i]; i++)
    fail_unless (template_has (caps, required_formats[i]), "%s not taken",
        required_formats[i]);
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    fail_if (template_has (caps, refused[i]), "%s offered", refused[i]);

  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GValue *list = gst_structure_get_value (gst_caps_get_structure (caps,
            i), "format");
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    gboolean in_cuda = features && gst_caps_features_contains (features,
        "memory:CUDAMemory");

    for (guint f = 0; f < gst_value_list_get_size (list); f++) {
      const gchar *name = g_value_get_string (gst_value_list_get_value (list,
              f));
      const FormatCase *fc = format_case (name);

      /* In CUDA memory, a subset of the formats in system memory. */
      if (in_cuda) {
        fail_unless (gst_cl_format_is_supported (gst_video_format_from_string
                (name)), "%s offered in CUDA memory only", name);
        offered_in_cuda++;
        continue;
      }
      offered++;
      for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
        ClfFrameFormat want = frame_format (fc, sizes[s][0], sizes[s][1]);
        ClfFrameFormat got;
        GstVideoInfo info;

        fail_unless (gst_video_info_set_format (&info,
                gst_video_format_from_string (name), sizes[s][0], sizes[s][1]));
        fail_unless (gst_cl_format_describe (&info, &got), "%s", name);
        fail_unless_equals_int (got.n_planes, want.n_planes);
        fail_unless_equals_int (got.n_components, want.n_components);
        /* Components in GStreamer's order: Y U V A, or R G B A. */
        for (guint c = 0; c < want.n_components; c++)
          fail_unless (components_equal (&got.components[c],
                  &want.components[c]), "%s %ux%u: component %u "
              "described as plane %u offset %u pstride %u %ux%u depth %u "
              "shift %u %s role %d", name, sizes[s][0], sizes[s][1], c,
              got.components[c].plane, got.components[c].offset,
              got.components[c].pstride, got.components[c].width,
              got.components[c].height, got.components[c].depth,
              got.components[c].shift, got.components[c].big_endian ? "BE" :
              "LE", got.components[c].role);
      }
    }
  }
  /* Both templates list the same formats; in CUDA memory only where it
   * was built in. */
  fail_unless_equals_int (offered, 2 * n_formats);
  fail_unless (CLF_HAVE_CUDA ? offered_in_cuda > 0 && offered_in_cuda % 2 == 0
      : offered_in_cuda == 0, "%u formats in CUDA memory", offered_in_cuda);
  gst_caps_unref (caps);
  gst_object_unref (factory);
}

GST_END_TEST;

/* Decodes `path` through `middle` into an appsink; returns the samples,
 * counts the clfilter-stats messages and adds up their copies. */
static GPtrArray *
decode (const gchar * path, const gchar * middle, guint * n_stats,
    guint * copies)
{
  gchar *description = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "%s ! appsink name=out sync=false", path, middle);
  GstElement *pipeline = gst_parse_launch (description, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GPtrArray *samples = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  GstSample *sample;
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s", description);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink))))
    g_ptr_array_add (samples, sample);
  *n_stats = *copies = 0;
  while ((msg = gst_bus_pop (GST_ELEMENT_BUS (pipeline)))) {
    guint frame_copies = 0;
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "%s: error",
        description);
    if (gst_message_has_name (msg, "clfilter-stats")) {
      (*n_stats)++;
      fail_unless (gst_structure_get_uint (gst_message_get_structure (msg),
              "copies", &frame_copies));
      *copies += frame_copies;
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (description);
  return samples;
}

/* The clips made at test time, with the format decodebin must hand
 * clfilter (no converter in between). */
typedef struct
{
  const gchar *format;          /* what the encoder is given */
  const gchar *size;
  const gchar *encode;          /* encoder and muxer */
  gboolean interlaced;
  ClfMode mode;
  gboolean decoded;             /* a decoder writes the frames (not raw) */
} Clip;

static const Clip clips[] = {
  {"I420", "width=1280,height=720",
        "x264enc speed-preset=ultrafast key-int-max=4 ! mp4mux", FALSE,
      CLF_MODE_LAPLACE, TRUE},
  /* x264's interlaced coding, as broadcast 1080i is. */
  {"I420", "width=720,height=480,interlace-mode=interleaved",
        "x264enc speed-preset=ultrafast key-int-max=4 interlaced=true ! mp4mux",
      TRUE, CLF_MODE_SLIDING, TRUE},
  /* High 10 and High 4:4:4 10-bit H.264, as x264 encodes by default. */
  {"I420_10LE", "width=640,height=360",
        "x264enc speed-preset=ultrafast key-int-max=4 ! mp4mux", FALSE,
      CLF_MODE_SLIDING, TRUE},
  {"Y444_10LE", "width=320,height=240",
        "x264enc speed-preset=ultrafast key-int-max=4 ! mp4mux", FALSE,
      CLF_MODE_LAPLACE, TRUE},
  /* A webcam's raw YUY2, in Matroska, of an odd width. */
  {"YUY2", "width=321,height=241", "matroskamux", FALSE, CLF_MODE_SEPARABLE,
      FALSE},
};

/* A real clip through decodebin: the decoded frames, filtered, equal the
 * reference applied to the same decoded frames, in the format the encoder
 * was given.  The decoder writes into our memory (padded, and still mapped
 * while it keeps references), which the device reads in place.  Of an
 * interlaced clip the decoder says interlace-mode=interleaved, and each
 * field is blurred apart. */
GST_START_TEST (test_decoded_clip_matches_reference)
{
  static const guint n_frames = 8;
  const Clip *clip = &clips[__i__];
  gboolean interlaced = clip->interlaced;
  gchar *dir = g_dir_make_tmp ("clfilter-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "clip", NULL);
  gchar *encode = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball "
      "! video/x-raw,format=%s,%s,framerate=30/1 ! %s ! filesink "
      "location=%s", n_frames, clip->format, clip->size, clip->encode, path);
  ClfParams params = { clip->mode, 3, CLF_BORDER_CLAMP };
  gchar *filter = g_strdup_printf ("clfilter mode=%s radius=%u",
      clf_mode_name (params.mode), params.radius);
  guint raw_stats, filtered_stats, raw_copies, copies;
  GPtrArray *raw, *filtered;

  run_to_eos (encode);
  raw = decode (path, "identity", &raw_stats, &raw_copies);
  filtered = decode (path, filter, &filtered_stats, &copies);
  fail_unless_equals_int (raw->len, n_frames);
  fail_unless_equals_int (filtered->len, n_frames);
  fail_unless_equals_int (filtered_stats, n_frames);
  /* A decoder writes into clfilter's pool; where the device has its own
   * memory, frames the decoder still holds mapped are copied to it: at
   * most one copy each.  Raw video comes in the demuxer's buffers, cut
   * from the file where they happen to lie: copied once where they cannot
   * be wrapped. */
  fail_unless (device_shares_host_memory () && clip->decoded ? copies == 0 :
      copies <= n_frames, "%u copies", copies);

  for (guint i = 0; i < n_frames; i++) {
    GstSample *a = g_ptr_array_index (raw, i);
    GstSample *b = g_ptr_array_index (filtered, i);
    GstVideoInfo info;
    gboolean fields;

    fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (b)));
    fail_unless_equals_string (gst_video_format_to_string
        (GST_VIDEO_INFO_FORMAT (&info)), clip->format);
    fields = GST_VIDEO_INFO_INTERLACE_MODE (&info) ==
        GST_VIDEO_INTERLACE_MODE_INTERLEAVED
        || GST_BUFFER_FLAG_IS_SET (gst_sample_get_buffer (a),
        GST_VIDEO_BUFFER_FLAG_INTERLACED);
    fail_unless_equals_int (fields, interlaced);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer (a)),
        GST_BUFFER_PTS (gst_sample_get_buffer (b)));
    check_output_fields (format_case (gst_video_format_to_string
            (GST_VIDEO_INFO_FORMAT (&info))), &info, &params, "decoded",
        gst_sample_get_buffer (a), gst_sample_get_buffer (b), fields);
  }

  g_ptr_array_unref (raw);
  g_ptr_array_unref (filtered);
  g_unlink (path);
  g_rmdir (dir);
  g_free (encode);
  g_free (filter);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* A format clfilter does not take: not-negotiated, and the log
 * (GST_DEBUG=clfilter:3) says which format, the nearest one it takes, and
 * to convert with videoconvert. */
GST_START_TEST (test_refused_format_explained)
{
  GstHarness *h = gst_harness_new ("clfilter");
  WarningLog log;

  warning_log_start (&log);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=v210,width=64,"
      "height=32,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate (NULL,
              64 * 32 * 4, NULL)), GST_FLOW_NOT_NEGOTIATED);
  fail_unless (strstr (log.text->str, "clfilter: clfilter does not take v210")
      && strstr (log.text->str, "The nearest format it takes is I422_10LE")
      && strstr (log.text->str, "videoconvert ! video/x-raw,format=I422_10LE"),
      "the log said: %s", log.text->str);
  warning_log_stop (&log);
  gst_harness_teardown (h);
}

GST_END_TEST;

void
element_formats_add_tests (TCase * general, TCase * discrete)
{
  tcase_add_loop_test (general, test_every_format_matches_reference, 0,
      n_formats);
  tcase_add_loop_test (general, test_every_format_at_every_radius, 0,
      n_formats);
  tcase_add_test (general, test_unfiltered_bytes_copied);
  tcase_add_test (general, test_formats_described_as_written);
  tcase_add_test (general, test_refused_format_explained);
  tcase_add_test (general, test_interlaced_fields_not_mixed);
  tcase_add_loop_test (general, test_interlaced_matches_reference, 0, 2);
  tcase_add_loop_test (general, test_decoded_clip_matches_reference, 0,
      G_N_ELEMENTS (clips));

  tcase_add_loop_test (discrete, test_every_format_matches_reference, 0,
      n_formats);
}
