// Elementwise ops on the CPU: each op is a functor from kernels/functors.h run by the loops
// of cpu_loops.h.
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/cpu_loops.h"
#include "ember/kernels/functors.h"

namespace ember {
namespace {

template <class T, class Body>
void with_unary(UnaryOp op, double p0, double p1, const Body& body) {
  switch (op) {
    case UnaryOp::Neg: return body(fn::Neg{});
    case UnaryOp::Abs: return body(fn::Abs{});
    case UnaryOp::Relu: return body(fn::Relu{});
    case UnaryOp::Sign: return body(fn::Sign{});
    case UnaryOp::Square: return body(fn::Square{});
    case UnaryOp::Clamp: return body(fn::Clamp<T>{static_cast<T>(p0), static_cast<T>(p1)});
    case UnaryOp::PowScalar: return body(fn::PowScalar<T>{static_cast<T>(p0)});
    case UnaryOp::RPowScalar: return body(fn::RPowScalar<T>{static_cast<T>(p0)});
    default: break;
  }
  if constexpr (std::is_floating_point<T>::value) {
    switch (op) {
      case UnaryOp::Exp: return body(fn::Exp{});
      case UnaryOp::Log: return body(fn::Log{});
      case UnaryOp::Sqrt: return body(fn::Sqrt{});
      case UnaryOp::Sigmoid: return body(fn::Sigmoid{});
      case UnaryOp::Tanh: return body(fn::Tanh{});
      default: break;
    }
  }
  raise<DTypeError>("unary op ", static_cast<int>(op), " does not support dtype ",
                    dtype_name(dtype_of<T>::value));
}

template <class T, class Body>
void with_binary(BinaryOp op, const Body& body) {
  switch (op) {
    case BinaryOp::Add: return body(fn::Add{});
    case BinaryOp::Sub: return body(fn::Sub{});
    case BinaryOp::Mul: return body(fn::Mul{});
    case BinaryOp::Div: return body(fn::Div{});
    case BinaryOp::Pow: return body(fn::Pow{});
    case BinaryOp::Maximum: return body(fn::Maximum{});
    case BinaryOp::Minimum: return body(fn::Minimum{});
    case BinaryOp::ReluBackward: return body(fn::ReluBackward{});
    case BinaryOp::SigmoidBackward: return body(fn::SigmoidBackward{});
    case BinaryOp::TanhBackward: return body(fn::TanhBackward{});
    default: break;
  }
  raise<ValueError>("binary op ", static_cast<int>(op), " is not arithmetic");
}

template <class Body>
void with_comparison(BinaryOp op, const Body& body) {
  switch (op) {
    case BinaryOp::Eq: return body(fn::Eq{});
    case BinaryOp::Ne: return body(fn::Ne{});
    case BinaryOp::Lt: return body(fn::Lt{});
    case BinaryOp::Le: return body(fn::Le{});
    case BinaryOp::Gt: return body(fn::Gt{});
    case BinaryOp::Ge: return body(fn::Ge{});
    default: break;
  }
  raise<ValueError>("binary op ", static_cast<int>(op), " is not a comparison");
}

}  // namespace

void CpuBackend::copy(const Tensor& dst, const Tensor& src) {
  EMBER_DISPATCH_ALL(dst.dtype(), "copy", [&] {
    using To = scalar_t;
    EMBER_DISPATCH_ALL(src.dtype(), "copy", [&] {
      if (dst.is_contiguous()) {
        cpu::map1<To, scalar_t>(dst, src, [](scalar_t x) { return static_cast<To>(x); });
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
          o[off[0]] = static_cast<To>(x[off[1]]);
        }
      });
    });
  });
}

void CpuBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, double p0, double p1) {
  if (op == UnaryOp::LogicalNot) {
    EMBER_DISPATCH_ALL(in.dtype(), "logical_not", [&] {
      cpu::map1<bool, scalar_t>(out, in, fn::LogicalNot{});
    });
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

void CpuBackend::binary_scalar(BinaryOp op, const Tensor& out, const Tensor& a, double s,
                               bool scalar_first) {
  auto run = [&](auto f, auto sv) {
    using S = decltype(sv);
    if (scalar_first)
      cpu::map1<decltype(f(sv, sv)), S>(out, a, [=](S x) { return f(sv, x); });
    else
      cpu::map1<decltype(f(sv, sv)), S>(out, a, [=](S x) { return f(x, sv); });
  };
  if (is_comparison(op)) {
    EMBER_DISPATCH_ALL(a.dtype(), "comparison", [&] {
      with_comparison(op, [&](auto f) { run(f, static_cast<scalar_t>(s)); });
    });
    return;
  }
  EMBER_DISPATCH_NUMERIC(a.dtype(), "binary", [&] {
    with_binary<scalar_t>(op, [&](auto f) { run(f, static_cast<scalar_t>(s)); });
  });
}

void CpuBackend::where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  // Select through one three-operand loop: view cond's bytes and pick per element.
  EMBER_DISPATCH_ALL(out.dtype(), "where", [&] {
    scalar_t* o = static_cast<scalar_t*>(out.raw_data());
    const bool* pc = static_cast<const bool*>(cond.raw_data());
    const scalar_t* pa = static_cast<const scalar_t*>(a.raw_data());
    const scalar_t* pb = static_cast<const scalar_t*>(b.raw_data());
    const Shape ostrides = contiguous_strides(out.shape());
    const auto calc = cpu::plan_loop<4>(out.shape(), {&ostrides, &cond.strides(), &a.strides(), &b.strides()});
    parallel_for(out.numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
      int64_t off[4];
      for (int64_t i = lo; i < hi; ++i) {
        calc.get(i, off);
        o[off[0]] = pc[off[1]] ? pa[off[2]] : pb[off[3]];
      }
    });
  });
}

}  // namespace ember
