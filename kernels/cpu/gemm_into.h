#pragma once
// One GEMM entry for the CPU kernels (matmul, linear, attention's blocks): float runs Ember's
// sgemm (kernels/cpu/sgemm.h) where the build has it, other types and builds Eigen's GEMM on
// the operands mapped in place. Either runs on the calling thread.
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ember/kernels/cpu/sgemm.h"

namespace ember::cpu {

/// A matrix read in place: element (i, j) at data[i * row_stride + j * col_stride]. GEMM needs
/// one of the strides to be 1 (or the matching extent to be 1) for the Eigen path.
template <class T>
struct MatrixView {
  const T* data;
  int64_t rows, cols, row_stride, col_stride;

  MatrixView transposed() const { return {data, cols, rows, col_stride, row_stride}; }
  // Row-major when the columns are adjacent (or there is one column).
  bool row_major() const { return col_stride == 1 || cols == 1; }
};

namespace detail {

template <class T, int Order>
using EigenIn =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>, 0, Eigen::OuterStride<>>;
template <class T>
using EigenOut =
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0, Eigen::OuterStride<>>;

template <class T, int Order>
EigenIn<T, Order> eigen_in(const MatrixView<T>& v) {
  // The outer stride never below the inner extent: a size-1 dim's stride may be anything.
  const int64_t outer =
      Order == Eigen::RowMajor ? std::max(v.row_stride, v.cols) : std::max(v.col_stride, v.rows);
  return EigenIn<T, Order>(v.data, v.rows, v.cols, Eigen::OuterStride<>(outer));
}

template <class T, int OA, int OB>
void eigen_gemm(EigenOut<T>& out, const MatrixView<T>& a, const MatrixView<T>& b, bool accumulate,
                const T* bias) {
  if (accumulate) {
    out.noalias() += eigen_in<T, OA>(a) * eigen_in<T, OB>(b);
  } else if (bias) {
    out.rowwise() = Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>(bias, out.cols());
    out.noalias() += eigen_in<T, OA>(a) * eigen_in<T, OB>(b);
  } else {
    out.noalias() = eigen_in<T, OA>(a) * eigen_in<T, OB>(b);
  }
}

}  // namespace detail

/// out[i * ldo + j] = (accumulate ? out[...] : bias ? bias[j] : 0) + sum_k a(i, k) b(k, j) for
/// the a.rows x b.cols output (a.cols == b.rows). out must not overlap a or b.
template <class T>
void gemm_into(T* out, int64_t ldo, const MatrixView<T>& a, const MatrixView<T>& b, bool accumulate,
               const T* bias = nullptr) {
  if constexpr (std::is_same_v<T, float>) {
    if (sgemm_available()) {
      sgemm(out, ldo, a.data, a.row_stride, a.col_stride, b.data, b.row_stride, b.col_stride, a.rows, b.cols,
            a.cols, accumulate, bias);
      return;
    }
  }
  if (a.rows == 0 || b.cols == 0) return;
  detail::EigenOut<T> o(out, a.rows, b.cols, Eigen::OuterStride<>(ldo));
  if (a.cols == 0) {
    if (accumulate) return;
    if (bias)
      o.rowwise() = Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>(bias, b.cols);
    else
      o.setZero();
    return;
  }
  constexpr int R = Eigen::RowMajor, C = Eigen::ColMajor;
  if (a.row_major() && b.row_major())
    detail::eigen_gemm<T, R, R>(o, a, b, accumulate, bias);
  else if (a.row_major())
    detail::eigen_gemm<T, R, C>(o, a, b, accumulate, bias);
  else if (b.row_major())
    detail::eigen_gemm<T, C, R>(o, a, b, accumulate, bias);
  else
    detail::eigen_gemm<T, C, C>(o, a, b, accumulate, bias);
}

}  // namespace ember::cpu
