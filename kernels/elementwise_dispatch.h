#pragma once
// From a runtime op enum to its functor (kernels/functors.h): the one dispatch that the CPU
// loops and the CUDA kernels share, so both devices support the same ops and dtypes.
#include <type_traits>

#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/extend/op_kinds.h"
#include "ember/kernels/functors.h"

namespace ember {

// The switches below are generated from the op table (extend/elementwise_ops.h): each row's
// functor column, built with the element type T and the op's scalars p0, p1.

/// Whether the CPU loops and CUDA kernels run op's functor on element type T.
template <class T>
constexpr bool runs_on(OpDtypes dtypes) {
  switch (dtypes) {
    case OpDtypes::Any:
      return !std::is_same<T, bool>::value;
    case OpDtypes::Floating:
      return std::is_floating_point<T>::value;
    case OpDtypes::Logical:
      return false;  // bool in, bool out: the backends' own loop
  }
  return false;
}

/// Calls body(functor) for a unary op on element type T (not LogicalNot); DTypeError when
/// the op needs a floating T.
template <class T, class Body>
void with_unary(UnaryOp op, [[maybe_unused]] double p0, [[maybe_unused]] double p1, const Body& body) {
  switch (op) {
#define EMBER_DISPATCH(Enum, name, dtypes, api, functor, gradient)   \
  case UnaryOp::Enum:                                                \
    if constexpr (runs_on<T>(OpDtypes::dtypes)) return body functor; \
    break;
    EMBER_UNARY_OPS(EMBER_DISPATCH)
#undef EMBER_DISPATCH
  }
  raise<DTypeError>(op_name(op), " does not support dtype ", dtype_name(dtype_of<T>::value));
}

/// Whether an arithmetic binary row runs on element type T (bool counts for Any rows: the
/// backends' bool arithmetic goes through here). A Floating row is never instantiated for
/// integer T: the front ends promote or refuse first, and each skipped instantiation is
/// compile time in every build.
template <class T>
constexpr bool binary_runs_on(OpDtypes dtypes) {
  return dtypes != OpDtypes::Floating || std::is_floating_point<T>::value;
}

/// Calls body(functor) for an arithmetic binary op (or a gradient written as one); DTypeError
/// when the op needs a floating T.
template <class T, class Body>
void with_binary(BinaryOp op, const Body& body) {
  switch (op) {
#define EMBER_DISPATCH(Enum, name, dtypes, kind, functor, ...)                                    \
  case BinaryOp::Enum:                                                                            \
    if constexpr (BinaryKind::kind != BinaryKind::Comparison) {                                   \
      if constexpr (binary_runs_on<T>(OpDtypes::dtypes)) return body functor;                     \
      raise<DTypeError>(op_name(op), " does not support dtype ", dtype_name(dtype_of<T>::value)); \
    }                                                                                             \
    break;
    EMBER_BINARY_OPS(EMBER_DISPATCH)
#undef EMBER_DISPATCH
  }
  raise<ValueError>(op_name(op), " is not an arithmetic op");
}

/// Calls body(functor) for a comparison.
template <class Body>
void with_comparison(BinaryOp op, const Body& body) {
  switch (op) {
#define EMBER_DISPATCH(Enum, name, dtypes, kind, functor, ...)                     \
  case BinaryOp::Enum:                                                             \
    if constexpr (BinaryKind::kind == BinaryKind::Comparison) return body functor; \
    break;
    EMBER_BINARY_OPS(EMBER_DISPATCH)
#undef EMBER_DISPATCH
  }
  raise<ValueError>(op_name(op), " is not a comparison");
}

}  // namespace ember
