#pragma once
// From a runtime op enum to its functor (kernels/functors.h): the one dispatch that the CPU
// loops and the CUDA kernels share, so both devices support the same ops and dtypes.
#include <type_traits>

#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/core/op_kinds.h"
#include "ember/kernels/functors.h"

namespace ember {

/// Calls body(functor) for a unary op on element type T (not LogicalNot); DTypeError when
/// the op needs a floating T.
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

/// Calls body(functor) for an arithmetic binary op (or a gradient written as one).
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

/// Calls body(functor) for a comparison.
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

}  // namespace ember
