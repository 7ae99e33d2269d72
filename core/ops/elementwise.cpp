// Elementwise front-ends: check devices, then dtypes, then shapes; allocate; call the
// backend; record the gradient.
#include "ember/core/ops/elementwise.h"

#include <cmath>
#include <type_traits>
#include <utility>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/autograd/view_history.h"
#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/transfer.h"
#include "ember/core/ops/views.h"
#include "ember/core/tensor_impl_access.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"
#include "ember/extend/elementwise_ops.h"

namespace ember {
namespace {

void check_binary_dtype(BinaryOp op, const char* name, DType dtype) {
  if (is_comparison(op)) return;
  if (dtype == kBool || (is_floating_only(op) && !is_floating(dtype)))
    raise<DTypeError>(name, " does not support dtype ", dtype_name(dtype),
                      is_floating_only(op) ? "; convert with to(kFloat32) first" : "");
}

// out = op(a, b) with no checks and no record: the backward formulas' building block.
Tensor raw_binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  Tensor out = detail::make_empty(shape, is_comparison(op) ? kBool : a.dtype(), a.device());
  if (out.numel())
    backend_for(a.device())
        .binary(op, out, detail::broadcast_to(a, shape, op_name(op)),
                detail::broadcast_to(b, shape, op_name(op)));
  return out;
}

// Weight of lhs in the gradient of maximum/minimum: 1 where it wins, 1/2 on ties.
Tensor winner_weight(const Tensor& a, const Tensor& b, bool is_max) {
  Tensor wins = (is_max ? gt(a, b) : lt(a, b)).to(a.dtype());
  return wins + eq(a, b).to(a.dtype()) * 0.5;
}

// A tensor of t's dtype and device holding s, for formulas that compare t with a scalar.
Tensor scalar_like(const Tensor& t, const Scalar& s) {
  return full({}, s, TensorOptions(t.dtype()).device(t.device()));
}

// 2 / sqrt(pi), erf's derivative at 0.
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;

// The dtype `t op s` computes in: the scalar rule (docs/DESIGN.md, "Scalars"), and floating
// for true division.
DType scalar_op_type(BinaryOp op, DType t, const Scalar& s) {
  const DType r = result_type(t, s.kind());
  return op == BinaryOp::Div && !is_floating(r) ? kFloat32 : r;
}

// t itself when it has dtype, else t converted (recorded, so a gradient flows back through
// the cast).
Tensor as_dtype(const Tensor& t, DType dtype) { return t.dtype() == dtype ? t : t.to(dtype); }

// PyTorch's refusal of an in-place op whose result would need a wider dtype than self's.
void check_inplace_result(const char* op, DType self, DType result) {
  if (result != self)
    raise<DTypeError>(op, ": result type ", dtype_name(result), " can't be cast to the desired output type ",
                      dtype_name(self));
}

// The gradients of the op table's rows (extend/elementwise_ops.h): each node's backward is a
// switch generated from the rows' gradient columns.
class ElementwiseNode : public Node {
 protected:
  using Node::Node;
  [[noreturn]] Tensor no_gradient() const { raise<AutogradError>(name(), " has no gradient"); }
};

enum Saves { SavesNothing, SavesInputs, SavesAll };

constexpr Saves saves(BinaryOp op) {
  switch (op) {
#define EMBER_SAVES(Enum, name, dtypes, kind, functor, saves, ...) \
  case BinaryOp::Enum:                                             \
    return saves;
    EMBER_BINARY_OPS(EMBER_SAVES)
#undef EMBER_SAVES
  }
  return SavesAll;
}

class BinaryNode final : public ElementwiseNode {
 public:
  explicit BinaryNode(BinaryOp op) : ElementwiseNode(op_name(op)), op_(op) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    const bool ga = needs_grad(0), gb = needs_grad(1);
    [[maybe_unused]] auto lhs = [this]() -> const Tensor& { return saved(0); };
    [[maybe_unused]] auto rhs = [this]() -> const Tensor& { return saved(1); };
    [[maybe_unused]] auto out = [this]() -> const Tensor& { return saved(2); };
    switch (op_) {
#define EMBER_GRADIENT(Enum, name, dtypes, kind, functor, saves, lhs_grad, rhs_grad, scalar_grad) \
  case BinaryOp::Enum:                                                                            \
    return {ga ? Tensor lhs_grad : Tensor(), gb ? Tensor rhs_grad : Tensor()};
      EMBER_BINARY_OPS(EMBER_GRADIENT)
#undef EMBER_GRADIENT
    }
    no_gradient();
  }

