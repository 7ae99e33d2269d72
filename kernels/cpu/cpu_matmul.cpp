// Batched GEMM on Eigen. Each operand is mapped in place as row-major or column-major
// (whichever has unit inner stride), so transposed views cost no copy.
#include <Eigen/Core>

#include "ember/core/dtype_dispatch.h"
#include "ember/core/threads.h"
#include "ember/kernels/cpu/cpu_backend.h"

namespace ember {
namespace {

template <class T, int Order>
using MatMap =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>, 0, Eigen::OuterStride<>>;
template <class T>
using OutMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

// 0: row-major (unit column stride), 1: column-major (unit row stride), -1: neither.
int layout(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  if (col_stride == 1 || cols == 1) return 0;
  if (row_stride == 1 || rows == 1) return 1;
  return -1;
}

template <class T, int OA, int OB>
void gemm(T* o, const T* a, const T* b, int64_t M, int64_t K, int64_t N, int64_t lda, int64_t ldb,
          const T* bias) {
  OutMap<T> out(o, M, N);
  MatMap<T, OA> A(a, M, K, Eigen::OuterStride<>(lda));
  MatMap<T, OB> B(b, K, N, Eigen::OuterStride<>(ldb));
  if (bias) {
    out.rowwise() = Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>(bias, N);
    out.noalias() += A * B;
  } else {
    out.noalias() = A * B;
  }
}

// The leading dimension of a mapped operand, never below its inner extent (Eigen asserts
// on nothing here, but a zero stride of a size-1 dim must still describe a valid matrix).
int64_t lead(int order, int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  return order == 0 ? std::max(rs, cols) : std::max(cs, rows);
}

}  // namespace

void CpuBackend::matmul(const Tensor& out, const Tensor& a_in, const Tensor& b_in, const Tensor& bias) {
  Eigen::setNbThreads(get_num_threads());
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a_in.size(2);
  Tensor a = a_in, b = b_in;
  int la = layout(M, K, a.stride(1), a.stride(2));
  int lb = layout(K, N, b.stride(1), b.stride(2));
  if (la < 0) {
    a = contiguous(a_in);
    la = 0;
  }
  if (lb < 0) {
    b = contiguous(b_in);
    lb = 0;
  }
  const int64_t lda = lead(la, M, K, a.stride(1), a.stride(2));
  const int64_t ldb = lead(lb, K, N, b.stride(1), b.stride(2));
  EMBER_DISPATCH_FLOATING(out.dtype(), "matmul", [&] {
    using T = scalar_t;
    const T* pa = static_cast<const T*>(a.raw_data());
    const T* pb = static_cast<const T*>(b.raw_data());
    const Tensor bias_c = contiguous(bias);
    const T* pbias = bias_c.defined() ? static_cast<const T*>(bias_c.raw_data()) : nullptr;
    T* po = static_cast<T*>(out.raw_data());
    for (int64_t i = 0; i < B; ++i) {
      const T* ai = pa + i * a.stride(0);
      const T* bi = pb + i * b.stride(0);
      T* oi = po + i * M * N;
      if (K == 0) {
        OutMap<T> o(oi, M, N);
        if (pbias)
          o.rowwise() = Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>(pbias, N);
        else
          o.setZero();
        continue;
      }
      if (la == 0 && lb == 0)
        gemm<T, Eigen::RowMajor, Eigen::RowMajor>(oi, ai, bi, M, K, N, lda, ldb, pbias);
      else if (la == 0)
        gemm<T, Eigen::RowMajor, Eigen::ColMajor>(oi, ai, bi, M, K, N, lda, ldb, pbias);
      else if (lb == 0)
        gemm<T, Eigen::ColMajor, Eigen::RowMajor>(oi, ai, bi, M, K, N, lda, ldb, pbias);
      else
        gemm<T, Eigen::ColMajor, Eigen::ColMajor>(oi, ai, bi, M, K, N, lda, ldb, pbias);
    }
  });
}

}  // namespace ember
