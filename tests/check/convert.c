/* GStreamer
 * gst-check tests of clfilter's colour conversion on the device: YUV
 * written as the RGB downstream takes, every frame against the C
 * reference (docs/conversion.md) for each format, colorimetry and chroma
 * siting, and against videoconvert on snow and on a decoded clip.
 */
#include "config.h"

#include <glib/gstdio.h>

#include <gst/app/gstappsink.h>

#include "framecheck.h"

/* The YUV formats clfilter converts (formats it filters whose chroma is
 * halved at most), from the hand-written cases. */
static const gchar *const yuv_formats[] = {
  "I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "YUY2", "UYVY", "YVYU",
  "NV16", "NV61", "NV24", "A420", "AYUV", "VUYA", "I420_10LE", "I420_12LE",
  "I422_10LE", "Y444_10LE", "Y444_12LE", "P010_10LE", "P012_LE", "P016_LE",
  "I420_10BE", "Y444_16LE", "A444_10LE",
};

static const gchar *const rgb_formats[] = {
  "BGRx", "RGBx", "xRGB", "xBGR", "BGRA", "RGBA", "ARGB", "ABGR", "RGB", "BGR",
};

/* A colorimetry as caps give it, and what the conversion takes of it. */
typedef struct
{
  const gchar *caps;            /* colorimetry=..., or "" */
  gdouble kr, kb;
  gboolean full;
} Colour;

static const Colour colours[] = {
  {"bt601", 0.299, 0.114, FALSE},
  {"bt709", 0.2126, 0.0722, FALSE},
  {"bt2020", 0.2627, 0.0593, FALSE},
  {"1:4:0:0", 0.299, 0.114, TRUE},
  {"1:3:5:1", 0.2126, 0.0722, TRUE},
  {"1:6:0:0", 0.2627, 0.0593, TRUE},
};

/* A chroma-site for the caps (NULL: none, the site unknown), and the
 * conversion's siting. */
typedef struct
{
  const gchar *site;
  gboolean h_cosited, v_cosited;
} Siting;

static const Siting sitings[] = {
  {NULL, FALSE, FALSE}, {"jpeg", FALSE, FALSE}, {"mpeg2", TRUE, FALSE},
  {"cosited", TRUE, TRUE},
};

static gchar *
caps_with_colour (const gchar * format, guint width, guint height,
    const Colour * colour, const Siting * siting)
{
  return g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
      "framerate=30/1,colorimetry=(string)%s%s%s", format, width, height,
      colour->caps, siting->site ? ",chroma-site=(string)" : "",
      siting->site ? siting->site : "");
}

static gboolean
is_yuv (const gchar * format)
{
  return GST_VIDEO_FORMAT_INFO_IS_YUV (gst_video_format_get_info
      (gst_video_format_from_string (format)));
}

/* The conversion the reference makes for a case, as docs/conversion.md
 * says: videoconvert's, whose fast paths (I420, YV12, A420) take the
 * nearest chroma; the colorimetry and siting are the YUV side's. */
static void
expected_conversion (const gchar * in_name, const ClfFrameFormat * in,
    const ClfFrameFormat * out, const Colour * colour, const Siting * siting,
    ClfConversion * conversion)
{
  gboolean to_rgb = is_yuv (in_name);
  GError *err = NULL;

  fail_unless (clf_conversion_init (conversion, to_rgb ?
          CLF_CONVERT_YUV_TO_RGB : CLF_CONVERT_RGB_TO_YUV, in, out,
          colour->kr, colour->kb, colour->full, &err), "%s",
      err ? err->message : "");
  conversion->chroma_up = to_rgb && (g_str_equal (in_name, "I420")
      || g_str_equal (in_name, "YV12") || g_str_equal (in_name, "A420")) ?
      CLF_CHROMA_UP_NEAREST : CLF_CHROMA_UP_FILTERED;
  conversion->h_cosited = siting->h_cosited;
  conversion->v_cosited = siting->v_cosited;
}

