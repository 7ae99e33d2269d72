#pragma once
// The subset of the CUDA runtime API that Ember calls, run on the host (EMBER_CUDA=EMULATE
// only). Names, values and messages follow NVIDIA's cuda_runtime_api.h / driver_types.h so
// that the backend compiles unchanged; the behaviour is described in runtime.cpp.
#include <cstddef>

#include "ember/core/export.h"

#define CUDART_VERSION 13000

enum cudaError : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorPeerAccessNotEnabled = 705,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaDeviceAttr : int {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMultiProcessorCount = 16,
};

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventDisableTiming 0x02

struct CUstream_st;
struct CUevent_st;
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;

EMBER_API cudaError_t cudaGetDeviceCount(int* count);
EMBER_API cudaError_t cudaGetDevice(int* device);
EMBER_API cudaError_t cudaSetDevice(int device);
EMBER_API cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
EMBER_API cudaError_t cudaDriverGetVersion(int* version);
EMBER_API cudaError_t cudaRuntimeGetVersion(int* version);
EMBER_API cudaError_t cudaGetLastError();
EMBER_API cudaError_t cudaPeekAtLastError();
EMBER_API const char* cudaGetErrorString(cudaError_t error);
EMBER_API const char* cudaGetErrorName(cudaError_t error);

EMBER_API cudaError_t cudaMalloc(void** ptr, size_t size);
EMBER_API cudaError_t cudaFree(void* ptr);
EMBER_API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                      cudaStream_t stream = nullptr);
EMBER_API cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                          size_t count, cudaStream_t stream = nullptr);
EMBER_API cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream = nullptr);

EMBER_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
EMBER_API cudaError_t cudaStreamDestroy(cudaStream_t stream);
EMBER_API cudaError_t cudaStreamSynchronize(cudaStream_t stream);
EMBER_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
EMBER_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
EMBER_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
EMBER_API cudaError_t cudaEventDestroy(cudaEvent_t event);
EMBER_API cudaError_t cudaDeviceSynchronize();
typedef void (*cudaHostFn_t)(void* user_data);
EMBER_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data);

EMBER_API cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer_device);
EMBER_API cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags);
EMBER_API cudaError_t cudaDeviceDisablePeerAccess(int peer_device);

/// cuBLAS's data types (library_types.h), shared with the cuBLAS declarations.
typedef enum cudaDataType_t : int { CUDA_R_32F = 0, CUDA_R_64F = 1 } cudaDataType;
typedef enum libraryPropertyType_t : int { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL } libraryPropertyType;
