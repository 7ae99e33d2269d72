// Ember's sgemm (kernels/cpu/sgemm.cpp) against a double-precision product of the same floats:
// every combination of operand layouts, partial register blocks (rows not a multiple of 6,
// columns not a multiple of 16), k deeper than one packed panel, accumulation, bias and k = 0.
// Also the property callers rely on for bits that do not depend on the thread count: a row's
// result is the same whether it is computed alone or with other rows and columns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "ember/kernels/cpu/sgemm.h"

namespace {

struct Operand {
  std::vector<float> data;
  int64_t rs, cs;
  float at(int64_t i, int64_t j) const { return data[static_cast<size_t>(i * rs + j * cs)]; }
};

// A rows x cols matrix of values in [-1, 1], row-major or column-major, with a padded leading
// dimension so that a wrong stride reads other values.
Operand random_operand(int64_t rows, int64_t cols, bool row_major, std::mt19937& gen) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const int64_t ld = (row_major ? cols : rows) + 3;
  Operand o{std::vector<float>(static_cast<size_t>(ld * (row_major ? rows : cols) + 1)), row_major ? ld : 1,
            row_major ? 1 : ld};
  for (float& v : o.data) v = dist(gen);
  return o;
}

void expect_product(int64_t m, int64_t n, int64_t k, bool a_rows, bool b_rows, bool accumulate, bool bias_on,
                    std::mt19937& gen) {
  const Operand a = random_operand(m, k, a_rows, gen), b = random_operand(k, n, b_rows, gen);
  const int64_t ldc = n + 5;
  std::vector<float> c(static_cast<size_t>(m * ldc), 0.5f), bias(static_cast<size_t>(n));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& v : c) v = dist(gen);
  for (float& v : bias) v = dist(gen);
  const std::vector<float> before = c;
  ember::cpu::sgemm(c.data(), ldc, a.data.data(), a.rs, a.cs, b.data.data(), b.rs, b.cs, m, n, k, accumulate,
                    bias_on ? bias.data() : nullptr);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const size_t at = static_cast<size_t>(i * ldc + j);
      double want = accumulate ? before[at] : (bias_on ? bias[static_cast<size_t>(j)] : 0.0);
      for (int64_t kk = 0; kk < k; ++kk) want += double(a.at(i, kk)) * double(b.at(kk, j));
      // Each term is below 1 in magnitude: float's sum of k of them is within k ulps of 1.
      ASSERT_NEAR(c[at], want, 1e-6 * double(k + 2))
          << "m " << m << " n " << n << " k " << k << " a " << (a_rows ? "rows" : "cols") << " b "
          << (b_rows ? "rows" : "cols") << " accumulate " << accumulate << " bias " << bias_on << " at (" << i
          << ", " << j << ")";
    }
    // The padding between rows of the output is never written.
    for (int64_t j = n; j < ldc; ++j) {
      const size_t at = static_cast<size_t>(i * ldc + j);
      ASSERT_EQ(c[at], before[at]) << "m " << m << " n " << n << " wrote past column " << n;
    }
  }
}

TEST(Sgemm, MatchesADoubleProductForEveryLayoutAndPartialBlock) {
  std::mt19937 gen(7);
  for (int64_t m : {1, 5, 6, 7, 13})
    for (int64_t n : {1, 15, 16, 17, 40})
      for (int64_t k : {1, 8, 9, 300})
        for (bool a_rows : {true, false})
          for (bool b_rows : {true, false}) expect_product(m, n, k, a_rows, b_rows, false, false, gen);
}

TEST(Sgemm, AccumulatesIntoTheOutputAndAddsTheBias) {
  std::mt19937 gen(8);
  for (bool accumulate : {true, false})
    for (bool b_rows : {true, false}) {
      expect_product(7, 33, 260, true, b_rows, accumulate, true, gen);  // bias ignored when accumulating
      expect_product(12, 16, 64, false, b_rows, accumulate, !accumulate, gen);
    }
}

TEST(Sgemm, DepthZeroWritesTheBiasOrZerosAndAccumulatingLeavesTheOutput) {
  std::vector<float> c(6, 9.0f);
  const float bias[3] = {1.0f, 2.0f, 3.0f};
  ember::cpu::sgemm(c.data(), 3, nullptr, 0, 1, nullptr, 3, 1, 2, 3, 0, false, bias);
  EXPECT_EQ(c, (std::vector<float>{1, 2, 3, 1, 2, 3}));
  ember::cpu::sgemm(c.data(), 3, nullptr, 0, 1, nullptr, 3, 1, 2, 3, 0, false);
  EXPECT_EQ(c, std::vector<float>(6, 0.0f));
  c.assign(6, 4.0f);
  ember::cpu::sgemm(c.data(), 3, nullptr, 0, 1, nullptr, 3, 1, 2, 3, 0, true);
  EXPECT_EQ(c, std::vector<float>(6, 4.0f));
}

TEST(Sgemm, ARowsResultDoesNotDependOnTheOtherRowsOrColumnsOfTheCall) {
  std::mt19937 gen(9);
  const int64_t m = 11, n = 37, k = 290;
  const Operand a = random_operand(m, k, true, gen), b = random_operand(k, n, false, gen);
  std::vector<float> all(static_cast<size_t>(m * n)), one(static_cast<size_t>(n));
  ember::cpu::sgemm(all.data(), n, a.data.data(), a.rs, a.cs, b.data.data(), b.rs, b.cs, m, n, k, false);
  for (int64_t i = 0; i < m; ++i) {
    ember::cpu::sgemm(one.data(), n, a.data.data() + i * a.rs, a.rs, a.cs, b.data.data(), b.rs, b.cs, 1, n, k,
                      false);
    for (int64_t j = 0; j < n; ++j)
      ASSERT_EQ(one[static_cast<size_t>(j)], all[static_cast<size_t>(i * n + j)]);
    // Columns [3, 20) alone: the same bits again.
    ember::cpu::sgemm(one.data(), n, a.data.data() + i * a.rs, a.rs, a.cs, b.data.data() + 3 * b.cs, b.rs,
                      b.cs, 1, 17, k, false);
    for (int64_t j = 0; j < 17; ++j)
      ASSERT_EQ(one[static_cast<size_t>(j)], all[static_cast<size_t>(i * n + j + 3)]);
  }
}

}  // namespace
