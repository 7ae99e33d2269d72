#pragma once
// Buffers the CPU convolutions keep between calls, short row copies, and the zero-bordered
// copy of a sample that the padded routes read. Internal to kernels/cpu.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ember/core/checked_math.h"
#include "ember/core/error.h"
#include "ember/core/storage.h"
#include "ember/core/threads.h"
#include "ember/kernels/cpu/conv/conv_scratch.h"
#include "ember/kernels/cpu/parallel.h"
#include "ember/kernels/cpu/simd.h"

namespace ember::cpu {

/// n elements of T that outlive the call, per thread and slot (conv_scratch.h says how long):
/// a training step allocates nothing here. A buffer can grow with the padding while the output
/// stays small: it obeys the allocation limit as tensors do, and a failed allocation is a typed
/// error.
template <class T>
T* conv_scratch(ConvSlot slot, int64_t n) {
  const size_t bytes = static_cast<size_t>(checked_mul(n, sizeof(T), "conv2d"));
  const size_t limit = allocation_limit();
  if (limit != 0 && bytes > limit)
    raise<OutOfMemoryError>("conv2d: a scratch buffer of ", bytes, " bytes exceeds the limit of ", limit,
                            " bytes set by set_allocation_limit");
  void* p = conv_scratch_bytes(slot, bytes);
  if (!p && bytes != 0)
    raise<OutOfMemoryError>("conv2d: CPU allocation of a ", bytes, "-byte scratch buffer failed");
  return static_cast<T*>(p);
}

// One AVX register of T (the scalar model without AVX2), so a run moves with single 32-byte
// loads and stores: a 32-byte memcpy is expanded as two 16-byte moves under -mtune=znver3, and
// rows here are often one register long.
template <class T>
using RunLanes = simd::Lanes<T, EMBER_SIMD_AVX2 ? 32 / static_cast<int>(sizeof(T)) : 1>;
// Elements of T in one RunLanes register.
template <class T>
constexpr int64_t kRunLanes = RunLanes<T>::kWidth;

template <class T>
inline void copy_vec(T* d, const T* s) {
  RunLanes<T>::store(d, RunLanes<T>::load(s));
}

/// d[0, n) = s[0, n) for a short run (an output row): whole registers, the last one
// overlapping its predecessor, rather than a memcpy call or a loop with a scalar tail.
template <class T>
inline void copy_run(T* d, const T* s, int64_t n) {
  constexpr int64_t V = kRunLanes<T>;
  if (n < V) {
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
    return;
  }
  int64_t i = 0;
  for (; i + V <= n; i += V) copy_vec(d + i, s + i);
  if (i < n) copy_vec(d + n - V, s + n - V);
}

/// d[i] = s[2 i] for i in [0, n): a stride-2 layer's row (the small ResNet's downsampling
/// convolutions), a register of outputs from two loads and one shuffle rather than one element
// at a time. The second load starts one element early, so that no chunk reads past s[2 n - 2]
// (its odd lanes are the even columns); a row of fewer than one register goes one at a time,
// and the last chunk is moved back to end at n, overlapping its predecessor.
template <class T>
inline void copy_even(T* d, const T* s, int64_t n) {
#if EMBER_SIMD_AVX2
  using R = RunLanes<T>;
  constexpr int64_t V = R::kWidth;
  if (n >= V) {
    for (int64_t i = 0; i < n; i += V) {
      const int64_t at = std::min(i, n - V);
      R::store(d + at, R::template every_other<0, 1>(R::load(s + 2 * at), R::load(s + 2 * at + V - 1)));
    }
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i) d[i] = s[2 * i];
}

/// d[2 i] = a[i], d[2 i + 1] = b[i] for i in [0, n): two phases of a stride-2 layer's input
/// gradient row merged, a register of each at a time (two shuffles, two stores).
template <class T>
inline void zip_run(T* d, const T* a, const T* b, int64_t n) {
  int64_t i = 0;
#if EMBER_SIMD_AVX2
  using R = RunLanes<T>;
  constexpr int64_t V = R::kWidth;
  for (; i + V <= n; i += V) {
    const typename R::V va = R::load(a + i), vb = R::load(b + i);
    R::store(d + 2 * i, R::zip_low(va, vb));
    R::store(d + 2 * i + V, R::zip_high(va, vb));
  }
#endif
  for (; i < n; ++i) d[2 * i] = a[i], d[2 * i + 1] = b[i];
}

/// d[0, n) = 0 for a short run (a border, a row's padding): whole registers, the last one
/// overlapping, and below one register stores of 4, 2 and 1 elements. std::fill and plain
/// loops become a memset call, whose cost for the one or two elements of a padded row's
/// border was most of the padded copy's time.
template <class T>
inline void zero_run(T* d, int64_t n) {
  using R = RunLanes<T>;
  constexpr int64_t V = R::kWidth;
  if (n >= V) {
    int64_t i = 0;
    for (; i + V <= n; i += V) R::store(d + i, R::zero());
    if (i < n) R::store(d + n - V, R::zero());
    return;
  }
  const T zeros[4] = {};
  int64_t i = 0;
  if (n & 4) std::memcpy(d + i, zeros, 4 * sizeof(T)), i += 4;
  if (n & 2) std::memcpy(d + i, zeros, 2 * sizeof(T)), i += 2;
  if (n & 1) d[i] = T(0);
}

/// xp[C, Hp, Wp] = x[C, H, W] at row `top` and column `left` inside a zero border (only the
/// border is zeroed); Hp >= top + H, Wp >= left + W.
template <class T>
void pad_sample(const T* x, T* xp, int64_t C, int64_t H, int64_t W, int64_t top, int64_t left, int64_t Hp,
                int64_t Wp) {
  for (int64_t c = 0; c < C; ++c) {
    T* plane = xp + c * Hp * Wp;
    zero_run(plane, top * Wp + left);
    for (int64_t h = 0; h < H; ++h) {
      T* row = plane + (h + top) * Wp + left;
      copy_run(row, x + (c * H + h) * W, W);
      // The right border of this row and the left border of the next are adjacent.
      zero_run(row + W, h + 1 < H ? Wp - W : Wp - W - left);
    }
    T* end = plane + (H + top) * Wp;
    zero_run(end, plane + Hp * Wp - end);
  }
}

/// xp[C, H + 2 ph, W + 2 pw] = x[C, H, W] inside a zero border of ph rows and pw columns.
template <class T>
void pad_sample(const T* x, T* xp, int64_t C, int64_t H, int64_t W, int64_t ph, int64_t pw) {
  pad_sample(x, xp, C, H, W, ph, pw, H + 2 * ph, W + 2 * pw);
}

/// The sum over samples n in [0, N) of what per_sample(n, acc) adds into acc (per_part elements):
/// samples run in parallel, in runs that each sum into their own zeroed accumulator, and the
/// runs' accumulators are added in run order, so a given thread count always gives the same
/// bits. Returns the sum, in the calling thread's kConvPartials buffer. (The weight gradients.)
template <class T, class F>
const T* sum_over_samples(int64_t N, int64_t per_part, const F& per_sample) {
  const int threads = get_num_threads();
  const int64_t parts =
      threads == 1 ? 1 : std::max<int64_t>(1, std::min<int64_t>(threads * kRangesPerThread, N));
  T* partials = conv_scratch<T>(kConvPartials, checked_mul(parts, per_part, "conv2d"));
  std::fill(partials, partials + parts * per_part, T(0));
  parallel_for(parts, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t part = lo; part < hi; ++part)
      for (int64_t n = part * N / parts; n < (part + 1) * N / parts; ++n)
        per_sample(n, partials + part * per_part);
  });
  for (int64_t part = 1; part < parts; ++part)
    for (int64_t i = 0; i < per_part; ++i) partials[i] += partials[part * per_part + i];
  return partials;
}

}  // namespace ember::cpu
