#pragma once
// parallel_for over [0, n) in contiguous ranges of at least `grain` elements; small ranges
// stay on the calling thread, so tiny ops pay no thread hand-off. An exception thrown by f
// reaches the caller. The work runs on Ember's own pool (thread_pool.h).
#include <algorithm>
#include <cstdint>

#include "ember/kernels/cpu/thread_pool.h"

namespace ember {

constexpr int64_t kParallelGrain = 32768;

// Ranges per thread: more than one, so that when a thread loses its core to another process
// the others take over its unclaimed ranges.
constexpr int64_t kRangesPerThread = 4;

template <class F>
void parallel_for(int64_t n, int64_t grain, const F& f) {
  grain = std::max<int64_t>(grain, 1);
  const int width = cpu::parallel_width();
  if (n <= grain || width <= 1) {
    if (n > 0) f(int64_t(0), n);
    return;
  }
  struct Context {
    const F& f;
    int64_t n, ranges;
  } ctx{f, n, std::min<int64_t>(width * kRangesPerThread, n / grain)};
  cpu::run_parallel(
      ctx.ranges,
      [](const void* c, int64_t t) {
        const auto& x = *static_cast<const Context*>(c);
        const int64_t lo = x.n * t / x.ranges, hi = x.n * (t + 1) / x.ranges;
        if (lo < hi) x.f(lo, hi);
      },
      &ctx);
}

}  // namespace ember
