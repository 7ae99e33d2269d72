#pragma once
// The enumerations and parameter blocks that op front-ends hand to backends.
#include <cstdint>

#include "ember/extend/elementwise_ops.h"

namespace ember {

/// How an elementwise op treats dtypes (extend/elementwise_ops.h).
enum class OpDtypes : uint8_t {
  Any,       // every dtype but bool
  Floating,  // float32 and float64 only
  Logical,   // bool in, bool out
};
/// What a binary op is for.
enum class BinaryKind : uint8_t {
  Arith,       // tensor with tensor or scalar, differentiable
  Comparison,  // bool output
  Gradient,    // a backward formula written as a functor
};

// Each table below is generated from the rows (a macro taking a row's leading columns and
// ignoring the rest), so each lists every op.
#define EMBER_ENUMERATOR(Enum, ...) Enum,
/// Elementwise unary ops (rows of EMBER_UNARY_OPS); p0/p1 are their scalar arguments.
enum class UnaryOp : uint8_t { EMBER_UNARY_OPS(EMBER_ENUMERATOR) };
/// Elementwise binary ops on two tensors of one dtype, or a tensor and a scalar (rows of
/// EMBER_BINARY_OPS).
enum class BinaryOp : uint8_t { EMBER_BINARY_OPS(EMBER_ENUMERATOR) };
#undef EMBER_ENUMERATOR

// One case of a table generated from the rows.
#define EMBER_OP_CASE(Type, Enum, value) \
  case Type::Enum:                       \
    return value;

/// The op's name, as in error messages and autograd nodes ("exp", "pow").
constexpr const char* op_name(UnaryOp op) {
#define EMBER_NAME(Enum, name, ...) EMBER_OP_CASE(UnaryOp, Enum, #name)
  switch (op) { EMBER_UNARY_OPS(EMBER_NAME) }
#undef EMBER_NAME
  return "unary";  // unreachable for a valid enumerator
}
constexpr const char* op_name(BinaryOp op) {
#define EMBER_NAME(Enum, name, ...) EMBER_OP_CASE(BinaryOp, Enum, #name)
  switch (op) { EMBER_BINARY_OPS(EMBER_NAME) }
#undef EMBER_NAME
  return "binary";
}

/// How the op treats dtypes.
constexpr OpDtypes op_dtypes(UnaryOp op) {
#define EMBER_DTYPES(Enum, name, dtypes, ...) EMBER_OP_CASE(UnaryOp, Enum, OpDtypes::dtypes)
  switch (op) { EMBER_UNARY_OPS(EMBER_DTYPES) }
#undef EMBER_DTYPES
  return OpDtypes::Any;
}
constexpr OpDtypes op_dtypes(BinaryOp op) {
#define EMBER_DTYPES(Enum, name, dtypes, ...) EMBER_OP_CASE(BinaryOp, Enum, OpDtypes::dtypes)
  switch (op) { EMBER_BINARY_OPS(EMBER_DTYPES) }
#undef EMBER_DTYPES
  return OpDtypes::Any;
}

constexpr BinaryKind binary_kind(BinaryOp op) {
#define EMBER_KIND(Enum, name, dtypes, kind, ...) EMBER_OP_CASE(BinaryOp, Enum, BinaryKind::kind)
  switch (op) { EMBER_BINARY_OPS(EMBER_KIND) }
#undef EMBER_KIND
  return BinaryKind::Arith;
}
#undef EMBER_OP_CASE

/// True for ops defined on floating dtypes only (DTypeError for integers).
constexpr bool is_floating_only(UnaryOp op) { return op_dtypes(op) == OpDtypes::Floating; }
constexpr bool is_floating_only(BinaryOp op) { return op_dtypes(op) == OpDtypes::Floating; }
/// True for bool-in, bool-out ops.
constexpr bool is_logical(UnaryOp op) { return op_dtypes(op) == OpDtypes::Logical; }
/// True for comparisons (bool output).
constexpr bool is_comparison(BinaryOp op) { return binary_kind(op) == BinaryKind::Comparison; }

enum class ReduceOp : uint8_t { Sum, Mean, Max, Min };

enum class RandomKind : uint8_t {
  Uniform,  // [a, b)
  Normal,   // mean a, std b
  Integer,  // [a, b)
  // b where a uniform draw is below a (a rounded to the output dtype first), else 0: a
  // dropout mask, scaled, in one pass
  Bernoulli,
};

// What a class loss (cross_entropy, nll_loss) makes of its targets, as PyTorch's arguments.
struct ClassLossParams {
  bool input_is_log_prob = false;  // nll_loss: the input holds log-probabilities already
  int64_t ignore_index = -100;     // targets equal to it give 0 loss and 0 gradient
  double label_smoothing = 0;      // cross_entropy only, in [0, 1]
};

struct Conv2dParams {
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  int64_t dilation_h = 1, dilation_w = 1;
};

struct Pool2dParams {
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
};

struct SgdParams {
  double lr = 0.01, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false;
  bool first_step = false;  // momentum buffers start as the gradient (as in PyTorch)
};

struct AdamParams {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  bool decoupled_weight_decay = false;  // AdamW
  int64_t step = 1;                     // the step count after this update, for bias correction
};

}  // namespace ember
