/* The engine's own API for the layers above it (plans, CUDA interop):
 * its programs and what it knows of its device (clf-engine.c).  On the
 * catalogue (layouts) and, within clf-engine.c, the cache. */
#pragma once

#include "clf-catalogue.h"

/* A program (its kernels for one layout, mode and kind of device), built
 * on first use and kept by the engine.  The caller gets a new reference.  The build runs on a
 * thread of its own; the caller waits for it, asking `callbacks` (may be
 * NULL) every few milliseconds: when it says stop, NULL with
 * CLF_ERROR_CANCELLED, and the build goes on, its program kept for the
 * next caller (and stored in the binary cache). */
cl_program clf_engine_program (ClfEngine * engine, const ClfProgramSpec * spec,
    const ClfPlanCallbacks * callbacks, GError ** error);
/* Starts the program's build where the engine has none (built or
 * building) and returns at once, for a caller that knows what it will
 * ask for: clf_engine_program then waits only for what is left.  Nobody
 * need ever ask: the engine keeps the program (a failure is dropped, for
 * the next caller to build and hear of), and where the engine's last user
 * lets it go first, the build frees it as it ends.  False with `error`
 * set when no thread can start. */
bool clf_engine_start_program (ClfEngine * engine,
    const ClfProgramSpec * spec, GError ** error);
/* Whether the device stores multi-byte values little-endian. */
bool clf_engine_little_endian (const ClfEngine * engine);