 private:
  BinaryOp op_;
};

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  const char* name = op_name(op);
  check_defined(name, {{"lhs", a}, {"rhs", b}});
  check_same_device(name, {{"lhs", a}, {"rhs", b}});
  check_same_dtype(name, {{"lhs", a}, {"rhs", b}});
  // True division of integers or bools (as torch.div): both operands in float32.
  if (op == BinaryOp::Div && !is_floating(a.dtype())) return binary(op, a.to(kFloat32), b.to(kFloat32));
  check_binary_dtype(op, name, a.dtype());
  Tensor out = raw_binary(op, a, b);
  if (!is_comparison(op) && autograd::any_requires_grad({&a, &b})) {
    auto node = autograd::make_node<BinaryNode>(op);
    if (saves(op) != SavesNothing) {
      node->save(a);
      node->save(b);
      if (saves(op) == SavesAll) node->save(out);
    }
    autograd::record(out, node, {&a, &b});
  }
  return out;
}

class ScalarNode final : public ElementwiseNode {
 public:
  ScalarNode(BinaryOp op, double s, bool scalar_first)
      : ElementwiseNode(op_name(op)), op_(op), s_(s), first_(scalar_first) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    [[maybe_unused]] const double s = s_;
    [[maybe_unused]] const bool scalar_first = first_;
    [[maybe_unused]] auto lhs = [this]() -> const Tensor& { return saved(0); };
    [[maybe_unused]] auto out = [this]() -> const Tensor& { return saved(1); };
    switch (op_) {
#define EMBER_GRADIENT(Enum, name, dtypes, kind, functor, saves, lhs_grad, rhs_grad, scalar_grad) \
  case BinaryOp::Enum:                                                                            \
    return {Tensor scalar_grad};
      EMBER_BINARY_OPS(EMBER_GRADIENT)
#undef EMBER_GRADIENT
    }
    no_gradient();
  }

 private:
  BinaryOp op_;
  double s_;
  bool first_;
};

bool keeps_bool(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Mul || op == BinaryOp::Maximum || op == BinaryOp::Minimum;
}

// t op s (or s op t when scalar_first): t is first converted to the dtype the scalar rule
// gives, and s, held in its own C++ type, reaches the kernel converted to that dtype only
// (an integer scalar stays an int64 all the way to an int64 kernel).
Tensor binary_scalar(BinaryOp op, const Tensor& t, const Scalar& s, bool scalar_first) {
  const char* name = op_name(op);
  check_defined(name, {{"input", t}});
  // As PyTorch: a bool operand of a subtraction is more likely a mask being inverted.
  if (op == BinaryOp::Sub && (t.dtype() == kBool || s.is_bool()))
    raise<DTypeError>(
        "sub: subtraction with a bool tensor or scalar is not supported; use logical_not to invert a "
        "mask");
  const DType dtype = scalar_op_type(op, t.dtype(), s);
  // bool with bool: or, and, max and min of 0 and 1, computed in int64 and read back as bool.
  if (dtype == kBool && keeps_bool(op)) return binary_scalar(op, t.to(kInt64), s, scalar_first).to(kBool);
  check_binary_dtype(op, name, dtype);
  const Tensor a = as_dtype(t, dtype);
  Tensor out = detail::make_empty(a.shape(), is_comparison(op) ? kBool : a.dtype(), a.device());
  if (out.numel()) backend_for(a.device()).binary_scalar(op, out, a, s, scalar_first);
  if (!is_comparison(op) && autograd::any_requires_grad({&a})) {
    // Recorded only for a floating result, where the scalar's double is exact enough.
    auto node = autograd::make_node<ScalarNode>(op, s.to_double(), scalar_first);
    node->save(a);
    node->save(out);
    autograd::record(out, node, {&a});
  }
  return out;
}

