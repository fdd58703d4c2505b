/* gst-clfilter: what GStreamer 1.22's CUDA headers take from the CUDA
 * toolkit's cudaGL.h (see cuda.h here). */
#pragma once

#include "cuda.h"

typedef int CUGLDeviceList;