/* Samples of `buf` (frames of `info`, described by `format`) that hold
 * no value (the spare bits of P010's words) cleared: the frames a
 * decoder gives. */
static void
clear_spare_bits (GstBuffer * buf, const GstVideoInfo * info,
    const ClfFrameFormat * format)
{
  GstVideoFrame frame;

  fail_unless (gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE));
  for (guint c = 0; c < format->n_components; c++) {
    const ClfComponent *k = &format->components[c];
    guint16 keep = (guint16) (((1u << k->depth) - 1) << k->shift);

    if (k->depth + k->shift <= 8 || k->depth == 16)
      continue;
    for (guint y = 0; y < k->height; y++)
      for (guint x = 0; x < k->width; x++) {
        guint8 *p = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, k->plane)
            + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, k->plane)
            + x * k->pstride + k->offset;
        guint16 v = k->big_endian ? GST_READ_UINT16_BE (p) :
            GST_READ_UINT16_LE (p);
        v &= keep;
        if (k->big_endian)
          GST_WRITE_UINT16_BE (p, v);
        else
          GST_WRITE_UINT16_LE (p, v);
      }
  }
  gst_video_frame_unmap (&frame);
}

/* `out` (frames of out_info, `out_fc`) is `in` filtered with `params`,
 * then converted as `conversion` says; byte for byte. */
static void
check_converted (const FormatCase * in_fc, const GstVideoInfo * in_info,
    const FormatCase * out_fc, const GstVideoInfo * out_info,
    const ClfParams * params, const ClfConversion * conversion,
    const gchar * what, GstBuffer * in, GstBuffer * out)
{
  ClfFrameFormat in_format = frame_format (in_fc, in_info->width,
      in_info->height);
  const ClfFrameFormat *out_format = &conversion->format;
  GstVideoFrame vin, vout;
  ClfHostFrame src, got, filtered = { {0} }, want = { {0} };

  fail_unless (gst_video_frame_map (&vin, in_info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&vout, out_info, out, GST_MAP_READ));
  host_frame (&vin, &src);
  host_frame (&vout, &got);
  for (guint i = 0; i < in_format.n_planes; i++) {
    filtered.stride[i] = clf_frame_format_row_bytes (&in_format, i);
    filtered.data[i] = g_malloc (filtered.stride[i] *
        clf_frame_format_rows (&in_format, i));
  }
  for (guint i = 0; i < out_format->n_planes; i++) {
    want.stride[i] = clf_frame_format_row_bytes (out_format, i);
    want.data[i] = g_malloc (want.stride[i] *
        clf_frame_format_rows (out_format, i));
  }
  clf_ref_filter_frame (params, &in_format, &src, &filtered);
  clf_ref_convert_frame (&in_format, conversion, &filtered, &want);

  for (guint i = 0; i < out_format->n_planes; i++)
    for (guint y = 0; y < clf_frame_format_rows (out_format, i); y++) {
      const guint8 *g = got.data[i] + y * got.stride[i];
      const guint8 *w = want.data[i] + y * want.stride[i];

      if (memcmp (g, w, want.stride[i]) == 0)
        continue;
      for (gsize b = 0; b < want.stride[i]; b++)
        fail_unless (g[b] == w[b], "%s %ux%u -> %s, %s: plane %u row %u "
            "byte %zu is %u, the reference gives %u", in_fc->name,
            in_info->width, in_info->height, out_fc->name, what, i, y, b,
            g[b], w[b]);
    }
  for (guint i = 0; i < CLF_MAX_PLANES; i++) {
    g_free (filtered.data[i]);
    g_free (want.data[i]);
  }
  gst_video_frame_unmap (&vout);
  gst_video_frame_unmap (&vin);
}

