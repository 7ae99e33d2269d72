// Elementwise ops on the CPU: each op is a functor from kernels/functors.h run by the loops
// of cpu_loops.h (GELU on contiguous float by cpu/gelu_lanes.h, with the functor's bits).
#include <algorithm>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cast.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/cpu_loops.h"
#include "ember/kernels/cpu/gelu_lanes.h"
#include "ember/kernels/elementwise_dispatch.h"
#include "ember/kernels/scalar_cast.h"

namespace ember {

void CpuBackend::copy(const Tensor& dst, const Tensor& src) {
  EMBER_DISPATCH_ALL(dst.dtype(), "copy", [&] {
    using To = scalar_t;
    EMBER_DISPATCH_ALL(src.dtype(), "copy", [&] {
      if (dst.is_contiguous()) {
        cpu::map1<To, scalar_t>(dst, src, [](scalar_t x) { return cast_value<To>(x); });
        return;
      }
      // A strided destination (a view being written through): walk both by offsets.
      To* o = static_cast<To*>(dst.raw_data());
      const scalar_t* x = static_cast<const scalar_t*>(src.raw_data());
      const auto calc = cpu::plan_loop<2>(dst.shape(), {&dst.strides(), &src.strides()});
      parallel_for(dst.numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
        int64_t off[2];
        for (int64_t i = lo; i < hi; ++i) {
          calc.get(i, off);
          o[off[0]] = cast_value<To>(x[off[1]]);
        }
      });
    });
  });
}

void CpuBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, double p0, double p1) {
  if (op == UnaryOp::LogicalNot) {
    EMBER_DISPATCH_ALL(in.dtype(), "logical_not",
                       [&] { cpu::map1<bool, scalar_t>(out, in, fn::LogicalNot{}); });
    return;
  }
  if (op == UnaryOp::Gelu && in.dtype() == kFloat32 && in.is_contiguous() && out.is_contiguous()) {
    // The functor's bits, eight vectors at a time (gelu_lanes.h says why).
    const float* x = static_cast<const float*>(in.raw_data());
    float* o = static_cast<float*>(out.raw_data());
    parallel_for(in.numel(), kParallelGrain,
                 [&](int64_t lo, int64_t hi) { cpu::gelu_lanes(o + lo, x + lo, hi - lo); });
    return;
  }
  EMBER_DISPATCH_NUMERIC(in.dtype(), "unary", [&] {
    with_unary<scalar_t>(op, p0, p1, [&](auto f) { cpu::map1<scalar_t, scalar_t>(out, in, f); });
  });
}

void CpuBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  if (is_comparison(op)) {
    EMBER_DISPATCH_ALL(a.dtype(), "comparison", [&] {
      with_comparison(op, [&](auto f) { cpu::map2<bool, scalar_t, scalar_t>(out, a, b, f); });
    });
    return;
  }
  EMBER_DISPATCH_NUMERIC(a.dtype(), "binary", [&] {
    with_binary<scalar_t>(op, [&](auto f) { cpu::map2<scalar_t, scalar_t, scalar_t>(out, a, b, f); });
  });
}

void CpuBackend::binary_scalar(BinaryOp op, const Tensor& out, const Tensor& a, const Scalar& s,
                               bool scalar_first) {
  auto run = [&](auto f, auto sv) {
    using S = decltype(sv);
    if (scalar_first)
      cpu::map1<decltype(f(sv, sv)), S>(out, a, [=](S x) { return f(sv, x); });
    else
      cpu::map1<decltype(f(sv, sv)), S>(out, a, [=](S x) { return f(x, sv); });
  };
  if (is_comparison(op)) {
    EMBER_DISPATCH_ALL(a.dtype(), "comparison",
                       [&] { with_comparison(op, [&](auto f) { run(f, scalar_value<scalar_t>(s)); }); });
    return;
  }
  EMBER_DISPATCH_NUMERIC(a.dtype(), "binary", [&] {
    with_binary<scalar_t>(op, [&](auto f) { run(f, scalar_value<scalar_t>(s)); });
  });
}

void CpuBackend::where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  // Row by row, as cpu::map2: the outer dims through the offset calculator, the innermost
  // run as a plain loop (a per-element offset computation cost more than the select).
  EMBER_DISPATCH_ALL(out.dtype(), "where", [&] {
    scalar_t* o = static_cast<scalar_t*>(out.raw_data());
    const bool* pc = static_cast<const bool*>(cond.raw_data());
    const scalar_t* pa = static_cast<const scalar_t*>(a.raw_data());
    const scalar_t* pb = static_cast<const scalar_t*>(b.raw_data());
    const Shape ostrides = contiguous_strides(out.shape());
    const auto calc =
        cpu::plan_loop<4>(out.shape(), {&ostrides, &cond.strides(), &a.strides(), &b.strides()});
    const int64_t inner = calc.ndim ? calc.sizes[0] : 1;
    const int64_t sc = calc.ndim ? calc.strides[1][0] : 0, sa = calc.ndim ? calc.strides[2][0] : 0,
                  sb = calc.ndim ? calc.strides[3][0] : 0;
    const OffsetCalculator<4> outer = drop_innermost(calc);
    const int64_t rows = out.numel() / (inner ? inner : 1);
    parallel_for(rows, std::max<int64_t>(1, kParallelGrain / (inner ? inner : 1)),
                 [&](int64_t lo, int64_t hi) {
                   int64_t off[4];
                   for (int64_t r = lo; r < hi; ++r) {
                     outer.get(r, off);
                     scalar_t* po = o + r * inner;
                     const bool* c = pc + off[1];
                     const scalar_t *x = pa + off[2], *y = pb + off[3];
                     if (sc == 1 && sa == 1 && sb == 1)
                       for (int64_t j = 0; j < inner; ++j) po[j] = c[j] ? x[j] : y[j];
                     else
                       for (int64_t j = 0; j < inner; ++j) po[j] = c[j * sc] ? x[j * sa] : y[j * sb];
                   }
                 });
  });
}

}  // namespace ember
