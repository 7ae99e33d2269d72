// Batched GEMM (kernels/cpu/gemm_into.h: Ember's sgemm for float, Eigen otherwise). Each
// operand is read in place as row-major or column-major (whichever has unit inner stride), so
// transposed views cost no copy. Each GEMM runs on one thread; Ember spreads the batch, or one
// large product's output rows or columns, over its own pool (kernels/cpu/thread_pool.h), which
// copes with a busy machine better than Eigen's OpenMP regions.
#include <algorithm>
#include <cmath>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/eigen_single_thread.h"
#include "ember/kernels/cpu/gemm_into.h"
#include "ember/kernels/cpu/parallel.h"

namespace ember {
namespace {

// Multiply-adds a parallel task takes on at least: below that, handing work to another
// thread costs more than it saves.
constexpr int64_t kMinTaskMacs = int64_t(1) << 20;

// 0: row-major (unit column stride), 1: column-major (unit row stride), -1: neither.
int layout(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  if (col_stride == 1 || cols == 1) return 0;
  if (row_stride == 1 || rows == 1) return 1;
  return -1;
}

// One product o = a * b (+ bias), its larger output dim cut into blocks of rows or columns
// run in parallel. la / lb: 0 row-major, 1 column-major (see layout()).
template <class T>
void gemm_parallel(T* o, const T* a, const T* b, int64_t M, int64_t K, int64_t N, int64_t lda, int64_t ldb,
                   int la, int lb, const T* bias) {
  // Element (i, k) of a is at a[i * a_rs + k * a_cs]; likewise b.
  const int64_t a_rs = la == 0 ? lda : 1, a_cs = la == 0 ? 1 : lda;
  const int64_t b_rs = lb == 0 ? ldb : 1, b_cs = lb == 0 ? 1 : ldb;
  auto block = [&](int64_t i0, int64_t m, int64_t j0, int64_t n) {
    cpu::gemm_into<T>(o + i0 * N + j0, N, {a + i0 * a_rs, m, K, a_rs, a_cs},
                      {b + j0 * b_cs, K, n, b_rs, b_cs}, false, bias ? bias + j0 : nullptr);
  };
  if (M >= N) {
    const int64_t grain = std::max<int64_t>(8, kMinTaskMacs / std::max<int64_t>(1, N * K));
    parallel_for(M, grain, [&](int64_t lo, int64_t hi) { block(lo, hi - lo, 0, N); });
  } else {
    // Column blocks of whole registers (16 floats) keep the output's rows aligned to them.
    const int64_t grain = std::max<int64_t>(16, kMinTaskMacs / std::max<int64_t>(1, M * K));
    const int64_t units = (N + 15) / 16;
    parallel_for(units, (grain + 15) / 16, [&](int64_t lo, int64_t hi) {
      const int64_t j0 = lo * 16, j1 = std::min(N, hi * 16);
      block(0, M, j0, j1 - j0);
    });
  }
}

// The leading dimension of a mapped operand, never below its inner extent (Eigen asserts
// on nothing here, but a zero stride of a size-1 dim must still describe a valid matrix).
int64_t lead(int order, int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  return order == 0 ? std::max(rs, cols) : std::max(cs, rows);
}

}  // namespace

void CpuBackend::matmul(const Tensor& out, const Tensor& a_in, const Tensor& b_in, const Tensor& bias) {
  cpu::keep_eigen_single_threaded();
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
    if (M == 0 || N == 0) return;
    auto one = [&](int64_t i) {
      gemm_parallel<T>(po + i * M * N, pa + i * a.stride(0), pb + i * b.stride(0), M, K, N, lda, ldb, la, lb,
                       pbias);
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
