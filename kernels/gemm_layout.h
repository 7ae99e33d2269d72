#pragma once
// How a strided [rows, cols] matrix is handed to a GEMM without a copy (cuBLAS on the GPU,
// sgemm or Eigen on the CPU): row-major or column-major with a leading dimension, or neither
// (a broadcast's stride 0, overlapping rows), which the caller copies first. Code both
// backends compile; the CPU tests check it.
#include <algorithm>
#include <cstdint>

namespace ember {

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

}  // namespace ember
