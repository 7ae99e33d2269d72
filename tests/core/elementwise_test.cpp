// Elementwise ops against hand-computed values on contiguous, strided and broadcast inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

namespace {
// The same 2x3 values as a contiguous tensor and as a transposed view of a 3x2 one.
Tensor contiguous_a() { return tensor({{1, -2, 3}, {-4, 5, 0.5}}); }
Tensor strided_a() { return tensor({{1, -4}, {-2, 5}, {3, 0.5}}).t(); }
}  // namespace

TEST(Elementwise, BinaryOnContiguousStridedAndBroadcast) {
  for (Tensor a : {contiguous_a(), strided_a()}) {
    Tensor b = tensor({2, 4, -1}, kFloat32);  // broadcast over rows
    EXPECT_TRUE(values_near(a + b, {3, 2, 2, -2, 9, -0.5}, {2, 3}));
    EXPECT_TRUE(values_near(a - b, {-1, -6, 4, -6, 1, 1.5}, {2, 3}));
    EXPECT_TRUE(values_near(a * b, {2, -8, -3, -8, 20, -0.5}, {2, 3}));
    EXPECT_TRUE(values_near(a / b, {0.5, -0.5, -3, -2, 1.25, -0.5}, {2, 3}));
    EXPECT_TRUE(values_near(maximum(a, b), {2, 4, 3, 2, 5, 0.5}, {2, 3}));
    EXPECT_TRUE(values_near(minimum(a, b), {1, -2, -1, -4, 4, -1}, {2, 3}));
    Tensor col = tensor({10, 20}, kFloat32).unsqueeze(1);  // broadcast over columns
    EXPECT_TRUE(values_near(a + col, {11, 8, 13, 16, 25, 20.5}, {2, 3}));
    EXPECT_TRUE(
        values_near(pow(abs(a), tensor({2, 1, 0.5})), {1, 2, std::sqrt(3.0), 16, 5, std::sqrt(0.5)}, {2, 3}));
  }
  // Outer product through broadcasting of [3, 1] and [4].
  Tensor outer = tensor({1, 2, 3}, kFloat32).unsqueeze(1) * tensor({1, 10, 100, 1000}, kFloat32);
  EXPECT_TRUE(values_near(outer, {1, 10, 100, 1000, 2, 20, 200, 2000, 3, 30, 300, 3000}, {3, 4}));
  EXPECT_THROW_LINE(ones({2, 3}) + ones({4, 3}), ShapeError, "cannot broadcast [2, 3] with [4, 3]");
}

TEST(Elementwise, ScalarForms) {
  Tensor a = strided_a();
  EXPECT_TRUE(values_near(a + 1.0, {2, -1, 4, -3, 6, 1.5}, {2, 3}));
  EXPECT_TRUE(values_near(1.0 - a, {0, 3, -2, 5, -4, 0.5}, {2, 3}));
  EXPECT_TRUE(values_near(a * 2.0, {2, -4, 6, -8, 10, 1}, {2, 3}));
  EXPECT_TRUE(values_near(2.0 * a, {2, -4, 6, -8, 10, 1}, {2, 3}));
  EXPECT_TRUE(values_near(a / 2.0, {0.5, -1, 1.5, -2, 2.5, 0.25}, {2, 3}));
  EXPECT_TRUE(values_near(1.0 / a, {1, -0.5, 1.0 / 3, -0.25, 0.2, 2}, {2, 3}));
  EXPECT_TRUE(values_near(a - 1.0, {0, -3, 2, -5, 4, -0.5}, {2, 3}));
  EXPECT_TRUE(values_near(pow(a, 2.0), {1, 4, 9, 16, 25, 0.25}, {2, 3}));
  EXPECT_TRUE(values_near(pow(2.0, a), {2, 0.25, 8, 0.0625, 32, std::sqrt(2.0)}, {2, 3}));
  EXPECT_TRUE(values_near(maximum(a, 0.75), {1, 0.75, 3, 0.75, 5, 0.75}, {2, 3}));
  EXPECT_TRUE(values_near(minimum(a, 0.75), {0.75, -2, 0.75, -4, 0.75, 0.5}, {2, 3}));
  // A floating scalar promotes an integer tensor to float32 (scalar_promotion_test.cpp has
  // the whole table); an integer one keeps int64.
  Tensor f = tensor({1, 2, 3}, kInt64) * 2.5;
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{2.5f, 5.0f, 7.5f}));
  Tensor i = tensor({1, 2, 3}, kInt64) * 2;
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{2, 4, 6}));
}

