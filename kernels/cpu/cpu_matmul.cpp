// Batched GEMM (kernels/cpu/gemm_into.h: Ember's sgemm for float, Eigen otherwise). Each
// operand is read in place as row-major or column-major (whichever has unit inner stride), so
// transposed views cost no copy. Each GEMM runs on one thread; Ember spreads the batch, or one
// large product's output rows or columns, over its own pool (kernels/cpu/thread_pool.h), which
// copes with a busy machine better than OpenMP regions would (Eigen's threading is compiled
// out: EIGEN_DONT_PARALLELIZE).
#include <algorithm>
#include <cmath>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/gemm_blocks.h"
#include "ember/kernels/cpu/gemm_into.h"
#include "ember/kernels/cpu/parallel.h"
#include "ember/kernels/gemm_layout.h"

namespace ember {
namespace {

// One batch entry of t [B, rows, cols] as a GEMM operand, from its layout (gemm_layout.h).
template <class T>
cpu::MatrixView<T> operand(const Tensor& t, const MatrixLayout& l, int64_t entry) {
  const T* data = static_cast<const T*>(t.raw_data()) + entry * t.stride(0);
  return l.row_major ? cpu::MatrixView<T>{data, t.size(1), t.size(2), l.ld, 1}
                     : cpu::MatrixView<T>{data, t.size(1), t.size(2), 1, l.ld};
}

MatrixLayout layout_of(const Tensor& t) {
  return describe_matrix(t.size(1), t.size(2), t.stride(1), t.stride(2));
}

// One product o = a * b (+ bias), cut into blocks of rows or columns run in parallel.
template <class T>
void gemm_parallel(T* o, const cpu::MatrixView<T>& a, const cpu::MatrixView<T>& b, const T* bias) {
  const int64_t K = a.cols, N = b.cols;
  cpu::for_each_gemm_block(a.rows, N, K, [&](int64_t i0, int64_t m, int64_t j0, int64_t n) {
    cpu::gemm_into<T>(o + i0 * N + j0, N, {a.data + i0 * a.row_stride, m, K, a.row_stride, a.col_stride},
                      {b.data + j0 * b.col_stride, K, n, b.row_stride, b.col_stride}, false,
                      bias ? bias + j0 : nullptr);
  });
}

}  // namespace

void CpuBackend::matmul(const Tensor& out, const Tensor& a_in, const Tensor& b_in, const Tensor& bias) {
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a_in.size(2);
  // Operands read in place, but for those whose strides fit no layout (a broadcast's stride 0).
  Tensor a = a_in, b = b_in;
  MatrixLayout la = layout_of(a), lb = layout_of(b);
  if (!la.ok) la = layout_of(a = contiguous(a_in));
  if (!lb.ok) lb = layout_of(b = contiguous(b_in));
  EMBER_DISPATCH_FLOATING(out.dtype(), "matmul", [&] {
    using T = scalar_t;
    const Tensor bias_c = contiguous(bias);
    const T* pbias = bias_c.defined() ? static_cast<const T*>(bias_c.raw_data()) : nullptr;
    T* po = static_cast<T*>(out.raw_data());
    if (M == 0 || N == 0) return;
    auto one = [&](int64_t i) {
      gemm_parallel<T>(po + i * M * N, operand<T>(a, la, i), operand<T>(b, lb, i), pbias);
    };
    // A batch of products runs one product per task (each one on one thread: nested
    // parallel_for calls stay on their thread); a single product is cut into blocks.
    if (B == 1)
      one(0);
    else
      // (In double: M * N * K, unlike M * K or K * N, is bounded by no operand's size.)
      parallel_for(B,
                   static_cast<int64_t>(
                       std::ceil(kMinTaskMacs / (double(M) * double(N) * double(std::max<int64_t>(K, 1))))),
                   [&](int64_t lo, int64_t hi) {
                     for (int64_t i = lo; i < hi; ++i) one(i);
                   });
  });
}

}  // namespace ember
