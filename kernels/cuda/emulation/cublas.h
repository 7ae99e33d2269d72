#pragma once
// The cuBLAS calls Ember makes, declared as cublas_v2.h declares them (EMBER_CUDA=EMULATE
// only). Until part 2 models them, each one raises NotImplementedError (not_modelled.h);
// cublasGetStatusString answers, since error paths call it.
#include <cstddef>

#include "ember/kernels/cuda/emulation/not_modelled.h"
#include "ember/kernels/cuda/emulation/runtime.h"

#define CUBLAS_VER_MAJOR 13

struct cublasContext;
typedef struct cublasContext* cublasHandle_t;

typedef enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
} cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3 } cublasMath_t;
typedef enum {
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
  CUBLAS_COMPUTE_64F = 70,
} cublasComputeType_t;
typedef enum { CUBLAS_GEMM_DEFAULT = -1 } cublasGemmAlgo_t;

inline cublasStatus_t cublasCreate(cublasHandle_t*) { ember::emulation::not_modelled("cublasCreate"); }
inline cublasStatus_t cublasSetStream(cublasHandle_t, cudaStream_t) { ember::emulation::not_modelled("cublasSetStream"); }
inline cublasStatus_t cublasSetWorkspace(cublasHandle_t, void*, size_t) {
  ember::emulation::not_modelled("cublasSetWorkspace");
}
inline cublasStatus_t cublasSetMathMode(cublasHandle_t, cublasMath_t) {
  ember::emulation::not_modelled("cublasSetMathMode");
}
inline cublasStatus_t cublasGetProperty(libraryPropertyType, int*) { ember::emulation::not_modelled("cublasGetProperty"); }
inline cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                                 const void*, const void*, cudaDataType, int, long long, const void*,
                                                 cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                                 long long, int, cublasComputeType_t, cublasGemmAlgo_t) {
  ember::emulation::not_modelled("cublasGemmStridedBatchedEx");
}
inline const char* cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}
