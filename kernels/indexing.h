#pragma once
// Broadcast/stride -> offset arithmetic shared by the CPU loops and the CUDA kernels
// (DESIGN.md, "Index math shared with tests"). The CPU tests exercise it directly.
#include <array>
#include <cstdint>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/shape.h"
#include "ember/kernels/hd.h"

namespace ember {

constexpr int kMaxDims = 12;

/// Maps a linear (row-major) index over `sizes` to element offsets of N operands, each with
/// its own strides (0 where broadcast). Dims are stored innermost first.
template <int N>
struct OffsetCalculator {
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[N][kMaxDims] = {};

  EMBER_HD_INLINE void get(int64_t linear, int64_t (&out)[N]) const {
    for (int k = 0; k < N; ++k) out[k] = 0;
    for (int d = 0; d < ndim; ++d) {
      const int64_t idx = linear % sizes[d];
      linear /= sizes[d];
      for (int k = 0; k < N; ++k) out[k] += idx * strides[k][d];
    }
  }
};

/// Builds an OffsetCalculator from a row-major shape and each operand's strides, merging
/// dims that are contiguous for every operand and dropping size-1 dims. Returns false when
/// more than kMaxDims dims remain.
template <int N>
bool make_offset_calculator(const std::vector<int64_t>& shape,
                            const std::array<const std::vector<int64_t>*, N>& strides,
                            OffsetCalculator<N>& calc) {
  calc.ndim = 0;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    const int64_t size = shape[static_cast<size_t>(d)];
    if (size == 1) continue;
    if (calc.ndim > 0) {
      // Merge into the previous (inner) dim when, for every operand, stepping this dim
      // equals stepping over the whole inner dim.
      bool mergeable = true;
      const int in = calc.ndim - 1;
      for (int k = 0; k < N && mergeable; ++k)
        mergeable = (*strides[k])[static_cast<size_t>(d)] == calc.strides[k][in] * calc.sizes[in];
      if (mergeable) {
        calc.sizes[in] *= size;
        continue;
      }
    }
    if (calc.ndim == kMaxDims) return false;
    calc.sizes[calc.ndim] = size;
    for (int k = 0; k < N; ++k) calc.strides[k][calc.ndim] = (*strides[k])[static_cast<size_t>(d)];
    ++calc.ndim;
  }
  return true;
}

/// make_offset_calculator for kernels' launchers: ValueError when the operands keep more
/// than kMaxDims dims that cannot be merged.
template <int N>
OffsetCalculator<N> plan_offsets(const std::vector<int64_t>& shape,
                                 const std::array<const std::vector<int64_t>*, N>& strides) {
  OffsetCalculator<N> calc;
  if (!make_offset_calculator<N>(shape, strides, calc))
    raise<ValueError>("tensor of shape ", shape_str(shape), " has more than ", kMaxDims,
                      " non-mergeable dims");
  return calc;
}

}  // namespace ember
