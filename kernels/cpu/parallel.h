#pragma once
// parallel_for over [0, n) in contiguous ranges of at least `grain` elements; small ranges
// stay on the calling thread, so tiny ops pay no thread hand-off. An exception thrown by f
// reaches the caller. The work runs on Ember's own pool (thread_pool.h).
#include <algorithm>
#include <cstdint>

#include "ember/kernels/cpu/thread_pool.h"

namespace ember {

constexpr int64_t kParallelGrain = 32768;

// Multiply-adds a GEMM's parallel task takes on at least (matmul, linear, attention's blocks):
// about 6 us of one core (sgemm at 45G multiply-adds/s), well above the cost of handing a task
// to a worker that is awake. It was 1M: at 48 tokens a linear's output was cut in two halves,
// and a worker that started late left the caller waiting on the second; in more, smaller
// tasks the caller takes what the worker has not claimed yet.
constexpr int64_t kMinTaskMacs = int64_t(1) << 18;

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