/* The harness's caps in and out, and the frames they describe. */
static void
set_both_caps (GstHarness * h, const gchar * in_caps, const gchar * out_caps,
    GstVideoInfo * in_info, GstVideoInfo * out_info)
{
  GstCaps *caps;

  gst_harness_set_caps_str (h, in_caps, out_caps);
  caps = gst_caps_from_string (in_caps);
  fail_unless (gst_video_info_from_caps (in_info, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string (out_caps);
  fail_unless (gst_video_info_from_caps (out_info, caps));
  gst_caps_unref (caps);
}

/* One frame of `in_name` (of `colour` and `siting`) through clfilter
 * with `params` into `out_name`: against the reference.  Frames come as
 * `kind` says. */
static void
convert_one (const gchar * in_name, const gchar * out_name, guint width,
    guint height, const Colour * colour, const Siting * siting,
    const ClfParams * params, InputKind kind)
{
  const FormatCase *in_fc = format_case (in_name);
  const FormatCase *out_fc = format_case (out_name);
  /* The colorimetry and siting go with the YUV side. */
  gchar *in_caps = is_yuv (in_name) ? caps_with_colour (in_name, width,
      height, colour, siting) : caps_string (in_name, width, height);
  gchar *out_caps = is_yuv (in_name) ? caps_string (out_name, width, height)
      : caps_with_colour (out_name, width, height, colour, siting);
  ClfFrameFormat in_format = frame_format (in_fc, width, height);
  ClfFrameFormat out_format = frame_format (out_fc, width, height);
  ClfConversion conversion;
  GstVideoInfo in_info, out_info;
  GstBuffer *in, *out;
  GstBus *bus;
  GstHarness *h = harness_with_bus (TRUE, &bus);
  gchar *what = g_strdup_printf ("%s %s%s, mode %s r=%u, %s input",
      colour->caps, siting->site ? "site " : "",
      siting->site ? siting->site : "", clf_mode_name (params->mode),
      params->radius, input_names[kind]);

  g_object_set (h->element, "mode", params->mode, "radius", params->radius,
      "border", params->border, NULL);
  expected_conversion (in_name, &in_format, &out_format, colour, siting,
      &conversion);
  set_both_caps (h, in_caps, out_caps, &in_info, &out_info);

  in = input_buffer (h, in_fc, &in_info, kind);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  check_converted (in_fc, &in_info, out_fc, &out_info, params, &conversion,
      what, in, out);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  fail_if (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
          GST_MESSAGE_WARNING), "an error or warning: %s", what);
  harness_free (h, bus);
  g_free (what);
  g_free (out_caps);
  g_free (in_caps);
}

static const guint sizes[][2] = { {13, 11}, {1, 1}, {7, 1}, {2, 3},
{33, 18}
};

/* Every YUV format clfilter converts, into BGRx: a blur of radius 0 (the
 * conversion alone), laplace and the sliding blur, at odd sizes, from
 * every kind of input buffer. */
GST_START_TEST (test_every_yuv_format)
{
  const ClfParams params[] = {
    {CLF_MODE_BOX, 0, CLF_BORDER_CLAMP}, {CLF_MODE_LAPLACE, 0,
        CLF_BORDER_CLAMP}, {CLF_MODE_SLIDING, 2, CLF_BORDER_MIRROR},
  };

  for (guint f = 0; f < G_N_ELEMENTS (yuv_formats); f++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (guint p = 0; p < G_N_ELEMENTS (params); p++)
        if (test_sampled (f + s + p, 3))
          convert_one (yuv_formats[f], "BGRx", sizes[s][0], sizes[s][1],
              &colours[(f + s) % G_N_ELEMENTS (colours)],
              &sitings[(f + p) % G_N_ELEMENTS (sitings)], &params[p],
              (InputKind) ((f + s + p) % N_INPUT_KINDS));
}

GST_END_TEST;

/* 8- and 10-bit 4:2:0 into every RGB format (two runs of 16 pixels and
 * a tail a row). */
GST_START_TEST (test_every_rgb_format)
{
  const gchar *const in[] = { "I420", "NV12", "I420_10LE" };
  const ClfParams params = { CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP };

  for (guint f = 0; f < G_N_ELEMENTS (in); f++)
    for (guint o = 0; o < G_N_ELEMENTS (rgb_formats); o++)
      if (test_sampled (f + o, 2))
        convert_one (in[f], rgb_formats[o], 37, 11, &colours[1],
            &sitings[2], &params, INPUT_FROM_POOL);
}

GST_END_TEST;

/* Each colorimetry and chroma siting, on filtered chroma (NV12, YUY2,
 * P010) and on the nearest (I420). */
GST_START_TEST (test_every_colorimetry)
{
  const gchar *const in[] = { "NV12", "YUY2", "P010_10LE", "I420" };
  const ClfParams params = { CLF_MODE_BOX, 0, CLF_BORDER_CLAMP };

  for (guint f = 0; f < G_N_ELEMENTS (in); f++)
    for (guint c = 0; c < G_N_ELEMENTS (colours); c++)
      for (guint s = 0; s < G_N_ELEMENTS (sitings); s++)
        if (test_sampled (f + c + s, 4))
          convert_one (in[f], "RGBA", 17, 9, &colours[c], &sitings[s],
              &params, INPUT_PADDED);
}

GST_END_TEST;

/* RGB into the 4:2:0 formats encoders take, 8- and 10-bit: every
 * colorimetry and siting, blur r=0 and laplace, odd sizes. */
GST_START_TEST (test_rgb_to_yuv)
{
  const gchar *const in[] = { "BGRx", "RGBA", "RGB", "xBGR", "ARGB", "BGR" };
  const gchar *const out[] = { "I420", "NV12", "YV12", "NV21", "I420_10LE",
    "P010_10LE"
  };
  const ClfParams params[] = {
    {CLF_MODE_BOX, 0, CLF_BORDER_CLAMP}, {CLF_MODE_LAPLACE, 0,
        CLF_BORDER_CLAMP},
  };

  for (guint f = 0; f < G_N_ELEMENTS (in); f++)
    for (guint o = 0; o < G_N_ELEMENTS (out); o++)
      for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
        if (test_sampled (f + o + s, 4))
          convert_one (in[f], out[o], sizes[s][0], sizes[s][1],
              &colours[(f + s) % G_N_ELEMENTS (colours)],
              &sitings[(o + s) % G_N_ELEMENTS (sitings)],
              &params[(f + o + s) % G_N_ELEMENTS (params)],
              (InputKind) ((f + o) % N_INPUT_KINDS));
}

GST_END_TEST;

/* In CUDA memory (an NVIDIA machine; elsewhere SKIP): frames from
 * cudaupload converted into a format downstream takes in CUDA memory,
 * each against the reference, YUV into RGB (laplace in the conversion's
 * pass, blurs before it) and RGB into YUV. */
GST_START_TEST (test_cuda_memory)
{
  static const struct
  {
    const gchar *in, *out;
    guint width, height;
    ClfParams params;
  } cases[] = {
    {"NV12", "BGRx", 130, 67, {CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP}},
    {"I420", "RGBA", 97, 55, {CLF_MODE_SLIDING, 3, CLF_BORDER_MIRROR}},
    {"P010_10LE", "BGRA", 66, 31, {CLF_MODE_BOX, 0, CLF_BORDER_CLAMP}},
    {"RGBA", "NV12", 35, 17, {CLF_MODE_LAPLACE, 0, CLF_BORDER_MIRROR}},
  };

  if (!have_cuda_memory ("test_cuda_memory"))
    return;
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    const FormatCase *in_fc = format_case (cases[c].in);
    const FormatCase *out_fc = format_case (cases[c].out);
    const Colour *colour = &colours[c % G_N_ELEMENTS (colours)];
    const Siting *siting = &sitings[c % G_N_ELEMENTS (sitings)];
    guint w = cases[c].width, h_ = cases[c].height;
    gchar *in_caps = is_yuv (cases[c].in) ? caps_with_colour (cases[c].in,
        w, h_, colour, siting) : caps_string (cases[c].in, w, h_);
    gchar *out_caps = is_yuv (cases[c].in) ? caps_string (cases[c].out, w,
        h_) : caps_with_colour (cases[c].out, w, h_, colour, siting);
    ClfFrameFormat in_format = frame_format (in_fc, w, h_);
    ClfFrameFormat out_format = frame_format (out_fc, w, h_);
    gchar *description = g_strdup_printf ("cudaupload ! "
        "video/x-raw(memory:CUDAMemory) ! clfilter name=f ! "
        "video/x-raw(memory:CUDAMemory),format=%s ! cudadownload",
        cases[c].out);
    GstHarness *h = gst_harness_new_parse (description);
    GstElement *filter = gst_bin_get_by_name (GST_BIN (h->element), "f");
    ClfConversion conversion;
    GstVideoInfo in_info, out_info;
    GstCaps *caps;
    GstPad *pad;

    g_object_set (filter, "mode", cases[c].params.mode, "radius",
        cases[c].params.radius, "border", cases[c].params.border, NULL);
    expected_conversion (cases[c].in, &in_format, &out_format, colour,
        siting, &conversion);
    set_both_caps (h, in_caps, out_caps, &in_info, &out_info);
    for (guint i = 0; i < 3; i++) {
      GstBuffer *in = random_buffer (in_info.size), *out;

      clear_spare_bits (in, &in_info, &in_format);
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
          GST_FLOW_OK);
      out = gst_harness_pull (h);
      fail_unless (out != NULL);
      check_converted (in_fc, &in_info, out_fc, &out_info, &cases[c].params,
          &conversion, "in CUDA memory", in, out);
      gst_buffer_unref (out);
      gst_buffer_unref (in);
    }
    /* clfilter converted in CUDA memory, not through the host. */
    pad = gst_element_get_static_pad (filter, "src");
    caps = gst_pad_get_current_caps (pad);
    fail_unless (caps && gst_caps_features_contains (gst_caps_get_features
            (caps, 0), "memory:CUDAMemory") && g_str_equal
        (gst_structure_get_string (gst_caps_get_structure (caps, 0),
                "format"), cases[c].out), "clfilter gave %" GST_PTR_FORMAT,
        caps);
    gst_caps_unref (caps);
    gst_object_unref (pad);
    gst_object_unref (filter);
    gst_harness_teardown (h);
    g_free (description);
    g_free (out_caps);
    g_free (in_caps);
  }
}

