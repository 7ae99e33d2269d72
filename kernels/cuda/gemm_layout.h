#pragma once
// The operand swap that turns Ember's row-major product into cuBLAS's column-major one.
// Free of CUDA so that the CPU tests check it.
#include <algorithm>
#include <cstdint>

#include "ember/kernels/gemm_layout.h"

namespace ember::cuda_detail {

// The layout of a strided matrix (kernels/gemm_layout.h), which the CPU's matmul reads too.
using ember::describe_matrix;
using ember::MatrixLayout;

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
