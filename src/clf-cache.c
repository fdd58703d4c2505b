/* The on-disk cache of program binaries.  PoCL (and some GPU drivers) take
 * seconds to compile the kernels, so the binary of a program built from
 * source is kept in a file and the next engine builds from that instead.
 * The cache is an optimisation only: whatever goes wrong here (no
 * directory, a corrupt, truncated or stale file, a binary the driver
 * refuses) ends in a build from source, never in an error.
 *
 * A cached binary runs as our kernels, so the cache is input to distrust:
 * - the directory must be the effective user's, not writable by group or
 *   others, and not a symbolic link.  It is opened once and every entry is
 *   opened, written and removed relative to that descriptor, so the
 *   directory checked is the directory used.  One that fails is left
 *   alone (not read, written or cleaned): the engine works without a
 *   cache.
 * - an entry must be a regular file of ours that others cannot write, no
 *   larger than MAX_BINARY_BYTES (checked with fstat before reading), and
 *   it is opened without following links or blocking on a FIFO.
 * - SHA-256 over the payload catches damage: a write cut short, bit rot.
 * - the program must hold every kernel a plan makes from it (the caller
 *   names them).
 * Any entry that fails is removed, and the program is built from source.
 *
 * A binary that passes every check can still crash the driver that loads
 * it (PoCL reads past the end of one cut short).  So an entry is renamed
 * to a name of the loading start's own before the driver sees it, and
 * renamed back once the program is whole: a start that dies loading it
 * leaves it under that name, and the next start builds from source and
 * removes it.  The loader holds a lock on the file set aside (flock, let
 * go by the kernel when a process dies), so a start beside it leaves that
 * one alone.  Two starts racing on one entry never both load it: the one
 * that does not get it builds from source.
 *
 * The key covers the driver's library file (path, device, inode, size,
 * modification time) besides its version strings: a driver rebuilt
 * without a new version string may not read the old binaries.
 *
 * No keyed hash (an HMAC with a per-user secret): the secret would live in
 * the same directory, so anyone who can plant an entry there that passes
 * the owner and mode checks (the user, or root) can read the secret too.
 * It would stop no one the checks let through, and adds a file to guard.
 * Why a directory is refused or an entry removed goes to GLib's debug log,
 * domain "clfilter-cache": G_MESSAGES_DEBUG=clfilter-cache shows it. */
#define G_LOG_DOMAIN "clfilter-cache"
/* dladdr, flock */
#define _GNU_SOURCE

#include "clf-cache.h"
#include "clf-check.h"
#include "clf-kernels.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bump when the file layout or what the key covers changes. */
#define CACHE_FORMAT_VERSION 3

/* The largest binary read or written: far more than our programs take on
 * any driver, while bounding what one entry can cost at start-up (a file
 * is read whole). */
#define MAX_BINARY_BYTES (64u << 20)

static const char cache_magic[8] = "CLFPROG\n";

_Static_assert (sizeof (ClfCacheHeader) == 88, "no padding in the header");

/* ---- hashing: SHA-256 ------------------------------------------------- */

/* A string with its length first, so that no two lists of strings hash
 * the same bytes. */
static void
hash_text (GChecksum * sum, const char *text)
{
  uint64_t length = strlen (text);
  g_checksum_update (sum, (const guchar *) &length, sizeof length);
  g_checksum_update (sum, (const guchar *) text, (gssize) length);
}

static void
sha256_finish (GChecksum * sum, uint8_t digest[CLF_CACHE_HASH_BYTES])
{
  gsize size = CLF_CACHE_HASH_BYTES;
  g_checksum_get_digest (sum, digest, &size);
  g_checksum_free (sum);
}

static void
payload_checksum (const unsigned char *payload, size_t size,
    uint8_t checksum[CLF_CACHE_HASH_BYTES])
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (sum, payload, (gssize) size);
  sha256_finish (sum, checksum);
}

static void
hash_number (GChecksum * sum, uint64_t number)
{
  g_checksum_update (sum, (const guchar *) &number, sizeof number);
}

