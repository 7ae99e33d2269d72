// The GEMM ceiling on this machine: Eigen's float32 product called directly, and Ember's
// matmul (which maps the same Eigen product over its buffers), at 2048^2, 1 and 2 threads.
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include "ember/ember.h"

namespace {

double gemm_flops(int64_t n) { return 2.0 * static_cast<double>(n) * n * n; }

void report(benchmark::State& state, int64_t n) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(gemm_flops(n) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_EigenGemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  Eigen::setNbThreads(static_cast<int>(state.range(1)));
  Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n), b = Eigen::MatrixXf::Random(n, n), c(n, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  report(state, n);
  Eigen::setNbThreads(1);
}

void BM_EmberMatmul(benchmark::State& state) {
  const int64_t n = state.range(0);
  ember::set_num_threads(static_cast<int>(state.range(1)));
  ember::manual_seed(0);
  ember::Tensor a = ember::randn({n, n}), b = ember::randn({n, n});
  for (auto _ : state) benchmark::DoNotOptimize(ember::matmul(a, b).raw_data());
  report(state, n);
  ember::set_num_threads(1);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "threads"})->UseRealTime()->Unit(benchmark::kMillisecond);
  for (int64_t threads : {1, 2}) b->Args({2048, threads});
}

BENCHMARK(BM_EigenGemm)->Apply(sizes);
BENCHMARK(BM_EmberMatmul)->Apply(sizes);

}  // namespace
