// Ember's sgemm (kernels/cpu/sgemm.cpp) against a double-precision product of the same floats:
// every combination of operand layouts, partial register blocks (rows not a multiple of 6,
// columns not a multiple of 16), k deeper than one packed panel, accumulation, bias and k = 0.
// Also the property callers rely on for bits that do not depend on the thread count: a row's
// result is the same whether it is computed alone or with other rows and columns, and the same
// from a right operand packed once (sgemm_pack / sgemm_prepacked) as from sgemm's own packing.
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
  for (int64_t m : {1, 5, 6, 7, 8, 12, 13})
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
  // Under AVX-512VL 7 to 12 rows run as one block and 13 to 16 as two equal ones; without it 7
  // to 12 as two (8: 4 + 4) and 13 as 6 + 4 + 3 (a last block of 1 to 3 rows is avoided).
  for (int64_t m : {13, 12, 11, 8, 7}) {
    const int64_t n = 37, k = 290;
    const Operand a = random_operand(m, k, true, gen), b = random_operand(k, n, false, gen);
    std::vector<float> all(static_cast<size_t>(m * n)), one(static_cast<size_t>(n));
    ember::cpu::sgemm(all.data(), n, a.data.data(), a.rs, a.cs, b.data.data(), b.rs, b.cs, m, n, k, false);
    for (int64_t i = 0; i < m; ++i) {
      ember::cpu::sgemm(one.data(), n, a.data.data() + i * a.rs, a.rs, a.cs, b.data.data(), b.rs, b.cs, 1, n,
                        k, false);
      for (int64_t j = 0; j < n; ++j)
        ASSERT_EQ(one[static_cast<size_t>(j)], all[static_cast<size_t>(i * n + j)]);
      // Columns [3, 20) alone: the same bits again.
      ember::cpu::sgemm(one.data(), n, a.data.data() + i * a.rs, a.rs, a.cs, b.data.data() + 3 * b.cs, b.rs,
                        b.cs, 1, 17, k, false);
      for (int64_t j = 0; j < 17; ++j)
        ASSERT_EQ(one[static_cast<size_t>(j)], all[static_cast<size_t>(i * n + j + 3)]);
    }
  }
}

// A linear's weight W [n, k] as the right operand W^T (columns contiguous), packed once: every
// partial panel and depth chunk gives sgemm's own bits, with bias, accumulation and a column
// range that starts at a later panel; the padding of the last panel is zeros. The row counts
// cover whole 6-row blocks, the split of 7 to 9 last rows into two, the single and paired
// blocks of short calls, and the partial blocks.
TEST(Sgemm, APrepackedRightOperandGivesTheBitsOfTheCallsOwnPacking) {
  std::mt19937 gen(10);
  for (int64_t m : {1, 7, 8, 12, 13, 16, 17, 33, 48})
    for (int64_t n : {5, 16, 37})
      for (int64_t k : {1, 9, 300})
        for (bool b_rows : {true, false}) {
          const Operand a = random_operand(m, k, m % 2 == 1 || b_rows, gen),
                        b = random_operand(k, n, b_rows, gen);
          std::vector<float> packed(static_cast<size_t>(ember::cpu::sgemm_packed_floats(k, n)), -7.0f);
          ASSERT_EQ(packed.size(), static_cast<size_t>((n + 15) / 16 * 16 * k));
          ember::cpu::sgemm_pack(packed.data(), b.data.data(), b.rs, b.cs, k, n);
          for (int64_t kk = 0; kk < k; ++kk)
            for (int64_t j = n; j % 16 != 0; ++j)
              ASSERT_EQ(packed[static_cast<size_t>((j / 16) * 16 * k + kk * 16 + j % 16)], 0.0f);
          std::vector<float> bias(static_cast<size_t>(n));
          std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
          for (float& v : bias) v = dist(gen);
          for (bool accumulate : {false, true}) {
            // The prepacked output's rows 3 floats apart, their padding -9: never written.
            const int64_t ldp = n + 3;
            std::vector<float> own(static_cast<size_t>(m * n)), pre(static_cast<size_t>(m * ldp), -9.0f);
            for (float& v : own) v = dist(gen);
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j)
                pre[static_cast<size_t>(i * ldp + j)] = own[static_cast<size_t>(i * n + j)];
            ember::cpu::sgemm(own.data(), n, a.data.data(), a.rs, a.cs, b.data.data(), b.rs, b.cs, m, n, k,
                              accumulate, bias.data());
            ember::cpu::sgemm_prepacked(pre.data(), ldp, a.data.data(), a.rs, a.cs, packed.data(), m, n, k,
                                        accumulate, bias.data());
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < ldp; ++j)
                ASSERT_EQ(pre[static_cast<size_t>(i * ldp + j)],
                          j < n ? own[static_cast<size_t>(i * n + j)] : -9.0f)
                    << "m " << m << " n " << n << " k " << k << " accumulate " << accumulate << " at (" << i
                    << ", " << j << ")";
            if (n <= 16) continue;
            // Columns from 16 on, from the second panel.
            std::vector<float> tail(static_cast<size_t>(m * (n - 16)), 3.0f);
            ember::cpu::sgemm_prepacked(tail.data(), n - 16, a.data.data(), a.rs, a.cs,
                                        packed.data() + 16 * k, m, n - 16, k, false, bias.data() + 16);
            std::vector<float> fresh(static_cast<size_t>(m * n));
            ember::cpu::sgemm(fresh.data(), n, a.data.data(), a.rs, a.cs, b.data.data(), b.rs, b.cs, m, n, k,
                              false, bias.data());
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 16; j < n; ++j)
                ASSERT_EQ(tail[static_cast<size_t>(i * (n - 16) + j - 16)],
                          fresh[static_cast<size_t>(i * n + j)]);
          }
        }
}

}  // namespace
