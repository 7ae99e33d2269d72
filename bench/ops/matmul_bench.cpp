// matmul rows of ember_bench_ops: square 256..4096 and the MNIST linear layer per device,
// with FLOP/s (2 n^3 per product). The ceiling on the CPU is Eigen's own float32 GEMM,
// called directly at 2048^2 (eigen_gemm/cpu/2048/threads:<n>): Ember's matmul maps the same
// product over its buffers, so matmul/cpu/2048/threads:<n> should come within a few percent;
// matmul_over_eigen/cpu/2048/threads:<n> measures that ratio with the calls paired.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <vector>

#include "bench/common/bench_devices.h"

namespace {
using namespace ember;
using bench::report_rate;
using bench::timed_loop;

double gemm_flops(int64_t m, int64_t k, int64_t n) { return 2.0 * static_cast<double>(m) * k * n; }

// This binary alone is compiled with OpenMP, and an inline Eigen function it instantiates may
// stand in at link time for libember's copy (built with EIGEN_DONT_PARALLELIZE): Eigen runs on
// one thread outside the eigen rows, which set their own count and put this back.
[[maybe_unused]] const bool kEigenOneThread = [] {
  Eigen::setNbThreads(1);
  return true;
}();

void BM_Matmul(benchmark::State &state, Device d, int64_t n, int threads) {
  manual_seed(0);
  Tensor a = randn({n, n}, d), b = randn({n, n}, d);
  const double s = timed_loop(state, d, threads, [&] { benchmark::DoNotOptimize(matmul(a, b)); });
  report_rate(state, "FLOP/s", gemm_flops(n, n, n), s);
}

// y = x W^T + b at the tutorial CNN's classifier: batch 64, 320 -> 10.
void BM_LinearMnist(benchmark::State &state, Device d) {
  manual_seed(0);
  Tensor x = randn({64, 320}, d), w = randn({10, 320}, d), b = randn({10}, d);
  const double s = timed_loop(state, d, 1, [&] { benchmark::DoNotOptimize(linear(x, w, b)); });
  report_rate(state, "FLOP/s", gemm_flops(64, 320, 10), s);
}

void BM_EigenGemm(benchmark::State &state, int64_t n, int threads) {
  Eigen::setNbThreads(threads);
  Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n), b = Eigen::MatrixXf::Random(n, n), c(n, n);
  const double s = timed_loop(state, Device::cpu(), 1, [&] {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  });
  report_rate(state, "FLOP/s", gemm_flops(n, n, n), s);
  Eigen::setNbThreads(1);
}

// Ember's matmul and Eigen's product on the same operands, alternated call by call in one
// loop: on a small shared machine throughput drifts by tens of percent within seconds, and
// pairing the calls cancels that drift out of the ratio (seven pairs per iteration).
// Counters: the median time of each side and the median of the per-pair ratios (Ember /
// Eigen).
void BM_MatmulOverEigen(benchmark::State &state, int64_t n, int threads) {
  manual_seed(0);
  Tensor a = randn({n, n}), b = randn({n, n});
  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const RowMajor> ea(a.data_ptr<float>(), n, n), eb(b.data_ptr<float>(), n, n);
  RowMajor ec(n, n);
  std::vector<double> ours, eigen, ratio;
  auto seconds = [](auto &&f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  set_num_threads(threads);
  Eigen::setNbThreads(threads);
  constexpr int kPairsPerIteration = 7;
  for (auto _ : state)
    for (int pair = 0; pair < kPairsPerIteration; ++pair) {
      ours.push_back(seconds([&] { benchmark::DoNotOptimize(matmul(a, b)); }));
      eigen.push_back(seconds([&] {
        ec.noalias() = ea * eb;
        benchmark::DoNotOptimize(ec.data());
      }));
      ratio.push_back(ours.back() / eigen.back());
    }
  set_num_threads(1);
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  state.counters["ember_ms"] = median(ours) * 1e3;
  state.counters["eigen_ms"] = median(eigen) * 1e3;
  state.counters["ratio"] = median(ratio);
}

const bool registered = [] {
  for (Device d : bench::devices()) {
    const std::string dev = "/" + d.str();
    for (int64_t n : {256, 512, 1024, 2048, 4096}) {
      if (d.is_cpu() && n == 2048) continue;  // measured below beside Eigen, at 1 and 2 threads
      benchmark::RegisterBenchmark(("matmul" + dev + "/" + std::to_string(n)).c_str(), BM_Matmul, d, n, 1)
          ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark(("linear_mnist" + dev).c_str(), BM_LinearMnist, d);
  }
  for (int threads : {1, 2}) {
    const std::string suffix = "/cpu/2048" + bench::threads_suffix(threads);
    benchmark::RegisterBenchmark(("eigen_gemm" + suffix).c_str(), BM_EigenGemm, 2048, threads)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("matmul" + suffix).c_str(), BM_Matmul, Device::cpu(), 2048, threads)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("matmul_over_eigen" + suffix).c_str(), BM_MatmulOverEigen, 2048, threads)
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
