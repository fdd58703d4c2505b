/* Engine tests, group cache (test-engine cache): the on-disk cache of
 * program binaries: loads, stores, untrusted entries, a binary that crashes
 * the driver. */
#include "engine-common.h"

/* ---- the on-disk cache of program binaries ---------------------------- */

/* Two pixel layouts (set by test_cache): filtered with a blur and a
 * sharpen, three programs and three cache entries (the sharpen filters
 * the first plane only). */
static ClfFrameFormat cache_format;
#define CACHE_PROGRAMS 3u
/* The radius its blur has. */
#define CACHE_RADIUS 2
/* Its planes' layouts, as the engine builds them for the blurs. */
static const ClfLayout cache_y_layout = { 1, 1, 1, 8, 0, false };
static const ClfLayout cache_uv_layout = { 1, 2, 3, 8, 0, false };

/* A new engine (its programs from the cache or from source) filters one
 * random frame with a blur and a sharpen, checked against the reference;
 * returns what the cache did for it. */
static ClfCacheStats
filter_with_new_engine (const char *what)
{
  ClfCacheStats stats = { 0 };
  GError *err = NULL;
  ClfEngine *e = clf_engine_new ("auto", &err);
  CHECK (e, "%s: clf_engine_new: %s", what, message_of (err));
  ClfPlan *plan = e ? clf_plan_new (e, &cache_format, &err) : NULL;
  CHECK (!e || plan, "%s: clf_plan_new: %s", what, message_of (err));
  g_clear_error (&err);

  const ClfParams params[] = {
    {CLF_MODE_SLIDING, CACHE_RADIUS, CLF_BORDER_MIRROR},
    {CLF_MODE_LAPLACE, 0, CLF_BORDER_CLAMP},
  };
  for (size_t p = 0; plan && p < N_OF (params); p++) {
    ClfHostFrame in, want, out;
    char desc[200];
    snprintf (desc, sizeof desc, "%s %s", what, clf_mode_name (params[p].mode));
    test_frame_init (&in, &cache_format, true);
    test_frame_init (&want, &cache_format, false);
    clf_ref_filter_frame (&params[p], &cache_format, &in, &want);
    run_and_compare (plan, &params[p], &cache_format, desc, &in, &out, &want);
    test_frame_clear (&out);
    test_frame_clear (&in);
    test_frame_clear (&want);
  }
  clf_plan_free (plan);
  if (e)
    clf_engine_cache_stats (e, &stats);
  clf_engine_unref (e);
  return stats;
}

#define CHECK_STATS(s, want_loads, want_stores, want_rejects, what)       \
  CHECK ((s).loads == (want_loads) && (s).stores == (want_stores)         \
      && (s).rejects == (want_rejects), "%s: loads %u stores %u rejects " \
      "%u, want %u %u %u", (what), (s).loads, (s).stores, (s).rejects,    \
      (want_loads), (want_stores), (want_rejects))

/* The names of the files in `dir`: up to CACHE_PROGRAMS entries ("*.bin")
 * into `entries`; returns the number of entries, other files in
 * `others`. */
static unsigned
list_cache (const char *dir, char entries[CACHE_PROGRAMS][512],
    unsigned *others)
{
  unsigned n = 0;
  *others = 0;
  DIR *d = opendir (dir);
  for (struct dirent * de; d && (de = readdir (d));) {
    size_t len = strlen (de->d_name);
    if (de->d_name[0] == '.')
      continue;
    if (len > 4 && strcmp (de->d_name + len - 4, ".bin") == 0) {
      if (n < CACHE_PROGRAMS)
        snprintf (entries[n], sizeof entries[n], "%s/%s", dir, de->d_name);
      n++;
    } else {
      (*others)++;
    }
  }
  if (d)
    closedir (d);
  return n;
}

static void
check_entry_count (const char *dir, unsigned want, const char *what)
{
  char entries[CACHE_PROGRAMS][512];
  unsigned others;
  unsigned n = list_cache (dir, entries, &others);
  CHECK (n == want && others == 0, "%s: %u entries and %u other files in "
      "%s, want %u entries", what, n, others, dir, want);
}

