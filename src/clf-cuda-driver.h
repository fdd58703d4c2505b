/* The CUDA driver's types, as far as gst-clfilter needs them, for building
 * without NVIDIA's toolkit: nothing here is a copy of its headers.
 *
 * The engine (clf-cuda.c) loads libcuda.so.1 itself and calls it through
 * the types and constants below, which are the driver's ABI since CUDA 11
 * (the virtual memory API, cuDeviceGetUuid).
 *
 * GStreamer's CUDA headers (gst/cuda/cuda-gst.h) include the toolkit's
 * cuda.h and cudaGL.h for the names of what their Cu* wrappers take: 1.22
 * for contexts, streams, copies and graphics interop, 1.24 and later also
 * for events, IPC handles, external memory, memory pools and the virtual
 * memory API.  Where the toolkit is absent, gst/cl/cuda-stub/ gives them this
 * header (meson.build).  Names that the plugin never touches are left
 * incomplete, so nothing can use them by value; a prototype may still take
 * them (C11 6.7.6.3). */
#pragma once

#include <stddef.h>

#define CUDAAPI

/* ---- what the engine calls the driver with ---- */

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;

#define CUDA_SUCCESS 0
#define CU_STREAM_NON_BLOCKING 0x1
#define CU_MEMORYTYPE_DEVICE 2
#define CU_MEM_ALLOCATION_TYPE_PINNED 1
#define CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR 1
#define CU_MEM_LOCATION_TYPE_DEVICE 1
#define CU_MEM_ACCESS_FLAGS_PROT_READWRITE 3
#define CU_MEM_ALLOC_GRANULARITY_MINIMUM 0

/* Enumerations the driver takes as C enums: int-sized. */
typedef int CUmemAllocationHandleType;
typedef int CUmemAllocationGranularity_flags;

typedef struct CUmemLocation_st {
  int type;
  int id;
} CUmemLocation;

typedef struct CUmemAllocationProp_st {
  int type;
  CUmemAllocationHandleType requestedHandleTypes;
  CUmemLocation location;
  void *win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
} CUmemAllocationProp;

typedef struct CUmemAccessDesc_st {
  CUmemLocation location;
  int flags;
} CUmemAccessDesc;

typedef struct CUDA_MEMCPY2D_st {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

/* ---- names only GStreamer's CUDA headers use ---- */

typedef unsigned long long CUtexObject;
typedef int CUdevice_attribute;
typedef int CUlimit;
typedef int CUfilter_mode;
typedef int CUmemPool_attribute;
typedef unsigned int CUgraphicsRegisterFlags;
typedef unsigned int CUgraphicsMapResourceFlags;
typedef int CUGLDeviceList;

typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUarray_st *CUarray;
typedef struct CUmipmappedArray_st *CUmipmappedArray;
typedef struct CUgraphicsResource_st *CUgraphicsResource;
typedef struct CUevent_st *CUevent;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef struct CUextMemory_st *CUexternalMemory;
typedef struct CUextSemaphore_st *CUexternalSemaphore;

typedef struct CUipcMemHandle_st CUipcMemHandle;
typedef struct CUipcEventHandle_st CUipcEventHandle;
typedef struct CUmemPoolProps_st CUmemPoolProps;
typedef struct CUDA_RESOURCE_DESC_st CUDA_RESOURCE_DESC;
typedef struct CUDA_TEXTURE_DESC_st CUDA_TEXTURE_DESC;
typedef struct CUDA_RESOURCE_VIEW_DESC_st CUDA_RESOURCE_VIEW_DESC;
typedef struct CUDA_EXTERNAL_MEMORY_HANDLE_DESC_st
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC;
typedef struct CUDA_EXTERNAL_MEMORY_BUFFER_DESC_st
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC;
typedef struct CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC_st
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC;
typedef struct CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_st
    CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC;
typedef struct CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_st
    CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS;
typedef struct CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_st
    CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS;
