#pragma once
// The enumerations and parameter blocks that op front-ends hand to backends.
#include <cstdint>

namespace ember {

/// Elementwise unary ops; p0/p1 of UnaryParams are their scalar arguments.
enum class UnaryOp : uint8_t {
  Neg, Exp, Log, Sqrt, Abs, Relu, Sigmoid, Tanh, Sign, Square,
  Clamp,       // min(max(x, p0), p1)
  PowScalar,   // x ^ p0
  RPowScalar,  // p0 ^ x
  LogicalNot,  // !x (bool output)
};

/// Elementwise binary ops on two tensors of one dtype (or a tensor and a scalar).
enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, Pow, Maximum, Minimum,
  Eq, Ne, Lt, Le, Gt, Ge,  // bool output
  // Gradients written as binary functors (grad, saved): one kernel serves both devices.
  ReluBackward,     // x > 0 ? g : 0
  SigmoidBackward,  // g * y * (1 - y), y the saved output
  TanhBackward,     // g * (1 - y^2), y the saved output
};

constexpr bool is_comparison(BinaryOp op) { return op >= BinaryOp::Eq && op <= BinaryOp::Ge; }

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
