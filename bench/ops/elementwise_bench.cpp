// Elementwise, reduction, softmax + cross-entropy and dispatch-overhead rows of
// ember_bench_ops, per device present, at one CPU thread. These ops are memory-bound, so the
// counter is bytes moved per second (each input read once, the output written once).
#include <benchmark/benchmark.h>

#include "bench/common/bench_devices.h"

namespace {
using namespace ember;
using bench::report_rate;
using bench::timed_loop;

constexpr int64_t kLarge = int64_t{1} << 24;  // 64 MiB of float32: far beyond the caches

// The cost of one op call on tiny tensors: validation, allocation, dispatch.
void BM_DispatchAdd1(benchmark::State& state, Device d) {
  Tensor a = ones({1}, d), b = ones({1}, d);
  timed_loop(state, d, 1, [&] { benchmark::DoNotOptimize(a + b); });
}

void BM_Add(benchmark::State& state, Device d) {
  manual_seed(0);
  Tensor a = randn({kLarge}, d), b = randn({kLarge}, d);
  const double s = timed_loop(state, d, 1, [&] { benchmark::DoNotOptimize(a + b); });
  report_rate(state, "bytes_per_second", 3.0 * 4 * kLarge, s);
}

void BM_Relu(benchmark::State& state, Device d) {
  manual_seed(0);
  Tensor a = randn({kLarge}, d);
  const double s = timed_loop(state, d, 1, [&] { benchmark::DoNotOptimize(relu(a)); });
  report_rate(state, "bytes_per_second", 2.0 * 4 * kLarge, s);
}

// item() brings the scalar to the host, as a loss printed every step would.
void BM_Sum(benchmark::State& state, Device d) {
  manual_seed(0);
  Tensor a = randn({kLarge}, d);
  const double s = timed_loop(state, d, 1, [&] { benchmark::DoNotOptimize(a.sum().item<float>()); });
  report_rate(state, "bytes_per_second", 4.0 * kLarge, s);
}

// Forward and backward of the fused loss: logits read twice, their gradient written once.
void BM_SoftmaxCrossEntropy(benchmark::State& state, Device d, int64_t n, int64_t c) {
  manual_seed(0);
  Tensor logits = randn({n, c}, d).requires_grad_(true);
  Tensor target = randint(0, c, {n}).to(d);
  const double s = timed_loop(state, d, 1, [&] {
    cross_entropy(logits, target).backward();
    logits.set_grad(Tensor());
  });
  report_rate(state, "bytes_per_second", 3.0 * 4 * n * c, s);
}

const bool registered = [] {
  for (Device d : bench::devices()) {
    const std::string dev = "/" + d.str();
    const std::string large = dev + "/" + std::to_string(kLarge);
    benchmark::RegisterBenchmark(("dispatch_add_1elem" + dev).c_str(), BM_DispatchAdd1, d);
    benchmark::RegisterBenchmark(("add" + large).c_str(), BM_Add, d);
    benchmark::RegisterBenchmark(("relu" + large).c_str(), BM_Relu, d);
    benchmark::RegisterBenchmark(("sum" + large).c_str(), BM_Sum, d);
    benchmark::RegisterBenchmark(("softmax_cross_entropy" + dev + "/4096/1000").c_str(),
                                 BM_SoftmaxCrossEntropy, d, 4096, 1000);
  }
  return true;
}();

}  // namespace
