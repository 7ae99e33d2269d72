// The LibTorch rows' timing: as Ember's bench::timed_loop (warmed up once, wall clock), with
// the thread count set through torch and items_per_second computed from wall time.
#pragma once

#include <benchmark/benchmark.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <chrono>

namespace ember::bench {

template <class Body>
double libtorch_timed(benchmark::State& state, int threads, double items, Body&& body) {
  state.SetLabel("LibTorch " TORCH_VERSION);
  torch::set_num_threads(threads);
  body();
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) body();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  state.counters["items_per_second"] = items * static_cast<double>(state.iterations()) / s;
  return s;
}

}  // namespace ember::bench
