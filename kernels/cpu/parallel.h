#pragma once
// parallel_for over [0, n) in contiguous chunks; small ranges stay on the calling thread,
// so tiny ops pay no thread start-up. An exception thrown by f reaches the caller.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>

#include "ember/core/threads.h"

namespace ember {

constexpr int64_t kParallelGrain = 32768;

template <class F>
void parallel_for(int64_t n, int64_t grain, const F& f) {
  const int threads = get_num_threads();
  if (n <= grain || threads <= 1) {
    if (n > 0) f(int64_t(0), n);
    return;
  }
  const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
  // An exception must not leave an OpenMP region (that terminates the process): the first
  // one is kept and rethrown on the calling thread once every thread is done.
  std::exception_ptr error;
#pragma omp parallel num_threads(static_cast<int>(chunks))
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
    try {
      if (lo < hi) f(lo, hi);
    } catch (...) {
#pragma omp critical(ember_parallel_for_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace ember
