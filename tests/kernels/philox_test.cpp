// The Philox helpers both backends draw from: the per-element forms agree with the
// per-counter ones the CUDA kernel uses, and the values have the promised ranges.
#include <gtest/gtest.h>

#include <cmath>

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