bool
clf_cache_driver_file (cl_platform_id platform, ClfDriverFile * file)
{
  /* cl_khr_icd: every ICD driver gives its clIcdGetPlatformIDsKHR here,
   * and the loader finds the driver's platforms through it. */
  void *entry_point = clGetExtensionFunctionAddressForPlatform (platform,
      "clIcdGetPlatformIDsKHR");
  Dl_info info = { 0 };
  struct stat st;
  const char *why = NULL;

  memset (file, 0, sizeof *file);
  if (!entry_point)
    why = "it gives no clIcdGetPlatformIDsKHR";
  else if (!dladdr (entry_point, &info) || !info.dli_fname
      || info.dli_fname[0] != '/')
    why = "no absolute path to its library";
  else if (stat (info.dli_fname, &st) != 0)
    why = g_strerror (errno);
  else if (!S_ISREG (st.st_mode))
    why = "its library is not a regular file";
  if (why) {
    g_debug ("no cache: the driver cannot be identified: %s", why);
    return false;
  }
  file->path = info.dli_fname;
  file->device = (uint64_t) st.st_dev;
  file->inode = (uint64_t) st.st_ino;
  file->size = (uint64_t) st.st_size;
  file->mtime_sec = (int64_t) st.st_mtim.tv_sec;
  file->mtime_nsec = (int64_t) st.st_mtim.tv_nsec;
  return true;
}

