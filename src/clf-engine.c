/* The engine: the device picked (clf-devices.c), its context and queues,
 * and the programs built for it, each once, on a thread of its own, from
 * the binary cache (clf-cache.c) where it holds them. */
#include "clf-engine-private.h"
#include "clf-cache.h"
#include "clf-check.h"
#include "clf-devices.h"
#include "clf-kernels.h"

#include <glib.h>

/* A program the engine's plans have used (ClfProgramSpec), built on
 * a thread of its own: a caller may stop waiting for it (ClfPlanCallbacks)
 * while the driver, which cannot be interrupted, goes on.  The build holds
 * a reference on the engine, so the engine outlives every build; the
 * first caller to see the build done joins its thread, and where nobody
 * asked for it (clf_engine_start_program), the engine does as it is
 * freed.  Under the engine's lock. */
typedef struct
{
  ClfEngine *engine;            /* a reference, while it builds */
  ClfProgramSpec spec;
  cl_program program;           /* once built */
  GError *error;                /* once failed */
  bool done;
  gint from_source;             /* (atomic) compiling, not from the cache */
  GThread *thread;              /* the build's, until joined */
  grefcount refs;               /* the engine's list, the build, waiters */
} ProgramBuild;

struct ClfEngine
{
  gatomicrefcount refcount;
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  cl_command_queue transfer_queue;
  cl_command_queue download_queue;
  char *device_name;
  bool host_unified;
  size_t base_align;            /* bytes; CL_DEVICE_MEM_BASE_ADDR_ALIGN */
  bool little_endian;

  GMutex lock;                  /* guards programs and cache_stats */
  GCond built;                  /* a build in `programs` is done */
  GPtrArray *programs;          /* of ProgramBuild: built, or building */
  ClfCacheStats cache_stats;
};

/* Frees a build that has ended and has no other user.  Its thread, where
 * no caller joined it, is joined, or let go where it is this thread (a
 * build that dropped the engine's last reference). */
static void
program_build_free (ProgramBuild * build)
{
  if (build->thread && build->thread != g_thread_self ())
    g_thread_join (build->thread);
  else if (build->thread)
    g_thread_unref (build->thread);
  if (build->program)
    clReleaseProgram (build->program);
  g_clear_error (&build->error);
  g_free (build);
}

/* ---- the engine ------------------------------------------------------ */