GST_END_TEST;

/* ---- against videoconvert ---- */

/* The samples of `a` and `b` (frames of `info`, described by `format`)
 * more than 2 apart, and the largest difference; at most 2 on 99.9 % of
 * them and never more than 4 is close enough (the bound); `exact`
 * counts the equal ones, `n` all of them. */
static void
compare_samples (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info,
    const ClfFrameFormat * format, guint64 * n, guint64 * over_2,
    guint * largest, guint64 * exact)
{
  GstVideoFrame fa, fb;
  ClfHostFrame ha, hb;

  fail_unless (gst_video_frame_map (&fa, info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, info, b, GST_MAP_READ));
  host_frame (&fa, &ha);
  host_frame (&fb, &hb);
  for (guint c = 0; c < format->n_components; c++) {
    const ClfComponent *k = &format->components[c];

    for (guint y = 0; y < k->height; y++)
      for (guint x = 0; x < k->width; x++) {
        gsize at = y * ha.stride[k->plane] + x * k->pstride + k->offset;
        gsize bt = y * hb.stride[k->plane] + x * k->pstride + k->offset;
        guint va = clf_ref_read_value (k, ha.data[k->plane] + at);
        guint vb = clf_ref_read_value (k, hb.data[k->plane] + bt);
        guint d = va > vb ? va - vb : vb - va;

        *n += 1;
        *over_2 += d > 2;
        *exact += d == 0;
        *largest = MAX (*largest, d);
      }
  }
  gst_video_frame_unmap (&fb);
  gst_video_frame_unmap (&fa);
}

