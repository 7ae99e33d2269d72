#pragma once
// How a strided [rows, cols] matrix is handed to a column-major BLAS without a copy, and
// the operand swap that turns Ember's row-major product into cuBLAS's column-major one.
// Free of CUDA so that the CPU tests check it.
#include <algorithm>
#include <cstdint>

namespace ember::cuda_detail {

/// A matrix as BLAS sees it: `transposed` means the memory holds it column-major (BLAS
/// reads it with op T when it needs the row-major view), `ld` its leading dimension.
struct MatrixLayout {
  bool ok = false;         // false: the strides fit neither layout; copy it first
  bool row_major = false;  // memory holds rows contiguously, one every `ld` elements
  int64_t ld = 0;
};

/// The layout of a [rows, cols] view with strides (rs, cs). Size-1 dims may carry any
/// stride; the leading dimension always satisfies BLAS's ld >= max(1, inner extent).
inline MatrixLayout describe_matrix(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  MatrixLayout m;
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= std::max<int64_t>(1, cols))) {
    m.ok = true;
    m.row_major = true;
    m.ld = rows == 1 ? std::max<int64_t>(1, cols) : rs;
  } else if ((rs == 1 || rows == 1) && (cols == 1 || cs >= std::max<int64_t>(1, rows))) {
    m.ok = true;
    m.row_major = false;
    m.ld = cols == 1 ? std::max<int64_t>(1, rows) : cs;
  }
  return m;
}

/// One cuBLAS call for out[M, N] (row-major, ld N) = a[M, K] @ b[K, N]: cuBLAS computes
/// out^T = b^T a^T in column-major terms, so its first operand is b and its second is a.
/// A row-major operand is its own transpose in column-major memory (op N); a column-major
/// one needs op T.
struct GemmPlan {
  bool trans_first = false, trans_second = false;  // op T for cuBLAS's A (= b) and B (= a)
  int64_t m = 0, n = 0, k = 0;                     // cuBLAS's m = N, n = M, k = K
  int64_t ld_first = 0, ld_second = 0, ldc = 0;
};

inline GemmPlan plan_gemm(int64_t M, int64_t N, int64_t K, const MatrixLayout& a, const MatrixLayout& b) {
  GemmPlan p;
  p.m = N;
  p.n = M;
  p.k = K;
  p.trans_first = !b.row_major;
  p.ld_first = b.ld;
  p.trans_second = !a.row_major;
  p.ld_second = a.ld;
  p.ldc = std::max<int64_t>(1, N);
  return p;
}

}  // namespace ember::cuda_detail
