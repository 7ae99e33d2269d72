#pragma once
// The elementwise op table: one row per op says everything about it (candle's op.rs rows are
// the model). From the rows come the op enums with their names and dtype rules
// (extend/op_kinds.h), the functor dispatch that both backends share
// (kernels/elementwise_dispatch.h), the gradients and the plain public functions
// (core/ops/elementwise.cpp; the user set, which cannot include this table, gets their
// declarations in core/ops/plain_unary_ops.h, which configure generates from the Plain rows:
// cmake/EmberPlainOps.cmake). A row that names a functor or gradient not written does not
// compile (tests/compile/op_tables.cpp). docs/ARCHITECTURE.md, "How to add an elementwise op".
//
// The functor and gradient columns are expressions in parentheses, expanded where they are
// used: the functor (kernels/functors.h) may use the element type T and the op's scalars p0,
// p1; a gradient may use g (the output's gradient), in() and out() (the saved input and
// output, read only when used), p0 and p1, and the helpers of core/ops/elementwise.cpp.

// X(Enum, name, dtypes, api, functor, gradient)
//   dtypes: Any (every dtype but bool), Floating (float32 and float64: DTypeError otherwise),
//           Logical (bool in, bool out, no gradient: the backends' own loop)
//   api:    Plain (ember::name(const Tensor&) is generated), Custom (written by hand)
#define EMBER_UNARY_OPS(X)                                                                                  \
  X(Neg, neg, Any, Plain, (fn::Neg{}), (-g))                                                                \
  X(Exp, exp, Floating, Plain, (fn::Exp{}), (g * out()))                                                    \
  X(Log, log, Floating, Plain, (fn::Log{}), (g / in()))                                                     \
  X(Log1p, log1p, Floating, Plain, (fn::Log1p{}), (g / (in() + 1.0)))                                       \
  X(Sqrt, sqrt, Floating, Plain, (fn::Sqrt{}), (g * 0.5 / out()))                                           \
  X(Abs, abs, Any, Plain, (fn::Abs{}), (g * sign(in())))                                                    \
  X(Relu, relu, Any, Plain, (fn::Relu{}), (raw_binary(BinaryOp::ReluBackward, g, in())))                    \
  X(Sigmoid, sigmoid, Floating, Plain, (fn::Sigmoid{}), (raw_binary(BinaryOp::SigmoidBackward, g, out())))  \
  X(Tanh, tanh, Floating, Plain, (fn::Tanh{}), (raw_binary(BinaryOp::TanhBackward, g, out())))              \
  X(Sign, sign, Any, Plain, (fn::Sign{}), (zeros_like(g)))                                                  \
  X(Square, square, Any, Plain, (fn::Square{}), (g * in() * 2.0))                                           \
  /* min(max(x, p0), p1) */                                                                                 \
  X(Clamp, clamp, Any, Custom, (fn::Clamp<T>{static_cast<T>(p0), static_cast<T>(p1)}),                      \
    (g * ge(in(), p0).to(g.dtype()) * le(in(), p1).to(g.dtype())))                                          \
  /* x ^ p0 */                                                                                              \
  X(PowScalar, pow, Any, Custom, (fn::PowScalar<T>{static_cast<T>(p0)}),                                    \
    (p0 == 0 ? zeros_like(g) : g * pow(in(), p0 - 1.0) * p0))                                               \
  /* p0 ^ x */                                                                                              \
  X(RPowScalar, pow, Floating, Custom, (fn::RPowScalar<T>{static_cast<T>(p0)}), (g * out() * std::log(p0))) \
  X(LogicalNot, logical_not, Logical, Custom, (fn::LogicalNot{}), (no_gradient()))                          \
  /* d erf(x) = 2 / sqrt(pi) * exp(-x^2) */                                                                 \
  X(Erf, erf, Floating, Plain, (fn::Erf{}), (g * exp(-square(in())) * kTwoOverSqrtPi))                      \
  /* d x^(-1/2) = -1/2 * x^(-3/2) = -1/2 * out^3 */                                                         \
  X(Rsqrt, rsqrt, Floating, Plain, (fn::Rsqrt{}), (g * pow(out(), 3.0) * -0.5))                             \
  /* gelu(x, approximate="none") and gelu(x, approximate="tanh"), both ember::gelu */                       \
  X(Gelu, gelu, Floating, Custom, (fn::Gelu{}), (raw_binary(BinaryOp::GeluBackward, g, in())))              \
  X(GeluTanh, gelu, Floating, Custom, (fn::GeluTanh{}), (raw_binary(BinaryOp::GeluTanhBackward, g, in())))  \
  EMBER_EXTRA_UNARY_OP_ROW(X)

