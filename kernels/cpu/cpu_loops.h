#pragma once
// Elementwise loops for the CPU backend: a contiguous output, strided or broadcast inputs.
// Dims are merged where every operand allows it, and the innermost row runs as a plain loop
// that the compiler vectorises when its strides are 1 (or 0 for a broadcast operand).
#include <array>
#include <cstdint>
#include <type_traits>

#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/kernels/cpu/parallel.h"
#include "ember/kernels/indexing.h"

namespace ember::cpu {

template <int N>
OffsetCalculator<N> plan_loop(const Shape& shape, const std::array<const Shape*, N>& strides) {
  return plan_offsets<N>(shape, strides);
}

/// out[i] = f(in[i]) with in of out's shape (any strides).
template <class To, class Ti, class F>
void map1(const Tensor& out, const Tensor& in, F f) {
  To* o = static_cast<To*>(out.raw_data());
  const Ti* x = static_cast<const Ti*>(in.raw_data());
  const int64_t n = out.numel();
  if (in.is_contiguous()) {
    parallel_for(n, kParallelGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) o[i] = static_cast<To>(f(x[i]));
    });
    return;
  }
  const Shape ostrides = contiguous_strides(out.shape());
  const auto calc = plan_loop<2>(out.shape(), {&ostrides, &in.strides()});
  const int64_t inner = calc.ndim ? calc.sizes[0] : 1;
  const int64_t sx = calc.ndim ? calc.strides[1][0] : 0;
  const OffsetCalculator<2> outer = drop_innermost(calc);
  const int64_t rows = n / (inner ? inner : 1);
  parallel_for(rows, std::max<int64_t>(1, kParallelGrain / (inner ? inner : 1)), [&](int64_t lo, int64_t hi) {
    int64_t off[2];
    for (int64_t r = lo; r < hi; ++r) {
      outer.get(r, off);
      To* po = o + r * inner;
      const Ti* px = x + off[1];
      if (sx == 1)
        for (int64_t j = 0; j < inner; ++j) po[j] = static_cast<To>(f(px[j]));
      else
        for (int64_t j = 0; j < inner; ++j) po[j] = static_cast<To>(f(px[j * sx]));
    }
  });
}

/// out[i] = f(a[i], b[i]) with a and b broadcast to out's shape (any strides).
template <class To, class Ta, class Tb, class F>
void map2(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  To* o = static_cast<To*>(out.raw_data());
  const Ta* pa = static_cast<const Ta*>(a.raw_data());
  const Tb* pb = static_cast<const Tb*>(b.raw_data());
  const int64_t n = out.numel();
  if (a.is_contiguous() && b.is_contiguous() && a.shape() == b.shape()) {
    parallel_for(n, kParallelGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) o[i] = static_cast<To>(f(pa[i], pb[i]));
    });
    return;
  }
  const Shape ostrides = contiguous_strides(out.shape());
  const auto calc = plan_loop<3>(out.shape(), {&ostrides, &a.strides(), &b.strides()});
  const int64_t inner = calc.ndim ? calc.sizes[0] : 1;
  const int64_t sa = calc.ndim ? calc.strides[1][0] : 0;
  const int64_t sb = calc.ndim ? calc.strides[2][0] : 0;
  const OffsetCalculator<3> outer = drop_innermost(calc);
  const int64_t rows = n / (inner ? inner : 1);
  parallel_for(rows, std::max<int64_t>(1, kParallelGrain / (inner ? inner : 1)), [&](int64_t lo, int64_t hi) {
    int64_t off[3];
    for (int64_t r = lo; r < hi; ++r) {
      outer.get(r, off);
      To* po = o + r * inner;
      const Ta* xa = pa + off[1];
      const Tb* xb = pb + off[2];
      // The vectorisable row shapes get their own loops for floating types only: integer
      // and bool rows are index and mask work, where the generic loop is fast enough and
      // each extra loop is compile time for every op and dtype.
      if constexpr (std::is_floating_point<Ta>::value) {
        if (sa == 1 && sb == 1) {
          for (int64_t j = 0; j < inner; ++j) po[j] = static_cast<To>(f(xa[j], xb[j]));
          continue;
        }
        if (sa == 1 && sb == 0) {
          for (int64_t j = 0; j < inner; ++j) po[j] = static_cast<To>(f(xa[j], *xb));
          continue;
        }
        if (sa == 0 && sb == 1) {
          for (int64_t j = 0; j < inner; ++j) po[j] = static_cast<To>(f(*xa, xb[j]));
          continue;
        }
      }
      for (int64_t j = 0; j < inner; ++j) po[j] = static_cast<To>(f(xa[j * sa], xb[j * sb]));
    }
  });
}

}  // namespace ember::cpu
