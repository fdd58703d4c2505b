/* Shared by the gst-check tests: the formats written out by hand, random
 * frames as they reach the element (from its pool, padded, unaligned), and
 * the check of an output frame against the C reference; harnesses and
 * buses. */
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "reference.h"
#include "util.h"

/* One component of a format, written out by hand from the format's
 * definition (not from GstVideoFormatInfo) so that a mistake in the
 * element's own mapping cannot hide: its plane, the byte its container
 * starts at in a pixel, the bytes from one sample to the next, its depth
 * and shift in the container, its byte order, what the filters do with it,
 * and the subsampling (the plane's size is the frame's divided by sub_x
 * and sub_y, rounded up). */
typedef struct
{
  guint plane, offset, pstride, depth, shift;
  gboolean big_endian;
  ClfComponentRole role;
  guint sub_x, sub_y;
} CaseComponent;

typedef struct
{
  const gchar *name;
  guint n_planes;
  guint n_components;
  CaseComponent c[4];
} FormatCase;

/* A frame's format and size, and the settings to filter it with. */
typedef struct
{
  const gchar *format;
  guint width, height;
  ClfParams params;
} FilterCase;

/* How a test frame reaches the element. */
typedef enum
{
  INPUT_FROM_POOL,              /* the pool clfilter proposed: in place */
  INPUT_PADDED,                 /* system memory, padded rows and gaps
                                 * between planes, described by a meta */
  INPUT_UNALIGNED,              /* system memory 1 byte off alignment */
  N_INPUT_KINDS
} InputKind;

/* Seeded from CLF_TEST_SEED, else at random; the seed is printed. */
extern GRand *test_rng;
extern const FormatCase formats[];
extern const guint n_formats;
/* NULL-terminated. */
extern const gchar *const required_formats[];
extern const gchar *const input_names[];

/* Also reads CLF_TEST_TIER: "quick" (the quick tier) samples the big
 * matrices; unset or "full" runs all of them. */
void test_rng_init (void);
gboolean test_tier_quick (void);
/* Whether the case whose indices add up to `sum` runs: every case in the
 * full tier; in the quick tier one in `every`, turned by the seed.  With
 * one index that steps through `every` consecutive values, each value of
 * the others still runs once. */
gboolean test_sampled (guint sum, guint every);
const FormatCase *format_case (const gchar * name);
ClfFrameFormat frame_format (const FormatCase * fc, guint width,
    guint height);
gchar *caps_string (const gchar * format, guint width, guint height);
GstBuffer *fill_random (GstBuffer * buf);
GstBuffer *random_buffer (gsize size);
/* Adds to *counter the memories of `buf` not counted before: each is
 * marked (not compared by address: a freed and reallocated memory may
 * reuse an address), so a pad's probe counts the pools' allocations. */
void count_new_memories (GstBuffer * buf, guint * counter);
GstBuffer *system_buffer (gsize size, gsize misalign);
GstBuffer *padded_buffer (const FormatCase * fc, const GstVideoInfo * info);
GstBuffer *input_buffer (GstHarness * h, const FormatCase * fc,
    const GstVideoInfo * info, InputKind kind);
void host_frame (GstVideoFrame * vframe, ClfHostFrame * host);
void check_output (const FormatCase * fc, const GstVideoInfo * info,
    const ClfParams * params, const gchar * source, GstBuffer * in,
    GstBuffer * out);
void check_output_fields (const FormatCase * fc, const GstVideoInfo * info,
    const ClfParams * params, const gchar * source, GstBuffer * in,
    GstBuffer * out, gboolean fields);
/* `out` of `first ! second` on `in`: `first`'s reference output is what
 * `second` filtered. */
void check_two_steps (const FormatCase * fc, const GstVideoInfo * info,
    const ClfParams * first, const ClfParams * second, const gchar * what,
    GstBuffer * in, GstBuffer * out);
void push_and_check (GstHarness * h, const FormatCase * fc,
    const GstVideoInfo * info, const ClfParams * params, InputKind kind);
/* A harness around clfilter (zero-copy set before it starts), posting to a
 * bus the test reads; harness_free undoes both. */
GstHarness *harness_with_bus (gboolean zero_copy, GstBus ** bus);
void harness_free (GstHarness * h, GstBus * bus);
/* Whether the default device works on host memory itself (PoCL, an
 * integrated GPU): the engine wraps host planes there. */
gboolean device_shares_host_memory (void);
/* Whether clfilter was built with CUDA memory and GStreamer's cudaupload
 * exists (an NVIDIA machine); else says SKIP for `test`. */
gboolean have_cuda_memory (const gchar * test);
/* Runs the gst-launch `description` to its EOS; fails on an error. */
void run_to_eos (const gchar * description);
/* The first error message on `bus`, parsed; fails when there is none. */
void pop_error (GstBus * bus, GError ** error, gchar ** debug);
void set_caps (GstHarness * h, const gchar * format, guint width,
    guint height, GstVideoInfo * info);

/* Drops the EOS messages on the pipeline's bus, for a test to call after
 * a flushing seek: an EOS of the segment before it (which may have ended
 * while the test waited to seek, on a busy machine) says nothing of the
 * new one. */
void drop_stale_eos (GstElement * pipeline);
