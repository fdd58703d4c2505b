/* The on-disk cache of program binaries.  PoCL (and some GPU drivers) take
 * seconds to compile the kernels, so the binary of a program built from
 * source is kept in a file and the next engine builds from that instead.
 * The cache is an optimisation only: whatever goes wrong here (no
 * directory, a corrupt, truncated or stale file, a binary the driver
 * refuses) ends in a build from source, never in an error. */
#include "clf-private.h"
#include "clf-kernels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bump when the file layout or what the key covers changes. */
#define CACHE_FORMAT_VERSION 1

static const char cache_magic[8] = "CLFPROG\n";

_Static_assert (sizeof (ClfCacheHeader) == 56, "no padding in the header");

/* ---- hashing: 128-bit FNV-1a ------------------------------------------- */

typedef struct {
  uint64_t hi, lo;
} Hash128;

/* The offset basis of the FNV reference. */
static const Hash128 fnv128_basis = {
  0x6c62272e07bb0142ull, 0x62b821756295c58dull
};

static void
fnv128_update (Hash128 * h, const void *data, size_t size)
{
  const unsigned char *bytes = data;
  for (size_t i = 0; i < size; i++) {
    h->lo ^= bytes[i];
    /* h *= 2^88 + 0x13b (the FNV prime) mod 2^128, on 64-bit halves:
     * lo * 0x13b in two 32-bit pieces for its carry into hi. */
    uint64_t lo_low = (h->lo & 0xffffffffu) * 0x13b;
    uint64_t lo_high = (h->lo >> 32) * 0x13b;
    uint64_t carry = (lo_high + (lo_low >> 32)) >> 32;
    h->hi = h->hi * 0x13b + carry + (h->lo << 24);
    h->lo = lo_low + (lo_high << 32);
  }
}

/* A string with its length first, so that no two lists of strings hash
 * the same bytes. */
static void
hash_text (Hash128 * h, const char *text)
{
  uint64_t length = strlen (text);
  fnv128_update (h, &length, sizeof length);
  fnv128_update (h, text, length);
}

/* Everything the binary depends on: the kernels' source, the options and
 * the driver's and device's identity.  False when the device cannot say
 * who it is. */
static bool
compute_key (cl_platform_id platform, cl_device_id device,
    const char *options, uint64_t key[2])
{
  char *identity[] = {
    clf_info_string (NULL, device, CL_DEVICE_NAME),
    clf_info_string (NULL, device, CL_DEVICE_VERSION),
    clf_info_string (NULL, device, CL_DRIVER_VERSION),
    clf_info_string (platform, NULL, CL_PLATFORM_NAME),
    clf_info_string (platform, NULL, CL_PLATFORM_VERSION),
  };
  Hash128 h = fnv128_basis;
  uint64_t version = CACHE_FORMAT_VERSION;
  bool ok = true;

  fnv128_update (&h, &version, sizeof version);
  for (unsigned i = 0; i < CLF_N_KERNEL_SOURCES; i++)
    hash_text (&h, clf_kernel_sources[i]);
  hash_text (&h, options);
  for (size_t i = 0; i < sizeof identity / sizeof identity[0]; i++) {
    ok = ok && identity[i];
    if (identity[i])
      hash_text (&h, identity[i]);
    free (identity[i]);
  }
  key[0] = h.hi;
  key[1] = h.lo;
  return ok;
}

/* ---- where the files are ------------------------------------------------ */

static bool
cache_disabled (void)
{
  const char *off = getenv ("CLFILTER_NO_CACHE");
  return off && *off && strcmp (off, "0") != 0;
}

/* $XDG_CACHE_HOME/gst-clfilter, else $HOME/.cache/gst-clfilter; NULL
 * when neither is set.  A relative XDG_CACHE_HOME is ignored, as the XDG
 * base directory specification asks. */
