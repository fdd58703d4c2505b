/* The engine's own API for the layers above it (plans, CUDA interop):
 * its programs and what it knows of its device (clf-engine.c).  On the
 * catalogue (layouts) and, within clf-engine.c, the cache. */
#pragma once

#include "clf-catalogue.h"

/* A program (its kernels for one layout, mode and kind of device), built
 * on first use and kept by the engine.  The caller gets a new reference.  The build runs on a
 * thread of its own; the caller waits for it, asking `interrupt` (may be
 * NULL) every few milliseconds: when it says stop, NULL with
 * CLF_ERROR_CANCELLED, and the build goes on, its program kept for the
 * next caller (and stored in the binary cache). */
cl_program clf_engine_program (ClfEngine * engine, const ClfProgramSpec * spec,
    const ClfInterrupt * interrupt, GError ** error);
/* Whether the device stores multi-byte values little-endian. */
bool clf_engine_little_endian (const ClfEngine * engine);

