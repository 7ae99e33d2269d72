#pragma once
// From a runtime op enum to its functor (kernels/functors.h): the one dispatch that the CPU
// loops and the CUDA kernels share, so both devices support the same ops and dtypes.
#include <type_traits>

#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/core/op_kinds.h"
#include "ember/kernels/functors.h"

namespace ember {

// Each switch below lists every op and has no default (-Werror=switch): a new op in
// core/op_kinds.h does not compile until it is dispatched here, or said not to be.

/// Calls body(functor) for a unary op on element type T (not LogicalNot); DTypeError when
/// the op needs a floating T.
template <class T, class Body>
void with_unary(UnaryOp op, double p0, double p1, const Body& body) {
  constexpr bool floating = std::is_floating_point<T>::value;
  switch (op) {
    case UnaryOp::Neg:
      return body(fn::Neg{});
    case UnaryOp::Abs:
      return body(fn::Abs{});
    case UnaryOp::Relu:
      return body(fn::Relu{});
    case UnaryOp::Sign:
      return body(fn::Sign{});
    case UnaryOp::Square:
      return body(fn::Square{});
    case UnaryOp::Clamp:
      return body(fn::Clamp<T>{static_cast<T>(p0), static_cast<T>(p1)});
    case UnaryOp::PowScalar:
      return body(fn::PowScalar<T>{static_cast<T>(p0)});
    case UnaryOp::RPowScalar:
      return body(fn::RPowScalar<T>{static_cast<T>(p0)});
    case UnaryOp::Exp:
      if constexpr (floating) return body(fn::Exp{});
      break;
    case UnaryOp::Log:
      if constexpr (floating) return body(fn::Log{});
      break;
    case UnaryOp::Sqrt:
      if constexpr (floating) return body(fn::Sqrt{});
      break;
    case UnaryOp::Sigmoid:
      if constexpr (floating) return body(fn::Sigmoid{});
      break;
    case UnaryOp::Tanh:
      if constexpr (floating) return body(fn::Tanh{});
      break;
    case UnaryOp::LogicalNot:
      break;  // bool in, bool out: the backends' own loop
  }
  raise<DTypeError>(op_name(op), " does not support dtype ", dtype_name(dtype_of<T>::value));
}

/// Calls body(functor) for an arithmetic binary op (or a gradient written as one).
template <class T, class Body>
void with_binary(BinaryOp op, const Body& body) {
  switch (op) {
    case BinaryOp::Add:
      return body(fn::Add{});
    case BinaryOp::Sub:
      return body(fn::Sub{});
    case BinaryOp::Mul:
      return body(fn::Mul{});
    case BinaryOp::Div:
      return body(fn::Div{});
    case BinaryOp::Pow:
      return body(fn::Pow{});
    case BinaryOp::Maximum:
      return body(fn::Maximum{});
    case BinaryOp::Minimum:
      return body(fn::Minimum{});
    case BinaryOp::ReluBackward:
      return body(fn::ReluBackward{});
    case BinaryOp::SigmoidBackward:
      return body(fn::SigmoidBackward{});
    case BinaryOp::TanhBackward:
      return body(fn::TanhBackward{});
    case BinaryOp::Eq:
    case BinaryOp::Ne:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      break;  // with_comparison
  }
  raise<ValueError>(op_name(op), " is not an arithmetic op");
}

/// Calls body(functor) for a comparison.
template <class Body>
void with_comparison(BinaryOp op, const Body& body) {
  switch (op) {
    case BinaryOp::Eq:
      return body(fn::Eq{});
    case BinaryOp::Ne:
      return body(fn::Ne{});
    case BinaryOp::Lt:
      return body(fn::Lt{});
    case BinaryOp::Le:
      return body(fn::Le{});
    case BinaryOp::Gt:
      return body(fn::Gt{});
    case BinaryOp::Ge:
      return body(fn::Ge{});
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Pow:
    case BinaryOp::Maximum:
    case BinaryOp::Minimum:
    case BinaryOp::ReluBackward:
    case BinaryOp::SigmoidBackward:
    case BinaryOp::TanhBackward:
      break;  // with_binary
  }
  raise<ValueError>(op_name(op), " is not a comparison");
}

}  // namespace ember
