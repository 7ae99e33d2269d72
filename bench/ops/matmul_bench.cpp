// matmul rows of ember_bench_ops: square 256..4096 and the MNIST linear layer per device,
// with FLOP/s (2 n^3 per product). The ceiling on the CPU is Eigen's own float32 GEMM,
// called directly at 2048^2 (eigen_gemm/cpu/2048/threads:<n>): Ember's matmul maps the same
// product over its buffers, so matmul/cpu/2048/threads:<n> should come within a few percent.
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include "bench/common/bench_devices.h"

namespace {
using namespace ember;
using bench::report_rate;
using bench::timed_loop;

double gemm_flops(int64_t m, int64_t k, int64_t n) { return 2.0 * static_cast<double>(m) * k * n; }

void BM_Matmul(benchmark::State& state, Device d, int64_t n, int threads) {
  manual_seed(0);
  Tensor a = randn({n, n}, d), b = randn({n, n}, d);
  const double s = timed_loop(state, d, threads, [&] { benchmark::DoNotOptimize(matmul(a, b)); });
  report_rate(state, "FLOP/s", gemm_flops(n, n, n), s);
}

// y = x W^T + b at the tutorial CNN's classifier: batch 64, 320 -> 10.
void BM_LinearMnist(benchmark::State& state, Device d) {
  manual_seed(0);
  Tensor x = randn({64, 320}, d), w = randn({10, 320}, d), b = randn({10}, d);
  const double s = timed_loop(state, d, 1, [&] { benchmark::DoNotOptimize(linear(x, w, b)); });
  report_rate(state, "FLOP/s", gemm_flops(64, 320, 10), s);
}

void BM_EigenGemm(benchmark::State& state, int64_t n, int threads) {
  Eigen::setNbThreads(threads);
  Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n), b = Eigen::MatrixXf::Random(n, n), c(n, n);
  const double s = timed_loop(state, Device::cpu(), 1, [&] {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  });
  report_rate(state, "FLOP/s", gemm_flops(n, n, n), s);
  Eigen::setNbThreads(1);
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
  }
  return true;
}();

}  // namespace