/* Overwrites `size` bytes at `offset` of the file with random bytes. */
static void
scribble (const char *path, long offset, size_t size)
{
  FILE *f = fopen (path, "r+b");
  CHECK (f && fseek (f, offset, SEEK_SET) == 0, "cannot open %s", path);
  for (size_t i = 0; f && i < size; i++)
    fputc ((int) (next_random () >> 56), f);
  if (f)
    fclose (f);
}

static long
file_size (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0 ? (long) st.st_size : -1;
}

/* After damage to one entry: a new engine rejects it (and, where the
 * damage removed another entry, misses that), builds `rebuilt` programs
 * from source and writes them; the next engine loads them all. */
static void
check_rebuilt (const char *dir, uint32_t rebuilt, const char *what)
{
  char again[160];
  ClfCacheStats s = filter_with_new_engine (what);
  CHECK_STATS (s, CACHE_PROGRAMS - rebuilt, rebuilt, 1u, what);
  check_entry_count (dir, CACHE_PROGRAMS, what);
  snprintf (again, sizeof again, "after %s", what);
  s = filter_with_new_engine (again);
  CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u, again);
}

/* An environment variable's value to put back later (NULL: unset). */
static char *
save_env (const char *name)
{
  const char *value = getenv (name);
  return value ? strdup (value) : NULL;
}

static void
restore_env (const char *name, char *saved)
{
  if (saved)
    setenv (name, saved, 1);
  else
    unsetenv (name);
  free (saved);
}

/* ---- a cache that is not trusted ---- */

/* Another user for files and directories that are not ours (nobody). */
#define OTHER_UID 65534
/* The size of the sparse entry: read whole, it took 81 s and 8.4 GB. */
#define SPARSE_ENTRY_BYTES (8ull << 30)
/* What a rejected entry may add to the peak resident memory: it is not
 * read (a build from source stays well below this). */
#define REJECT_RSS_BUDGET_KIB (256 * 1024)
/* Longer than any case takes; a case that blocks (a FIFO opened for
 * reading waits for a writer) fails instead of hanging the test. */
#define HANG_GUARD_S 120

static char hang_message[256];

static void
on_hang (int sig)
{
  ssize_t ignored = write (STDERR_FILENO, hang_message, strlen (hang_message));
  (void) ignored;
  _exit (1);
}

static void
hang_guard_start (const char *what)
{
  snprintf (hang_message, sizeof hang_message, "FAIL cache: %s: still "
      "running after %d s: the engine blocks on the cache\n", what,
      HANG_GUARD_S);
  signal (SIGALRM, on_hang);
  alarm (HANG_GUARD_S);
}

static void
hang_guard_stop (void)
{
  alarm (0);
  signal (SIGALRM, SIG_DFL);
}

/* The directory is refused: no entry is read, written or removed (both
 * are still there), and the frames are still exact. */
static void
check_dir_refused (const char *dir, const char *what)
{
  ClfCacheStats s = filter_with_new_engine (what);
  CHECK_STATS (s, 0u, 0u, 0u, what);
  check_entry_count (dir, CACHE_PROGRAMS, what);
}

/* A directory that others can write, or that is not ours, or that is a
 * symbolic link: its entries (valid ones here) are not used. */
static void
check_untrusted_dirs (const char *root, const char *dir)
{
  static const struct
  {
    mode_t mode;
    const char *what;
  } modes[] = {
    {0777, "directory writable by all"},
    {0770, "directory writable by its group"},
    {0702, "directory writable by others"},
  };
  for (size_t i = 0; i < N_OF (modes); i++) {
    CHECK (chmod (dir, modes[i].mode) == 0, "chmod %s failed", dir);
    check_dir_refused (dir, modes[i].what);
  }
  CHECK (chmod (dir, 0700) == 0, "chmod %s failed", dir);

  if (geteuid () == 0) {
    /* Root could write there still: the owner alone must refuse it. */
    CHECK (chown (dir, OTHER_UID, OTHER_UID) == 0, "chown %s failed", dir);
    check_dir_refused (dir, "directory of another user");
    CHECK (chown (dir, 0, 0) == 0, "chown %s failed", dir);
  } else {
    printf ("(not root: the directory of another user is left out)\n");
  }

  char real[600];
  snprintf (real, sizeof real, "%s/elsewhere", root);
  CHECK (rename (dir, real) == 0 && symlink (real, dir) == 0,
      "cannot link %s to %s", dir, real);
  check_dir_refused (dir, "directory behind a symbolic link");
  CHECK (unlink (dir) == 0 && rename (real, dir) == 0, "cannot put %s back",
      dir);

  ClfCacheStats s = filter_with_new_engine ("trusted again");
  CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u, "trusted again");
}

