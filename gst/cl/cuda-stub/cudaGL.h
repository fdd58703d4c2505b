/* gst-clfilter: the CUDA toolkit's cudaGL.h as GStreamer's CUDA headers
 * include it (see cuda.h here). */
#pragma once

#include "clf-cuda-driver.h"
