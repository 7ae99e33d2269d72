// The cuBLAS handle models (EMBER_CUDA=EMULATE only), after NVIDIA's cuBLAS Library
// reference 13.x, "cuBLAS Helper Function Reference": cublasCreate(), cublasDestroy(),
// cublasSetStream(), cublasSetWorkspace(), cublasSetMathMode(), cublasGetProperty() and
// cublasGetStatusString(). The GEMM is in cublas_gemm.cpp.
#include "cuda_emulator/cublas_model.h"

using namespace ember::emulation;
using namespace ember::emulation::blas;

// "cublasCreate()": the context is tied to the device current now ("one cuBLAS handle needs
// to be created for each device"). NOT_INITIALIZED: "the CUDA Runtime initialization
// failed" (no usable device); INVALID_VALUE: handle is NULL.
cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  Lock lock(state().mutex);
  if (usable(current_device()) != cudaSuccess) return CUBLAS_STATUS_NOT_INITIALIZED;
  *handle = new cublasContext;
  (*handle)->device = current_device();
  return CUBLAS_STATUS_SUCCESS;
}

// "cublasDestroy()": releasing the handle "will implicitly call cudaDeviceSynchronize()",
// so the device's queued work runs first (it may use the handle's workspace).
// NOT_INITIALIZED for a null handle ("the library was not initialized").
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  {
    Lock lock(state().mutex);
    if (valid_device(handle->device)) drain_device(handle->device);
  }
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

// "cublasSetStream()": later calls run on the stream, and the call "unconditionally resets
// the cuBLAS library workspace back to the default workspace pool". The reference does not
// say what a stream of another device does: refused with INVALID_VALUE (the strict choice).
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (stream && stream->device != handle->device) return CUBLAS_STATUS_INVALID_VALUE;
  handle->stream = stream;
  handle->user_workspace = false;
  handle->workspace = nullptr;
  handle->workspace_bytes = 0;
  return CUBLAS_STATUS_SUCCESS;
}

// "cublasSetWorkspace()": INVALID_VALUE when the pointer is not aligned to 256 bytes. The
// buffer is only recorded here; each GEMM writes all of it (cublas_gemm.cpp), so a freed or
// undersized buffer shows there as an illegal address. A null pointer with a non-zero size
// is refused too (INVALID_VALUE; the reference is silent, the strict choice).
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace, size_t workspace_bytes) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (reinterpret_cast<uintptr_t>(workspace) % kWorkspaceAlignment) return CUBLAS_STATUS_INVALID_VALUE;
  if (!workspace && workspace_bytes) return CUBLAS_STATUS_INVALID_VALUE;
  handle->user_workspace = true;
  handle->workspace = workspace;
  handle->workspace_bytes = workspace_bytes;
  return CUBLAS_STATUS_SUCCESS;
}

// "cublasSetMathMode()": INVALID_VALUE for a mode that is not one of cublasMath_t's, alone
// or with the CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION flag. The mode is kept; it
// does not change cublasGemmStridedBatchedEx, whose computeType decides the math.
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  const int base =
      static_cast<int>(mode) & ~static_cast<int>(CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
  if (base < CUBLAS_DEFAULT_MATH || base > CUBLAS_TF32_TENSOR_OP_MATH) return CUBLAS_STATUS_INVALID_VALUE;
  handle->math = mode;
  return CUBLAS_STATUS_SUCCESS;
}

// "cublasGetProperty()": the version the models follow. INVALID_VALUE for an unknown
// property or a null value (the latter the strict choice).
cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CUBLAS_STATUS_INVALID_VALUE;
  switch (type) {
    case MAJOR_VERSION:
      *value = CUBLAS_VER_MAJOR;
      return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION:
      *value = CUBLAS_VER_MINOR;
      return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL:
      *value = CUBLAS_VER_PATCH;
      return CUBLAS_STATUS_SUCCESS;
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

// "cublasGetStatusString()": the enumerant's name.
const char* cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR:
      return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}