static cl_platform_id
engine_platform (void)
{
  cl_platform_id platform = NULL;
  cl_int status = clGetDeviceInfo (clf_engine_device (engine),
      CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
  CHECK (status == CL_SUCCESS, "CL_DEVICE_PLATFORM: %d", status);
  return platform;
}

/* Whether the engine's device runs the CPUs' kernels, as its plans ask. */
static bool
engine_cpu_kernels (void)
{
  cl_device_type type = 0;
  cl_int status = clGetDeviceInfo (clf_engine_device (engine),
      CL_DEVICE_TYPE, sizeof type, &type, NULL);
  CHECK (status == CL_SUCCESS, "CL_DEVICE_TYPE: %d", status);
  return (type & CL_DEVICE_TYPE_CPU) != 0;
}

/* The program of `mode` (at CACHE_RADIUS) over `layout` with one kind
 * of kernels. */
static ClfProgramSpec
program_on (const ClfLayout * layout, ClfMode mode, bool cpu_kernels)
{
  const ClfParams params = { mode, CACHE_RADIUS, CLF_BORDER_CLAMP };
  return clf_program_for (cpu_kernels, layout, &params);
}

/* The program of `mode` over `layout` on the engine's device. */
static ClfProgramSpec
program_of (const ClfLayout * layout, ClfMode mode)
{
  return program_on (layout, mode, engine_cpu_kernels ());
}

/* The cache entry of a program; false where there is no cache. */
static bool
program_entry_init (ClfCacheEntry * entry, const ClfProgramSpec * program)
{
  char options[CLF_PROGRAM_OPTIONS_SIZE];
  clf_program_options (program, options);
  return clf_cache_entry_init (entry, engine_platform (),
      clf_engine_device (engine), options);
}

/* Writes `program`'s binary as the cache entry of `spec`,
 * with the header and checksum the engine writes: a planted entry that
 * only the directory's checks or the kernels can tell from ours. */
static void
plant_entry (cl_program program, const ClfProgramSpec * spec, const char *what)
{
  ClfCacheEntry entry;
  ClfCacheStats stats = { 0 };
  bool ok = program_entry_init (&entry, spec);
  if (ok) {
    clf_cache_store (&entry, program, &stats);
    clf_cache_entry_clear (&entry);
  }
  CHECK (ok && stats.stores == 1, "%s: could not plant the entry", what);
}

/* Removes the entry of a program, so that the directory holds those of
 * cache_format again. */
static void
remove_entry (const ClfProgramSpec * spec)
{
  ClfCacheEntry entry;
  if (!program_entry_init (&entry, spec))
    return;
  CHECK (unlinkat (entry.dir_fd, entry.name, 0) == 0, "cannot remove %s",
      entry.name);
  clf_cache_entry_clear (&entry);
}

/* The program of `mode` for another layout (samples per pixel and mask)
 * and kind of device (`cpu_kernels`), built from source without the
 * cache: it has every kernel it names, but filters other bytes. */
static cl_program
other_layout_program (uint32_t units, uint32_t mask, ClfMode mode,
    bool cpu_kernels)
{
  GError *err = NULL;
  char *saved_off = save_env ("CLFILTER_NO_CACHE");
  const ClfLayout layout = { 1, units, mask, 8, 0, false };
  const ClfProgramSpec spec = program_on (&layout, mode, cpu_kernels);
  setenv ("CLFILTER_NO_CACHE", "1", 1);
  cl_program program = clf_engine_program (engine, &spec, NULL, &err);
  restore_env ("CLFILTER_NO_CACHE", saved_off);
  CHECK (program, "program of another layout: %s", message_of (err));
  g_clear_error (&err);
  return program;
}

/* A program that the driver builds but that holds none of our kernels. */
static cl_program
foreign_program (void)
{
  static const char *source =
      "kernel void not_a_clfilter_kernel (global uchar *p) { p[0] = 0x42; }\n";
  cl_device_id device = clf_engine_device (engine);
  cl_int status;
  cl_program program = clCreateProgramWithSource (clf_engine_context
      (engine), 1, &source, NULL, &status);
  if (status == CL_SUCCESS)
    status = clBuildProgram (program, 1, &device, "-cl-std=CL1.2", NULL, NULL);
  CHECK (status == CL_SUCCESS, "the foreign program: %d", status);
  if (status != CL_SUCCESS && program) {
    clReleaseProgram (program);
    program = NULL;
  }
  return program;
}

/* A binary that does what ours does not, planted with a valid header in a
 * directory others can write: never run (the frames are exact). */
static void
check_planted_in_open_dir (const char *dir)
{
  const ClfProgramSpec uv = program_of (&cache_uv_layout, CLF_MODE_SLIDING);
  cl_program program = other_layout_program (2, 1, CLF_MODE_SLIDING,
      uv.cpu_kernels);
  if (!program)
    return;
  plant_entry (program, &uv, "planted in an open directory");
  clReleaseProgram (program);
  CHECK (chmod (dir, 0777) == 0, "chmod %s failed", dir);
  check_dir_refused (dir, "planted in an open directory");
  /* Ours again, the planted entry would be ours to run: start afresh. */
  clf_test_remove_tree (dir);
  ClfCacheStats s = filter_with_new_engine ("after the planted entry");
  CHECK_STATS (s, 0u, CACHE_PROGRAMS, 0u, "after the planted entry");
}

/* An entry the driver accepts, with our key, header and checksum, but
 * another program's kernels: evicted and built from source. */
static void
check_foreign_binary (const char *dir)
{
  cl_program program = foreign_program ();
  if (!program)
    return;
  const ClfProgramSpec uv = program_of (&cache_uv_layout, CLF_MODE_SLIDING);
  plant_entry (program, &uv, "another program's binary");
  clReleaseProgram (program);
  check_rebuilt (dir, 1, "another program's binary");
}

/* The GPUs' separable blur of a layout without separable_tiles (its
 * tiles are not packed), planted under the key of one whose program has
 * it: evicted and built from source, not run without it. */
static void
check_binary_without_layout_kernel (void)
{
  const ClfLayout rgba_layout = { 1, 4, 7, 8, 0, false };
  const ClfProgramSpec rgba = program_on (&rgba_layout, CLF_MODE_SEPARABLE,
      false);
  cl_program program = other_layout_program (2, 3, CLF_MODE_SEPARABLE,
      false);
  if (!program)
    return;
  plant_entry (program, &rgba, "a binary without separable_tiles");
  clReleaseProgram (program);

  GError *err = NULL;
  ClfCacheStats stats = { 0 };
  ClfEngine *fresh = clf_engine_new ("auto", &err);
  program = fresh ? clf_engine_program (fresh, &rgba, NULL, &err) : NULL;
  CHECK (program, "a binary without separable_tiles: %s", message_of (err));
  g_clear_error (&err);
  if (program) {
    cl_int status;
    cl_kernel kernel = clCreateKernel (program, "separable_tiles", &status);
    CHECK (status == CL_SUCCESS, "a binary without separable_tiles: the "
        "program has no separable_tiles (%d)", status);
    if (kernel)
      clReleaseKernel (kernel);
    clReleaseProgram (program);
    clf_engine_cache_stats (fresh, &stats);
    CHECK_STATS (stats, 0u, 1u, 1u, "a binary without separable_tiles");
  }
  clf_engine_unref (fresh);
  remove_entry (&rgba);
}

static long
peak_rss_kib (void)
{
  struct rusage usage;
  return getrusage (RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : -1;
}

/* Makes `path` an entry whose header claims SPARSE_ENTRY_BYTES in all, and
 * that is as long: sparse, so it costs no disk. */
static void
make_sparse_entry (const char *path)
{
  ClfCacheHeader header;
  int fd = open (path, O_RDWR);
  bool ok = fd >= 0 && pread (fd, &header, sizeof header, 0)
      == (ssize_t) sizeof header;
  header.payload_size = SPARSE_ENTRY_BYTES - sizeof header;
  ok = ok && pwrite (fd, &header, sizeof header, 0)
      == (ssize_t) sizeof header
      && ftruncate (fd, (off_t) SPARSE_ENTRY_BYTES) == 0;
  CHECK (ok, "cannot make %s sparse", path);
  if (fd >= 0)
    close (fd);
}

/* Entries that are not plain files of ours, one too large to read, and one
 * with another program's binary: each is removed and rebuilt. */
static void
check_untrusted_entries (const char *root, const char *dir, const char *entry)
{
  char elsewhere[600];
  snprintf (elsewhere, sizeof elsewhere, "%s/elsewhere.bin", root);
  CHECK (rename (entry, elsewhere) == 0 && symlink (elsewhere, entry) == 0,
      "cannot link %s", entry);
  check_rebuilt (dir, 1, "entry behind a symbolic link");
  CHECK (access (elsewhere, F_OK) == 0, "the link's target was removed");
  unlink (elsewhere);

  CHECK (unlink (entry) == 0 && mkfifo (entry, 0600) == 0,
      "cannot make a FIFO at %s", entry);
  hang_guard_start ("FIFO entry");
  check_rebuilt (dir, 1, "FIFO entry");
  hang_guard_stop ();

  CHECK (chmod (entry, 0666) == 0, "chmod %s failed", entry);
  check_rebuilt (dir, 1, "entry writable by others");
  if (geteuid () == 0) {
    CHECK (chown (entry, OTHER_UID, OTHER_UID) == 0, "chown failed");
    check_rebuilt (dir, 1, "entry of another user");
  }

  make_sparse_entry (entry);
  long rss_before = peak_rss_kib ();
  time_t start = time (NULL);
  hang_guard_start ("8 GiB sparse entry");
  check_rebuilt (dir, 1, "8 GiB sparse entry");
  hang_guard_stop ();
  long grown = peak_rss_kib () - rss_before;
  CHECK (grown < REJECT_RSS_BUDGET_KIB, "8 GiB sparse entry: the peak "
      "resident memory grew by %ld MiB in %lld s: it was read",
      grown / 1024, (long long) (time (NULL) - start));

  check_foreign_binary (dir);
  check_binary_without_layout_kernel ();
}

/* The process's open file descriptors; -1 where /proc cannot say. */
static int
count_open_fds (void)
{
  DIR *d = opendir ("/proc/self/fd");
  if (!d)
    return -1;
  int n = 0;
  for (struct dirent * de; (de = readdir (d));)
    n += de->d_name[0] != '.';
  closedir (d);
  return n - 1;                 /* less the one reading the list */
}

/* A failure of the driver after the binary was read (building it, making
 * its kernels): the entry is evicted and built from source, once. */
static void
check_failure_after_load (const char *dir, const char *call)
{
  char spec[64], what[96];
  snprintf (spec, sizeof spec, "%s:1", call);
  snprintf (what, sizeof what, "%s fails after a load", call);
  fail_call (spec);
  ClfCacheStats s = filter_with_new_engine (what);
  fail_call (NULL);
  CHECK_STATS (s, CACHE_PROGRAMS - 1, 1u, 1u, what);
  check_entry_count (dir, CACHE_PROGRAMS, what);
}

/* ---- a binary that crashes the driver ---- */

static void
cache_format_init (void)
{
  /* *INDENT-OFF* */
  cache_format = byte_planes (2, (const uint32_t[][5]) {{13, 11, 1, 1, 1},
      {7, 6, 2, 3, 0}});
  /* *INDENT-ON* */
}

/* test-engine cache-start: one start, and what the cache did for it. */
int
cache_start_child (void)
{
  cache_format_init ();
  ClfCacheStats s = filter_with_new_engine ("a start of its own");
  printf ("cache-start: loads %u stores %u rejects %u\n", s.loads,
      s.stores, s.rejects);
  return failures ? 1 : 0;
}

/* Runs one start in a child process (the cache is the one the environment
 * names): true when it exited with success and said what the cache did,
 * into `stats`; else how it ended, into `how`.  The driver's own caches
 * stay as the environment has them (PoCL's kernel cache on, under the
 * same XDG_CACHE_HOME): a driver dying on a cut binary may write what it
 * read past its end there, and the next start must not read it back. */
static bool
start_in_child (ClfCacheStats * stats, char *how, size_t how_size)
{
  char *argv[] = { (char *) "/proc/self/exe", (char *) CACHE_START_ARG,
    NULL
  };
  char **env = g_get_environ ();
  char *out = NULL;
  int wait_status = 0;
  GError *error = NULL;
  const char *line;
  bool ok = false;

  fflush (stdout);
  if (!g_spawn_sync (NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out,
          NULL, &wait_status, &error))
    snprintf (how, how_size, "could not start: %s", error->message);
  else if (WIFSIGNALED (wait_status))
    snprintf (how, how_size, "was killed by signal %d (%s)",
        WTERMSIG (wait_status), g_strsignal (WTERMSIG (wait_status)));
  else if (!WIFEXITED (wait_status) || WEXITSTATUS (wait_status) != 0)
    snprintf (how, how_size, "exited with status %d",
        WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1);
  else if (!(line = strstr (out, "cache-start: "))
      || sscanf (line, "cache-start: loads %u stores %u rejects %u",
          &stats->loads, &stats->stores, &stats->rejects) != 3)
    snprintf (how, how_size, "did not say what the cache did");
  else
    ok = true;
  if (!ok && out)
    printf ("%s", out);
  g_clear_error (&error);
  g_free (out);
  g_strfreev (env);
  return ok;
}

/* Cuts the payload of the entry at `path` to `keep` bytes and makes its
 * header agree (size and checksum): only the driver can tell. */
static void
cut_payload (const char *path, size_t keep)
{
  ClfCacheHeader header;
  unsigned char *payload = malloc (keep);
  int fd = open (path, O_RDWR);
  bool ok = payload && fd >= 0
      && pread (fd, &header, sizeof header, 0) == (ssize_t) sizeof header
      && pread (fd, payload, keep, sizeof header) == (ssize_t) keep;
  if (ok) {
    GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
    gsize size = sizeof header.checksum;
    g_checksum_update (sum, payload, (gssize) keep);
    g_checksum_get_digest (sum, header.checksum, &size);
    g_checksum_free (sum);
    header.payload_size = keep;
    ok = pwrite (fd, &header, sizeof header, 0) == (ssize_t) sizeof header
        && ftruncate (fd, (off_t) (sizeof header + keep)) == 0;
  }
  CHECK (ok, "cannot cut the payload of %s", path);
  if (fd >= 0)
    close (fd);
  free (payload);
}

/* The entry at `path` (`which` says whose) with its binary cut to 1000
 * bytes, its header made to agree: PoCL crashes loading it, and loading
 * another program first leaves it heap to read past the cut and store in
 * its own kernel cache.  It may take the start that loads it, but the
 * next start builds the program, stores a whole entry and removes the bad
 * one, twice over; the start after that loads both. */
static void
check_binary_that_crashes (const char *dir, const char *path, const char *which)
{
  char how[160];
  ClfCacheStats s = { 0 };
  cut_payload (path, 1000);

  bool first = start_in_child (&s, how, sizeof how);
  printf ("%s cut to 1000 bytes: the start that loads it %s\n", which,
      first ? "rejects it" : how);
  if (first)
    CHECK_STATS (s, CACHE_PROGRAMS - 1, 1u, 1u,
        "the start that loads a cut binary");

  bool second = start_in_child (&s, how, sizeof how);
  CHECK (second, "%s cut: the start after the cut binary %s", which, how);
  if (second) {
    if (first)
      CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u, "the start after a cut binary");
    else
      CHECK_STATS (s, CACHE_PROGRAMS - 1, 1u, 1u, "the start after the crash");
    second = start_in_child (&s, how, sizeof how);
    CHECK (second, "%s cut: the second start after the cut binary %s",
        which, how);
    if (second)
      CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u,
          "the second start after a cut binary");
  }
  if (!second) {
    /* It would take this process too: rebuilt here for the next cases. */
    unlink (path);
    filter_with_new_engine ("the cut binary removed by hand");
    return;
  }
  check_entry_count (dir, CACHE_PROGRAMS, "after the cut binary");
  CHECK (file_size (path) > (long) (sizeof (ClfCacheHeader) + 1000),
      "after the cut binary: %s is %ld bytes, not stored anew", path,
      file_size (path));
  s = filter_with_new_engine ("after the cut binary");
  CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u, "after the cut binary");
}

