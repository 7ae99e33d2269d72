// Reductions against a naive loop, on odd sizes and every dim, plus edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

namespace {
// Naive reduction of a [A, B, C] row-major array over one dim.
std::vector<double> naive(const std::vector<double>& x, const Shape& s, int dim, const char* op) {
  std::vector<double> out;
  const int64_t A = s[0], B = s[1], C = s[2];
  auto at = [&](int64_t a, int64_t b, int64_t c) { return x[static_cast<size_t>((a * B + b) * C + c)]; };
  const int64_t n = s[dim];
  for (int64_t i = 0; i < (dim == 0 ? 1 : A); ++i)
    for (int64_t j = 0; j < (dim == 1 ? 1 : B); ++j)
      for (int64_t k = 0; k < (dim == 2 ? 1 : C); ++k) {
        double acc = std::string(op) == "max" ? -INFINITY : std::string(op) == "min" ? INFINITY : 0;
        for (int64_t r = 0; r < n; ++r) {
          const double v = at(dim == 0 ? r : i, dim == 1 ? r : j, dim == 2 ? r : k);
          if (std::string(op) == "max")
            acc = std::max(acc, v);
          else if (std::string(op) == "min")
            acc = std::min(acc, v);
          else
            acc += v;
        }
        if (std::string(op) == "mean") acc /= static_cast<double>(n);
        out.push_back(acc);
      }
  return out;
}
}  // namespace

TEST(Reduce, EveryDimOfAnOddShapeMatchesANaiveLoop) {
  manual_seed(5);
  const Shape s{3, 5, 7};
  Tensor x = randn(s, kFloat64);
  const auto v = x.to_vector<double>();
  for (int dim = 0; dim < 3; ++dim) {
    Shape kept = s;
    kept[dim] = 1;
    Shape dropped = s;
    dropped.erase(dropped.begin() + dim);
    EXPECT_TRUE(values_near(sum(x, {dim}), naive(v, s, dim, "sum"), dropped, 1e-12)) << dim;
    EXPECT_TRUE(values_near(sum(x, {dim}, true), naive(v, s, dim, "sum"), kept, 1e-12)) << dim;
    EXPECT_TRUE(values_near(mean(x, {dim - 3}), naive(v, s, dim, "mean"), dropped, 1e-12)) << dim;
    EXPECT_TRUE(values_near(amax(x, {dim}), naive(v, s, dim, "max"), dropped, 0)) << dim;
    EXPECT_TRUE(values_near(amin(x, {dim}, true), naive(v, s, dim, "min"), kept, 0)) << dim;
    EXPECT_TRUE(values_near(max(x, dim).values, naive(v, s, dim, "max"), dropped, 0)) << dim;
    EXPECT_TRUE(values_near(min(x, dim).values, naive(v, s, dim, "min"), dropped, 0)) << dim;
    // The same reductions over a transposed (non-contiguous) view.
    Tensor xt = x.transpose(0, 2).contiguous().transpose(0, 2);
    EXPECT_FALSE(xt.is_contiguous());
    EXPECT_TRUE(values_near(sum(xt, {dim}), naive(v, s, dim, "sum"), dropped, 1e-12)) << dim;
    EXPECT_TRUE(values_near(amax(xt, {dim}), naive(v, s, dim, "max"), dropped, 0)) << dim;
  }
  EXPECT_TRUE(values_near(
      sum(x, {0, 2}),
      [&] {
        std::vector<double> r(5, 0.0);
        for (int64_t a = 0; a < 3; ++a)
          for (int64_t b = 0; b < 5; ++b)
            for (int64_t c = 0; c < 7; ++c)
              r[static_cast<size_t>(b)] += v[static_cast<size_t>((a * 5 + b) * 7 + c)];
        return r;
      }(),
      {5}, 1e-12));
}