TEST(Elementwise, UnaryOps) {
  Tensor a = strided_a();
  const std::vector<double> v{1, -2, 3, -4, 5, 0.5};
  auto apply = [&](double (*f)(double)) {
    std::vector<double> r;
    for (double x : v) r.push_back(f(x));
    return r;
  };
  EXPECT_TRUE(values_near(-a, {-1, 2, -3, 4, -5, -0.5}, {2, 3}));
  EXPECT_TRUE(values_near(exp(a), apply([](double x) { return std::exp(x); }), {2, 3}));
  EXPECT_TRUE(values_near(abs(a), {1, 2, 3, 4, 5, 0.5}, {2, 3}));
  EXPECT_TRUE(values_near(log(abs(a)), apply([](double x) { return std::log(std::abs(x)); }), {2, 3}));
  EXPECT_TRUE(values_near(sqrt(abs(a)), apply([](double x) { return std::sqrt(std::abs(x)); }), {2, 3}));
  EXPECT_TRUE(values_near(relu(a), {1, 0, 3, 0, 5, 0.5}, {2, 3}));
  EXPECT_TRUE(values_near(sigmoid(a), apply([](double x) { return 1 / (1 + std::exp(-x)); }), {2, 3}));
  EXPECT_TRUE(values_near(tanh(a), apply([](double x) { return std::tanh(x); }), {2, 3}));
  EXPECT_TRUE(values_near(clamp(a, -1, 2), {1, -1, 2, -1, 2, 0.5}, {2, 3}));
  EXPECT_TRUE(values_near(sign(a), {1, -1, 1, -1, 1, 1}, {2, 3}));
  EXPECT_TRUE(values_near(square(a), {1, 4, 9, 16, 25, 0.25}, {2, 3}));
  // Extreme inputs: sigmoid never overflows, log(0) is -inf, relu keeps NaN.
  Tensor x = tensor({-1000, 1000, 0}, kFloat32);
  EXPECT_TRUE(values_near(sigmoid(x), {0, 1, 0.5}, {3}));
  EXPECT_EQ(log(tensor({0}, kFloat32)).item<float>(), -INFINITY);
  EXPECT_TRUE(std::isnan(relu(tensor({NAN})).item<float>()));
  EXPECT_TRUE(std::isnan(maximum(tensor({NAN}), tensor({1}, kFloat32)).item<float>()));
  EXPECT_THROW_MSG(clamp(a, 2, 1), ValueError, "clamp: min 2 is greater than max 1");
  EXPECT_THROW_MSG(exp(tensor({1}, kInt64)), DTypeError, "exp does not support dtype int64");
  EXPECT_THROW_MSG(pow(tensor({1}, kInt64), tensor({1}, kInt64)), DTypeError,
                   "pow does not support dtype int64");
}

TEST(Elementwise, ClampWithANaNBoundIsNaNEverywhere) {
  // As PyTorch: a NaN min or max makes every element NaN, and the gradient's mask
  // (min <= x <= max) is false, so the gradient is zero.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::pair<double, double> bounds[] = {{nan, nan}, {nan, 1.0}, {0.0, nan}};
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const auto& [lo, hi] : bounds) {
      Tensor x = tensor({-1, 0.5, 3, NAN}).to(dtype);
      x.requires_grad_();
      Tensor y = clamp(x, lo, hi);
      for (double v : y.to_vector<double>()) EXPECT_TRUE(std::isnan(v)) << lo << " " << hi;
      y.sum().backward();
      EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{0, 0, 0, 0}));
      Tensor z = tensor({-1, 0.5, 3}).to(dtype);
      clamp_(z, lo, hi);
      for (double v : z.to_vector<double>()) EXPECT_TRUE(std::isnan(v)) << lo << " " << hi;
    }
  }
  // A NaN bound is a floating scalar: it promotes an integer tensor to float32 (as PyTorch),
  // and clamp_ cannot write that back into the integer tensor.
  Tensor ci = clamp(tensor({1, 2}, kInt64), nan, 1);
  EXPECT_EQ(ci.dtype(), kFloat32);
  for (double v : ci.to_vector<double>()) EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(clamp(tensor({1, 2}, kUInt8), 0, nan).dtype(), kFloat32);
  Tensor i = tensor({1, 2}, kInt64);
  EXPECT_THROW_MSG(clamp_(i, nan, nan), DTypeError,
                   "clamp_: result type float32 can't be cast to the desired output type int64");
  EXPECT_EQ(clamp(tensor({-5, 1, 9}, kInt64), 0, 4).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 4}));
  EXPECT_THROW_MSG(clamp(tensor({1, 2}, kFloat32), 3, 2), ValueError, "clamp: min 3 is greater than max 2");
}

