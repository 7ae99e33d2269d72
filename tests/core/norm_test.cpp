// batch_norm against hand-computed numbers (PyTorch semantics: biased variance to
// normalise, unbiased variance into running_var), eval mode, and the argument checks.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

namespace {
// [N=2, C=2, H=1, W=2]. Channel 0 holds 1, 2, 3, 6: mean 3, biased variance 14/4, unbiased
// 14/3. Channel 1 holds 0, 0, 4, 4: mean 2, biased variance 4, unbiased 16/3.
Tensor sample(DType dtype) { return tensor({1, 2, 0, 0, 3, 6, 4, 4}, dtype).reshape({2, 2, 1, 2}); }
}  // namespace

TEST(BatchNorm, TrainingUsesBatchStatisticsAndUpdatesRunningStats) {
  for (DType dtype : {kFloat32, kFloat64}) {
    const double eps = 1e-5, tol = dtype == kFloat32 ? 1e-6 : 1e-12;
    Tensor rm = tensor({0, 1}, dtype), rv = tensor({1, 2}, dtype);
    Tensor w = tensor({2, 1}, dtype), b = tensor({0, -1}, dtype);
    Tensor out = batch_norm(sample(dtype), rm, rv, w, b, /*training=*/true, /*momentum=*/0.1, eps);
    const double s0 = 2 / std::sqrt(3.5 + eps), s1 = 1 / std::sqrt(4 + eps);
    EXPECT_TRUE(
        values_near(out, {-2 * s0, -1 * s0, -2 * s1 - 1, -2 * s1 - 1, 0 * s0, 3 * s0, 2 * s1 - 1, 2 * s1 - 1},
                    {2, 2, 1, 2}, tol));
    EXPECT_TRUE(values_near(rm, {0.9 * 0 + 0.1 * 3, 0.9 * 1 + 0.1 * 2}, {2}, tol));
    EXPECT_TRUE(values_near(rv, {0.9 * 1 + 0.1 * 14.0 / 3, 0.9 * 2 + 0.1 * 16.0 / 3}, {2}, tol));
  }
}

TEST(BatchNorm, FloatStatisticsStayExactAboutALargeMean) {
  // Values 10^5 + 0.01 z: the variance, 10^-4, is 10^-14 of the mean's square, so squares
  // summed about zero, or about a float rounding of the mean (off by up to 4 * 10^-3, the
  // float spacing there being 8 * 10^-3), lose it. Spans of 1000 per sample and channel,
  // several samples merged.
  manual_seed(3);
  const Tensor x = randn({5, 2, 10, 100}) * 0.01 + 1e5;
  Tensor rm = zeros({2}), rv = ones({2});
  batch_norm(x, rm, rv, Tensor(), Tensor(), /*training=*/true, /*momentum=*/1.0);
  const std::vector<double> v = x.to_vector<double>();
  for (int64_t c = 0; c < 2; ++c) {
    double sum = 0, sq = 0;
    const int64_t count = 5 * 1000;
    for (int64_t n = 0; n < 5; ++n)
      for (int64_t i = 0; i < 1000; ++i) sum += v[static_cast<size_t>((n * 2 + c) * 1000 + i)];
    const double mean = sum / count;
    for (int64_t n = 0; n < 5; ++n)
      for (int64_t i = 0; i < 1000; ++i) {
        const double d = v[static_cast<size_t>((n * 2 + c) * 1000 + i)] - mean;
        sq += d * d;
      }
    EXPECT_NEAR(rm.to_vector<double>()[static_cast<size_t>(c)], mean, 1e-2);
    EXPECT_NEAR(rv.to_vector<double>()[static_cast<size_t>(c)], sq / (count - 1), 1e-4 * sq / (count - 1));
  }
}

TEST(BatchNorm, EvalUsesRunningStatsAndLeavesThem) {
  Tensor rm = tensor({1, -1}, kFloat32), rv = tensor({4, 0.25});
  Tensor out = batch_norm(sample(kFloat32), rm, rv, Tensor(), Tensor(), /*training=*/false, 0.1, 0);
  // Channel 0: (x - 1) / 2; channel 1: (x + 1) / 0.5.
  EXPECT_TRUE(values_near(out, {0, 0.5, 2, 2, 1, 2.5, 10, 10}, {2, 2, 1, 2}));
  EXPECT_TRUE(values_near(rm, {1, -1}, {2}));
  EXPECT_TRUE(values_near(rv, {4, 0.25}, {2}));
}

TEST(BatchNorm, TwoDimensionalInputAndNoRunningStats) {
  // [N=4, C=1]: 1, 2, 3, 4 -> mean 2.5, biased variance 1.25.
  Tensor x = tensor({1, 2, 3, 4}, kFloat32).reshape({4, 1});
  Tensor out = batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 0);
  const double s = 1 / std::sqrt(1.25);
  EXPECT_TRUE(values_near(out, {-1.5 * s, -0.5 * s, 0.5 * s, 1.5 * s}, {4, 1}));
}