/* A whole entry under the name a start sets it aside by while loading it:
 * left alone while a start beside holds its lock, removed (and never
 * loaded) by the first start after the lock goes, as after a crash. */
static void
check_leftover_set_aside (const char *dir)
{
  ClfCacheEntry entry;
  char path[640], leftover[640];
  char *contents = NULL;
  gsize length = 0;
  const ClfProgramSpec uv = program_of (&cache_uv_layout, CLF_MODE_SLIDING);
  if (!program_entry_init (&entry, &uv)) {
    CHECK (false, "the entry of the second plane has no name");
    return;
  }
  snprintf (path, sizeof path, "%s/%s", dir, entry.name);
  snprintf (leftover, sizeof leftover, "%s/%.*s.0123abcd.loading", dir,
      2 * CLF_CACHE_HASH_BYTES, entry.name);
  clf_cache_entry_clear (&entry);
  bool ok = g_file_get_contents (path, &contents, &length, NULL)
      && g_file_set_contents_full (leftover, contents, (gssize) length,
      G_FILE_SET_CONTENTS_CONSISTENT, 0600, NULL);
  g_free (contents);
  CHECK (ok, "cannot copy %s to %s", path, leftover);
  if (!ok)
    return;

  int held = open (leftover, O_RDONLY | O_CLOEXEC);
  CHECK (held >= 0 && flock (held, LOCK_EX) == 0, "cannot lock %s", leftover);
  ClfCacheStats s = filter_with_new_engine ("an entry being loaded beside");
  CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u, "an entry being loaded beside");
  CHECK (access (leftover, F_OK) == 0, "an entry being loaded beside: "
      "removed while its lock was held");
  if (held >= 0)
    close (held);

  s = filter_with_new_engine ("an entry left set aside");
  CHECK_STATS (s, CACHE_PROGRAMS, 0u, 1u, "an entry left set aside");
  check_entry_count (dir, CACHE_PROGRAMS, "an entry left set aside");
  if (access (leftover, F_OK) == 0)
    unlink (leftover);
}

