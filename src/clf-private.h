/* Internal to the engine: error helpers and the one OpenCL check macro. */
#pragma once

#include "clf.h"
#include "clf-test-hooks.h"

/* Records that OpenCL call `call` failed with `status`. */
void clf_error_set_cl (ClfError * err, const char *call, cl_int status);
/* Takes ownership of `detail` (malloc'd), replacing any earlier one. */
void clf_error_take_detail (ClfError * err, char *detail);
/* Sets `err` to a copy of `from` (an error several callers report). */
void clf_error_copy (ClfError * err, const ClfError * from);

/* Checks the status of OpenCL call `call`; on failure records the call's
 * name and the CL error in `err` and jumps to `label`. */
#define CLF_CHECK(status, call, err, label)               \
  do {                                                    \
    if ((status) != CL_SUCCESS) {                         \
      clf_error_set_cl ((err), (call), (status));         \
      goto label;                                         \
    }                                                     \
  } while (0)

/* Calls an OpenCL function returning cl_int and checks it.  (In test
 * builds an injected fault stands for the call: clf-test-hooks.h.) */
#define CLF_TRY(err, label, fn, ...)                      \
  do {                                                    \
    cl_int clf_status_ = clf_test_fault (#fn);            \
    if (clf_status_ == CL_SUCCESS)                        \
      clf_status_ = fn (__VA_ARGS__);                     \
    CLF_CHECK (clf_status_, #fn, err, label);             \
  } while (0)

/* For OpenCL calls that return an object and report through `status`:
 * CLF_FAULT_OR (status, x = clCreateBuffer (..., &status)) makes the call
 * unless a fault is injected for it. */
#define CLF_FAULT_OR(status, name, call)                  \
  do {                                                    \
    (status) = clf_test_fault (name);                     \
    if ((status) == CL_SUCCESS)                           \
      call;                                               \
  } while (0)

/* How the kernels see the pixels of a plane: a program is built for each
 * layout (kernels/common.cl lists its -D options). */
typedef struct {
  uint32_t sample_bytes;        /* a sample's container: 1 or 2 */
  uint32_t units;               /* samples per pixel, 1..4 (BPP) */
  uint32_t mask;                /* bit c: sample c is filtered */
  uint32_t depth;               /* of the filtered samples' values */
  uint32_t shift;
  bool swap;                    /* containers in the other byte order than
                                 * the device's */
  bool wide_sums;               /* 64-bit window sums: 16-bit layouts at
                                 * the radii whose sums pass 2^32 */
} ClfLayout;

bool clf_layout_equal (const ClfLayout * a, const ClfLayout * b);

/* The geometry of the GPUs' one-pass sliding blur (sliding_tiles in
 * kernels/blur-tiles-gpu.cl; separable_tiles takes the same tiles), given
 * to the kernels as -D options: a work-group's work-items, each keeping the
 * column sums of a run of whole pixels of up to 16 samples (8 KiB of
 * local memory for a row of them); and the largest radius it takes.
 * It sums each pixel's window along the row from the column sums in local
 * memory, 2r + 1 reads a run.  Tiles of 128
 * work-items beat the two passes up to r = 15 (3840x2160 on an H100, at
 * r = 15: rgba 0.153 against 0.303 ms, gray8 0.054 against 0.107, i420
 * 0.124 against 0.209, rgba64 0.248 against 0.362; RGBA's tiles before
 * packing, of 256 work-items, lost there on an H200: 0.304 against
 * 0.262). */
#define CLF_TILE_GROUP 128
#define CLF_TILES_MAX_RADIUS 15

static inline uint32_t
clf_tile_run_pixels (const ClfLayout * layout)
{
  return layout->units == 3 ? 5 : 16 / layout->units;
}

/* Whether a layout's tiles keep packed 16-bit sums, two to a word: 8-bit
 * values filling their bytes (the packed kernels add bytes as they are),
 * four a pixel (RGBA and its kin); the kernels' PACKED_TILES.
 * Only these have the separable blur in tiles (separable_tiles): the
 * other layouts' general tiles lost to the two passes (3840x2160 on an
 * H100, r = 7: gray8 0.201 against 0.185 ms, i420 0.397 against 0.289,
 * rgba64 0.417 against 0.360). */
static inline bool
clf_packed_tiles (const ClfLayout * layout)
{
  return layout->sample_bytes == 1 && layout->depth == 8
      && layout->units == 4;
}

/* The GPUs' sliding blur in two passes with 16-bit column sums
 * (narrow_column_sums, narrow_row_means in kernels/blur-sliding-gpu.cl),
 * for 8-bit samples up to the radius whose column sums of 2r + 1 values
 * fit 16 bits.  narrow_row_means keeps a chunk of a row's column sums in
 * CLF_NARROW_BYTES of local memory; with their pads, the chunk's means
 * (half as many bytes) and the scan of a work-group, within the 32 KiB
 * that OpenCL 1.2 devices have at least (blur-sliding-gpu.cl checks it:
 * 18432 took 32896 bytes for RGBA).  A row of 3840 RGBA pixels is two chunks at
 * every radius they take, one of 1920 pixels takes one. */
#define CLF_NARROW_MAX_RADIUS 127
#define CLF_NARROW_BYTES 18176

static inline bool
clf_narrow_sums (const ClfLayout * layout)
{
  return layout->sample_bytes == 1;
}

/* The pixels of a chunk narrow_row_means keeps, r either side included. */
static inline uint32_t
clf_narrow_pixels (const ClfLayout * layout)
{
  return CLF_NARROW_BYTES / (2 * layout->units);
}

/* A program of all kernels for one layout, built on first use and kept by
 * the engine.  The caller gets a new reference.  The build runs on a
 * thread of its own; the caller waits for it, asking `interrupt` (may be
 * NULL) every few milliseconds: when it says stop, NULL with
 * CLF_ERROR_CANCELLED, and the build goes on, its program kept for the
 * next caller (and stored in the binary cache). */
cl_program clf_engine_program (ClfEngine * engine, const ClfLayout * layout,
    const ClfInterrupt * interrupt, ClfError * err);
/* Whether the device stores multi-byte values little-endian. */
bool clf_engine_little_endian (const ClfEngine * engine);

/* Every kernel, by name (clf-plan.c); a layout's program holds those
 * clf_layout_has_kernel names, and one from the cache must hold them
 * all. */
#define CLF_N_KERNELS 13
extern const char *const clf_kernel_names[CLF_N_KERNELS];
/* Whether the program of `layout` has kernel k (clf_kernel_names). */
bool clf_layout_has_kernel (const ClfLayout * layout, unsigned k);

/* The build options of the program for one layout, into `buf`, which
 * they always fit. */
#define CLF_PROGRAM_OPTIONS_SIZE 320
void clf_program_options (const ClfLayout * layout,
    char buf[CLF_PROGRAM_OPTIONS_SIZE]);

/* The multiplier and shift that divide window sums by the window's area in
 * the kernels (Mean in common.cl), for a radius and samples of
 * `sample_bytes` bytes and `depth` bits (clf-plan.c). */
void clf_mean_divider (uint32_t radius, uint32_t sample_bytes,
    uint32_t depth, cl_ulong * mul, cl_int * shift);

/* ---- frame formats (clf-format.c) ---- */

/* The components of one plane that share a grid of pixels (the same pixel
 * stride, container size, width and height): the kernels filter its pixels
 * of `units` containers.  Packed 4:2:2 has two in its one plane: luma
 * (pixels of 2 samples, the second being chroma) and chroma (pixels of 4,
 * two of them luma). */
typedef struct {
  uint32_t plane;
  uint32_t width;               /* pixels per row */
  uint32_t height;
  uint32_t sample_bytes;
  uint32_t units;               /* samples per pixel: pstride / sample_bytes */
  uint32_t blur_mask;           /* samples the blurs filter */
  uint32_t laplace_mask;        /* samples laplace sharpens */
  uint32_t depth, shift;        /* of the filtered samples */
  bool big_endian;
} ClfView;

typedef struct {
  uint32_t n;
  ClfView views[CLF_MAX_COMPONENTS];
} ClfViews;

/* The views of a checked format (clf_frame_format_check), in the order
 * they run within a plane: the widest (in bytes) first, so that a later
 * view of the same plane finds the samples it copies written already. */
void clf_frame_format_views (const ClfFrameFormat * format, ClfViews * views);

char *clf_strdup_printf (const char *fmt, ...)
    __attribute__((format (printf, 1, 2)));

/* A platform's (or, with platform NULL, a device's) string property,
 * malloc'd; NULL when it cannot be read. */
char *clf_info_string (cl_platform_id platform, cl_device_id device,
    cl_uint param);

/* ---- the on-disk cache of program binaries (clf-cache.c) ---- */

/* SHA-256: the key of an entry and the checksum of its binary. */
#define CLF_CACHE_HASH_BYTES 32

/* What precedes the binary in a file, in host byte order: the cache is
 * one machine's.  (Here for the tests, which plant entries.) */
typedef struct {
  char magic[8];
  uint64_t version;
  uint64_t payload_size;
  uint8_t key[CLF_CACHE_HASH_BYTES];
  uint8_t checksum[CLF_CACHE_HASH_BYTES];       /* of the payload */
} ClfCacheHeader;

/* One program's place in the cache. */
typedef struct {
  uint8_t key[CLF_CACHE_HASH_BYTES];    /* sources, options, device, driver */
  int dir_fd;                   /* the cache's directory, open and checked */
  char name[2 * CLF_CACHE_HASH_BYTES + sizeof ".bin"];  /* the entry's file */
} ClfCacheEntry;

/* The file of a platform's driver library, as the ICD loader loaded it. */
typedef struct {
  const char *path;             /* the loader's, while the driver is loaded */
  uint64_t device, inode, size;
  int64_t mtime_sec, mtime_nsec;
} ClfDriverFile;

/* Fills `file` for `platform`'s driver; false where it cannot be found. */
bool clf_cache_driver_file (cl_platform_id platform, ClfDriverFile * file);
/* The key of the program built with `options` for `device` by the driver
 * in `driver`: SHA-256 over the kernels' sources, the options, the
 * device's and platform's names and versions and the driver's file.
 * False when the device cannot say who it is.  (Here for the tests.) */
bool clf_cache_key (cl_platform_id platform, cl_device_id device,
    const ClfDriverFile * driver, const char *options,
    uint8_t key[CLF_CACHE_HASH_BYTES]);
/* Fills `entry` for the program built with `options` for `device`; false
 * (and nothing to clear) when there is no cache: CLFILTER_NO_CACHE is set,
 * no directory is named, the directory is not one to trust (see
 * clf-cache.c), or the device or its driver's file cannot be
 * identified. */
bool clf_cache_entry_init (ClfCacheEntry * entry, cl_platform_id platform,
    cl_device_id device, const char *options);
void clf_cache_entry_clear (ClfCacheEntry * entry);
/* The program of `layout` built from the entry's binary, or NULL: no
 * entry (a miss), or one that is not a plain file of ours, too large, not
 * whole, not this key's, not accepted by the driver or without a kernel
 * the layout's program has, which is removed (counted in
 * `stats->rejects`).  The entry is set aside while the driver loads it,
 * and what an earlier start set aside and did not put back is removed
 * (counted in `stats->rejects` too). */
cl_program clf_cache_load (const ClfCacheEntry * entry,
    const ClfLayout * layout, cl_context context, cl_device_id device,
    const char *options, ClfCacheStats * stats);
/* Writes the binary of the built `program` as the entry, atomically;
 * counts it in `stats->stores` when it was written. */
void clf_cache_store (const ClfCacheEntry * entry, cl_program program,
    ClfCacheStats * stats);
