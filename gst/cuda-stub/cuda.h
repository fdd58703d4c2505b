/* gst-clfilter: the names that GStreamer 1.22's CUDA headers (gst/cuda/)
 * take from the CUDA toolkit's cuda.h, for building where the toolkit is
 * not installed (meson.build adds this folder only then).  The glue uses
 * none of them: the engine (src/clf-cuda.c) loads the driver and declares
 * what it calls itself.  Structures are left incomplete so that nothing
 * here can be used by value. */
#pragma once

#include <stddef.h>

#define CUDAAPI

typedef enum
{
  CUDA_SUCCESS = 0,
} CUresult;

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUtexObject;
typedef int CUdevice_attribute;
typedef unsigned int CUgraphicsRegisterFlags;
typedef unsigned int CUgraphicsMapResourceFlags;

typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUarray_st *CUarray;
typedef struct CUgraphicsResource_st *CUgraphicsResource;

typedef struct CUDA_MEMCPY2D_st CUDA_MEMCPY2D;
typedef struct CUDA_RESOURCE_DESC_st CUDA_RESOURCE_DESC;
typedef struct CUDA_TEXTURE_DESC_st CUDA_TEXTURE_DESC;
typedef struct CUDA_RESOURCE_VIEW_DESC_st CUDA_RESOURCE_VIEW_DESC;