static bool
query_memory_model (ClfEngine * engine, GError ** error)
{
  cl_bool unified = CL_FALSE;
  cl_uint align_bits = 0;
  cl_bool little = CL_TRUE;
  CLF_TRY (error, fail, clGetDeviceInfo, engine->device,
      CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
  CLF_TRY (error, fail, clGetDeviceInfo, engine->device,
      CL_DEVICE_ENDIAN_LITTLE, sizeof little, &little, NULL);
  CLF_TRY (error, fail, clGetDeviceInfo, engine->device,
      CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
  engine->host_unified = unified;
  engine->base_align = align_bits >= 8 ? align_bits / 8 : 1;
  engine->little_endian = little;
  return true;

fail:
  return false;
}

static bool
engine_open (ClfEngine * engine, const DeviceEntry * e, GError ** error)
{
  cl_int status;
  cl_context_properties props[] = {
    CL_CONTEXT_PLATFORM, (cl_context_properties) e->platform, 0
  };

  engine->platform = e->platform;
  engine->device = e->device;
  engine->device_name = g_strdup (e->name);
  engine->context = clCreateContext (props, 1, &e->device, NULL, NULL, &status);
  CLF_CHECK (error, fail, status, "clCreateContext");
  engine->queue = clCreateCommandQueue (engine->context, e->device,
      CL_QUEUE_PROFILING_ENABLE, &status);
  CLF_CHECK (error, fail, status, "clCreateCommandQueue");
  engine->transfer_queue = clCreateCommandQueue (engine->context, e->device,
      0, &status);
  CLF_CHECK (error, fail, status, "clCreateCommandQueue");
  engine->download_queue = clCreateCommandQueue (engine->context, e->device,
      0, &status);
  CLF_CHECK (error, fail, status, "clCreateCommandQueue");
  return query_memory_model (engine, error);

fail:
  return false;
}

ClfEngine *
clf_engine_new (const char *device_spec, GError ** error)
{
  bool from_env;
  const char *spec = clf_devices_effective_spec (device_spec, &from_env);
  DeviceList list = { 0 };
  ClfEngine *engine = NULL;

  if (!clf_devices_list (&list, error))
    return NULL;

  const DeviceEntry *chosen = clf_devices_match (&list, spec);
  if (!chosen) {
    clf_devices_no_match_error (error, spec, from_env, &list);
    clf_device_list_clear (&list);
    return NULL;
  }

  engine = g_new0 (ClfEngine, 1);
  g_atomic_ref_count_init (&engine->refcount);
  g_mutex_init (&engine->lock);
  g_cond_init (&engine->built);
  engine->programs = g_ptr_array_new ();
  bool ok = engine_open (engine, chosen, error);
  clf_device_list_clear (&list);
  if (!ok) {
    clf_engine_unref (engine);
    return NULL;
  }
  return engine;
}

ClfEngine *
clf_engine_ref (ClfEngine * engine)
{
  g_atomic_ref_count_inc (&engine->refcount);
  return engine;
}

void
clf_engine_unref (ClfEngine * engine)
{
  if (!engine || !g_atomic_ref_count_dec (&engine->refcount))
    return;
  /* Every build has ended (each held a reference): only the list's
   * references are left. */
  for (guint i = engine->programs->len; i-- > 0;)
    program_build_free (g_ptr_array_index (engine->programs, i));
  g_ptr_array_unref (engine->programs);
  if (engine->download_queue)
    clReleaseCommandQueue (engine->download_queue);
  if (engine->transfer_queue)
    clReleaseCommandQueue (engine->transfer_queue);
  if (engine->queue)
    clReleaseCommandQueue (engine->queue);
  if (engine->context)
    clReleaseContext (engine->context);
  g_cond_clear (&engine->built);
  g_mutex_clear (&engine->lock);
  g_free (engine->device_name);
  g_free (engine);
}

const char *
clf_engine_device_name (const ClfEngine * engine)
{
  return engine->device_name;
}

cl_context
clf_engine_context (const ClfEngine * engine)
{
  return engine->context;
}

cl_command_queue
clf_engine_queue (const ClfEngine * engine)
{
  return engine->queue;
}

cl_command_queue
clf_engine_transfer_queue (const ClfEngine * engine)
{
  return engine->transfer_queue;
}

cl_command_queue
clf_engine_download_queue (const ClfEngine * engine)
{
  return engine->download_queue;
}

cl_device_id
clf_engine_device (const ClfEngine * engine)
{
  return engine->device;
}

bool
clf_engine_matches (const ClfEngine * engine, const char *device_spec)
{
  DeviceList list = { 0 };
  if (!clf_devices_list (&list, NULL))
    return false;
  bool from_env;
  const DeviceEntry *e =
      clf_devices_match (&list, clf_devices_effective_spec (device_spec,
          &from_env));
  bool same = e && e->device == engine->device;
  clf_device_list_clear (&list);
  return same;
}

bool
clf_engine_little_endian (const ClfEngine * engine)
{
  return engine->little_endian;
}

bool
clf_engine_host_unified (const ClfEngine * engine)
{
  return engine->host_unified;
}

cl_mem
clf_engine_wrap_host (ClfEngine * engine, void *data, size_t size,
    GError ** error)
{
  if (!engine->host_unified || size == 0
      || (uintptr_t) data % engine->base_align != 0)
    return NULL;
  cl_int status;
  cl_mem mem = NULL;
  mem = clCreateBuffer (engine->context, CL_MEM_READ_WRITE
      | CL_MEM_USE_HOST_PTR, size, data, &status);
  CLF_CHECK (error, fail, status, "clCreateBuffer");
  return mem;

fail:
  return NULL;
}

/* ---- programs -------------------------------------------------------- */

static char *
build_log (cl_program program, cl_device_id device)
{
  size_t size = 0;
  cl_int status = clGetProgramBuildInfo (program, device,
      CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
  char *log = status == CL_SUCCESS ? g_try_malloc0 (size + 1) : NULL;
  if (log)
    status = clGetProgramBuildInfo (program, device, CL_PROGRAM_BUILD_LOG,
        size, log, NULL);
  if (log && status == CL_SUCCESS)
    return log;
  g_free (log);
  return g_strdup_printf ("(the build log could not be read: %s)",
      clf_cl_status_name (status));
}

/* A built program's log, where the driver wrote one (warnings), to the
 * debug log: never to the terminal. */
static void
log_build (cl_program program, ClfEngine * engine, const char *options)
{
  char *log = build_log (program, engine->device);
  if (log[strspn (log, " \t\r\n")])
    g_log ("clfilter-build", G_LOG_LEVEL_DEBUG, "the build log of the "
        "kernels for %s (options: %s):\n%s", engine->device_name, options, log);
  g_free (log);
}

static cl_program
build_program (ClfEngine * engine, const ClfProgramSpec * spec,
    const char *options, GError ** error)
{
  cl_int status;
  const char *sources[CLF_N_KERNEL_SOURCES];
  cl_uint n_sources = clf_program_sources (spec, sources);
  cl_program program = clCreateProgramWithSource (engine->context,
      n_sources, sources, NULL, &status);
  CLF_CHECK (error, fail, status, "clCreateProgramWithSource");

  status = clBuildProgram (program, 1, &engine->device, options, NULL, NULL);
  if (status == CL_BUILD_PROGRAM_FAILURE) {
    GError *failed = NULL;
    char *log = build_log (program, engine->device);
    clf_set_error (&failed, CLF_ERROR_BUILD,
        "The OpenCL kernels failed to build for %s (options: %s)",
        engine->device_name, options);
    clf_error_set_detail (failed, log);
    g_free (log);
    g_propagate_error (error, failed);
    clReleaseProgram (program);
    return NULL;
  }
  CLF_CHECK (error, fail, status, "clBuildProgram");
  log_build (program, engine, options);
  return program;

fail:
  if (program)
    clReleaseProgram (program);
  return NULL;
}

/* The program from the on-disk cache where it holds a usable
 * one, else built from source and stored there for the next engine.  A
 * cached entry that fails in any way (read, build, kernels) is removed by
 * clf_cache_load, and the program is built from source: once.  What the
 * cache did is added to `stats`. */
static cl_program
load_or_build_program (ClfEngine * engine, const ClfProgramSpec * spec,
    gint * from_source, ClfCacheStats * stats, GError ** error)
{
  char options[CLF_PROGRAM_OPTIONS_SIZE];
  clf_program_options (spec, options);

  ClfCacheEntry entry = { 0 };
  bool cached = clf_cache_entry_init (&entry, engine->platform,
      engine->device, options);
  const char *kernels[CLF_N_KERNELS];
  unsigned n_kernels = clf_program_kernels (spec, kernels);
  cl_program program = cached ? clf_cache_load (&entry, kernels, n_kernels,
      engine->context, engine->device, options, stats) : NULL;
  if (!program && cached) {
    /* A macro no kernel reads, new to each build that is stored: the
     * driver's own compile cache keys it too, so the binary stored never
     * names a program the driver may build from source again.  A driver
     * that dies loading a damaged binary of ours can leave what it read
     * in its own cache under that program's name (PoCL does); this way
     * no later build reads it. */
    char *stored_options = g_strdup_printf ("%s -D CLF_BUILD_NONCE=0x%08"
        G_GINT32_MODIFIER "x%08" G_GINT32_MODIFIER "x", options,
        g_random_int (), g_random_int ());
    g_atomic_int_set (from_source, 1);
    program = build_program (engine, spec, stored_options, error);
    g_free (stored_options);
    if (program)
      clf_cache_store (&entry, program, stats);
  } else if (!program) {
    g_atomic_int_set (from_source, 1);
    program = build_program (engine, spec, options, error);
  }
  clf_cache_entry_clear (&entry);
  return program;
}

/* Drops a reference on a build (under the engine's lock); the last frees
 * it. */
static void
program_build_unref_locked (ProgramBuild * build)
{
  if (g_ref_count_dec (&build->refs))
    program_build_free (build);
}

static gpointer
program_build_run (gpointer data)
{
  ProgramBuild *build = data;
  ClfEngine *engine = build->engine;
  ClfCacheStats stats = { 0 };
  GError *error = NULL;
  cl_program program = load_or_build_program (engine, &build->spec,
      &build->from_source, &stats, &error);

  g_mutex_lock (&engine->lock);
  engine->cache_stats.loads += stats.loads;
  engine->cache_stats.stores += stats.stores;
  engine->cache_stats.rejects += stats.rejects;
  build->program = program;
  build->error = error;
  build->done = true;
  /* A failure is not kept: the next plan for the program builds again. */
  if (!program && g_ptr_array_remove (engine->programs, build))
    g_ref_count_dec (&build->refs);
  g_cond_broadcast (&engine->built);
  program_build_unref_locked (build);
  g_mutex_unlock (&engine->lock);
  clf_engine_unref (engine);
  return NULL;
}

/* The program's build, started now where there is none (under the
 * engine's lock); NULL with `err` set when no thread can start. */
static ProgramBuild *
program_build_find_or_start (ClfEngine * engine, const ClfProgramSpec * spec,
    GError ** error)
{
  for (guint i = 0; i < engine->programs->len; i++) {
    ProgramBuild *build = g_ptr_array_index (engine->programs, i);
    if (clf_program_equal (&build->spec, spec))
      return build;
  }

  GError *thread_error = NULL;
  ProgramBuild *build = g_new0 (ProgramBuild, 1);
  build->spec = *spec;
  build->engine = clf_engine_ref (engine);
  /* The engine's list's and the build's. */
  g_ref_count_init (&build->refs);
  g_ref_count_inc (&build->refs);
  build->thread = g_thread_try_new ("clf-build", program_build_run, build,
      &thread_error);
  if (!build->thread) {
    clf_set_error (error, CLF_ERROR_SYSTEM, "cannot start a thread to build "
        "the kernels: %s", thread_error->message);
    g_error_free (thread_error);
    /* Never the last reference: the caller holds one. */
    g_atomic_ref_count_dec (&engine->refcount);
    g_free (build);
    return NULL;
  }
  g_ptr_array_add (engine->programs, build);
  return build;
}

static cl_program
retain_program (cl_program program, GError ** error)
{
  CLF_TRY (error, fail, clRetainProgram, program);
  return program;

fail:
  return NULL;
}

/* How often a caller waiting for a build asks its callbacks. */
#define BUILD_POLL_US (10 * G_TIME_SPAN_MILLISECOND)

static bool
interrupted (const ClfPlanCallbacks * callbacks)
{
  return callbacks && callbacks->cancelled
      && callbacks->cancelled (callbacks->data);
}

bool
clf_engine_start_program (ClfEngine * engine, const ClfProgramSpec * spec,
    GError ** error)
{
  g_mutex_lock (&engine->lock);
  bool started = program_build_find_or_start (engine, spec, error) != NULL;
  g_mutex_unlock (&engine->lock);
  return started;
}

cl_program
clf_engine_program (ClfEngine * engine, const ClfProgramSpec * spec,
    const ClfPlanCallbacks * callbacks, GError ** error)
{
  cl_program program = NULL;
  GThread *thread = NULL;

  g_mutex_lock (&engine->lock);
  ProgramBuild *build = program_build_find_or_start (engine, spec, error);
  if (!build) {
    g_mutex_unlock (&engine->lock);
    return NULL;
  }
  g_ref_count_inc (&build->refs);
  /* The callbacks cannot wake us: they are asked between waits, without the
   * lock (they may call into the engine). */
  bool stop = false, told = false;
  while (!build->done && !stop) {
    g_cond_wait_until (&engine->built, &engine->lock,
        g_get_monotonic_time () + BUILD_POLL_US);
    bool tell = !told && g_atomic_int_get (&build->from_source);
    g_mutex_unlock (&engine->lock);
    if (tell && callbacks && callbacks->building)
      callbacks->building (spec->mode, callbacks->data);
    told = told || tell;
    stop = interrupted (callbacks);
    g_mutex_lock (&engine->lock);
  }
  if (!build->done)
    clf_set_error (error, CLF_ERROR_CANCELLED, "stopped while the kernels "
        "were built for %s; the build goes on for the next plan",
        engine->device_name);
  else if (build->program)
    program = retain_program (build->program, error);
  else
    g_propagate_error (error, g_error_copy (build->error));
  if (build->done)
    thread = g_steal_pointer (&build->thread);
  program_build_unref_locked (build);
  g_mutex_unlock (&engine->lock);
  if (thread)
    g_thread_join (thread);
  return program;
}

void
clf_engine_cache_stats (ClfEngine * engine, ClfCacheStats * stats)
{
  g_mutex_lock (&engine->lock);
  *stats = engine->cache_stats;
  g_mutex_unlock (&engine->lock);
}