TEST(Elementwise, ComparisonsGiveBool) {
  Tensor a = strided_a();
  Tensor b = tensor({1, 5, 3}, kFloat32);
  auto as_vec = [](const Tensor& t) { return t.to_vector<bool>(); };
  EXPECT_EQ((a == b).dtype(), kBool);
  EXPECT_EQ(as_vec(a == b), (std::vector<bool>{true, false, true, false, true, false}));
  EXPECT_EQ(as_vec(a != b), (std::vector<bool>{false, true, false, true, false, true}));
  EXPECT_EQ(as_vec(a < b), (std::vector<bool>{false, true, false, true, false, true}));
  EXPECT_EQ(as_vec(a <= b), (std::vector<bool>{true, true, true, true, true, true}));
  EXPECT_EQ(as_vec(a > b), (std::vector<bool>{false, false, false, false, false, false}));
  EXPECT_EQ(as_vec(a >= b), (std::vector<bool>{true, false, true, false, true, false}));
  EXPECT_EQ(as_vec(a > 0.75), (std::vector<bool>{true, false, true, false, true, false}));
  EXPECT_EQ(as_vec(a == 3.0), (std::vector<bool>{false, false, true, false, false, false}));
  EXPECT_EQ(as_vec(logical_not(a > 0.75)), (std::vector<bool>{false, true, false, true, false, true}));
  EXPECT_EQ(as_vec(tensor({1, 2}, kInt64) < tensor({2, 2}, kInt64)), (std::vector<bool>{true, false}));
}

TEST(Elementwise, WhereSelectsWithBroadcast) {
  Tensor c = tensor({1, 0, 1}, kFloat32) > 0.5;
  Tensor a = tensor({{1, 2, 3}, {4, 5, 6}}, kFloat32);
  Tensor b = tensor({-1}, kFloat32);
  EXPECT_TRUE(values_near(where(c, a, b), {1, -1, 3, 4, -1, 6}, {2, 3}));
  EXPECT_THROW_MSG(where(tensor({1, 0, 1}, kFloat32), a, a), DTypeError,
                   "dtype mismatch in where: condition must be bool, got float32");
}

TEST(Elementwise, InPlaceOpsBumpTheVersion) {
  Tensor a = tensor({1, 2, 3}, kFloat32);
  uint64_t v = a.version();
  a.add_(tensor({1, 1, 1}, kFloat32));
  EXPECT_GT(a.version(), v);
  v = a.version();
  a.mul_(2.0);
  EXPECT_GT(a.version(), v);
  v = a.version();
  a.add_(tensor({1, 0, 0}, kFloat32), 10.0);
  a += 1.0;
  a -= tensor({1, 1, 1}, kFloat32);
  a *= tensor({1, 2, 1}, kFloat32);
  a /= 2.0;
  EXPECT_GT(a.version(), v);
  EXPECT_TRUE(values_near(a, {7, 6, 4}, {3}));
  Tensor m = zeros({2, 3});
  m.t().add_(tensor({1, 2}, kFloat32));  // strided self, broadcast other
  EXPECT_TRUE(values_near(m, {1, 1, 1, 2, 2, 2}, {2, 3}));
  Tensor small = zeros({3});
  EXPECT_THROW_MSG(small.add_(ones({2, 3})), ShapeError, "add_: other of shape [2, 3] cannot be broadcast");
  EXPECT_THROW_MSG(clamp_(a, 5, 3), ValueError, "clamp: min 5 is greater than max 3");
}

TEST(Elementwise, MixedDtypesThrow) {
  EXPECT_THROW_LINE(ones({2}) + ones({2}, kFloat64), DTypeError,
                    "dtype mismatch in add: lhs is float32 but rhs is float64");
  EXPECT_THROW_LINE(ones({2}) * ones({2}, kInt64), DTypeError,
                    "dtype mismatch in mul: lhs is float32 but rhs is int64");
  EXPECT_THROW_MSG(ones({2}, kBool) + ones({2}, kBool), DTypeError, "add does not support dtype bool");
}

TEST(Elementwise, LargeTensorsMatchTheScalarLoop) {
  // Big enough for the parallel and vectorised paths, with a broadcast operand.
  manual_seed(3);
  Tensor a = randn({300, 257});
  Tensor b = randn({257});
  Tensor c = a * b + exp(a);
  const auto va = a.to_vector<float>(), vb = b.to_vector<float>(), vc = c.to_vector<float>();
  for (size_t i = 0; i < va.size(); i += 97)
    ASSERT_NEAR(vc[i], va[i] * vb[i % 257] + std::exp(va[i]), 1e-4 * (1 + std::abs(vc[i])));
}