// X(Enum, name, dtypes, kind, functor, saves, lhs gradient, rhs gradient, gradient with a scalar)
//   kind:  Arith (tensor with tensor or scalar; recorded), Comparison (bool output, never
//          recorded), Gradient (a backward written as a functor (g, saved); never recorded)
//   saves: what the tensor-with-tensor node keeps for its gradient: SavesNothing,
//          SavesInputs (lhs(), rhs()) or SavesAll (and out()). With a scalar s (scalar_first:
//          s op t) the node keeps the tensor operand as lhs() and the output as out().
#define EMBER_BINARY_OPS(X)                                                                               \
  X(Add, add, Any, Arith, (fn::Add{}), SavesNothing, (g), (g), (g))                                       \
  X(Sub, sub, Any, Arith, (fn::Sub{}), SavesNothing, (g), (-g), (scalar_first ? -g : g))                  \
  X(Mul, mul, Any, Arith, (fn::Mul{}), SavesInputs, (g * rhs()), (g * lhs()), (g * s))                    \
  X(Div, div, Floating, Arith, (fn::Div{}), SavesInputs, (g / rhs()), (-(g * lhs()) / (rhs() * rhs())),   \
    (scalar_first ? g * -s / (lhs() * lhs()) : g / s))                                                    \
  /* Python's //, rounding toward minus infinity; a step function, so its gradient is zero */             \
  X(FloorDivide, floor_divide, Any, Arith, (fn::FloorDivide{}), SavesNothing, (zeros_like(g)),            \
    (zeros_like(g)), (zeros_like(g)))                                                                     \
  /* tensor ^ scalar and scalar ^ tensor are UnaryOp::PowScalar and RPowScalar */                         \
  X(Pow, pow, Floating, Arith, (fn::Pow{}), SavesAll, (g * rhs() * pow(lhs(), rhs() - 1.0)),              \
    (g * out() * log(lhs())), (no_gradient()))                                                            \
  X(Maximum, maximum, Any, Arith, (fn::Maximum{}), SavesInputs, (g * winner_weight(lhs(), rhs(), true)),  \
    (g * (1.0 - winner_weight(lhs(), rhs(), true))),                                                      \
    (g * winner_weight(lhs(), scalar_like(lhs(), s), true)))                                              \
  X(Minimum, minimum, Any, Arith, (fn::Minimum{}), SavesInputs, (g * winner_weight(lhs(), rhs(), false)), \
    (g * (1.0 - winner_weight(lhs(), rhs(), false))),                                                     \
    (g * winner_weight(lhs(), scalar_like(lhs(), s), false)))                                             \
  X(Eq, eq, Any, Comparison, (fn::Eq{}), SavesNothing, (no_gradient()), (no_gradient()), (no_gradient())) \
  X(Ne, ne, Any, Comparison, (fn::Ne{}), SavesNothing, (no_gradient()), (no_gradient()), (no_gradient())) \
  X(Lt, lt, Any, Comparison, (fn::Lt{}), SavesNothing, (no_gradient()), (no_gradient()), (no_gradient())) \
  X(Le, le, Any, Comparison, (fn::Le{}), SavesNothing, (no_gradient()), (no_gradient()), (no_gradient())) \
  X(Gt, gt, Any, Comparison, (fn::Gt{}), SavesNothing, (no_gradient()), (no_gradient()), (no_gradient())) \
  X(Ge, ge, Any, Comparison, (fn::Ge{}), SavesNothing, (no_gradient()), (no_gradient()), (no_gradient())) \
  /* x > 0 ? g : 0 */                                                                                     \
  X(ReluBackward, relu_backward, Any, Gradient, (fn::ReluBackward{}), SavesNothing, (no_gradient()),      \
    (no_gradient()), (no_gradient()))                                                                     \
  /* g * y * (1 - y), y the saved output */                                                               \
  X(SigmoidBackward, sigmoid_backward, Floating, Gradient, (fn::SigmoidBackward{}), SavesNothing,         \
    (no_gradient()), (no_gradient()), (no_gradient()))                                                    \
  /* g * (1 - y^2), y the saved output */                                                                 \
  X(TanhBackward, tanh_backward, Floating, Gradient, (fn::TanhBackward{}), SavesNothing, (no_gradient()), \
    (no_gradient()), (no_gradient()))                                                                     \
  /* g * d gelu(x) / dx, x the saved input (exact and tanh forms) */                                      \
  X(GeluBackward, gelu_backward, Floating, Gradient, (fn::GeluBackward{}), SavesNothing, (no_gradient()), \
    (no_gradient()), (no_gradient()))                                                                     \
  X(GeluTanhBackward, gelu_backward, Floating, Gradient, (fn::GeluTanhBackward{}), SavesNothing,          \
    (no_gradient()), (no_gradient()), (no_gradient()))

// tests/CMakeLists.txt (op_tables.*): a row whose functor and gradient were never written
// must not compile.
#ifdef EMBER_EXTRA_UNARY_OP_FOR_TEST
#define EMBER_EXTRA_UNARY_OP_ROW(X) \
  X(ExtraOpForTest, extra_op_for_test, Any, Plain, (fn::ExtraOpForTest{}), (extra_op_for_test_gradient(g)))
#else
#define EMBER_EXTRA_UNARY_OP_ROW(X)
#endif
