#pragma once
// How one product's output is cut into parallel tasks (matmul's and the packed linear's): rows
// or whole 16-column panels, by one rule, so a linear gives the same blocks, packed or not.
#include <algorithm>
#include <cstdint>

#include "ember/kernels/cpu/parallel.h"

namespace ember::cpu {

// Rows a product needs before it is cut into blocks of rows rather than columns. A row block
// packs the whole of b again (sgemm packs the right operand; kernels/cpu/sgemm.h); a column
// block packs only its own columns and reads a in place, as the whole product would. Rows pay
// that copy back only when they are many (a training batch's tokens, whose block of a then
// stays in cache across b's panels), or when b is one column block, which cannot be cut. At
// batch 1, a 128-token BERT's 128 x 128 products were cut into 8 row blocks that packed b 8 times.
constexpr int64_t kRowBlocksFrom = 256;

/// Runs block(i0, m, j0, n) over the M x N output of a product of depth K, in parallel blocks
/// of rows [i0, i0 + m) or of columns [j0, j0 + n) (j0 a multiple of 16, which keeps the
/// output's rows aligned to registers and lets a packed right operand start at a panel).
template <class Block>
void for_each_gemm_block(int64_t M, int64_t N, int64_t K, const Block& block) {
  if (M >= N && (M >= kRowBlocksFrom || N <= 16)) {  // (one column block cannot be cut)
    const int64_t grain = std::max<int64_t>(8, kMinTaskMacs / std::max<int64_t>(1, N * K));
    parallel_for(M, grain, [&](int64_t lo, int64_t hi) { block(lo, hi - lo, int64_t(0), N); });
  } else {
    const int64_t grain = std::max<int64_t>(16, kMinTaskMacs / std::max<int64_t>(1, M * K));
    const int64_t units = (N + 15) / 16;
    parallel_for(units, (grain + 15) / 16, [&](int64_t lo, int64_t hi) {
      const int64_t j0 = lo * 16, j1 = std::min(N, hi * 16);
      block(int64_t(0), M, j0, j1 - j0);
    });
  }
}

}  // namespace ember::cpu