/* The key changes with each part of the driver's library file it covers:
 * a driver rebuilt or replaced under the same version strings gets
 * entries of its own. */
static void
check_key_covers_driver_file (void)
{
  static const char *const parts[] = { "path", "device", "inode", "size",
    "modification time (s)", "modification time (ns)"
  };
  cl_platform_id platform = engine_platform ();
  cl_device_id device = clf_engine_device (engine);
  char options[CLF_PROGRAM_OPTIONS_SIZE];
  uint8_t want[CLF_CACHE_HASH_BYTES], key[CLF_CACHE_HASH_BYTES];
  ClfDriverFile driver;

  const ClfProgramSpec uv = program_of (&cache_uv_layout, CLF_MODE_SLIDING);
  clf_program_options (&uv, options);
  if (!clf_cache_driver_file (platform, &driver)) {
    CHECK (false, "the driver's library file was not found");
    return;
  }
  printf ("driver library: %s\n", driver.path);
  CHECK (driver.path[0] == '/' && driver.size > 0, "the driver's library "
      "file: %s, %" PRIu64 " bytes", driver.path, driver.size);
  CHECK (clf_cache_key (platform, device, &driver, options, want)
      && clf_cache_key (platform, device, &driver, options, key)
      && memcmp (key, want, sizeof key) == 0, "the same key twice differs");
  for (size_t i = 0; i < N_OF (parts); i++) {
    ClfDriverFile other = driver;
    other.path = i == 0 ? "/usr/lib/elsewhere/libdriver.so" : driver.path;
    other.device += i == 1;
    other.inode += i == 2;
    other.size += i == 3;
    other.mtime_sec += i == 4;
    other.mtime_nsec += i == 5;
    CHECK (clf_cache_key (platform, device, &other, options, key)
        && memcmp (key, want, sizeof key) != 0, "the key does not change "
        "with the driver file's %s", parts[i]);
  }
}

