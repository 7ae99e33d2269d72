#pragma once
// Broadcast/stride -> offset arithmetic shared by the CPU loops and the CUDA kernels
// (docs/DESIGN.md, "Index math shared with tests"). The CPU tests exercise it directly.
#include <array>
#include <cstdint>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/shape.h"
#include "ember/kernels/hd.h"
#include "ember/kernels/int_divider.h"

namespace ember {

constexpr int kMaxDims = 12;

/// Maps a linear (row-major) index over `sizes` to element offsets of N operands, each with
/// its own strides (0 where broadcast). Dims are stored innermost first. When every linear
/// index fits in 32 bits (see plan_divisions), the per-dim division runs on 32-bit IntDividers
/// instead of 64-bit div/mod; the offsets stay 64-bit (strides may be large even when the
/// index space is small).
template <int N>
struct OffsetCalculator {
  int ndim = 0;
  bool fast = false;  // use div32; set by plan_divisions, false for a hand-built calculator
  int64_t sizes[kMaxDims] = {};
  int64_t strides[N][kMaxDims] = {};
  IntDivider div32[kMaxDims] = {};

  /// Chooses the 32-bit path when the sizes' product is at most 2^32 (every linear index and
  /// every quotient then fits in uint32) and each size is a divisor IntDivider supports.
  /// Call again after editing sizes or ndim.
  void plan_divisions() {
    uint64_t product = 1;
    fast = true;
    for (int d = 0; d < ndim && fast; ++d) {
      fast = sizes[d] >= 1 && static_cast<uint64_t>(sizes[d]) <= kMaxFastDivisor &&
             product * static_cast<uint64_t>(sizes[d]) <= (uint64_t(1) << 32);
      if (fast) {
        product *= static_cast<uint64_t>(sizes[d]);
        div32[d] = IntDivider(static_cast<uint32_t>(sizes[d]));
      }
    }
  }

  /// Offsets of linear, which must be below the product of sizes.
  EMBER_HD_INLINE void get(int64_t linear, int64_t (&out)[N]) const {
    if (!fast) {
      get_wide(linear, out);
      return;
    }
    for (int k = 0; k < N; ++k) out[k] = 0;
    uint32_t rest = static_cast<uint32_t>(linear);
    for (int d = 0; d < ndim; ++d) {
      const uint32_t q = div32[d].div(rest);
      const int64_t idx = rest - q * div32[d].divisor;
      rest = q;
      for (int k = 0; k < N; ++k) out[k] += idx * strides[k][d];
    }
  }

  /// get with 64-bit division, for index spaces beyond 32 bits.
  EMBER_HD_INLINE void get_wide(int64_t linear, int64_t (&out)[N]) const {
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
  calc.plan_divisions();
  return true;
}

/// The calculator of the dims above the innermost one (the CPU loops' rows, whose
/// innermost dim runs as a plain loop), its divisions re-planned.
template <int N>
OffsetCalculator<N> drop_innermost(OffsetCalculator<N> c) {
  if (c.ndim == 0) return c;
  for (int d = 1; d < c.ndim; ++d) {
    c.sizes[d - 1] = c.sizes[d];
    for (int k = 0; k < N; ++k) c.strides[k][d - 1] = c.strides[k][d];
  }
  --c.ndim;
  c.plan_divisions();
  return c;
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
