/* gst-clfilter: the CUDA toolkit's cuda.h as GStreamer's CUDA headers
 * (gst/cuda/) include it, for building where the toolkit is not installed
 * (meson.build adds this folder only then).  The names come from the
 * engine's own declarations of the driver. */
#pragma once

#include "clf-cuda-driver.h"
