#pragma once
// Every CUDA runtime call is checked: a failure throws CudaError naming the call, the
// runtime's message and where it was made.
#include <cuda_runtime_api.h>

#include "ember/core/error.h"

namespace ember::cuda_detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  cudaGetLastError();  // clear the sticky-free error state so later calls can proceed
  if (err == cudaErrorMemoryAllocation)
    raise<OutOfMemoryError>(call, " failed: ", cudaGetErrorString(err), " (", file, ":", line, ")");
  raise<CudaError>(call, " failed: ", cudaGetErrorString(err), " (", file, ":", line, ")");
}

}  // namespace ember::cuda_detail

#define EMBER_CUDA_CHECK(call)                                                      \
  do {                                                                              \
    const cudaError_t ember_err = (call);                                           \
    if (ember_err != cudaSuccess)                                                   \
      ::ember::cuda_detail::throw_cuda_error(ember_err, #call, __FILE__, __LINE__); \
  } while (0)
