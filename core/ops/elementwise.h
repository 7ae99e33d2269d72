#pragma once
// Elementwise ops with broadcasting. Tensor-tensor forms require one device and one dtype. A
// C++ scalar (ember::Scalar: bool, integer or floating) follows PyTorch's rule for Python
// numbers: when its category is above the tensor's, the result takes that category's default
// dtype (int64, float32), else the tensor's dtype holds (docs/DESIGN.md, "Scalars").
#include "ember/core/ops/plain_unary_ops.h"
#include "ember/core/scalar.h"
#include "ember/core/tensor.h"

namespace ember {

EMBER_API Tensor add(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor sub(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor mul(const Tensor& lhs, const Tensor& rhs);
/// True division: integer and bool tensors give float32 (as torch.div).
EMBER_API Tensor div(const Tensor& lhs, const Tensor& rhs);
/// Python's //: the quotient rounded toward minus infinity, in the inputs' dtype (integers
/// stay integers; an integer x // 0 is 0, since a kernel cannot raise). Gradient zero.
EMBER_API Tensor floor_divide(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor pow(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor maximum(const Tensor& lhs, const Tensor& rhs);
EMBER_API Tensor minimum(const Tensor& lhs, const Tensor& rhs);

/// Tensor with scalar: the result dtype follows the scalar rule above; an integer scalar with
/// an integer tensor computes exactly in the tensor's dtype. A bool tensor with a bool scalar
/// stays bool for add (or), mul (and), maximum and minimum; sub refuses bool.
EMBER_API Tensor add(const Tensor& t, Scalar s);
EMBER_API Tensor sub(const Tensor& t, Scalar s);
EMBER_API Tensor rsub(const Tensor& t, Scalar s);  // s - t
EMBER_API Tensor mul(const Tensor& t, Scalar s);
/// True division: float32 unless the tensor is floating or promoted to floating.
EMBER_API Tensor div(const Tensor& t, Scalar s);
EMBER_API Tensor rdiv(const Tensor& t, Scalar s);  // s / t
EMBER_API Tensor floor_divide(const Tensor& t, Scalar s);
/// An integer tensor to a negative integer power is a ValueError (as PyTorch).
EMBER_API Tensor pow(const Tensor& t, Scalar exponent);
/// base must be positive; the result is floating (DTypeError when the rule gives an integer
/// dtype: an integer base with an integer tensor).
EMBER_API Tensor pow(Scalar base, const Tensor& exponent);
EMBER_API Tensor maximum(const Tensor& t, Scalar s);
EMBER_API Tensor minimum(const Tensor& t, Scalar s);

/// neg, exp, log, sqrt, abs, relu, sigmoid, tanh, sign, square, erf, rsqrt and the other
/// plain unary functions, name(t), are declared in core/ops/plain_unary_ops.h, which the build
/// generates from the op table's Plain rows (cmake/EmberPlainOps.cmake).

/// min(max(t, min), max); ValueError when min > max. The bounds promote t as a scalar does
/// (an integer tensor with a floating bound gives float32). A NaN bound gives NaN everywhere
/// (as PyTorch).
EMBER_API Tensor clamp(const Tensor& t, Scalar min, Scalar max);
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
/// Tensor with scalar: compared in the dtype the scalar rule gives (an int64 tensor with 0.5
/// in float32, with an integer exactly), bool output.
EMBER_API Tensor eq(const Tensor& t, Scalar s);
EMBER_API Tensor ne(const Tensor& t, Scalar s);
EMBER_API Tensor lt(const Tensor& t, Scalar s);
EMBER_API Tensor le(const Tensor& t, Scalar s);
EMBER_API Tensor gt(const Tensor& t, Scalar s);
EMBER_API Tensor ge(const Tensor& t, Scalar s);
EMBER_API Tensor logical_not(const Tensor& t);

/// cond ? input : other, all three broadcast together; cond must be bool.
EMBER_API Tensor where(const Tensor& condition, const Tensor& input, const Tensor& other);
/// input with value (converted to input's dtype) where the bool mask, broadcast to input's
/// shape, is true; the filled positions get no gradient.
EMBER_API Tensor masked_fill(const Tensor& input, const Tensor& mask, Scalar value);
/// With a scalar for one side: the result dtype follows the scalar rule with the tensor; the
/// scalar gets no gradient.
EMBER_API Tensor where(const Tensor& condition, const Tensor& input, Scalar other);
EMBER_API Tensor where(const Tensor& condition, Scalar input, const Tensor& other);

/// In place (bump the version; other broadcast to self's shape). An op whose result dtype
/// differs from self's (int_tensor.mul_(0.5), int_tensor.div_(2)) raises DTypeError
/// "<op>: result type float32 can't be cast to the desired output type int64".
EMBER_API Tensor& add_(Tensor& self, const Tensor& other, Scalar alpha = 1);
EMBER_API Tensor& sub_(Tensor& self, const Tensor& other);
EMBER_API Tensor& mul_(Tensor& self, const Tensor& other);
EMBER_API Tensor& div_(Tensor& self, const Tensor& other);
EMBER_API Tensor& add_(Tensor& self, Scalar s);
EMBER_API Tensor& sub_(Tensor& self, Scalar s);
EMBER_API Tensor& mul_(Tensor& self, Scalar s);
EMBER_API Tensor& div_(Tensor& self, Scalar s);
EMBER_API Tensor& clamp_(Tensor& self, Scalar min, Scalar max);
EMBER_API Tensor& masked_fill_(Tensor& self, const Tensor& mask, Scalar value);

EMBER_API Tensor operator+(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator-(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator*(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator/(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator+(const Tensor& a, Scalar s);
EMBER_API Tensor operator-(const Tensor& a, Scalar s);
EMBER_API Tensor operator*(const Tensor& a, Scalar s);
EMBER_API Tensor operator/(const Tensor& a, Scalar s);
EMBER_API Tensor operator+(Scalar s, const Tensor& a);
EMBER_API Tensor operator-(Scalar s, const Tensor& a);
EMBER_API Tensor operator*(Scalar s, const Tensor& a);
EMBER_API Tensor operator/(Scalar s, const Tensor& a);
EMBER_API Tensor operator-(const Tensor& a);
EMBER_API Tensor operator==(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator!=(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator<(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator<=(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator>(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator>=(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator==(const Tensor& a, Scalar s);
EMBER_API Tensor operator!=(const Tensor& a, Scalar s);
EMBER_API Tensor operator<(const Tensor& a, Scalar s);
EMBER_API Tensor operator<=(const Tensor& a, Scalar s);
EMBER_API Tensor operator>(const Tensor& a, Scalar s);
EMBER_API Tensor operator>=(const Tensor& a, Scalar s);
EMBER_API Tensor& operator+=(Tensor& a, const Tensor& b);
EMBER_API Tensor& operator-=(Tensor& a, const Tensor& b);
EMBER_API Tensor& operator*=(Tensor& a, const Tensor& b);
EMBER_API Tensor& operator/=(Tensor& a, const Tensor& b);
EMBER_API Tensor& operator+=(Tensor& a, Scalar s);
EMBER_API Tensor& operator-=(Tensor& a, Scalar s);
EMBER_API Tensor& operator*=(Tensor& a, Scalar s);
EMBER_API Tensor& operator/=(Tensor& a, Scalar s);

}  // namespace ember