/* `buf` through the element `description` (a harness of its own) from
 * `in_caps` to `out_caps`. */
static GstBuffer *
through (const gchar * description, const gchar * in_caps,
    const gchar * out_caps, GstBuffer * buf)
{
  GstHarness *h = gst_harness_new_parse (description);
  GstBuffer *out;

  gst_harness_set_caps_str (h, in_caps, out_caps);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (buf)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  gst_harness_teardown (h);
  return out;
}

/* clfilter's conversion of `buf` against videoconvert's, sample by
 * sample: close enough (compare_samples), said in the log with how many
 * are exact. */
static void
check_close (const gchar * what, const gchar * in_caps,
    const gchar * out_caps, GstBuffer * buf)
{
  GstBuffer *ours = through ("clfilter mode=box radius=0", in_caps, out_caps,
      buf);
  GstBuffer *theirs = through ("videoconvert", in_caps, out_caps, buf);
  GstCaps *caps = gst_caps_from_string (out_caps);
  GstVideoInfo info;
  ClfFrameFormat format;
  guint64 n = 0, over_2 = 0, exact = 0;
  guint largest = 0;

  fail_unless (gst_video_info_from_caps (&info, caps));
  format = frame_format (format_case (gst_video_format_to_string
          (GST_VIDEO_INFO_FORMAT (&info))), info.width, info.height);
  compare_samples (ours, theirs, &info, &format, &n, &over_2, &largest, &exact);
  GST_INFO ("%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " samples as "
      "videoconvert's, %" G_GUINT64_FORMAT " more than 2 apart, at most %u",
      what, exact, n, over_2, largest);
  fail_unless (largest <= 4 && over_2 * 1000 <= n, "%s: %" G_GUINT64_FORMAT
      " of %" G_GUINT64_FORMAT " samples more than 2 apart from "
      "videoconvert's, up to %u", what, over_2, n, largest);
  gst_caps_unref (caps);
  gst_buffer_unref (theirs);
  gst_buffer_unref (ours);
}

