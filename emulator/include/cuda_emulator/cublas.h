#pragma once
// The cuBLAS calls Ember makes, declared as cublas_v2.h declares them (EMBER_CUDA=EMULATE
// only) and modelled on the host after NVIDIA's cuBLAS Library reference (cublas_model.cpp).
// As in cublas_v2.h, the calls that have a _v2 entry point are macros for it, so the
// emulated loader (kernels/cuda/cublas_loader.cpp) resolves the same exported names a real
// libcublas has.
#include <cstddef>

#include "cuda_emulator/runtime.h"
#include "ember/core/export.h"

#define CUBLAS_VER_MAJOR 13
#define CUBLAS_VER_MINOR 1
#define CUBLAS_VER_PATCH 0

struct cublasContext;
typedef struct cublasContext* cublasHandle_t;

// Enums with int underlying type: a caller may pass any int, as in C (see cudnn_api.h).
typedef enum : int {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
  CUBLAS_STATUS_LICENSE_ERROR = 16,
} cublasStatus_t;
typedef enum : int { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum : int {
  CUBLAS_DEFAULT_MATH = 0,
  CUBLAS_TENSOR_OP_MATH = 1,
  CUBLAS_PEDANTIC_MATH = 2,
  CUBLAS_TF32_TENSOR_OP_MATH = 3,
  CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16,
} cublasMath_t;
typedef enum : int {
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
  CUBLAS_COMPUTE_64F = 70,
} cublasComputeType_t;
typedef enum : int { CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99 } cublasGemmAlgo_t;

EMBER_API cublasStatus_t cublasCreate_v2(cublasHandle_t* handle);
EMBER_API cublasStatus_t cublasDestroy_v2(cublasHandle_t handle);
EMBER_API cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream);
EMBER_API cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace,
                                               size_t workspace_bytes);
EMBER_API cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
EMBER_API cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value);
EMBER_API const char* cublasGetStatusString(cublasStatus_t status);
EMBER_API cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void* alpha, const void* A, cudaDataType Atype, int lda, long long strideA, const void* B,
    cudaDataType Btype, int ldb, long long strideB, const void* beta, void* C, cudaDataType Ctype, int ldc,
    long long strideC, int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo);

#define cublasCreate cublasCreate_v2
#define cublasDestroy cublasDestroy_v2
#define cublasSetStream cublasSetStream_v2
#define cublasSetWorkspace cublasSetWorkspace_v2
