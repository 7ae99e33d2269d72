#pragma once
// Elementwise ops with broadcasting. Tensor-tensor forms require one device and one dtype;
// a C++ scalar takes the tensor's dtype (no implicit promotion, docs/DESIGN.md).
#include "ember/core/elementwise_ops.h"
#include "ember/core/tensor.h"

namespace ember {

EMBER_API Tensor add(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor sub(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor mul(const Tensor& lhs, const Tensor& rhs);
/// Floating dtypes only (integer division would need promotion).
EMBER_API Tensor div(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor pow(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor maximum(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor minimum(const Tensor& lhs, const Tensor& rhs);

EMBER_API Tensor add(const Tensor& t, double s);
EMBER_API Tensor sub(const Tensor& t, double s);
EMBER_API Tensor rsub(const Tensor& t, double s);  // s - t
EMBER_API Tensor mul(const Tensor& t, double s);
EMBER_API Tensor div(const Tensor& t, double s);
EMBER_API Tensor rdiv(const Tensor& t, double s);  // s / t
EMBER_API Tensor pow(const Tensor& t, double exponent);
EMBER_API Tensor pow(double base, const Tensor& exponent);
EMBER_API Tensor maximum(const Tensor& t, double s);
EMBER_API Tensor minimum(const Tensor& t, double s);

/// One function per row of the op table whose api column is Plain (core/elementwise_ops.h):
/// neg, exp, log, sqrt, abs, relu, sigmoid, tanh, sign, square, erf, rsqrt (1 / sqrt).
#define EMBER_DECLARE_Plain(name) EMBER_API Tensor name(const Tensor& t);
#define EMBER_DECLARE_Custom(name)
#define EMBER_DECLARE(Enum, name, dtypes, api, ...) EMBER_DECLARE_##api(name)
EMBER_UNARY_OPS(EMBER_DECLARE)
#undef EMBER_DECLARE
#undef EMBER_DECLARE_Plain
#undef EMBER_DECLARE_Custom
/// min(max(t, min), max); ValueError when min > max. A NaN bound gives NaN everywhere (as
/// PyTorch) on a floating tensor and is a ValueError on an integer one.
EMBER_API Tensor clamp(const Tensor& t, double min, double max);
/// x * Phi(x) (approximate "none") or 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) ("tanh"),
/// as torch.nn.functional.gelu; floating only; ValueError for another approximate.
EMBER_API Tensor gelu(const Tensor& t, const std::string& approximate = "none");

/// Comparisons give bool tensors (not differentiable).
EMBER_API Tensor eq(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor ne(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor lt(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor le(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor gt(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor ge(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor eq(const Tensor& t, double s);
EMBER_API Tensor ne(const Tensor& t, double s);
EMBER_API Tensor lt(const Tensor& t, double s);
EMBER_API Tensor le(const Tensor& t, double s);
EMBER_API Tensor gt(const Tensor& t, double s);
EMBER_API Tensor ge(const Tensor& t, double s);
EMBER_API Tensor logical_not(const Tensor& t);

/// cond ? input : other, all three broadcast together; cond must be bool.
EMBER_API Tensor where(const Tensor& condition, const Tensor& input, const Tensor& other);
/// input with value (converted to input's dtype) where the bool mask, broadcast to input's
/// shape, is true; the filled positions get no gradient.
EMBER_API Tensor masked_fill(const Tensor& input, const Tensor& mask, double value);

/// In place (bump the version; other broadcast to self's shape).
EMBER_API Tensor& add_(Tensor& self, const Tensor& other, double alpha = 1.0);
EMBER_API Tensor& sub_(Tensor& self, const Tensor& other);
EMBER_API Tensor& mul_(Tensor& self, const Tensor& other);
EMBER_API Tensor& div_(Tensor& self, const Tensor& other);
EMBER_API Tensor& add_(Tensor& self, double s);
EMBER_API Tensor& mul_(Tensor& self, double s);
EMBER_API Tensor& clamp_(Tensor& self, double min, double max);
EMBER_API Tensor& masked_fill_(Tensor& self, const Tensor& mask, double value);

EMBER_API Tensor operator+(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator-(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator*(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator/(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator+(const Tensor& a, double s);
EMBER_API Tensor operator-(const Tensor& a, double s);
EMBER_API Tensor operator*(const Tensor& a, double s);
EMBER_API Tensor operator/(const Tensor& a, double s);
EMBER_API Tensor operator+(double s, const Tensor& a);
EMBER_API Tensor operator-(double s, const Tensor& a);
EMBER_API Tensor operator*(double s, const Tensor& a);
EMBER_API Tensor operator/(double s, const Tensor& a);
EMBER_API Tensor operator-(const Tensor& a);
EMBER_API Tensor operator==(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator!=(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator<(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator<=(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator>(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator>=(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator==(const Tensor& a, double s);
EMBER_API Tensor operator!=(const Tensor& a, double s);
EMBER_API Tensor operator<(const Tensor& a, double s);
EMBER_API Tensor operator<=(const Tensor& a, double s);
EMBER_API Tensor operator>(const Tensor& a, double s);
EMBER_API Tensor operator>=(const Tensor& a, double s);
EMBER_API Tensor& operator+=(Tensor& a, const Tensor& b);
EMBER_API Tensor& operator-=(Tensor& a, const Tensor& b);
EMBER_API Tensor& operator*=(Tensor& a, const Tensor& b);
EMBER_API Tensor& operator/=(Tensor& a, const Tensor& b);
EMBER_API Tensor& operator+=(Tensor& a, double s);
EMBER_API Tensor& operator-=(Tensor& a, double s);
EMBER_API Tensor& operator*=(Tensor& a, double s);
EMBER_API Tensor& operator/=(Tensor& a, double s);

}  // namespace ember
