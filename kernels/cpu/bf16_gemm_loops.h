#pragma once
// The loops of Ember's bfloat16 GEMM (kernels/cpu/bf16_gemm.h), written once over a `Lanes`
// type that says how 16 columns of sums are held and how one depth pair is added to them:
// AVX512_BF16's dot-product instruction (bf16_gemm_avx512.cpp), AVX2 expanding the halves to
// float (bf16_gemm.cpp), and a scalar model of the AVX-512 lanes (the tests), so that the
// blocking, the masks and the panel arithmetic run on every machine, not only on CPUs with
// the instruction.
//
// Layouts (bf16_gemm.h): a word of the right operand holds two bfloat16s, depth 2q in its low
// half and 2q + 1 in its high half, in panels of 16 columns: panel p's pair q of column
// p * 16 + jj at packed[p * 16 * pairs + q * 16 + jj], zero past the last column and the last
// depth. Row i of the left operand is lda words from the previous one, its pair q at words
// [q * L::kWordsPerPair, (q + 1) * L::kWordsPerPair): one word as the right operand's (AVX-512),
// or two holding the bits of the rounded values as floats (AVX2, which broadcasts them from
// memory, where splitting a word would cost two instructions per row and pair).
//
// The header includes nothing with inline functions of external linkage, and everything here
// has internal linkage: bf16_gemm_avx512.cpp is compiled for AVX-512, and a shared inline copy
// built there could be the one the linker keeps for code that runs on any CPU.
#include <cstdint>

namespace ember::cpu::bf16 {
namespace {

constexpr int kPanel = 16;            // columns per packed panel
constexpr int64_t kDepthPairs = 128;  // pairs per pass: two panels' 16 KiB stay in L1

// Where a register block's sums start.
enum class Start { Zero, Bias, Output };

// c[r * ldc + p * 16 + jj] for r < Rows, the first `cols` columns of the last of Panels panels
// (16 in the others) = start + sum over q < pairs of the pair products of a row's word q and
// the panel's words q.
template <class L, int Rows, int Panels>
inline void block(float* c, int64_t ldc, const uint32_t* a, int64_t lda, const uint32_t* panel,
                  int64_t panel_words, int64_t pairs, int cols, Start start, const float* bias) {
  typename L::Acc acc[Rows][Panels];
  for (int r = 0; r < Rows; ++r)
    for (int p = 0; p < Panels; ++p) {
      const int n = p + 1 == Panels ? cols : kPanel;
      acc[r][p] = start == Start::Output ? L::load(c + r * ldc + p * kPanel, n)
                  : start == Start::Bias ? L::load(bias + p * kPanel, n)
                                         : L::zero();
    }
  for (int64_t q = 0; q < pairs; ++q) {
    typename L::B b[Panels];
    for (int p = 0; p < Panels; ++p) b[p] = L::load_b(panel + p * panel_words + q * kPanel);
    for (int r = 0; r < Rows; ++r) {
      const typename L::A av = L::broadcast(a + r * lda, q);
      for (int p = 0; p < Panels; ++p) acc[r][p] = L::dot(acc[r][p], av, b[p]);
    }
  }
  for (int r = 0; r < Rows; ++r)
    for (int p = 0; p < Panels; ++p)
      L::store(c + r * ldc + p * kPanel, acc[r][p], p + 1 == Panels ? cols : kPanel);
}

// block<L, rows, Panels> for a run-time row count 1 <= rows <= L::kRows.
template <class L, int Panels, int Rows = 1>
inline void rows_block(int rows, float* c, int64_t ldc, const uint32_t* a, int64_t lda, const uint32_t* panel,
                       int64_t panel_words, int64_t pairs, int cols, Start start, const float* bias) {
  if constexpr (Rows <= L::kRows) {
    if (rows == Rows)
      return block<L, Rows, Panels>(c, ldc, a, lda, panel, panel_words, pairs, cols, start, bias);
    rows_block<L, Panels, Rows + 1>(rows, c, ldc, a, lda, panel, panel_words, pairs, cols, start, bias);
  }
}

/// c[i * ldc + j] = (bias ? bias[j] : 0) + sum over k of A(i, k) B(k, j), i < m, j < n, from
/// the words of a (row stride lda) and of packed (panels whose pairs number (k + 1) / 2).
template <class L>
void gemm(float* c, int64_t ldc, const uint32_t* a, int64_t lda, const uint32_t* packed, int64_t m, int64_t n,
          int64_t k, const float* bias) {
  static_assert(L::kPanels == 1 || L::kPanels == 2, "a block is one or two panels wide");
  if (m <= 0 || n <= 0) return;
  const int64_t pairs = (k + 1) / 2, panel_words = kPanel * pairs;
  if (pairs == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = bias ? bias[j] : 0.0f;
    return;
  }
  constexpr int64_t kWide = int64_t(kPanel) * L::kPanels;
  for (int64_t j0 = 0; j0 < n; j0 += kWide) {
    const int64_t nn = n - j0 < kWide ? n - j0 : kWide;
    const int panels = static_cast<int>((nn + kPanel - 1) / kPanel);
    const int cols = static_cast<int>(nn - int64_t(kPanel) * (panels - 1));
    for (int64_t q0 = 0; q0 < pairs; q0 += kDepthPairs) {
      const int64_t pq = pairs - q0 < kDepthPairs ? pairs - q0 : kDepthPairs;
      const Start start = q0 > 0 ? Start::Output : bias ? Start::Bias : Start::Zero;
      const uint32_t* panel = packed + (j0 / kPanel) * panel_words + q0 * kPanel;
      const float* b = bias ? bias + j0 : nullptr;
      for (int64_t i0 = 0; i0 < m; i0 += L::kRows) {
        const int rows = static_cast<int>(m - i0 < L::kRows ? m - i0 : L::kRows);
        float* out = c + i0 * ldc + j0;
        const uint32_t* ai = a + i0 * lda + q0 * L::kWordsPerPair;
        if (panels == L::kPanels)
          rows_block<L, L::kPanels>(rows, out, ldc, ai, lda, panel, panel_words, pq, cols, start, b);
        else
          rows_block<L, 1>(rows, out, ldc, ai, lda, panel, panel_words, pq, cols, start, b);
      }
    }
  }
}

}  // namespace
}  // namespace ember::cpu::bf16