class UnaryNode final : public ElementwiseNode {
 public:
  UnaryNode(UnaryOp op, double p0, double p1) : ElementwiseNode(op_name(op)), op_(op), p0_(p0), p1_(p1) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    [[maybe_unused]] const double p0 = p0_, p1 = p1_;
    [[maybe_unused]] auto in = [this]() -> const Tensor& { return saved(0); };
    [[maybe_unused]] auto out = [this]() -> const Tensor& { return saved(1); };
    switch (op_) {
#define EMBER_GRADIENT(Enum, name, dtypes, api, functor, gradient) \
  case UnaryOp::Enum:                                              \
    return {Tensor gradient};
      EMBER_UNARY_OPS(EMBER_GRADIENT)
#undef EMBER_GRADIENT
    }
    no_gradient();
  }

 private:
  UnaryOp op_;
  double p0_, p1_;
};

Tensor unary(UnaryOp op, const Tensor& t, double p0 = 0, double p1 = 0) {
  const char* name = op_name(op);
  check_defined(name, {{"input", t}});
  if (!is_logical(op)) {
    if (t.dtype() == kBool || (is_floating_only(op) && !is_floating(t.dtype())))
      raise<DTypeError>(name, " does not support dtype ", dtype_name(t.dtype()));
  }
  Tensor out = detail::make_empty(t.shape(), is_logical(op) ? kBool : t.dtype(), t.device());
  if (out.numel()) backend_for(t.device()).unary(op, out, t, p0, p1);
  if (!is_logical(op) && autograd::any_requires_grad({&t})) {
    auto node = autograd::make_node<UnaryNode>(op, p0, p1);
    node->save(t);
    node->save(out);
    autograd::record(out, node, {&t});
  }
  return out;
}

// The result dtype of an in-place op that never promotes: self's.
struct KeepsDtype {
  DType operator()(DType self) const { return self; }
};

// In place: without autograd, compute straight into self's memory (elementwise ops read
// element i before writing it); with autograd, compute out of place from a snapshot and
// adopt the result's history. result_type gives the out-of-place result's dtype from self's;
// one that differs is a DTypeError (no silent narrowing back into self).
template <class Compute, class ResultType = KeepsDtype>
Tensor& inplace(Tensor& self, const char* op, const Tensor* other, const Compute& compute,
                const ResultType& result_type = {}) {
  check_defined(op, {{"self", self}});
  if (other) check_defined(op, {{"other", *other}});
  autograd::check_inplace(self, op);
  if (other) {
    check_same_device(op, {{"self", self}, {"other", *other}});
    check_same_dtype(op, {{"self", self}, {"other", *other}});
    if (broadcast_shapes(self.shape(), other->shape()) != self.shape())
      raise<ShapeError>(op, ": other of shape ", shape_str(other->shape()),
                        " cannot be broadcast to self's shape ", shape_str(self.shape()));
  }
  check_inplace_result(op, self.dtype(), result_type(self.dtype()));
  const bool record = autograd::any_requires_grad({&self, other});
  Tensor result;
  if (record) {
    // Snapshot self (and other, when it is self's storage) so saved tensors stay intact.
    Tensor before = clone(self);
    const bool aliased =
        other && detail::TensorImplAccess::storage(*other) == detail::TensorImplAccess::storage(self);
    result = compute(before, aliased ? clone(*other) : (other ? *other : Tensor()));
  } else {
    NoGradGuard no_grad;
    result = compute(self, other ? *other : Tensor());
  }
  {
    NoGradGuard no_grad;
    detail::copy_values(self, result);
  }
  mark_modified(self);
  if (record) autograd::rebase_history(self, op, result.grad_fn());
  return self;
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Add, a, b); }
Tensor floor_divide(const Tensor& a, const Tensor& b) { return binary(BinaryOp::FloorDivide, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Sub, a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Div, a, b); }
Tensor pow(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Pow, a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Maximum, a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Minimum, a, b); }

Tensor add(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Add, t, s, false); }
Tensor sub(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Sub, t, s, false); }
Tensor rsub(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Sub, t, s, true); }
Tensor mul(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Mul, t, s, false); }
Tensor div(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Div, t, s, false); }
Tensor rdiv(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Div, t, s, true); }
Tensor floor_divide(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::FloorDivide, t, s, false); }
Tensor pow(const Tensor& t, Scalar e) {
  check_defined("pow", {{"input", t}});
  const DType dtype = result_type(t.dtype(), e.kind());
  if (!is_floating(dtype) && dtype != kBool && e.to_int64() < 0)
    raise<ValueError>("pow: integers to negative integer powers are not allowed, got exponent ", e);
  // The exponent reaches the functor as a double: exact for every exponent an integer power
  // can use without overflowing.
  return unary(UnaryOp::PowScalar, as_dtype(t, dtype), e.to_double());
}
Tensor pow(Scalar base, const Tensor& e) {
  if (!(base.to_double() > 0)) raise<ValueError>("pow: a scalar base must be positive, got ", base);
  check_defined("pow", {{"input", e}});
  return unary(UnaryOp::RPowScalar, as_dtype(e, result_type(e.dtype(), base.kind())), base.to_double());
}
Tensor maximum(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Maximum, t, s, false); }
Tensor minimum(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Minimum, t, s, false); }

