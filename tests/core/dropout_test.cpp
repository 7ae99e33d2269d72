// dropout and dropout2d: statistics of the mask, scaling, the p = 0 / p = 1 edges,
// reproducibility from the seed, and the argument checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

TEST(Dropout, DropsAboutPAndScalesTheRest) {
  manual_seed(1);
  const int64_t n = 200000;
  for (double p : {0.1, 0.3, 0.5, 0.9}) {
    const auto y = dropout(ones({n}), p).to_vector<float>();
    int64_t zeros_seen = 0;
    for (float v : y) {
      if (v == 0)
        ++zeros_seen;
      else
        ASSERT_FLOAT_EQ(v, static_cast<float>(1.0 / (1.0 - p))) << "p=" << p;
    }
    // The fraction dropped is binomial: 6 standard deviations is about 0.007 at p = 0.5.
    const double frac = static_cast<double>(zeros_seen) / n;
    EXPECT_NEAR(frac, p, 6 * std::sqrt(p * (1 - p) / n)) << "p=" << p;
  }
}

// The mask is the generator's uniform draws compared in the input's dtype with 1 - p: what
// rand() gives from the same seed, element for element, at sizes that end inside the CPU's
// blocks of 64 and of 4, in float32 and float64.
TEST(Dropout, MaskIsTheUniformDrawsComparedInTheDtype) {
  for (DType dtype : {kFloat32, kFloat64})
    for (int64_t n : {1, 63, 64, 1001, 4099})
      for (double p : {0.1, 0.5, 0.75}) {
        manual_seed(42);
        const std::vector<double> u = rand({n}, dtype).to(kFloat64).to_vector<double>();
        manual_seed(42);
        const std::vector<double> y = dropout(ones({n}, dtype), p).to(kFloat64).to_vector<double>();
        const double keep = dtype == kFloat32 ? static_cast<float>(1.0 - p) : 1.0 - p;
        const double scale = dtype == kFloat32 ? static_cast<float>(1.0 / (1.0 - p)) : 1.0 / (1.0 - p);
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(y[i], u[i] < keep ? scale : 0.0)
              << dtype_name(dtype) << " n=" << n << " p=" << p << " i=" << i;
      }
}

TEST(Dropout, EdgesAndEvalMode) {
  Tensor x = (rand({3, 4}) + 1.0).requires_grad_(true);
  EXPECT_EQ(dropout(x, 0.0).to_vector<float>(), x.to_vector<float>());
  EXPECT_EQ(dropout(x, 0.7, /*training=*/false).to_vector<float>(), x.to_vector<float>());
  Tensor dropped = dropout(x, 1.0);
  EXPECT_TRUE(values_near(dropped, std::vector<double>(12, 0.0), {3, 4}));
  dropped.sum().backward();
  EXPECT_TRUE(values_near(x.grad(), std::vector<double>(12, 0.0), {3, 4}));
  EXPECT_EQ(dropout(zeros({0, 3}), 0.5).shape(), (Shape{0, 3}));
}

TEST(Dropout, GradientIsTheScaledMask) {
  manual_seed(3);
  Tensor x = ones({50}).requires_grad_(true);
  Tensor y = dropout(x, 0.4);
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), y.to_vector<float>());
}

TEST(Dropout, SameSeedSameMaskOnEveryDevice) {
  ember::test::EmulatedCuda emu(1);
  Tensor x = ones({1000});
  manual_seed(42);
  const auto a = dropout(x, 0.5).to_vector<float>();
  const auto c = dropout(x, 0.5).to_vector<float>();
  manual_seed(42);
  const auto b = dropout(x.to(Device::cuda(0)), 0.5).to_vector<float>();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);  // the generator advanced
}

TEST(Dropout2d, DropsWholeChannels) {
  manual_seed(2);
  const int64_t N = 64, C = 100;
  const double p = 0.25;
  const auto y = dropout2d(ones({N, C, 3, 3}), p).to_vector<float>();
  int64_t dropped = 0;
  for (int64_t ch = 0; ch < N * C; ++ch) {
    const float first = y[static_cast<size_t>(ch * 9)];
    for (int64_t i = 1; i < 9; ++i) ASSERT_EQ(y[static_cast<size_t>(ch * 9 + i)], first);
    if (first == 0)
      ++dropped;
    else
      ASSERT_FLOAT_EQ(first, static_cast<float>(1.0 / (1.0 - p)));
  }
  const double frac = static_cast<double>(dropped) / static_cast<double>(N * C);
  EXPECT_NEAR(frac, p, 6 * std::sqrt(p * (1 - p) / static_cast<double>(N * C)));
  // A 2-D input has one value per channel.
  EXPECT_EQ(dropout2d(ones({4, 5}), 0.5).shape(), (Shape{4, 5}));
}

TEST(Dropout, Errors) {
  Tensor x = ones({2, 3});
  EXPECT_THROW_LINE(dropout(x, 1.5), ValueError, "dropout: p must be in [0, 1], got 1.5");
  EXPECT_THROW_LINE(dropout(x, -0.1), ValueError, "dropout: p must be in [0, 1], got -0.1");
  EXPECT_THROW_LINE(dropout(x, std::numeric_limits<double>::quiet_NaN()), ValueError,
                    "dropout: p must be in [0, 1], got nan");
  EXPECT_THROW_LINE(dropout2d(x, 2), ValueError, "dropout2d: p must be in [0, 1], got 2");
  EXPECT_THROW_LINE(dropout2d(ones({3}), 0.5), ShapeError,
                    "dropout2d: input must be [N, C, ...], got shape [3]");
  EXPECT_THROW_LINE(dropout(x.to(kInt64), 0.5), DTypeError,
                    "dtype mismatch in dropout: input must be float32 or float64, got int64");
}
