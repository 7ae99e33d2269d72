// matmul, batched matmul and linear through one cuBLAS call (cublasGemmStridedBatchedEx).
// cuBLAS is column-major: the row-major product out = a @ b is computed as
// out^T = b^T a^T, so the operands are swapped; transposed views are read in place with
// op T, a batch stride of 0 repeats one matrix, and the bias is written into every row
// first, the product then accumulating onto it (beta = 1). Full FP32 unless TF32 is on.
#include <climits>

#include "ember/kernels/cuda/cuda_backend.h"
#include "ember/kernels/cuda/cuda_context.h"
#include "ember/kernels/cuda/gemm_layout.h"

namespace ember {
namespace {

int to_blas_int(int64_t v) {
  if (v > INT_MAX) raise<ValueError>("matmul: size ", v, " is too large for cuBLAS");
  return static_cast<int>(v);
}

cublasOperation_t op_of(bool transposed) { return transposed ? CUBLAS_OP_T : CUBLAS_OP_N; }

}  // namespace

void CudaBackend::matmul(const Tensor& out, const Tensor& a_in, const Tensor& b_in, const Tensor& bias) {
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a_in.size(2);
  if (out.numel() == 0) return;
  const DType dt = out.dtype();
  if (dt != kFloat32 && dt != kFloat64)
    raise<DTypeError>("matmul does not support dtype ", dtype_name(dt), " on cuda");
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);

  if (bias.defined()) copy(out, detail::make_view(bias, {B, M, N}, {0, 0, bias.stride(0)}, bias.offset()));
  if (K == 0) {
    if (!bias.defined()) fill(out, 0.0);
    return;
  }

  // Operands whose strides fit neither layout (e.g. expanded rows) are copied first.
  auto layout_of = [&](const Tensor& t, int64_t rows, int64_t cols, Tensor& use) {
    cuda_detail::MatrixLayout l = cuda_detail::describe_matrix(rows, cols, t.stride(1), t.stride(2));
    use = t;
    if (!l.ok) {
      use = contiguous(t);
      l = cuda_detail::describe_matrix(rows, cols, use.stride(1), use.stride(2));
    }
    return l;
  };
  Tensor a, b;
  const cuda_detail::MatrixLayout la = layout_of(a_in, M, K, a);
  const cuda_detail::MatrixLayout lb = layout_of(b_in, K, N, b);
  const cuda_detail::GemmPlan p = cuda_detail::plan_gemm(M, N, K, la, lb);
  const long long stride_a = B == 1 ? 0 : a.stride(0);
  const long long stride_b = B == 1 ? 0 : b.stride(0);
  const long long stride_c = M * N;

  const bool is_float = dt == kFloat32;
  const cudaDataType_t type = is_float ? CUDA_R_32F : CUDA_R_64F;
  const cublasComputeType_t compute =
      is_float ? (backend_settings().allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F)
               : CUBLAS_COMPUTE_64F;
  const float alpha_f = 1.0f, beta_f = bias.defined() ? 1.0f : 0.0f;
  const double alpha_d = 1.0, beta_d = bias.defined() ? 1.0 : 0.0;
  const void* alpha = is_float ? static_cast<const void*>(&alpha_f) : &alpha_d;
  const void* beta = is_float ? static_cast<const void*>(&beta_f) : &beta_d;

  using GemmStridedBatchedEx = cublasStatus_t (*)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*,
      cudaDataType, int, long long, const void*, cudaDataType, int, long long, const void*, void*,
      cudaDataType, int, long long, int, cublasComputeType_t, cublasGemmAlgo_t);
  EMBER_CUBLAS_CHECK(EMBER_CUBLAS_AS(cublasGemmStridedBatchedEx, GemmStridedBatchedEx)(
      cuda_detail::cublas(dev), op_of(p.trans_first), op_of(p.trans_second), to_blas_int(p.m),
      to_blas_int(p.n), to_blas_int(p.k), alpha, b.raw_data(), type, to_blas_int(p.ld_first), stride_b,
      a.raw_data(), type, to_blas_int(p.ld_second), stride_a, beta, out.raw_data(), type, to_blas_int(p.ldc),
      stride_c, to_blas_int(B), compute, CUBLAS_GEMM_DEFAULT));
}

}  // namespace ember