/* Cold, warm, corrupt, truncated, stale, untrusted and switched off, in a
 * cache directory of its own.  Every engine's bytes are checked against
 * the reference; the counters say whether the cache was used. */
void
test_cache (void)
{
  char root[] = "/tmp/clf-test-cache-XXXXXX";
  cache_format_init ();
  if (!mkdtemp (root)) {
    CHECK (false, "mkdtemp failed");
    return;
  }
  char *saved_home = save_env ("XDG_CACHE_HOME");
  char *saved_off = save_env ("CLFILTER_NO_CACHE");
  char dir[512], entries[CACHE_PROGRAMS][512];
  unsigned others;
  snprintf (dir, sizeof dir, "%s/gst-clfilter", root);
  setenv ("XDG_CACHE_HOME", root, 1);
  setenv ("CLFILTER_NO_CACHE", "0", 1); /* "0" leaves the cache on */
  int fds_before = count_open_fds ();

  ClfCacheStats s = filter_with_new_engine ("cold");
  CHECK_STATS (s, 0u, CACHE_PROGRAMS, 0u, "cold");
  check_entry_count (dir, CACHE_PROGRAMS, "cold");

  s = filter_with_new_engine ("warm");
  CHECK_STATS (s, CACHE_PROGRAMS, 0u, 0u, "warm");
  check_entry_count (dir, CACHE_PROGRAMS, "warm");

  /* Garbage in the middle of the binary, a file cut short in the binary
   * and in the header, another key's file under this key's name: each is
   * removed, rebuilt from source and written anew, whole. */
  if (list_cache (dir, entries, &others) == CACHE_PROGRAMS) {
    long size = file_size (entries[0]);
    scribble (entries[0], size / 2, 64);
    check_rebuilt (dir, 1, "corrupt");
    CHECK (truncate (entries[0], size / 2) == 0, "truncate failed");
    check_rebuilt (dir, 1, "truncated");
    CHECK (truncate (entries[0], 20) == 0, "truncate failed");
    check_rebuilt (dir, 1, "truncated header");
    CHECK (rename (entries[1], entries[0]) == 0, "rename failed");
    check_rebuilt (dir, 2, "stale");
    check_untrusted_entries (root, dir, entries[0]);
    check_failure_after_load (dir, "clBuildProgram");
    check_failure_after_load (dir, "clCreateKernel");
    /* Each program's entry: the one loaded first, and the one loaded
     * after another program. */
    char y[640], uv[640];
    ClfCacheEntry y_entry, uv_entry;
    const ClfProgramSpec y_blur = program_of (&cache_y_layout,
        CLF_MODE_SLIDING);
    const ClfProgramSpec uv_blur = program_of (&cache_uv_layout,
        CLF_MODE_SLIDING);
    bool named = program_entry_init (&uv_entry, &uv_blur);
    CHECK (named, "the entry of the second plane has no name");
    if (named) {
      snprintf (uv, sizeof uv, "%s/%s", dir, uv_entry.name);
      clf_cache_entry_clear (&uv_entry);
      check_binary_that_crashes (dir, uv, "the second plane's binary");
    }
    named = program_entry_init (&y_entry, &y_blur);
    CHECK (named, "the entry of the first plane has no name");
    if (named) {
      snprintf (y, sizeof y, "%s/%s", dir, y_entry.name);
      clf_cache_entry_clear (&y_entry);
      check_binary_that_crashes (dir, y, "the first plane's binary");
    }
    check_leftover_set_aside (dir);
  }
  check_untrusted_dirs (root, dir);
  check_planted_in_open_dir (dir);
  check_key_covers_driver_file ();

  /* Switched off: valid entries are not read, and nothing is written. */
  setenv ("CLFILTER_NO_CACHE", "1", 1);
  s = filter_with_new_engine ("no cache, entries present");
  CHECK_STATS (s, 0u, 0u, 0u, "no cache, entries present");
  clf_test_remove_tree (dir);
  s = filter_with_new_engine ("no cache");
  CHECK_STATS (s, 0u, 0u, 0u, "no cache");
  CHECK (access (dir, F_OK) != 0, "no cache: %s was created", dir);
  /* Every directory and entry opened was closed, on every path. */
  CHECK (count_open_fds () == fds_before, "%d file descriptors open after "
      "the cache's tests, %d before", count_open_fds (), fds_before);

  restore_env ("XDG_CACHE_HOME", saved_home);
  restore_env ("CLFILTER_NO_CACHE", saved_off);
  clf_test_remove_tree (root);
}
