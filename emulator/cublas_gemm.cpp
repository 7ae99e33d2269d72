// cublasGemmStridedBatchedEx on the host (EMBER_CUDA=EMULATE only), after NVIDIA's cuBLAS
// Library reference 13.x, "BLAS-like Extension": "cublasGemmStridedBatchedEx()" and, for
// the types, "cublasGemmEx()"'s table of supported combinations. Column-major:
// C[i] = alpha op(A[i]) op(B[i]) + beta C[i] with X[i] = X + i * strideX (in elements), so a
// stride of 0 repeats one matrix. The arithmetic is a host loop in double: passing shows the
// call logic is right, not GPU numerics (FAST_TF32 rounds the inputs to TF32 to show that it
// may lose precision).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda_emulator/cublas_model.h"

namespace ember::emulation::blas {
namespace {

bool valid_op(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }
// On real data the conjugate transpose is the transpose.
bool transposed(cublasOperation_t op) { return op != CUBLAS_OP_N; }

// "cublasGemmEx()": the table's rows for real 32- and 64-bit data: COMPUTE_32F and
// COMPUTE_32F_FAST_TF32 with A, B, C all CUDA_R_32F; COMPUTE_64F with all CUDA_R_64F.
bool supported(cudaDataType a, cudaDataType b, cudaDataType c, cublasComputeType_t compute) {
  const bool all32 = a == CUDA_R_32F && b == CUDA_R_32F && c == CUDA_R_32F;
  const bool all64 = a == CUDA_R_64F && b == CUDA_R_64F && c == CUDA_R_64F;
  return ((compute == CUBLAS_COMPUTE_32F || compute == CUBLAS_COMPUTE_32F_FAST_TF32) && all32) ||
         (compute == CUBLAS_COMPUTE_64F && all64);
}

// cublasGemmAlgo_t's values: the defaults, CUBLAS_GEMM_ALGO0..23 and their _TENSOR_OP forms.
bool known_algo(cublasGemmAlgo_t algo) {
  const int a = static_cast<int>(algo);
  return a == CUBLAS_GEMM_DEFAULT || (a >= 0 && a <= 23) || (a >= CUBLAS_GEMM_DEFAULT_TENSOR_OP && a <= 115);
}

// The bytes a batch of rows x cols column-major matrices spans (rows, cols, batch > 0), or
// SIZE_MAX when that overflows (no allocation holds it, so the pointer check refuses it).
size_t span_bytes(int rows, int cols, int ld, long long stride, int batch, size_t element) {
  int64_t last_batch = 0, last_col = 0, elements = 0, bytes = 0;
  if (__builtin_mul_overflow(int64_t(batch - 1), int64_t(stride), &last_batch) ||
      __builtin_mul_overflow(int64_t(cols - 1), int64_t(ld), &last_col) ||
      __builtin_add_overflow(last_batch, last_col, &elements) ||
      __builtin_add_overflow(elements, int64_t(rows), &elements) ||
      __builtin_mul_overflow(elements, int64_t(element), &bytes))
    return SIZE_MAX;
  return static_cast<size_t>(bytes);
}

// TF32 keeps float's exponent and the top 10 of its 23 mantissa bits (rounded to nearest).
float to_tf32(float v) {
  if (!std::isfinite(v)) return v;
  uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  bits = (bits + 0x1000u) & ~0x1FFFu;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

struct Gemm {
  bool ta = false, tb = false, tf32 = false;
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  long long sa = 0, sb = 0, sc = 0;
  int batch = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  double alpha = 0, beta = 0;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

template <class T>
void run(const Gemm& g) {
  // The whole declared workspace is the library's to use: scribbled over (NaN bytes), so a
  // workspace that aliases live data shows as wrong values.
  if (g.workspace_bytes) std::memset(g.workspace, 0xFF, g.workspace_bytes);
  auto in = [&](T v) -> double {
    if constexpr (std::is_same_v<T, float>) return g.tf32 ? to_tf32(v) : v;
    return v;
  };
  for (int i = 0; i < g.batch; ++i) {
    const T* a = static_cast<const T*>(g.a) + i * g.sa;
    const T* b = static_cast<const T*>(g.b) + i * g.sb;
    T* c = static_cast<T*>(g.c) + i * g.sc;
    for (int64_t col = 0; col < g.n; ++col)
      for (int64_t row = 0; row < g.m; ++row) {
        double sum = 0;
        for (int64_t l = 0; l < g.k; ++l)
          sum += in(g.ta ? a[l + row * g.lda] : a[row + l * g.lda]) *
                 in(g.tb ? b[col + l * g.ldb] : b[l + col * g.ldb]);
        T* out = c + row + col * g.ldc;
        // "if beta == 0 then C does not have to be a valid input": not read (NaN included).
        *out =
            static_cast<T>(g.beta == 0 ? g.alpha * sum : g.alpha * sum + g.beta * static_cast<double>(*out));
      }
  }
}

}  // namespace
}  // namespace ember::emulation::blas

using namespace ember::emulation;
using namespace ember::emulation::blas;

// "cublasGemmStridedBatchedEx()". Statuses:
//  - NOT_INITIALIZED: a null handle.
//  - INVALID_VALUE, as documented: m, n, k or batchCount < 0; transa or transb not N, T or
//    C; lda < max(1, m) with transa N, else < max(1, k); ldb < max(1, k) with transb N,
//    else < max(1, n); ldc < max(1, m). Also, where the reference is silent (the strict
//    choice): a null alpha or beta, a negative stride, or a call while a device other than
//    the handle's is current (the context "is tied to the current CUDA device").
//  - NOT_SUPPORTED: types or compute type outside cublasGemmEx()'s table, or an unknown algo.
//  - ALLOC_FAILED: a user workspace under 16 KiB ("cublasSetWorkspace()" says a smaller one
//    "may cause some routines to fail" with it; the model always does).
//  - EXECUTION_FAILED: the device is broken by a sticky error, or an operand or the
//    workspace is not memory the handle's device can use. The latter is a kernel's fault
//    on a GPU: the model makes the device's sticky cudaErrorIllegalAddress, as part 1's
//    launches do, and also returns EXECUTION_FAILED at once (a GPU would return SUCCESS and
//    fail at the next synchronisation) so the caller's check names the call.
// m, n or batchCount of 0 returns SUCCESS with nothing read or written; k == 0 scales C by
// beta without reading A or B. alpha and beta are host pointers to the compute type's scalar
// (float for 32F and 32F_FAST_TF32, double for 64F), read before the call returns; the
// product is queued on the handle's stream.
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                          cublasOperation_t transb, int m, int n, int k, const void* alpha,
                                          const void* A, cudaDataType Atype, int lda, long long strideA,
                                          const void* B, cudaDataType Btype, int ldb, long long strideB,
                                          const void* beta, void* C, cudaDataType Ctype, int ldc,
                                          long long strideC, int batchCount, cublasComputeType_t computeType,
                                          cublasGemmAlgo_t algo) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_op(transa) || !valid_op(transb)) return CUBLAS_STATUS_INVALID_VALUE;
  if (m < 0 || n < 0 || k < 0 || batchCount < 0) return CUBLAS_STATUS_INVALID_VALUE;
  const int a_rows = transposed(transa) ? k : m, b_rows = transposed(transb) ? n : k;
  if (lda < std::max(1, a_rows) || ldb < std::max(1, b_rows) || ldc < std::max(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!alpha || !beta || strideA < 0 || strideB < 0 || strideC < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (!supported(Atype, Btype, Ctype, computeType) || !known_algo(algo)) return CUBLAS_STATUS_NOT_SUPPORTED;

  Lock lock(state().mutex);
  if (handle->device != current_device()) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0 || batchCount == 0) return CUBLAS_STATUS_SUCCESS;
  if (usable(handle->device) != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
  if (handle->user_workspace && handle->workspace_bytes < kMinWorkspace) return CUBLAS_STATUS_ALLOC_FAILED;

  const bool is_double = computeType == CUBLAS_COMPUTE_64F;
  const size_t element = is_double ? sizeof(double) : sizeof(float);
  const int d = handle->device;
  const char* call = "cublasGemmStridedBatchedEx ";
  if (k > 0) {
    const int a_cols = transposed(transa) ? m : k, b_cols = transposed(transb) ? k : n;
    if (!argument_accessible(d, A, span_bytes(a_rows, a_cols, lda, strideA, batchCount, element),
                             std::string(call) + "A") ||
        !argument_accessible(d, B, span_bytes(b_rows, b_cols, ldb, strideB, batchCount, element),
                             std::string(call) + "B"))
      return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  const size_t c_bytes = span_bytes(m, n, ldc, strideC, batchCount, element);
  if (!argument_accessible(d, C, c_bytes, std::string(call) + "C") ||
      !may_write(stream_or_null(handle->stream, d), C, c_bytes, std::string(call) + "C"))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  if (handle->workspace_bytes &&
      !argument_accessible(d, handle->workspace, handle->workspace_bytes, std::string(call) + "workspace"))
    return CUBLAS_STATUS_EXECUTION_FAILED;

  Gemm g;
  g.ta = transposed(transa), g.tb = transposed(transb), g.tf32 = computeType == CUBLAS_COMPUTE_32F_FAST_TF32;
  g.m = m, g.n = n, g.k = k, g.lda = lda, g.ldb = ldb, g.ldc = ldc;
  g.sa = strideA, g.sb = strideB, g.sc = strideC, g.batch = batchCount;
  g.a = A, g.b = B, g.c = C;
  g.alpha = is_double ? *static_cast<const double*>(alpha) : *static_cast<const float*>(alpha);
  g.beta = is_double ? *static_cast<const double*>(beta) : *static_cast<const float*>(beta);
  g.workspace = handle->workspace, g.workspace_bytes = handle->workspace_bytes;
  submit_function(handle->stream, d, [g, is_double] { is_double ? run<double>(g) : run<float>(g); });
  return CUBLAS_STATUS_SUCCESS;
}