static char *
cache_dir (void)
{
  const char *xdg = getenv ("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/')
    return clf_strdup_printf ("%s/gst-clfilter", xdg);
  const char *home = getenv ("HOME");
  if (home && *home)
    return clf_strdup_printf ("%s/.cache/gst-clfilter", home);
  return NULL;
}

/* Creates `dir` and any missing parents, private to the user. */
static bool
make_dirs (char *dir)
{
  for (char *slash = strchr (dir + 1, '/');; slash = strchr (slash + 1, '/')) {
    if (slash)
      *slash = '\0';
    bool ok = mkdir (dir, 0700) == 0 || errno == EEXIST;
    if (slash)
      *slash = '/';
    if (!ok || !slash)
      return ok;
  }
}

bool
clf_cache_entry_init (ClfCacheEntry * entry, cl_platform_id platform,
    cl_device_id device, const char *options)
{
  memset (entry, 0, sizeof *entry);
  if (cache_disabled ()
      || !compute_key (platform, device, options, entry->key))
    return false;
  entry->dir = cache_dir ();
  if (entry->dir)
    entry->path = clf_strdup_printf ("%s/%016llx%016llx.bin", entry->dir,
        (unsigned long long) entry->key[0],
        (unsigned long long) entry->key[1]);
  if (!entry->path) {
    clf_cache_entry_clear (entry);
    return false;
  }
  return true;
}

void
clf_cache_entry_clear (ClfCacheEntry * entry)
{
  free (entry->dir);
  free (entry->path);
  memset (entry, 0, sizeof *entry);
}

/* ---- loading ------------------------------------------------------------ */

static void
payload_checksum (const unsigned char *payload, size_t size,
    uint64_t checksum[2])
{
  Hash128 h = fnv128_basis;
  fnv128_update (&h, payload, size);
  checksum[0] = h.hi;
  checksum[1] = h.lo;
}

/* The payload of the open file `file` when it is a whole, intact entry for
 * `key` (malloc'd, its size in `size`); else NULL. */
static unsigned char *
read_payload (FILE * file, const uint64_t key[2], size_t *size)
{
  ClfCacheHeader header;
  struct stat st;
  uint64_t checksum[2];

  if (fstat (fileno (file), &st) != 0
      || fread (&header, sizeof header, 1, file) != 1
      || memcmp (header.magic, cache_magic, sizeof cache_magic) != 0
      || header.version != CACHE_FORMAT_VERSION
      || header.key[0] != key[0] || header.key[1] != key[1]
      || header.payload_size == 0
      || header.payload_size != (uint64_t) st.st_size - sizeof header)
    return NULL;

  unsigned char *payload = malloc (header.payload_size);
  if (!payload || fread (payload, header.payload_size, 1, file) != 1)
    goto fail;
  payload_checksum (payload, header.payload_size, checksum);
  if (checksum[0] != header.checksum[0] || checksum[1] != header.checksum[1])
    goto fail;
  *size = header.payload_size;
  return payload;

fail:
  free (payload);
  return NULL;
}

/* The program built from `binary`, or NULL where the driver refuses it. */
static cl_program
program_from_binary (cl_context context, cl_device_id device,
    const char *options, const unsigned char *binary, size_t size)
{
  cl_int status, binary_status = CL_INVALID_BINARY;
  cl_program program = clCreateProgramWithBinary (context, 1, &device,
      &size, &binary, &binary_status, &status);
  CLF_CHECK (status, "clCreateProgramWithBinary", NULL, fail);
  CLF_CHECK (binary_status, "clCreateProgramWithBinary", NULL, fail);
  /* A program made from a binary still has to be built (OpenCL 1.2
   * 5.6.2), with the options it was compiled with. */
  CLF_TRY (NULL, fail, clBuildProgram, program, 1, &device, options, NULL,
      NULL);
  return program;

fail:
  if (program)
    clReleaseProgram (program);
  return NULL;
}

cl_program
clf_cache_load (const ClfCacheEntry * entry, cl_context context,
    cl_device_id device, const char *options, ClfCacheStats * stats)
{
  FILE *file = fopen (entry->path, "rb");
  if (!file)
    return NULL;                /* no entry yet (or none readable) */

  size_t size = 0;
  unsigned char *binary = read_payload (file, entry->key, &size);
  fclose (file);
  cl_program program = binary ?
      program_from_binary (context, device, options, binary, size) : NULL;
  free (binary);
  if (program) {
    stats->loads++;
  } else {
    /* Corrupt, truncated, stale or refused: the build from source that
     * follows writes it anew. */
    unlink (entry->path);
    stats->rejects++;
  }
  return program;
}

/* ---- storing ------------------------------------------------------------ */

static bool
write_all (int fd, const void *data, size_t size)
{
  const unsigned char *bytes = data;
  while (size > 0) {
    ssize_t n = write (fd, bytes, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes += n;
    size -= (size_t) n;
  }
  return true;
}

/* Writes a temporary file beside the entry and renames it over the entry,
 * so that a reader sees a whole file or none (a write cut short by a
 * crash leaves a file the checksum rejects, or a stray temporary). */
static bool
write_entry (const ClfCacheEntry * entry, const ClfCacheHeader * header,
    const unsigned char *payload)
{
  char *temp = clf_strdup_printf ("%s.XXXXXX", entry->path);
  int fd = temp ? mkstemp (temp) : -1;
  if (fd < 0) {
    free (temp);
    return false;
  }
  bool ok = write_all (fd, header, sizeof *header)
      && write_all (fd, payload, header->payload_size);
  ok = close (fd) == 0 && ok;
  ok = ok && rename (temp, entry->path) == 0;
  if (!ok)
    unlink (temp);
  free (temp);
  return ok;
}

void
clf_cache_store (const ClfCacheEntry * entry, cl_program program,
    ClfCacheStats * stats)
{
  size_t size = 0;
  unsigned char *binary = NULL;
  ClfCacheHeader header = { .version = CACHE_FORMAT_VERSION };

  /* One size: the engine's context has one device. */
  CLF_TRY (NULL, done, clGetProgramInfo, program, CL_PROGRAM_BINARY_SIZES,
      sizeof size, &size, NULL);
  binary = size ? malloc (size) : NULL;
  if (!binary)
    goto done;
  CLF_TRY (NULL, done, clGetProgramInfo, program, CL_PROGRAM_BINARIES,
      sizeof binary, &binary, NULL);

  memcpy (header.magic, cache_magic, sizeof cache_magic);
  header.key[0] = entry->key[0];
  header.key[1] = entry->key[1];
  header.payload_size = size;
  payload_checksum (binary, size, header.checksum);
  if (make_dirs (entry->dir) && write_entry (entry, &header, binary))
    stats->stores++;

done:
  free (binary);
}
