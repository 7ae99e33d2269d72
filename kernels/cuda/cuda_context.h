#pragma once
// Per-device state of the CUDA backend: the device's one created stream, its cuBLAS and
// cuDNN handles (made on first use, bound to that stream), the index-error flag kernels
// raise, and checked-call macros for the three libraries. Host code only (.cpp and .cu).
#include <cublas_v2.h>

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include "ember/kernels/cuda/cublas_loader.h"

#include <cstdint>
#include <string>

#include "ember/core/error.h"
#include "ember/kernels/cuda/cuda_check.h"

namespace ember::cuda_detail {

/// Where kernels report the first bad index or target they meet (device memory). The
/// code names the check (op and kind) that the host registered before launching.
struct IndexFlag {
  int code;
  int pad;
  long long value;
  long long limit;
};

/// What a bad value was, for the message.
enum class IndexKind { Index, Target };

/// The device's stream (created on first use, non-blocking, never the legacy stream).
cudaStream_t stream(int device);
/// The device's cuBLAS handle, bound to its stream with a workspace from the allocator.
cublasHandle_t cublas(int device);
/// The device's cuDNN handle, bound to its stream.
cudnnHandle_t cudnn(int device);
/// The number of multiprocessors, for sizing grids.
int sm_count(int device);

/// Registers a check that a kernel about to be launched on device performs (indices along
/// dim, or class targets); returns the code the kernel writes into the flag, and the flag.
/// The error surfaces as IndexError naming op at the next synchronisation or host copy.
int register_index_check(int device, const char* op, IndexKind kind, int dim, IndexFlag** flag);
/// After a synchronisation: raises IndexError when a kernel reported a bad index.
void raise_pending_index_errors(int device);

[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line);

}  // namespace ember::cuda_detail

#define EMBER_CUBLAS_CHECK(call)                                                         \
  do {                                                                                   \
    const cublasStatus_t ember_status = (call);                                          \
    if (ember_status != CUBLAS_STATUS_SUCCESS)                                           \
      ::ember::cuda_detail::throw_cublas_error(ember_status, #call, __FILE__, __LINE__); \
  } while (0)

#define EMBER_CUDNN_CHECK(call)                                                         \
  do {                                                                                  \
    const cudnnStatus_t ember_status = (call);                                          \
    if (ember_status != CUDNN_STATUS_SUCCESS)                                           \
      ::ember::cuda_detail::throw_cudnn_error(ember_status, #call, __FILE__, __LINE__); \
  } while (0)

/// After every kernel launch: a bad configuration now, or an earlier asynchronous error.
#define EMBER_CUDA_LAUNCH_CHECK() EMBER_CUDA_CHECK(cudaGetLastError())
