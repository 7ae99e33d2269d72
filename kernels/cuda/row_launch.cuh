#pragma once
// Launch shapes of the row kernels (softmax and the class losses, layer norm, attention's
// masked softmax): one block per row, grid-striding over rows, a block size that suits the
// row length so that short rows do not leave most threads idle.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ember/kernels/cuda/cuda_context.h"

namespace ember::cuda_detail {

/// Runs launch(std::integral_constant<int, B>()) with B threads per block for rows of n elements.
template <class Launch>
void with_row_block(int64_t n, const Launch& launch) {
  if (n <= 32)
    launch(std::integral_constant<int, 32>());
  else if (n <= 1024)
    launch(std::integral_constant<int, 128>());
  else
    launch(std::integral_constant<int, 512>());
}

/// Blocks for rows rows: at most 32 per multiprocessor (the kernels stride over the rest).
inline unsigned row_grid(int64_t rows, int dev) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(rows, int64_t(sm_count(dev)) * 32)));
}

}  // namespace ember::cuda_detail