TEST(Reduce, IndicesPointAtTheFirstExtremum) {
  Tensor x = tensor({{1, 5, 5, 2}, {7, 0, 7, -1}}, kFloat32);
  EXPECT_EQ(argmax(x, 1).to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(argmin(x, 1).to_vector<int64_t>(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(argmax(x, 0).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1, 0}));
  EXPECT_EQ(argmax(x).item<int64_t>(), 4);
  EXPECT_EQ(argmax(x, 1, true).shape(), (Shape{2, 1}));
  auto [vals, idx] = max(x, -1);
  EXPECT_TRUE(values_near(vals, {5, 7}, {2}));
  EXPECT_EQ(idx.to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(std::isnan(max(tensor({1, NAN, 3})).item<float>()));
  EXPECT_EQ(argmax(tensor({1, NAN, 3}), 0).item<int64_t>(), 1);
}

TEST(Reduce, TiesShareTheGradientEvenly) {
  Tensor x = tensor({1, 3, 3}, kFloat64).requires_grad_(true);
  max(x).backward();
  EXPECT_TRUE(values_near(x.grad(), {0, 0.5, 0.5}, {3}));
}

TEST(Reduce, IntegerAndBoolSumsCount) {
  Tensor b = tensor({1, 0, 1, 1}, kFloat32) > 0.5;
  EXPECT_EQ(b.sum().dtype(), kInt64);
  EXPECT_EQ(b.sum().item<int64_t>(), 3);
  EXPECT_EQ(arange(0, 10, 1, kInt64).sum().item<int64_t>(), 45);
  EXPECT_THROW_MSG(mean(arange(0, 10, 1, kInt64)), DTypeError,
                   "dtype mismatch in mean: input must be float32 or float64, got int64");
}

TEST(Reduce, LargeFloat32SumsStayAccurate) {
  // 2^22 copies of float32(0.1): the exact sum is 2^22 * 0.100000001490116...
  Tensor x = full({1 << 22}, 0.1);
  const double exact = static_cast<double>(1 << 22) * static_cast<double>(0.1f);
  EXPECT_NEAR(x.sum().item<double>(), exact, exact * 1e-7);
  EXPECT_NEAR(x.mean().item<double>(), static_cast<double>(0.1f), 1e-7);
}

TEST(Reduce, EmptyAndScalarInputs) {
  EXPECT_EQ(zeros({0, 3}).sum().item<float>(), 0.0f);
  EXPECT_TRUE(values_near(zeros({0, 3}).sum({0}), {0, 0, 0}, {3}));
  EXPECT_TRUE(std::isnan(zeros({0}).mean().item<float>()));
  EXPECT_THROW_MSG(amax(zeros({0, 3}), {0}), ShapeError,
                   "amax: cannot reduce over an empty dim of shape [0, 3]");
  EXPECT_EQ(scalar_tensor(4).sum().item<float>(), 4.0f);
  EXPECT_THROW_MSG(sum(ones({2, 2}), {2}), IndexError,
                   "sum: dim 2 is out of range for a tensor of 2 dimensions");
  EXPECT_THROW_MSG(sum(ones({2, 2}), {1, -1}), ValueError, "sum: dim 1 is repeated");
}

TEST(Linalg, HandCheckedProductsAndShapeErrors) {
  Tensor a = tensor({{1, 2}, {3, 4}, {5, 6}}, kFloat32);
  Tensor b = tensor({{1, 0, -1}, {2, 1, 0}}, kFloat32);
  EXPECT_TRUE(values_near(matmul(a, b), {5, 2, -1, 11, 4, -3, 17, 6, -5}, {3, 3}));
  EXPECT_TRUE(values_near(matmul(b, a), {-4, -4, 5, 8}, {2, 2}));
  EXPECT_TRUE(values_near(matmul(a.t(), a), {35, 44, 44, 56}, {2, 2}));  // transposed operand
  EXPECT_TRUE(values_near(matmul(tensor({1, 1}, kFloat32), b), {3, 1, -1}, {3}));
  EXPECT_TRUE(values_near(matmul(b, tensor({1, 2, 3}, kFloat32)), {-2, 4}, {2}));
  EXPECT_TRUE(values_near(matmul(tensor({1, 2}, kFloat32), tensor({3, 4}, kFloat32)), {11}, {}));
  Tensor batch = stack({a, a * 2.0});
  EXPECT_TRUE(values_near(matmul(batch, b).select(0, 1), {10, 4, -2, 22, 8, -6, 34, 12, -10}, {3, 3}));
  EXPECT_TRUE(values_near(linear(a, b.narrow(1, 0, 2), tensor({10, 20}, kFloat32)), {11, 24, 13, 30, 15, 36},
                          {3, 2}));
  EXPECT_THROW_LINE(matmul(ones({64, 320}), ones({310, 10})), ShapeError,
                    "shape mismatch in matmul: lhs [64, 320] and rhs [310, 10] cannot be multiplied");
  EXPECT_THROW_MSG(matmul(ones({2}, kInt64), ones({2}, kInt64)), DTypeError,
                   "dtype mismatch in matmul: lhs must be float32 or float64, got int64");
  EXPECT_THROW_MSG(linear(ones({2, 3}), ones({4, 5})), ShapeError,
                   "shape mismatch in linear: input [2, 3] and weight [4, 5] cannot be multiplied");
}

TEST(Softmax, ValuesAreStableAndSumToOne) {
  Tensor x = tensor({{1, 2, 3}, {1000, 1000, 1000}, {-1000, 0, 1000}}, kFloat32);
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0), z = e1 + e2 + e3;
  EXPECT_TRUE(values_near(softmax(x, 1), {e1 / z, e2 / z, e3 / z, 1. / 3, 1. / 3, 1. / 3, 0, 0, 1}, {3, 3}));
  EXPECT_TRUE(values_near(log_softmax(x, 1).narrow(0, 0, 1),
                          {1 - std::log(z), 2 - std::log(z), 3 - std::log(z)}, {1, 3}));
  EXPECT_TRUE(values_near(log_softmax(x, 1).select(0, 2), {-2000, -1000, 0}, {3}));
  EXPECT_TRUE(values_near(softmax(x, 0).sum({0}), {1, 1, 1}, {3}));
}

TEST(Loss, CrossEntropyNllAndMseByHand) {
  Tensor logits = tensor({{1, 2, 3}, {0, 0, 0}}, kFloat32);
  Tensor target = tensor({2, 0}, kInt64);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  const double l0 = std::log(z) - 3, l1 = std::log(3.0);
  EXPECT_TRUE(values_near(cross_entropy(logits, target, Reduction::None), {l0, l1}, {2}));
  EXPECT_TRUE(values_near(cross_entropy(logits, target), {(l0 + l1) / 2}, {}));
  EXPECT_TRUE(values_near(cross_entropy(logits, target, Reduction::Sum), {l0 + l1}, {}));
  EXPECT_TRUE(values_near(nll_loss(log_softmax(logits, 1), target), {(l0 + l1) / 2}, {}));
  EXPECT_TRUE(values_near(cross_entropy(tensor({1, 2, 3}, kFloat32), scalar_tensor(2, kInt64)), {l0}, {}));
  EXPECT_TRUE(values_near(mse_loss(tensor({1, 2}, kFloat32), tensor({2, 4}, kFloat32)), {2.5}, {}));
  EXPECT_THROW_LINE(cross_entropy(logits, tensor({2, 0}, kFloat32)), DTypeError,
                    "dtype mismatch in cross_entropy: target must be int64, got float32");
  // Labels from a std::vector<int> are int32: the message says how to cast.
  EXPECT_THROW_LINE(
      cross_entropy(logits, from_vector(std::vector<int>{2, 0})), DTypeError,
      "dtype mismatch in cross_entropy: target must be int64, got int32 (class labels are int64: "
      "target.to(kInt64), or from_vector of int64_t values)");
  EXPECT_THROW_MSG(cross_entropy(logits, tensor({3, 0}, kInt64)), IndexError,
                   "cross_entropy: target 3 is out of range for 3 classes");
  EXPECT_THROW_MSG(nll_loss(logits, tensor({-1, 0}, kInt64)), IndexError,
                   "nll_loss: target -1 is out of range for 3 classes");
  EXPECT_THROW_MSG(cross_entropy(logits, tensor({1}, kInt64)), ShapeError,
                   "cross_entropy: target of shape [1] does not match input of shape [2, 3]");
  EXPECT_THROW_MSG(mse_loss(ones({2}), ones({3})), ShapeError,
                   "mse_loss: input of shape [2] and target of shape [3] differ");
}

TEST(Linalg, EmptyDimsAreFine) {
  EXPECT_TRUE(zeros({3, 0}).is_contiguous());
  Tensor r = rand({3, 0});
  EXPECT_EQ(r.shape(), (Shape{3, 0}));
  // No input features: the product is the bias alone.
  EXPECT_TRUE(values_near(linear(zeros({2, 0}), zeros({3, 0}), tensor({1, 2, 3}, kFloat32)),
                          {1, 2, 3, 1, 2, 3}, {2, 3}));
  EXPECT_TRUE(values_near(matmul(zeros({2, 0}), zeros({0, 2})), {0, 0, 0, 0}, {2, 2}));
}