bool
clf_cache_key (cl_platform_id platform, cl_device_id device,
    const ClfDriverFile * driver, const char *options,
    uint8_t key[CLF_CACHE_HASH_BYTES])
{
  char *identity[] = {
    clf_info_string (NULL, device, CL_DEVICE_NAME),
    clf_info_string (NULL, device, CL_DEVICE_VERSION),
    clf_info_string (NULL, device, CL_DRIVER_VERSION),
    clf_info_string (platform, NULL, CL_PLATFORM_NAME),
    clf_info_string (platform, NULL, CL_PLATFORM_VERSION),
  };
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  uint64_t version = CACHE_FORMAT_VERSION;
  bool ok = true;

  g_checksum_update (sum, (const guchar *) &version, sizeof version);
  for (unsigned i = 0; i < CLF_N_KERNEL_SOURCES; i++)
    hash_text (sum, clf_kernel_sources[i]);
  hash_text (sum, options);
  hash_text (sum, driver->path);
  hash_number (sum, driver->device);
  hash_number (sum, driver->inode);
  hash_number (sum, driver->size);
  hash_number (sum, (uint64_t) driver->mtime_sec);
  hash_number (sum, (uint64_t) driver->mtime_nsec);
  for (size_t i = 0; i < sizeof identity / sizeof identity[0]; i++) {
    ok = ok && identity[i];
    if (identity[i])
      hash_text (sum, identity[i]);
    g_free (identity[i]);
  }
  sha256_finish (sum, key);
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
 * base directory specification asks.  (Not g_get_user_cache_dir: it reads
 * the environment once per process, and an engine made after a change
 * would still use the old directory.) */
static char *
cache_dir (void)
{
  const char *xdg = getenv ("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/')
    return g_strdup_printf ("%s/gst-clfilter", xdg);
  const char *home = getenv ("HOME");
  if (home && *home)
    return g_strdup_printf ("%s/.cache/gst-clfilter", home);
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

/* Why someone else may have written what `st` describes, or NULL: it is
 * ours and neither its group nor others can write it. */
static const char *
owner_distrust (const struct stat *st)
{
  if (st->st_uid != geteuid ())
    return "owned by another user";
  if (st->st_mode & (S_IWGRP | S_IWOTH))
    return "writable by group or others";
  return NULL;
}

/* Why nobody but us may have put files in the directory `st` describes,
 * or NULL when that holds. */
static const char *
dir_distrust (const struct stat *st)
{
  return S_ISDIR (st->st_mode) ? owner_distrust (st) : "not a directory";
}

/* The cache's directory, opened once so that the directory checked is the
 * one used; -1 when it cannot be trusted.  A symbolic link as its last
 * component is refused (O_NOFOLLOW): it could point anywhere, and a user
 * who wants the cache elsewhere sets XDG_CACHE_HOME. */
static int
open_trusted_dir (const char *dir)
{
  struct stat st;
  const char *why = NULL;
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    why = errno == ELOOP || errno == ENOTDIR
        ? "a symbolic link, or not a directory" : g_strerror (errno);
  else if (fstat (fd, &st) != 0)
    why = g_strerror (errno);
  else
    why = dir_distrust (&st);
  if (!why)
    return fd;
  g_debug ("not using the cache directory %s: %s", dir, why);
  if (fd >= 0)
    close (fd);
  return -1;
}

bool
clf_cache_entry_init (ClfCacheEntry * entry, cl_platform_id platform,
    cl_device_id device, const char *options)
{
  ClfDriverFile driver;
  memset (entry, 0, sizeof *entry);
  entry->dir_fd = -1;
  if (cache_disabled () || !clf_cache_driver_file (platform, &driver)
      || !clf_cache_key (platform, device, &driver, options, entry->key))
    return false;
  char *dir = cache_dir ();
  if (dir && make_dirs (dir))
    entry->dir_fd = open_trusted_dir (dir);
  g_free (dir);
  if (entry->dir_fd < 0)
    return false;

  char *name = entry->name;
  for (unsigned i = 0; i < CLF_CACHE_HASH_BYTES; i++)
    name += sprintf (name, "%02x", entry->key[i]);
  strcpy (name, ".bin");
  return true;
}

void
clf_cache_entry_clear (ClfCacheEntry * entry)
{
  if (entry->dir_fd >= 0)
    close (entry->dir_fd);
  memset (entry, 0, sizeof *entry);
  entry->dir_fd = -1;
}

/* ---- loading ------------------------------------------------------------ */

/* Reads (or with `writing`, writes) all `size` bytes, through signals;
 * false at an error or an early end of file. */
static bool
transfer_all (int fd, void *data, size_t size, bool writing)
{
  unsigned char *bytes = data;
  while (size > 0) {
    ssize_t n = writing ? write (fd, bytes, size) : read (fd, bytes, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes += n;
    size -= (size_t) n;
  }
  return true;
}

static bool
read_all (int fd, void *data, size_t size)
{
  return transfer_all (fd, data, size, false);
}

/* Why the file `st` describes is not an entry to read, or NULL: only a
 * regular file of ours that others cannot write, of a size we would have
 * written. */
static const char *
entry_distrust (const struct stat *st)
{
  const char *owner = owner_distrust (st);
  if (!S_ISREG (st->st_mode))
    return "not a regular file";
  if (owner)
    return owner;
  if (st->st_size <= (off_t) sizeof (ClfCacheHeader))
    return "too short";
  if (st->st_size - (off_t) sizeof (ClfCacheHeader) > MAX_BINARY_BYTES)
    return "larger than the cap";
  return NULL;
}

/* Why the header does not announce this key's binary of `payload_size`
 * bytes, or NULL. */
static const char *
header_distrust (const ClfCacheHeader * header, const uint8_t * key,
    uint64_t payload_size)
{
  if (memcmp (header->magic, cache_magic, sizeof cache_magic) != 0
      || header->version != CACHE_FORMAT_VERSION)
    return "not a cache file of this version";
  if (memcmp (header->key, key, CLF_CACHE_HASH_BYTES) != 0)
    return "another key's file";
  if (header->payload_size != payload_size)
    return "its length disagrees with its header";
  return NULL;
}

/* The payload of the open entry `fd`, `st` its status, when the entry is
 * whole and intact (for g_free, its size in `size`); else NULL with the
 * reason in `why`. */
static unsigned char *
read_payload (int fd, const struct stat *st, const uint8_t * key,
    size_t *size, const char **why)
{
  ClfCacheHeader header;
  uint8_t checksum[CLF_CACHE_HASH_BYTES];
  uint64_t payload_size = (uint64_t) st->st_size - sizeof header;

  if (!read_all (fd, &header, sizeof header)) {
    *why = "cannot be read";
    return NULL;
  }
  if ((*why = header_distrust (&header, key, payload_size)))
    return NULL;
  unsigned char *payload = g_try_malloc (payload_size);
  if (!payload || !read_all (fd, payload, payload_size)) {
    *why = "cannot be read";
    g_free (payload);
    return NULL;
  }
  payload_checksum (payload, payload_size, checksum);
  if (memcmp (checksum, header.checksum, sizeof checksum) != 0) {
    *why = "its checksum does not match";
    g_free (payload);
    return NULL;
  }
  *size = payload_size;
  return payload;
}

/* The binary of the open entry `fd` (for g_free, its size in `size`), or
 * NULL with the reason to remove it in `why`.  Checked with fstat before
 * a byte is read. */
static unsigned char *
read_entry (int fd, const uint8_t * key, size_t *size, const char **why)
{
  struct stat st;
  if (fstat (fd, &st) != 0) {
    *why = g_strerror (errno);
    return NULL;
  }
  if ((*why = entry_distrust (&st)))
    return NULL;
  return read_payload (fd, &st, key, size, why);
}

/* Opens the file `name` of the cache without following a link or waiting
 * for a FIFO's writer; -1 with errno set. */
static int
open_in_cache (const ClfCacheEntry * entry, const char *name)
{
  return openat (entry->dir_fd, name,
      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
}

/* True when `program` holds every kernel of `kernels`, those a plan
 * makes from it: the driver builds any binary of its own, one of another
 * program too, and that would fail every start at clCreateKernel. */
static bool
program_has_kernels (cl_program program, const char *const *kernels,
    unsigned n_kernels)
{
  for (unsigned k = 0; k < n_kernels; k++) {
    cl_int status;
    cl_kernel kernel = NULL;
    kernel = clCreateKernel (program, kernels[k], &status);
    if (status == CL_SUCCESS)
      status = clReleaseKernel (kernel);
    if (status != CL_SUCCESS) {
      g_debug ("no usable kernel %s in the cached binary: %s",
          kernels[k], clf_cl_status_name (status));
      return false;
    }
  }
  return true;
}

/* The program built from `binary`, or NULL where the driver refuses it or
 * it lacks one of `kernels`. */
static cl_program
program_from_binary (cl_context context, cl_device_id device,
    const char *const *kernels, unsigned n_kernels, const char *options,
    const unsigned char *binary, size_t size)
{
  GError *error = NULL;
  cl_int status, binary_status = CL_INVALID_BINARY;
  cl_program program = clCreateProgramWithBinary (context, 1, &device,
      &size, &binary, &binary_status, &status);
  CLF_CHECK (&error, fail, status, "clCreateProgramWithBinary");
  CLF_CHECK (&error, fail, binary_status, "clCreateProgramWithBinary");
  /* A program made from a binary still has to be built (OpenCL 1.2
   * 5.6.2), with the options it was compiled with. */
  CLF_TRY (&error, fail, clBuildProgram, program, 1, &device, options, NULL,
      NULL);
  if (!program_has_kernels (program, kernels, n_kernels))
    goto fail;
  return program;

fail:
  if (error)
    g_debug ("the driver refused a cached binary: %s", error->message);
  g_clear_error (&error);
  if (program)
    clReleaseProgram (program);
  return NULL;
}

/* Removes the file `name`, an entry found unusable; the build from source
 * that follows writes the entry anew. */
static void
evict (const ClfCacheEntry * entry, const char *name, const char *why,
    ClfCacheStats * stats)
{
  g_debug ("removing the cache entry %s: %s", name, why);
  if (unlinkat (entry->dir_fd, name, 0) != 0)
    g_debug ("cannot remove the cache entry %s: %s", name, g_strerror (errno));
  stats->rejects++;
}

/* The entry's name while a start loads it: the key, a random part, and
 * ".loading". */
#define ASIDE_NAME_SIZE (2 * CLF_CACHE_HASH_BYTES + sizeof ".01234567.loading")

/* Whether `name` is an entry of this key set aside. */
static bool
is_set_aside (const ClfCacheEntry * entry, const char *name)
{
  size_t key_chars = 2 * CLF_CACHE_HASH_BYTES;
  return strlen (name) == ASIDE_NAME_SIZE - 1
      && strncmp (name, entry->name, key_chars) == 0
      && name[key_chars] == '.' && g_str_has_suffix (name, ".loading");
}

/* Removes this key's entries that a start set aside and did not put back
 * or remove: it died while the driver loaded the binary, perhaps of it.
 * One whose lock is held is being loaded by a start beside this one. */
static void
drop_leftovers (const ClfCacheEntry * entry, ClfCacheStats * stats)
{
  /* A descriptor of its own: readdir moves its offset. */
  int fd = openat (entry->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = fd >= 0 ? fdopendir (fd) : NULL;
  if (!dir) {
    if (fd >= 0)
      close (fd);
    return;
  }
  for (struct dirent * de; (de = readdir (dir));) {
    if (!is_set_aside (entry, de->d_name))
      continue;
    int leftover = open_in_cache (entry, de->d_name);
    if (leftover < 0 && errno == ENOENT)
      continue;                 /* put back or removed meanwhile */
    bool held = leftover >= 0 && flock (leftover, LOCK_EX | LOCK_NB) != 0
        && errno == EWOULDBLOCK;
    if (!held)
      evict (entry, de->d_name, "a start died while loading it", stats);
    if (leftover >= 0)
      close (leftover);
  }
  closedir (dir);
}

/* Renames the entry to a name of this start's own, `aside`, opens it and
 * locks it: -1 where there is no entry (or a start beside this one took
 * it), with `why` NULL, or where it cannot be opened, with the reason to
 * remove it in `why`. */
static int
set_aside (const ClfCacheEntry * entry, char aside[ASIDE_NAME_SIZE],
    const char **why)
{
  *why = NULL;
  snprintf (aside, ASIDE_NAME_SIZE, "%.*s.%08" PRIx32 ".loading",
      2 * CLF_CACHE_HASH_BYTES, entry->name, (uint32_t) g_random_int ());
  if (renameat (entry->dir_fd, entry->name, entry->dir_fd, aside) != 0) {
    /* Not loaded where it cannot be set aside (a read-only directory):
     * the driver would meet it again after a crash. */
    if (errno != ENOENT)
      g_debug ("not loading the cache entry %s: it cannot be set aside: "
          "%s", entry->name, g_strerror (errno));
    return -1;
  }
  int fd = open_in_cache (entry, aside);
  if (fd < 0) {
    *why = errno == ENOENT ? NULL
        : errno == ELOOP ? "a symbolic link" : g_strerror (errno);
    return -1;
  }
  /* Only one that drop_leftovers locked first fails; it removes the name,
   * and this start loads what it opened all the same. */
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    g_debug ("cannot lock the cache entry %s: %s", aside, g_strerror (errno));
  return fd;
}

cl_program
clf_cache_load (const ClfCacheEntry * entry, const char *const *kernels,
    unsigned n_kernels, cl_context context, cl_device_id device,
    const char *options, ClfCacheStats * stats)
{
  char aside[ASIDE_NAME_SIZE];
  const char *why = NULL;
  size_t size = 0;

  drop_leftovers (entry, stats);
  int fd = set_aside (entry, aside, &why);
  if (fd < 0) {
    if (why)
      evict (entry, aside, why, stats);
    return NULL;                /* else no entry: a miss */
  }
  unsigned char *binary = read_entry (fd, entry->key, &size, &why);
  cl_program program = binary ? program_from_binary (context, device,
      kernels, n_kernels, options, binary, size) : NULL;
  g_free (binary);
  if (program) {
    /* The driver took it: back under its name, before the lock goes. */
    if (renameat (entry->dir_fd, aside, entry->dir_fd, entry->name) != 0)
      g_debug ("cannot put the cache entry %s back: %s", entry->name,
          g_strerror (errno));
    stats->loads++;
  } else {
    evict (entry, aside, why ? why : "not a usable program", stats);
  }
  close (fd);
  return program;
}

/* ---- storing ------------------------------------------------------------ */

static bool
write_all (int fd, const void *data, size_t size)
{
  return transfer_all (fd, (void *) data, size, true);
}

/* A new file of ours beside the entry, its name in `temp`: its descriptor,
 * or -1.  O_EXCL: never a file or link that was there. */
static int
create_temporary (const ClfCacheEntry * entry, char *temp, size_t size)
{
  for (int attempt = 0; attempt < 8; attempt++) {
    snprintf (temp, size, "%s.%08" PRIx32 ".tmp", entry->name,
        (uint32_t) g_random_int ());
    int fd = openat (entry->dir_fd, temp,
        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  return -1;
}

/* Writes a temporary file beside the entry and renames it over the entry,
 * so that a reader sees a whole file or none (a write cut short by a
 * crash leaves a file the checksum rejects, or a stray temporary).  Not
 * g_file_set_contents_full: it takes a path, resolved again at the write,
 * where this stays in the directory that was checked. */
static bool
write_entry (const ClfCacheEntry * entry, const ClfCacheHeader * header,
    const unsigned char *payload)
{
  char temp[sizeof entry->name + 16];
  int fd = create_temporary (entry, temp, sizeof temp);
  if (fd < 0)
    return false;
  bool ok = write_all (fd, header, sizeof *header)
      && write_all (fd, payload, header->payload_size);
  ok = close (fd) == 0 && ok;
  ok = ok && renameat (entry->dir_fd, temp, entry->dir_fd, entry->name) == 0;
  if (!ok)
    unlinkat (entry->dir_fd, temp, 0);
  return ok;
}

void
clf_cache_store (const ClfCacheEntry * entry, cl_program program,
    ClfCacheStats * stats)
{
  size_t size = 0;
  unsigned char *binary = NULL;
  ClfCacheHeader header = {.version = CACHE_FORMAT_VERSION };

  /* One size: the engine's context has one device. */
  CLF_TRY (NULL, done, clGetProgramInfo, program, CL_PROGRAM_BINARY_SIZES,
      sizeof size, &size, NULL);
  if (size == 0 || size > MAX_BINARY_BYTES) {
    g_debug ("not caching a binary of %zu bytes", size);
    goto done;
  }
  binary = g_try_malloc (size);
  if (!binary)
    goto done;
  CLF_TRY (NULL, done, clGetProgramInfo, program, CL_PROGRAM_BINARIES,
      sizeof binary, &binary, NULL);

  memcpy (header.magic, cache_magic, sizeof cache_magic);
  memcpy (header.key, entry->key, sizeof header.key);
  header.payload_size = size;
  payload_checksum (binary, size, header.checksum);
  if (write_entry (entry, &header, binary))
    stats->stores++;
  else
    g_debug ("cannot write the cache entry %s", entry->name);

done:
  g_free (binary);
}
