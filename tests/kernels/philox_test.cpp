// The Philox helpers both backends draw from: the per-element forms agree with the
// per-counter ones the CUDA kernel uses, and the values have the promised ranges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/kernels/cpu/philox_lanes.h"
#include "ember/kernels/philox.h"

using namespace ember;

TEST(Philox, ElementAndCounterFormsAgree) {
  const uint64_t seed = 1234, offset = 17;
  for (uint64_t i = 0; i < 64; ++i) {
    const philox::Words r = philox::draw(offset + i / 4, seed);
    const auto j = static_cast<unsigned>(i % 4);
    EXPECT_EQ(philox::uniform_at(i, seed, offset), philox::uniform_from(r, j));
    EXPECT_EQ(philox::normal_at(i, seed, offset), philox::normal_from(r, j));
    EXPECT_EQ(philox::integer_at(i, seed, offset, 10), philox::integer_from(r, j, 10));
    EXPECT_EQ(philox::value_from(RandomKind::Uniform, -2, 3, 0, r, j), -2 + 5 * philox::uniform_from(r, j));
    EXPECT_EQ(philox::value_from(RandomKind::Normal, 1, 0.5, 0, r, j), 1 + 0.5 * philox::normal_from(r, j));
    EXPECT_EQ(philox::value_from(RandomKind::Integer, 5, 15, 10, r, j),
              5.0 + double(philox::integer_from(r, j, 10)));
  }
}

TEST(Philox, RangesAndPairs) {
  const philox::Words r = philox::draw(3, 99);
  for (unsigned j = 0; j < 4; ++j) {
    const double u = philox::uniform_from(r, j);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
    EXPECT_LT(philox::integer_from(r, j, 7), 7u);
    EXPECT_TRUE(std::isfinite(philox::normal_from(r, j)));
  }
  // Box-Muller: words (0, 1) give a cosine and a sine of one radius.
  const double a = philox::normal_from(r, 0), b = philox::normal_from(r, 1);
  const double u1 = (static_cast<double>(r.w[0]) + 1.0) / 4294967296.0;
  EXPECT_NEAR(a * a + b * b, -2.0 * std::log(u1), 1e-9);
}

// The CPU's four-at-a-time draws (AVX2 where built with it) give draw's words, across the
// carry into the counter's high half and its wrap at 2^64, under keys with both halves set.
TEST(Philox, FourCountersAtOnceGiveDrawsWords) {
  const uint64_t counters[] = {0, 17, 0xFFFFFFFEull, 0x1234567890ull, ~uint64_t{0} - 1};
  const uint64_t keys[] = {0, 1234, 0xDEADBEEFCAFEF00Dull};
  for (uint64_t counter : counters)
    for (uint64_t key : keys) {
      philox::Words w[4];
      philox::draw4(counter, key, w);
      for (uint64_t l = 0; l < 4; ++l) {
        const philox::Words r = philox::draw(counter + l, key);
        for (int j = 0; j < 4; ++j) EXPECT_EQ(w[l].w[j], r.w[j]) << counter << " + " << l << ", key " << key;
      }
    }
}

// A Bernoulli draw is b below the threshold and 0 from it on, with the threshold rounded to the
// output type first: float(0.9) is below 0.9, so a uniform of exactly float(0.9) is dropped in
// float and kept in double.
TEST(Philox, BernoulliComparesWithTheThresholdInTheOutputType) {
  const philox::Words r = philox::draw(5, 77);
  for (unsigned j = 0; j < 4; ++j) {
    const double u = philox::uniform_from(r, j);
    EXPECT_EQ(philox::value_from(RandomKind::Bernoulli, u, 2.5, 0, r, j), 0.0);
    EXPECT_EQ(philox::value_from(RandomKind::Bernoulli, std::nextafter(u, 2.0), 2.5, 0, r, j), 2.5);
  }
  EXPECT_EQ(philox::bernoulli_threshold<float>(RandomKind::Bernoulli, 0.9), static_cast<double>(0.9f));
  EXPECT_EQ(philox::bernoulli_threshold<double>(RandomKind::Bernoulli, 0.9), 0.9);
  EXPECT_EQ(philox::bernoulli_threshold<float>(RandomKind::Uniform, 0.9), 0.9);
  philox::Words exact{};
  exact.w[0] = static_cast<uint32_t>(0.9f * 16777216.0f) << 8;  // uniform01 = float(0.9)
  EXPECT_EQ(
      philox::value_from(RandomKind::Bernoulli,
                         philox::bernoulli_threshold<float>(RandomKind::Bernoulli, 0.9), 1.0, 0, exact, 0),
      0.0);
  EXPECT_EQ(philox::value_from(RandomKind::Bernoulli, 0.9, 1.0, 0, exact, 0), 1.0);
}

// The CPU's integer form of the Bernoulli comparison agrees with uniform01(w) < t for the
// uniforms around the threshold, for thresholds on and off the 2^-24 grid and out of [0, 1].
TEST(Philox, BernoulliIntegerThresholdIsTheSameComparison) {
  const double thresholds[] = {0.9,
                               static_cast<float>(0.9),
                               0.5,
                               1.0 / 3,
                               0.0,
                               1.0,
                               1.5,
                               -0.25,
                               std::nextafter(1.0, 0.0),
                               std::numeric_limits<double>::quiet_NaN()};
  for (double t : thresholds) {
    const uint32_t it = philox::bernoulli_integer_threshold(t);
    const double grid = std::isnan(t) ? 0 : std::clamp(std::floor(t * 16777216.0), 0.0, 16777215.0);
    for (int64_t d = -3; d <= 3; ++d) {
      const int64_t k = static_cast<int64_t>(grid) + d;
      if (k < 0 || k >= (int64_t{1} << 24)) continue;
      const uint32_t w = static_cast<uint32_t>(k) << 8;
      EXPECT_EQ((w >> 8) < it, philox::uniform01(w) < t) << "t=" << t << " k=" << k;
    }
  }
}