// The rows whose api column is Plain: ember::name(t), declared in the user set's generated
// core/ops/plain_unary_ops.h (cmake/EmberPlainOps.cmake); the cast checks that the generated
// declaration has this signature.
#define EMBER_PLAIN_Plain(Enum, name)                                                            \
  static_assert(std::is_same_v<decltype(static_cast<Tensor (*)(const Tensor&)>(&::ember::name)), \
                               Tensor (*)(const Tensor&)>);                                      \
  Tensor name(const Tensor& t) { return unary(UnaryOp::Enum, t); }
#define EMBER_PLAIN_Custom(Enum, name)
#define EMBER_PLAIN(Enum, name, dtypes, api, ...) EMBER_PLAIN_##api(Enum, name)
EMBER_UNARY_OPS(EMBER_PLAIN)
#undef EMBER_PLAIN
#undef EMBER_PLAIN_Plain
#undef EMBER_PLAIN_Custom
namespace {
// lo > hi, compared exactly when both are integers.
bool greater(const Scalar& lo, const Scalar& hi) {
  if (!lo.is_floating_point() && !hi.is_floating_point()) return lo.to_int64() > hi.to_int64();
  return lo.to_double() > hi.to_double();
}
// The dtype clamp computes in: the tensor's, promoted by either bound.
DType clamp_type(DType t, const Scalar& lo, const Scalar& hi) {
  return result_type(result_type(t, lo.kind()), hi.kind());
}
}  // namespace

Tensor clamp(const Tensor& t, Scalar lo, Scalar hi) {
  if (greater(lo, hi)) raise<ValueError>("clamp: min ", lo, " is greater than max ", hi);
  check_defined("clamp", {{"input", t}});
  const DType dtype = clamp_type(t.dtype(), lo, hi);
  const Tensor x = as_dtype(t, dtype);
  // Integers need no gradient: clamp them exactly with the scalar kernels, whose bounds stay
  // int64 (the unary functor gets its bounds as doubles). Bool is left to unary's DTypeError.
  if (!is_floating(dtype) && dtype != kBool) return minimum(maximum(x, lo), hi);
  // A NaN bound gives NaN (the functor).
  return unary(UnaryOp::Clamp, x, lo.to_double(), hi.to_double());
}

Tensor gelu(const Tensor& t, const std::string& approximate) {
  check_defined("gelu", {{"input", t}});
  if (approximate != "none" && approximate != "tanh")
    raise<ValueError>("gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
  return unary(approximate == "none" ? UnaryOp::Gelu : UnaryOp::GeluTanh, t);
}

Tensor eq(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Eq, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Ne, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Lt, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Le, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Gt, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Ge, a, b); }
Tensor eq(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Eq, t, s, false); }
Tensor ne(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Ne, t, s, false); }
Tensor lt(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Lt, t, s, false); }
Tensor le(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Le, t, s, false); }
Tensor gt(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Gt, t, s, false); }
Tensor ge(const Tensor& t, Scalar s) { return binary_scalar(BinaryOp::Ge, t, s, false); }
Tensor logical_not(const Tensor& t) { return unary(UnaryOp::LogicalNot, t); }