/* Snow (every value at random) of `in_name`, the YUV side of `colour`,
 * converted into `out_name` by clfilter and by videoconvert: close
 * enough. */
static void
check_snow (const gchar * in_name, const gchar * out_name,
    const Colour * colour)
{
  const FormatCase *fc = format_case (in_name);
  gchar *in_caps = is_yuv (in_name) ? caps_with_colour (in_name, 64, 48,
      colour, &sitings[0]) : caps_string (in_name, 64, 48);
  gchar *out_caps = is_yuv (in_name) ? caps_string (out_name, 64, 48) :
      caps_with_colour (out_name, 64, 48, colour, &sitings[0]);
  gchar *what = g_strdup_printf ("%s -> %s %s snow", in_name, out_name,
      colour->caps);
  ClfFrameFormat format = frame_format (fc, 64, 48);
  GstCaps *caps = gst_caps_from_string (in_caps);
  GstVideoInfo info;
  GstBuffer *buf;

  fail_unless (gst_video_info_from_caps (&info, caps));
  buf = random_buffer (GST_VIDEO_INFO_SIZE (&info));
  clear_spare_bits (buf, &info, &format);
  check_close (what, in_caps, out_caps, buf);
  gst_buffer_unref (buf);
  gst_caps_unref (caps);
  g_free (what);
  g_free (out_caps);
  g_free (in_caps);
}

/* Snow of 8- and 10-bit YUV formats of each colorimetry into BGRx, and of
 * RGB into 8- and 10-bit 4:2:0 (videoconvert dithers 10-bit output, which
 * clfilter rounds: 1 apart at most), as videoconvert converts it. */
GST_START_TEST (test_snow_close_to_videoconvert)
{
  const gchar *const yuv[] = { "I420", "NV12", "YUY2", "Y42B", "Y444",
    "I420_10LE", "P010_10LE", "I422_10LE", "Y444_10LE"
  };
  const gchar *const rgb[] = { "BGRx", "RGBA" };
  const gchar *const to_yuv[] = { "I420", "NV12", "I420_10LE", "P010_10LE" };

  for (guint c = 0; c < G_N_ELEMENTS (colours); c++) {
    for (guint f = 0; f < G_N_ELEMENTS (yuv); f++)
      check_snow (yuv[f], "BGRx", &colours[c]);
    for (guint f = 0; f < G_N_ELEMENTS (rgb); f++)
      for (guint o = 0; o < G_N_ELEMENTS (to_yuv); o++)
        check_snow (rgb[f], to_yuv[o], &colours[c]);
  }
}

