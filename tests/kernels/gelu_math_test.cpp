// GELU's float math on the host (kernels/functors.h): fn::normal_cdf and fn::normal_density_exp,
// written to vectorise, against erfc and exp in double; the GELU functors built on them, and the
// CPU backend's four-vector GELU loop against the functor.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ember/kernels/cpu/gelu_lanes.h"
#include "ember/kernels/functors.h"

using namespace ember;

namespace {
double phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
}  // namespace

TEST(GeluMath, NormalCdfKeepsItsRelativeAccuracyInTheTail) {
  double worst_rel = 0, worst_abs = 0, at = 0;
  for (int i = -1400000; i <= 1400000; ++i) {
    const float x = static_cast<float>(i) * 1e-5f;  // [-14, 14]
    const double want = phi(x), got = fn::normal_cdf(x);
    worst_abs = std::max(worst_abs, std::abs(got - want));
    // Relative down to Phi(-6) = 1e-9, where erf(x) + 1 in float would have no digit left.
    if (x >= -6 && std::abs(got - want) / want > worst_rel) worst_rel = std::abs(got - want) / want, at = x;
  }
  EXPECT_LT(worst_rel, 5e-6) << "at x = " << at;
  EXPECT_LT(worst_abs, 3e-7);
  EXPECT_EQ(fn::normal_cdf(0.0f), 0.5f);
  EXPECT_EQ(fn::normal_cdf(50.0f), 1.0f);
  EXPECT_GE(fn::normal_cdf(-50.0f), 0.0f);
  EXPECT_LT(fn::normal_cdf(-50.0f), 1e-37f);
}

TEST(GeluMath, DensityExpWithinTwoTenMillionthsOfExp) {
  // Against exp of the exponent as float computes it (libm's expf(-0.5f * x * x) rounds the same).
  double worst = 0, at = 0;
  for (int i = -1300000; i <= 1300000; ++i) {
    const float x = static_cast<float>(i) * 1e-5f;  // [-13, 13]: exp down to 4e-37
    const double want = std::exp(-static_cast<double>(0.5f * x * x));
    const double err = std::abs(static_cast<double>(fn::normal_density_exp(x)) - want) / want;
    if (err > worst) worst = err, at = x;
  }
  EXPECT_LT(worst, 2e-7) << "at x = " << at;
  EXPECT_EQ(fn::normal_density_exp(0.0f), 1.0f);
  EXPECT_GE(fn::normal_density_exp(100.0f), 0.0f);
  EXPECT_LT(fn::normal_density_exp(100.0f), 1e-37f);
}

TEST(GeluMath, GeluAndItsDerivativeInFloatFollowDouble) {
  double worst = 0, worst_grad = 0;
  for (int i = -60000; i <= 60000; ++i) {
    const float x = static_cast<float>(i) * 1e-4f;  // [-6, 6]
    const double want = fn::Gelu{}(static_cast<double>(x)), got = fn::Gelu{}(x);
    if (x != 0) worst = std::max(worst, std::abs(got - want) / std::abs(want));
    const double want_g = fn::GeluBackward{}(1.0, static_cast<double>(x)),
                 got_g = fn::GeluBackward{}(1.0f, x);
    worst_grad = std::max(worst_grad, std::abs(got_g - want_g));
  }
  EXPECT_LT(worst, 5e-6);
  EXPECT_LT(worst_grad, 5e-7);
  EXPECT_TRUE(std::isnan(fn::Gelu{}(std::nanf(""))));
  EXPECT_TRUE(std::isnan(fn::GeluBackward{}(1.0f, std::nanf(""))));
  EXPECT_LE(fn::Gelu{}(-20.0f), 0.0f);
  EXPECT_GT(fn::Gelu{}(-20.0f), -1e-35f);
}

// The CPU backend's GELU on contiguous float (kernels/cpu/gelu_lanes.h) gives the functor's bits
// for every kind of float: a sweep of [-14, 14], random bit patterns (denormals, huge values,
// infinities and NaNs among them), signed zeros, and lengths that end in each loop: eight
// vectors, one (16 lanes where the build has AVX-512, then 8) and the functor's tail.
TEST(GeluMath, TheVectorLoopsGiveTheFunctorsBits) {
  std::vector<float> in;
  for (int i = -140000; i <= 140000; ++i) in.push_back(static_cast<float>(i) * 1e-4f);
  uint32_t bits = 12345u;
  for (int i = 0; i < 200000; ++i) {
    bits = bits * 1664525u + 1013904223u;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    in.push_back(f);
  }
  for (float f : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-40f, 3.4e38f, -3.4e38f}) in.push_back(f);
  for (size_t n :
       {in.size(), size_t(155), size_t(128), size_t(64), size_t(79), size_t(31), size_t(7), size_t(0)}) {
    std::vector<float> out(n, 7.0f);
    cpu::gelu_lanes(out.data(), in.data(), static_cast<int64_t>(n));
    const fn::Gelu gelu;
    for (size_t i = 0; i < n; ++i) {
      const float want = gelu(in[i]);
      uint32_t got_bits, want_bits;
      std::memcpy(&got_bits, &out[i], sizeof got_bits);
      std::memcpy(&want_bits, &want, sizeof want_bits);
      ASSERT_EQ(got_bits, want_bits) << "x = " << in[i] << " at " << i << " of " << n;
    }
  }
}