class WhereNode final : public Node {
 public:
  WhereNode() : Node("where") {}
  std::vector<Tensor> backward(const Tensor& g) override {
    const Tensor& c = saved(0);
    Tensor zero = zeros({}, TensorOptions(g.dtype()).device(g.device()));
    return {Tensor(), needs_grad(1) ? where(c, g, zero) : Tensor(),
            needs_grad(2) ? where(c, zero, g) : Tensor()};
  }
};

Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) {
  check_defined("where", {{"condition", c}, {"input", a}, {"other", b}});
  check_same_device("where", {{"condition", c}, {"input", a}, {"other", b}});
  check_dtype("where", {"condition", c}, kBool);
  check_same_dtype("where", {{"input", a}, {"other", b}});
  const Shape shape = broadcast_shapes(broadcast_shapes(c.shape(), a.shape()), b.shape());
  Tensor out = detail::make_empty(shape, a.dtype(), a.device());
  if (out.numel())
    backend_for(a.device())
        .where(out, detail::broadcast_to(c, shape, "where"), detail::broadcast_to(a, shape, "where"),
               detail::broadcast_to(b, shape, "where"));
  if (autograd::any_requires_grad({&a, &b})) {
    auto node = autograd::make_node<WhereNode>();
    node->save(c);
    autograd::record(out, node, {&c, &a, &b});
  }
  return out;
}

namespace {

// masked_fill's checks, devices first: mask must be bool and broadcast to the filled tensor's
// shape, which never changes.
void check_masked_fill(const char* op, const char* self_name, const Tensor& t, const Tensor& mask) {
  check_defined(op, {{self_name, t}, {"mask", mask}});
  check_same_device(op, {{self_name, t}, {"mask", mask}});
  check_dtype(op, {"mask", mask}, kBool);
  const Shape& m = mask.shape();
  const Shape& s = t.shape();
  bool fits = m.size() <= s.size();
  for (size_t i = 1; fits && i <= m.size(); ++i)
    fits = m[m.size() - i] == 1 || m[m.size() - i] == s[s.size() - i];
  if (!fits)
    raise<ShapeError>(op, ": mask of shape ", shape_str(m), " cannot be broadcast to ", self_name,
                      "'s shape ", shape_str(s));
}

// The filled positions do not depend on the input: their gradient is zero.
class MaskedFillNode final : public Node {
 public:
  MaskedFillNode() : Node("masked_fill") {}
  std::vector<Tensor> backward(const Tensor& g) override {
    Tensor zero = zeros({}, TensorOptions(g.dtype()).device(g.device()));
    return {where(saved(0), zero, g), Tensor()};
  }
};

// mask ? value : t through the backend's where, value converted to t's dtype as fill does.
Tensor fill_masked(const Tensor& t, const Tensor& mask, Scalar value) {
  Tensor out = detail::make_empty(t.shape(), t.dtype(), t.device());
  if (out.numel()) {
    const Tensor fill = full({}, value, TensorOptions(t.dtype()).device(t.device()));
    backend_for(t.device())
        .where(out, detail::broadcast_to(mask, t.shape(), "masked_fill"),
               detail::broadcast_to(fill, t.shape(), "masked_fill"), t);
  }
  if (autograd::any_requires_grad({&t})) {
    auto node = autograd::make_node<MaskedFillNode>();
    node->save(mask);
    autograd::record(out, node, {&t, &mask});
  }
  return out;
}

}  // namespace

Tensor masked_fill(const Tensor& input, const Tensor& mask, Scalar value) {
  check_masked_fill("masked_fill", "input", input, mask);
  check_value_fits("masked_fill", "value", value, input.dtype());
  return fill_masked(input, mask, value);
}

Tensor& masked_fill_(Tensor& self, const Tensor& mask, Scalar value) {
  check_masked_fill("masked_fill_", "self", self, mask);
  check_value_fits("masked_fill_", "value", value, self.dtype());
  return inplace(self, "masked_fill_", nullptr,
                 [&](const Tensor& s, const Tensor&) { return fill_masked(s, mask, value); });
}

// A scalar for one side of where: a 0-dim tensor of the dtype the scalar rule gives with the
// tensor side, which is converted to it (recorded, so its gradient flows back).
Tensor where(const Tensor& c, const Tensor& a, Scalar s) {
  check_defined("where", {{"condition", c}, {"input", a}});
  check_same_device("where", {{"condition", c}, {"input", a}});
  const DType dtype = result_type(a.dtype(), s.kind());
  return where(c, as_dtype(a, dtype), full({}, s, TensorOptions(dtype).device(a.device())));
}
Tensor where(const Tensor& c, Scalar s, const Tensor& b) {
  check_defined("where", {{"condition", c}, {"other", b}});
  check_same_device("where", {{"condition", c}, {"other", b}});
  const DType dtype = result_type(b.dtype(), s.kind());
  return where(c, full({}, s, TensorOptions(dtype).device(b.device())), as_dtype(b, dtype));
}