GST_END_TEST;

/* Whether x264enc takes frames of `format`. */
static gboolean
x264_takes (const gchar * format)
{
  GstElement *enc = gst_element_factory_make ("x264enc", NULL);
  GstPad *pad;
  GstCaps *caps, *want;
  gboolean takes;

  if (!enc)
    return FALSE;
  pad = gst_element_get_static_pad (enc, "sink");
  caps = gst_pad_query_caps (pad, NULL);
  want = gst_caps_from_string (format);
  takes = gst_caps_can_intersect (caps, want);
  gst_caps_unref (want);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (enc);
  return takes;
}

/* Frames of a clip x264enc made, decoded by decodebin, converted by
 * clfilter and by videoconvert. */
static void
check_decoded_clip (const gchar * format, guint width, guint height)
{
  gchar *dir = g_dir_make_tmp ("clfilter-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "clip.mkv", NULL);
  gchar *encode = g_strdup_printf ("videotestsrc num-buffers=3 "
      "pattern=smpte ! video/x-raw,width=%u,height=%u,framerate=30/1 ! "
      "videoconvert ! video/x-raw,format=%s ! x264enc speed-preset=ultrafast "
      "! matroskamux ! filesink location=%s", width, height, format, path);
  gchar *decode = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "appsink name=sink sync=false", path);
  GstElement *pipeline, *sink;
  GstSample *sample;
  guint frames = 0;

  run_to_eos (encode);
  pipeline = gst_parse_launch (decode, NULL);
  fail_unless (pipeline != NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstCaps *caps = gst_sample_get_caps (sample);
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, 0));
    gchar *in_caps, *out_caps, *what;

    gst_structure_set (s, "format", G_TYPE_STRING, "BGRx", NULL);
    gst_structure_remove_fields (s, "colorimetry", "chroma-site", NULL);
    in_caps = gst_caps_to_string (caps);
    out_caps = gst_structure_to_string (s);
    what = g_strdup_printf ("decoded %s frame %u (%s)", format, frames,
        in_caps);
    check_close (what, in_caps, out_caps, gst_sample_get_buffer (sample));
    frames++;
    g_free (what);
    g_free (out_caps);
    g_free (in_caps);
    gst_structure_free (s);
    gst_sample_unref (sample);
  }
  fail_unless (frames > 0, "no frame was decoded");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_unlink (path);
  g_rmdir (dir);
  g_free (decode);
  g_free (encode);
  g_free (path);
  g_free (dir);
}

GST_START_TEST (test_decoded_clip_close_to_videoconvert)
{
  check_decoded_clip ("I420", 320, 240);
  /* HD: BT.709 and MPEG-2 siting by default. */
  check_decoded_clip ("I420", 1280, 720);
  if (x264_takes ("video/x-raw,format=I420_10LE"))
    check_decoded_clip ("I420_10LE", 320, 240);
  else
    GST_WARNING ("x264enc takes no 10-bit frames here: no 10-bit clip");
}

GST_END_TEST;

static Suite *
convert_suite (void)
{
  Suite *s = suite_create ("clfilter-convert");
  TCase *tc = tcase_create ("convert");

  test_rng_init ();
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_every_yuv_format);
  tcase_add_test (tc, test_every_rgb_format);
  tcase_add_test (tc, test_every_colorimetry);
  tcase_add_test (tc, test_rgb_to_yuv);
  tcase_add_test (tc, test_cuda_memory);
  tcase_add_test (tc, test_snow_close_to_videoconvert);
  tcase_add_test (tc, test_decoded_clip_close_to_videoconvert);
  return s;
}

GST_CHECK_MAIN (convert);
