#pragma once
// The enumerations and parameter blocks that op front-ends hand to backends.
#include <cstdint>

namespace ember {

/// Elementwise unary ops; p0/p1 of UnaryParams are their scalar arguments.
enum class UnaryOp : uint8_t {
  Neg,
  Exp,
  Log,
  Sqrt,
  Abs,
  Relu,
  Sigmoid,
  Tanh,
  Sign,
  Square,
  Clamp,       // min(max(x, p0), p1)
  PowScalar,   // x ^ p0
  RPowScalar,  // p0 ^ x
  LogicalNot,  // !x (bool output)
#ifdef EMBER_EXTRA_UNARY_OP_FOR_TEST
  ExtraOpForTest,  // tests/CMakeLists.txt: an op that no table handles must not compile
#endif
};

/// Elementwise binary ops on two tensors of one dtype (or a tensor and a scalar).
enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Maximum,
  Minimum,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,  // bool output
  // Gradients written as binary functors (grad, saved): one kernel serves both devices.
  ReluBackward,     // x > 0 ? g : 0
  SigmoidBackward,  // g * y * (1 - y), y the saved output
  TanhBackward,     // g * (1 - y^2), y the saved output
};

constexpr bool is_comparison(BinaryOp op) { return op >= BinaryOp::Eq && op <= BinaryOp::Ge; }

// Every switch over an op enum lists every op and has no default (Ember builds with
// -Werror=switch): adding an op fails to compile until each table (names, dtype rules,
// functors, gradients) says what it does with it.

/// The op's name, as in error messages and autograd nodes ("exp", "pow").
constexpr const char* op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
      return "neg";
    case UnaryOp::Exp:
      return "exp";
    case UnaryOp::Log:
      return "log";
    case UnaryOp::Sqrt:
      return "sqrt";
    case UnaryOp::Abs:
      return "abs";
    case UnaryOp::Relu:
      return "relu";
    case UnaryOp::Sigmoid:
      return "sigmoid";
    case UnaryOp::Tanh:
      return "tanh";
    case UnaryOp::Sign:
      return "sign";
    case UnaryOp::Square:
      return "square";
    case UnaryOp::Clamp:
      return "clamp";
    case UnaryOp::PowScalar:
      return "pow";
    case UnaryOp::RPowScalar:
      return "pow";
    case UnaryOp::LogicalNot:
      return "logical_not";
  }
  return "unary";  // unreachable for a valid enumerator
}

constexpr const char* op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "add";
    case BinaryOp::Sub:
      return "sub";
    case BinaryOp::Mul:
      return "mul";
    case BinaryOp::Div:
      return "div";
    case BinaryOp::Pow:
      return "pow";
    case BinaryOp::Maximum:
      return "maximum";
    case BinaryOp::Minimum:
      return "minimum";
    case BinaryOp::Eq:
      return "eq";
    case BinaryOp::Ne:
      return "ne";
    case BinaryOp::Lt:
      return "lt";
    case BinaryOp::Le:
      return "le";
    case BinaryOp::Gt:
      return "gt";
    case BinaryOp::Ge:
      return "ge";
    case BinaryOp::ReluBackward:
      return "relu_backward";
    case BinaryOp::SigmoidBackward:
      return "sigmoid_backward";
    case BinaryOp::TanhBackward:
      return "tanh_backward";
  }
  return "binary";
}

/// True for ops defined on floating dtypes only (DTypeError for integers).
constexpr bool is_floating_only(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp:
    case UnaryOp::Log:
    case UnaryOp::Sqrt:
    case UnaryOp::Sigmoid:
    case UnaryOp::Tanh:
    case UnaryOp::RPowScalar:
      return true;
    case UnaryOp::Neg:
    case UnaryOp::Abs:
    case UnaryOp::Relu:
    case UnaryOp::Sign:
    case UnaryOp::Square:
    case UnaryOp::Clamp:
    case UnaryOp::PowScalar:
    case UnaryOp::LogicalNot:
      return false;
  }
  return false;
}

constexpr bool is_floating_only(BinaryOp op) {
  switch (op) {
    case BinaryOp::Div:
    case BinaryOp::Pow:
    case BinaryOp::SigmoidBackward:
    case BinaryOp::TanhBackward:
      return true;
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::Maximum:
    case BinaryOp::Minimum:
    case BinaryOp::Eq:
    case BinaryOp::Ne:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
    case BinaryOp::ReluBackward:
      return false;
  }
  return false;
}

enum class ReduceOp : uint8_t { Sum, Mean, Max, Min };

enum class RandomKind : uint8_t {
  Uniform,  // [a, b)
  Normal,   // mean a, std b
  Integer,  // [a, b)
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