Tensor& add_(Tensor& self, const Tensor& other, Scalar alpha) {
  // As PyTorch: a floating alpha cannot scale an integer addition.
  if (self.defined() && alpha.is_floating_point() && !is_floating(self.dtype()))
    raise<DTypeError>("add_: a floating alpha (", alpha, ") needs a floating tensor, got ",
                      dtype_name(self.dtype()));
  const bool unit = !alpha.is_floating_point() ? alpha.to_int64() == 1 : alpha.to_double() == 1.0;
  return inplace(self, "add_", &other,
                 [&](const Tensor& s, const Tensor& o) { return unit ? add(s, o) : add(s, mul(o, alpha)); });
}
Tensor& sub_(Tensor& self, const Tensor& other) {
  return inplace(self, "sub_", &other, [&](const Tensor& s, const Tensor& o) { return sub(s, o); });
}
Tensor& mul_(Tensor& self, const Tensor& other) {
  return inplace(self, "mul_", &other, [&](const Tensor& s, const Tensor& o) { return mul(s, o); });
}
Tensor& div_(Tensor& self, const Tensor& other) {
  return inplace(
      self, "div_", &other, [&](const Tensor& s, const Tensor& o) { return div(s, o); },
      [](DType d) { return is_floating(d) ? d : kFloat32; });
}
Tensor& add_(Tensor& self, Scalar v) {
  return inplace(
      self, "add_", nullptr, [&](const Tensor& s, const Tensor&) { return add(s, v); },
      [&](DType d) { return scalar_op_type(BinaryOp::Add, d, v); });
}
Tensor& sub_(Tensor& self, Scalar v) {
  return inplace(
      self, "sub_", nullptr, [&](const Tensor& s, const Tensor&) { return sub(s, v); },
      [&](DType d) { return scalar_op_type(BinaryOp::Sub, d, v); });
}
Tensor& mul_(Tensor& self, Scalar v) {
  return inplace(
      self, "mul_", nullptr, [&](const Tensor& s, const Tensor&) { return mul(s, v); },
      [&](DType d) { return scalar_op_type(BinaryOp::Mul, d, v); });
}
Tensor& div_(Tensor& self, Scalar v) {
  return inplace(
      self, "div_", nullptr, [&](const Tensor& s, const Tensor&) { return div(s, v); },
      [&](DType d) { return scalar_op_type(BinaryOp::Div, d, v); });
}
Tensor& clamp_(Tensor& self, Scalar lo, Scalar hi) {
  return inplace(
      self, "clamp_", nullptr, [&](const Tensor& s, const Tensor&) { return clamp(s, lo, hi); },
      [&](DType d) { return clamp_type(d, lo, hi); });
}

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, Scalar s) { return add(a, s); }
Tensor operator-(const Tensor& a, Scalar s) { return sub(a, s); }
Tensor operator*(const Tensor& a, Scalar s) { return mul(a, s); }
Tensor operator/(const Tensor& a, Scalar s) { return div(a, s); }
Tensor operator+(Scalar s, const Tensor& a) { return add(a, s); }
Tensor operator-(Scalar s, const Tensor& a) { return rsub(a, s); }
Tensor operator*(Scalar s, const Tensor& a) { return mul(a, s); }
Tensor operator/(Scalar s, const Tensor& a) { return rdiv(a, s); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, Scalar s) { return eq(a, s); }
Tensor operator!=(const Tensor& a, Scalar s) { return ne(a, s); }
Tensor operator<(const Tensor& a, Scalar s) { return lt(a, s); }
Tensor operator<=(const Tensor& a, Scalar s) { return le(a, s); }
Tensor operator>(const Tensor& a, Scalar s) { return gt(a, s); }
Tensor operator>=(const Tensor& a, Scalar s) { return ge(a, s); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return add_(a, b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return sub_(a, b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return mul_(a, b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return div_(a, b); }
Tensor& operator+=(Tensor& a, Scalar s) { return add_(a, s); }
Tensor& operator-=(Tensor& a, Scalar s) { return sub_(a, s); }
Tensor& operator*=(Tensor& a, Scalar s) { return mul_(a, s); }
Tensor& operator/=(Tensor& a, Scalar s) { return div_(a, s); }

}  // namespace ember
