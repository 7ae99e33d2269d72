#pragma once
// What the cuBLAS models share (EMBER_CUDA=EMULATE only): the handle behind cublasHandle_t.
// The models follow NVIDIA's "cuBLAS Library" reference (13.x), sections "cuBLAS Helper
// Function Reference" (the handle calls, cublas_model.cpp) and "BLAS-like Extension"
// (cublasGemmStridedBatchedEx, cublas_gemm.cpp). Where the reference is silent, a model
// refuses (the strict choice) and says so.
#include <cstddef>

#include "cuda_emulator/cublas.h"
#include "cuda_emulator/internal.h"

struct cublasContext {
  int device = 0;                 // the device current at cublasCreate
  cudaStream_t stream = nullptr;  // null: the device's default stream
  // A user workspace (cublasSetWorkspace); none means cuBLAS's own default pool, which the
  // model does not need to represent.
  bool user_workspace = false;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
};

namespace ember::emulation::blas {

/// "cublasSetWorkspace()": a workspace of at least 16 KiB is "enough to prevent
/// CUBLAS_STATUS_ALLOC_FAILED"; a smaller one "may cause some routines to fail" with it.
inline constexpr size_t kMinWorkspace = size_t(16) << 10;
/// "cublasSetWorkspace()": the workspace must be aligned to at least 256 bytes.
inline constexpr size_t kWorkspaceAlignment = 256;

}  // namespace ember::emulation::blas
