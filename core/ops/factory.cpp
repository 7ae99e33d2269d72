// Factories: allocate on the requested device, then let its backend fill the values.
#include "ember/core/ops/factory.h"

#include <cmath>

#include "ember/core/autograd/view_history.h"
#include "ember/core/checked_math.h"
#include "ember/core/dtype_dispatch.h"
#include "ember/core/error.h"
#include "ember/core/generator.h"
#include "ember/core/ops/transfer.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

namespace ember {
namespace {
Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}
Tensor filled(const Shape& shape, const Scalar& value, const TensorOptions& o, const char* op) {
  check_value_fits(op, "value", value, o.dtype());
  Tensor t = detail::make_empty(shape, o.dtype(), o.device(), op);
  backend_for(o.device()).fill(t, value);
  return finish(t, o);
}
Tensor& draw(Tensor& t, RandomKind kind, double a, double b) {
  if (!t.is_contiguous()) raise<ValueError>("random fill needs a contiguous tensor");
  auto [seed, offset] = default_generator().reserve(static_cast<uint64_t>(t.numel()));
  backend_for(t.device()).random(t, kind, a, b, seed, offset);
  mark_modified(t);
  return t;
}
Tensor random_tensor(const Shape& shape, RandomKind kind, double a, double b, const TensorOptions& o,
                     const char* op) {
  check_sizes(shape, op);
  if (kind != RandomKind::Integer && !is_floating(o.dtype()))
    raise<DTypeError>(op, " needs a floating dtype, got ", dtype_name(o.dtype()));
  Tensor t = detail::make_empty(shape, o.dtype(), o.device(), op);
  draw(t, kind, a, b);
  return finish(t, o);
}
TensorOptions like(const Tensor& t, const char* op) {
  check_defined(op, {{"input", t}});
  return TensorOptions(t.dtype()).device(t.device());
}
}  // namespace

Tensor empty(const Shape& shape, TensorOptions o) {
  return finish(detail::make_empty(shape, o.dtype(), o.device(), "empty"), o);
}
Tensor zeros(const Shape& shape, TensorOptions o) { return filled(shape, 0, o, "zeros"); }
Tensor ones(const Shape& shape, TensorOptions o) { return filled(shape, 1, o, "ones"); }
Tensor full(const Shape& shape, Scalar value, TensorOptions o) { return filled(shape, value, o, "full"); }

Tensor arange(double start, double end, double step, TensorOptions o) {
  if (step == 0 || !std::isfinite(step)) raise<ValueError>("arange: step must be finite and non-zero");
  if (!std::isfinite(start) || !std::isfinite(end)) raise<ValueError>("arange: bounds must be finite");
  const double count = std::ceil((end - start) / step);
  // Converting a double beyond int64 to int64 is undefined: refuse the count first.
  if (!(count < 9.2e18))
    raise<ValueError>("arange: [", start, ", ", end, ") with step ", step, " has ", count,
                      " elements, more than int64 can count");
  const int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  Tensor t = detail::make_empty({n}, o.dtype(), o.device(), "arange");
  backend_for(o.device()).arange(t, start, step);
  return finish(t, o);
}
Tensor arange(double end, TensorOptions o) { return arange(0, end, 1, o); }

