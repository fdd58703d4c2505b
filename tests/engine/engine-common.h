/* Shared by the engine tests (tests/engine/, one program, test-engine):
 * the failure count and CHECK, the random source, the quick tier's
 * sample, host frames and blobs of device or host memory, and the checks
 * of a plan against the reference.  Each group of tests is a file of its
 * own (<group>.c, its entry point test_<group>); main.c runs them. */
#pragma once

/* flock */
#define _DEFAULT_SOURCE
#include "config.h"
#include "clf-private.h"        /* the cache's entries, to plant some */
#include "clf-kernels.h"         /* the kernels' sources, to run parts */
#include "reference.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The naive box reads (2r+1)^2 samples per pixel; on a CPU a case above
 * this many reads would take minutes (640x480 at r=1023 is 1.3e12). */
#define CPU_BOX_READ_BUDGET 4.0e10

#define CHECK(cond, ...)                                            \
  do {                                                              \
    if (!(cond)) {                                                  \
      failures++;                                                   \
      fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__);          \
      fprintf (stderr, __VA_ARGS__);                                \
      fputc ('\n', stderr);                                         \
    }                                                               \
  } while (0)

#define CANARY 0xA5

/* A frame of one plane of bpp 8-bit samples a pixel, the masks' samples
 * blurred and sharpened, the others copied. */
#define one_plane clf_ref_byte_plane

static const uint32_t radii[] = { 0, 1, 2, 7, 30, 1023 };

static const struct {
  uint32_t w, h;
} sizes[] = { {1, 1}, {1, 7}, {7, 1}, {13, 11}, {97, 61}, {640, 480} };

#define N_OF(a) (sizeof (a) / sizeof (a)[0])

#define SHARP CLF_COMPONENT_SHARPENED
#define BLUR CLF_COMPONENT_BLURRED
#define ALPHA CLF_COMPONENT_COPIED

/* A frame laid out in one block of memory, as a GStreamer buffer holds
 * it: planes at odd offsets with padded rows; every other byte a canary. */
typedef struct {
  uint8_t *bytes;
  size_t size;
  ClfFrame frame;               /* offsets and strides; data[] unset */
} Blob;

/* A frame of random pixels and an empty one (all canary), as blobs, with
 * their device buffers (mem NULL where there is none). */
typedef struct {
  Blob src, dst;
  cl_mem src_mem, dst_mem;
} BlobPair;

/* The argument that makes test-engine one start of an engine in a process
 * of its own, so that a driver crashing on a cached binary takes that
 * process only. */
#define CACHE_START_ARG "cache-start"

/* Failures so far: CHECK counts them, main reports them. */
extern int failures;
/* The state of next_random, seeded from CLF_TEST_SEED. */
extern uint64_t rng_state;
/* The quick tier: which combinations of the matrices run (see sampled). */
extern bool quick_tier;
extern size_t sample_offset;
/* The engine every group runs on ("auto", or CLFILTER_DEVICE). */
extern ClfEngine *engine;
/* The device's own type, whatever the test layer tells the engine. */
extern bool device_is_cpu;
/* The naive box cases a CPU device left out (check_format_at_radius). */
extern int skipped_box_cases;
/* The naive box cases a CPU device runs: those within this many reads. */
extern double cpu_box_budget;

/* The message of `err` for a failure's report, which may come without
 * one. */
const char *message_of (const GError * err);

uint64_t next_random (void);

/* A host frame with padded rows: the padding holds a canary that must
 * survive, and the pixels random bytes. */
void test_frame_init (ClfHostFrame * t, const ClfFrameFormat * format,
    bool random);

void test_frame_clear (ClfHostFrame * t);

/* One plane of w x h pixels in the colour layouts the filters' sizes are
 * checked over: gray, RGB, RGBx, xRGB, and pixels of 3 whose middle
 * sample is copied (runs of 16 samples start at any sample of a
 * pixel). */
#define N_COLOUR_LAYOUTS 5
void colour_layouts (uint32_t w, uint32_t h,
    const char *names[N_COLOUR_LAYOUTS],
    ClfFrameFormat formats[N_COLOUR_LAYOUTS]);

/* The formats of the arithmetic's extremes, 23x19: RGBA (alpha copied),
 * gray16 and gray16-be. */
#define N_EXTREME_FORMATS 3
void extreme_formats (const char *names[N_EXTREME_FORMATS],
    ClfFrameFormat formats[N_EXTREME_FORMATS]);

/* A frame of extreme bytes: every byte 0xff, or (checker) a checkerboard
 * of 0xff and 0 by byte pairs; the rows' padding a canary. */
void extreme_frame_init (ClfHostFrame * in, const ClfFrameFormat * format,
    bool checker);

/* Same pixels, same canaries: compares whole planes, padding included. */
bool frames_equal (const ClfFrameFormat * format, const ClfHostFrame * got,
    const ClfHostFrame * want, const char *what);