TEST(BatchNorm, MomentumOneKeepsTheBatchStatistics) {
  Tensor rm = zeros({2}), rv = ones({2});
  batch_norm(sample(kFloat32), rm, rv, Tensor(), Tensor(), true, 1.0);
  EXPECT_TRUE(values_near(rm, {3, 2}, {2}));
  EXPECT_TRUE(values_near(rv, {14.0 / 3, 16.0 / 3}, {2}));
}

TEST(BatchNorm, TrainingGradientIsOrthogonalToTheMean) {
  // With training statistics the output is invariant to shifting a channel, so the input
  // gradient of any loss sums to zero per channel; d out / d bias is the count.
  Tensor x = rand({3, 2, 2, 2}).requires_grad_(true);
  Tensor w = ones({2}).requires_grad_(true), b = zeros({2}).requires_grad_(true);
  Tensor out = batch_norm(x, Tensor(), Tensor(), w, b, true);
  (out * rand(out.shape())).sum().backward();
  EXPECT_TRUE(values_near(x.grad().sum({0, 2, 3}), {0, 0}, {2}, 1e-5));
  Tensor b2 = zeros({2}).requires_grad_(true);
  batch_norm(x.detach(), Tensor(), Tensor(), w.detach(), b2, true).sum().backward();
  EXPECT_TRUE(values_near(b2.grad(), {12, 12}, {2}));
}

TEST(BatchNorm, AnEmptyBatchGivesAnEmptyOutputAndLeavesTheRunningStats) {
  // As PyTorch: no statistics to take, so nothing is normalised or recorded; the output keeps
  // the input's shape, and the weight and bias get zero gradients of their own shapes.
  for (const Shape& shape : {Shape{0, 3, 4, 4}, Shape{2, 3, 0, 5}, Shape{0, 3}}) {
    for (bool training : {true, false}) {
      Tensor x = zeros(shape).requires_grad_(true);
      Tensor w = tensor({1, 2, 3}, kFloat32).requires_grad_(true),
             b = tensor({4, 5, 6}, kFloat32).requires_grad_(true);
      Tensor rm = tensor({1, 2, 3}, kFloat32), rv = tensor({4, 5, 6}, kFloat32);
      const uint64_t versions = rm.version() + rv.version();
      Tensor out = batch_norm(x, rm, rv, w, b, training, 0.1);
      EXPECT_EQ(out.shape(), shape);
      EXPECT_EQ(rm.to_vector<float>(), (std::vector<float>{1, 2, 3}));
      EXPECT_EQ(rv.to_vector<float>(), (std::vector<float>{4, 5, 6}));
      EXPECT_EQ(rm.version() + rv.version(), versions);
      out.sum().backward();
      EXPECT_EQ(x.grad().shape(), shape);
      EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{0, 0, 0}));
      EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{0, 0, 0}));
    }
  }
  EXPECT_EQ(batch_norm(zeros({0, 2}), Tensor(), Tensor()).shape(), (Shape{0, 2}));
  EXPECT_THROW_LINE(
      batch_norm(zeros({1, 3, 1, 1}), Tensor(), Tensor()), ValueError,
      "batch_norm: expected more than 1 value per channel when training, got input of shape [1, 3, 1, 1]");
}

TEST(BatchNorm, Errors) {
  Tensor x = zeros({2, 3, 4});
  Tensor s = zeros({3});
  EXPECT_THROW_LINE(
      batch_norm(x, s, s, zeros({2})), ShapeError,
      "shape mismatch in batch_norm: weight [2] does not match the 3 channels of input [2, 3, 4]");
  EXPECT_THROW_LINE(
      batch_norm(x, zeros({4}), s), ShapeError,
      "shape mismatch in batch_norm: running_mean [4] does not match the 3 channels of input [2, 3, 4]");
  EXPECT_THROW_LINE(batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), false), ValueError,
                    "batch_norm: running_mean and running_var are required in eval mode");
  EXPECT_THROW_LINE(batch_norm(x, s, Tensor()), ValueError,
                    "batch_norm: running_mean and running_var must be given together");
  EXPECT_THROW_LINE(
      batch_norm(zeros({1, 3}), s, s), ValueError,
      "batch_norm: expected more than 1 value per channel when training, got input of shape [1, 3]");
  EXPECT_THROW_LINE(batch_norm(zeros({4}), Tensor(), Tensor()), ShapeError,
                    "batch_norm: input must be [N, C, ...], got shape [4]");
  EXPECT_THROW_LINE(batch_norm(x, s.to(kFloat64), s.to(kFloat64)), DTypeError,
                    "dtype mismatch in batch_norm: input is float32 but running_mean is float64");
}