Tensor rand(const Shape& shape, TensorOptions o) {
  return random_tensor(shape, RandomKind::Uniform, 0, 1, o, "rand");
}
Tensor randn(const Shape& shape, TensorOptions o) {
  return random_tensor(shape, RandomKind::Normal, 0, 1, o, "randn");
}
Tensor randint(int64_t low, int64_t high, const Shape& shape, TensorOptions o) {
  if (high <= low) raise<ValueError>("randint: expected low < high, got low=", low, " high=", high);
  // The backends receive the bounds as doubles: beyond 2^53 they would round, and the range
  // computed from them could be 0 (a division by zero in the kernel).
  constexpr int64_t kExact = int64_t{1} << 53;
  if (low < -kExact || high > kExact)
    raise<ValueError>("randint: low and high must lie in [-2^53, 2^53], got low=", low, " high=", high);
  if (static_cast<uint64_t>(high) - static_cast<uint64_t>(low) > 0xFFFFFFFFull)
    raise<ValueError>("randint: the range high - low must be below 2^32");
  if (o.dtype() == kBool) raise<DTypeError>("randint does not support dtype bool");
  return random_tensor(shape, RandomKind::Integer, static_cast<double>(low), static_cast<double>(high), o,
                       "randint");
}
namespace {
// In place: the drawn values replace t's and depend on no tensor.
Tensor& draw_into(Tensor& t, RandomKind kind, double a, double b, const char* op) {
  check_defined(op, {{"self", t}});
  autograd::check_inplace(t, op);
  draw(t, kind, a, b);
  autograd::rebase_history(t, op, nullptr);
  return t;
}
}  // namespace
Tensor& uniform_(Tensor& t, double low, double high) {
  return draw_into(t, RandomKind::Uniform, low, high, "uniform_");
}
Tensor& normal_(Tensor& t, double mean, double std) {
  return draw_into(t, RandomKind::Normal, mean, std, "normal_");
}

Tensor empty_like(const Tensor& t) {
  const TensorOptions o = like(t, "empty_like");  // first: it checks that t is defined
  return empty(t.shape(), o);
}
Tensor zeros_like(const Tensor& t) {
  const TensorOptions o = like(t, "zeros_like");  // first: it checks that t is defined
  return zeros(t.shape(), o);
}
Tensor ones_like(const Tensor& t) {
  const TensorOptions o = like(t, "ones_like");  // first: it checks that t is defined
  return ones(t.shape(), o);
}
Tensor full_like(const Tensor& t, Scalar v) {
  const TensorOptions o = like(t, "full_like");
  return full(t.shape(), v, o);
}
Tensor rand_like(const Tensor& t) {
  const TensorOptions o = like(t, "rand_like");  // first: it checks that t is defined
  return rand(t.shape(), o);
}
Tensor randn_like(const Tensor& t) {
  const TensorOptions o = like(t, "randn_like");  // first: it checks that t is defined
  return randn(t.shape(), o);
}

template <class T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape, TensorOptions o) {
  if (checked_numel(shape, "from_vector") != static_cast<int64_t>(values.size()))
    raise<ShapeError>("from_vector: ", values.size(), " values do not fill shape ", shape_str(shape));
  Tensor host = detail::make_empty(shape, o.dtype(), Device::cpu());
  EMBER_DISPATCH_ALL(o.dtype(), "from_vector", [&] {
    auto* p = host.data_ptr<scalar_t>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<scalar_t>(values[i]);
  });
  return finish(host.to(o.device()), o);
}
template EMBER_API Tensor from_vector(const std::vector<float>&, const Shape&, TensorOptions);
template EMBER_API Tensor from_vector(const std::vector<double>&, const Shape&, TensorOptions);
template EMBER_API Tensor from_vector(const std::vector<int64_t>&, const Shape&, TensorOptions);
template EMBER_API Tensor from_vector(const std::vector<int>&, const Shape&, TensorOptions);
template EMBER_API Tensor from_vector(const std::vector<uint8_t>&, const Shape&, TensorOptions);
template EMBER_API Tensor from_vector(const std::vector<bool>&, const Shape&, TensorOptions);

Tensor tensor(const NestedList& values, TensorOptions o) {
  if (!o.has_dtype()) {
    switch (values.kind()) {
      case NestedList::Kind::Bool:
        o.dtype(kBool);
        break;
      case NestedList::Kind::Integer:
        o.dtype(kInt64);
        break;
      case NestedList::Kind::Empty:
      case NestedList::Kind::Floating:
        o.dtype(kFloat32);
        break;
    }
  }
  if (values.kind() == NestedList::Kind::Floating) return from_vector(values.floats(), values.shape(), o);
  return from_vector(values.integers(), values.shape(), o);
}

Tensor scalar_tensor(Scalar value, TensorOptions o) { return filled({}, value, o, "scalar_tensor"); }

}  // namespace ember
