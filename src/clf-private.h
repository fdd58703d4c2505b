/* Everything internal to the engine, for the tests (which plant cache
 * entries and check layouts and dividers).  The engine's own files include
 * only the layers they use; src/meson.build gives their order. */
#pragma once

#include "clf-check.h"
#include "clf-views.h"
#include "clf-catalogue.h"
#include "clf-geometry.h"
#include "clf-cache.h"
#include "clf-engine-private.h"
#include "clf-convolve.h"
#include "clf-gaussian.h"