void describe (char *buf, size_t size, const char *layout,
    const ClfFrameFormat * format, const ClfParams * params);

/* A plan for `format`, or NULL with the failure recorded. */
ClfPlan *plan_for (const char *layout, const ClfFrameFormat * format);

/* Runs one mode on `in` and compares the result with `want`; the output
 * is kept in `out` for the caller. */
bool run_and_compare (ClfPlan * plan, const ClfParams * params,
    const ClfFrameFormat * format, const char *what, const ClfHostFrame * in,
    ClfHostFrame * out, const ClfHostFrame * want);

/* Filters `in` with `params` and checks every byte against the C
 * reference's. */
void check_against_reference (ClfPlan * plan, const ClfParams * params,
    const ClfFrameFormat * format, const char *what, const ClfHostFrame * in);

/* Runs every mode with both borders at `radius` on one random frame;
 * checks each against the reference and the blurs against each other. */
void check_format_at_radius (const char *layout, const ClfFrameFormat * format,
    uint32_t radius);

/* Whether the case whose indices add up to `sum` runs: every case in the
 * full tier; in the quick tier one in `every`, turned by the seed.  With
 * one index that steps through `every` consecutive values, each value of
 * the others still runs once. */
bool sampled (size_t sum, size_t every);

/* A frame of n planes of 8-bit samples, each {width, height, bytes per
 * pixel, blur mask, laplace mask}. */
ClfFrameFormat byte_planes (uint32_t n, const uint32_t planes[][5]);

/* A component of w x h samples: plane, container offset, pixel stride,
 * depth, shift, byte order, role. */
ClfComponent component (uint32_t plane, uint32_t offset, uint32_t pstride,
    uint32_t w, uint32_t h, uint32_t depth, uint32_t shift, bool big_endian,
    ClfComponentRole role);

/* The families of formats beyond 8-bit bytes, at w x h: 16-bit samples
 * (full, low and high bits, either byte order), packed 4:2:2 (odd widths
 * leave half the last pixel pair unused; YVYU lists its chroma in the
 * other order of their bytes), alpha copied in a packed pixel and as a
 * plane of its own (A420).  At most 16. */
size_t format_families (uint32_t w, uint32_t h, const char **names,
    ClfFrameFormat * f);

void blob_init (Blob * b, const ClfFrameFormat * format,
    const ClfHostFrame * from, uint8_t *storage);

/* An empty blob (all canary) with the layout of `like`. */
void blob_like (Blob * b, const Blob * like);

/* The blob's planes as a host frame, to compare with frames_equal
 * (which also checks the canaries at the end of each row). */
ClfHostFrame blob_planes (const Blob * b);

/* No byte outside the planes' rows changed: the gaps between planes. */
void check_blob_gaps (const ClfFrameFormat * format, const Blob * b,
    const char *what);

cl_mem device_copy (const Blob * b);

void read_back (cl_mem mem, Blob * b);

/* The frame in `b` as seen from device buffer `mem`, or (mem NULL) from
 * host memory. */
ClfFrame frame_of (const Blob * b, cl_mem mem);

void process_and_check (ClfPlan * plan, const ClfParams * params,
    const ClfFrameFormat * format, const ClfFrame * src, const ClfFrame * dst,
    uint32_t copies, const char *what);

void check_blob (const ClfFrameFormat * format, const Blob * got,
    const ClfHostFrame * want, const char *what);

/* `in`'s pixels and an empty frame, each in a device buffer of its own. */
void device_blobs_init (BlobPair * b, const ClfFrameFormat * format,
    const ClfHostFrame * in);

void blob_pair_clear (BlobPair * b);

/* Every pairing of device and host frames on one format and mode. */
void check_frame_pairings (const char *layout, const ClfFrameFormat * format,
    const ClfParams * params);

/* `in`'s pixels and an empty frame in 4096-aligned host memory, each
 * wrapped in a device buffer when `wrap` and the device allow it (else its
 * mem stays NULL); `err` says why the first that failed was not. */
void host_blobs_init (BlobPair * h, const ClfFrameFormat * format,
    const ClfHostFrame * in, bool wrap, GError ** err);

/* A random value in [lo, hi]. */
int64_t random_in (int64_t lo, int64_t hi);

/* The test layer (tests/layer/) fails the call `spec` names
 * ("clCreateBuffer:3": the third one from now), or none (NULL).  Each
 * spec gets a tag of its own, so that the layer counts again. */
void fail_call (const char *spec);

/* The groups (main.c runs those named on its command line). */
void test_matrix (void);
void test_means (void);
void test_layouts (void);
void test_formats (void);
void test_oracle (void);
void test_devices (void);
void test_invalid (void);
void test_frames (void);
void test_convolve (void);
void test_convert (void);
void test_gaussian (void);
int cache_start_child (void);
void test_cache (void);
void test_stats (void);
void test_faults (void);
void test_long (void);
