/* The on-disk cache of program binaries (clf-cache.c).  On the error
 * helpers alone: what a program must hold, the caller says. */
#pragma once

#include "clf.h"


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
/* The program built from the entry's binary, or NULL: no entry (a miss),
 * or one that is not a plain file of ours, too large, not whole, not this
 * key's, not accepted by the driver or without one of the `n_kernels`
 * kernels named in `kernels` (those the caller makes from the program),
 * which is removed (counted in `stats->rejects`).  The entry is set aside
 * while the driver loads it, and what an earlier start set aside and did
 * not put back is removed (counted in `stats->rejects` too). */
cl_program clf_cache_load (const ClfCacheEntry * entry,
    const char *const *kernels, unsigned n_kernels, cl_context context,
    cl_device_id device, const char *options, ClfCacheStats * stats);
/* Writes the binary of the built `program` as the entry, atomically;
 * counts it in `stats->stores` when it was written. */
void clf_cache_store (const ClfCacheEntry * entry, cl_program program,
    ClfCacheStats * stats);
