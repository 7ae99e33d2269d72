// kernels/cpu/span_moments.h: add_spans, which takes several spans' moments at once (with
// AVX-512, interleaved in 16-lane vectors), gives each span SpanMoments::add's bits, and both
// the double reference's values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ember/kernels/cpu/span_moments.h"

using ember::cpu_detail::add_spans;
using ember::cpu_detail::SpanMoments;

TEST(SpanMoments, AddSpansGivesEachSpanItsOwnBits) {
  std::mt19937 gen(7);
  std::normal_distribution<float> normal;
  // Lengths of whole 32-float blocks (the interleaved path) and others (span by span).
  for (const int64_t len : {1, 8, 31, 32, 64, 96, 100, 128, 160, 768, 4096}) {
    // Four spans of different offsets and spreads: a large offset's deviations are the test of
    // the centring, and any other order of the float sums changes the low bits.
    const float offsets[4] = {0.0f, 1e4f, -3.0f, 0.5f}, spreads[4] = {1.0f, 0.01f, 100.0f, 0.0f};
    std::vector<std::vector<float>> data(4, std::vector<float>(static_cast<size_t>(len)));
    for (int g = 0; g < 4; ++g)
      for (float& v : data[static_cast<size_t>(g)]) v = offsets[g] + spreads[g] * normal(gen);
    const float* spans[4] = {data[0].data(), data[1].data(), data[2].data(), data[3].data()};
    SpanMoments together[4];
    add_spans(together, spans, len);
    for (int g = 0; g < 4; ++g) {
      const std::string what = "len " + std::to_string(len) + ", span " + std::to_string(g);
      SpanMoments alone;
      alone.add(spans[g], len);
      EXPECT_EQ(together[g].count, alone.count) << what;
      EXPECT_EQ(together[g].mean, alone.mean) << what;
      EXPECT_EQ(together[g].m2, alone.m2) << what;
      // The values: the float data's mean and squared deviations in double.
      double mean = 0, m2 = 0;
      for (const float v : data[static_cast<size_t>(g)]) mean += v;
      mean /= static_cast<double>(len);
      for (const float v : data[static_cast<size_t>(g)]) m2 += (v - mean) * (v - mean);
      EXPECT_NEAR(together[g].mean, mean, 1e-6 * (std::fabs(mean) + spreads[g])) << what;
      EXPECT_NEAR(together[g].squared_deviations(), m2, 1e-4 * m2 + 1e-9) << what;
    }
  }
}
