/* Internal to the engine: error helpers and the one OpenCL check macro. */
#pragma once

#include "clf.h"
#include "clf-test-hooks.h"

/* Records that OpenCL call `call` failed with `status`. */
void clf_error_set_cl (ClfError * err, const char *call, cl_int status);
/* Takes ownership of `detail` (malloc'd), replacing any earlier one. */
void clf_error_take_detail (ClfError * err, char *detail);

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

/* A program of all kernels for one pixel layout (bytes per pixel and mask
 * of filtered bytes), built on first use and kept by the engine.  The
 * caller gets a new reference. */
cl_program clf_engine_program (ClfEngine * engine, uint32_t bpp,
    uint32_t mask, ClfError * err);

/* Every kernel of a program, by name (clf-plan.c); a program from the
 * cache must hold them all. */
#define CLF_N_KERNELS 9
extern const char *const clf_kernel_names[CLF_N_KERNELS];

/* The build options of the program for one pixel layout, into `buf`. */
void clf_program_options (uint32_t bpp, uint32_t mask, char *buf,
    size_t size);

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

/* Fills `entry` for the program built with `options` for `device`; false
 * (and nothing to clear) when there is no cache: CLFILTER_NO_CACHE is set,
 * no directory is named, the directory is not one to trust (see
 * clf-cache.c), or the device cannot be identified. */
bool clf_cache_entry_init (ClfCacheEntry * entry, cl_platform_id platform,
    cl_device_id device, const char *options);
void clf_cache_entry_clear (ClfCacheEntry * entry);
/* The program built from the entry's binary, or NULL: no entry (a miss),
 * or one that is not a plain file of ours, too large, not whole, not this
 * key's, not accepted by the driver or without all of clf_kernel_names,
 * which is removed (counted in `stats->rejects`). */
cl_program clf_cache_load (const ClfCacheEntry * entry, cl_context context,
    cl_device_id device, const char *options, ClfCacheStats * stats);
/* Writes the binary of the built `program` as the entry, atomically;
 * counts it in `stats->stores` when it was written. */
void clf_cache_store (const ClfCacheEntry * entry, cl_program program,
    ClfCacheStats * stats);
