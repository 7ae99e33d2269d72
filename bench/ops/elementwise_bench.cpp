// Elementwise, reduction, softmax + cross-entropy and dispatch-overhead rows of
// ember_bench_ops, per device present. Counters report bytes/s (memory-bound ops).
#include <benchmark/benchmark.h>

#include "ember/ember.h"

namespace {
using namespace ember;

std::vector<Device> devices() {
  std::vector<Device> d{Device::cpu()};
  if (cuda::is_available()) d.push_back(Device::cuda(0));
  return d;
}

void sync(Device d) {
  if (d.is_cuda()) cuda::synchronize();
}

// The cost of one op call on tiny tensors: validation, allocation, dispatch.
void BM_DispatchAdd1(benchmark::State& state, Device d) {
  Tensor a = ones({1}, d), b = ones({1}, d);
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
  sync(d);
}

void BM_Add(benchmark::State& state, Device d) {
  const int64_t n = state.range(0);
  manual_seed(0);
  Tensor a = randn({n}, d), b = randn({n}, d);
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
  sync(d);
  state.SetBytesProcessed(state.iterations() * n * 3 * 4);
}

void BM_Relu(benchmark::State& state, Device d) {
  const int64_t n = state.range(0);
  manual_seed(0);
  Tensor a = randn({n}, d);
  for (auto _ : state) benchmark::DoNotOptimize(relu(a));
  sync(d);
  state.SetBytesProcessed(state.iterations() * n * 2 * 4);
}

void BM_Sum(benchmark::State& state, Device d) {
  const int64_t n = state.range(0);
  manual_seed(0);
  Tensor a = randn({n}, d);
  for (auto _ : state) benchmark::DoNotOptimize(a.sum().item<float>());
  state.SetBytesProcessed(state.iterations() * n * 4);
}

void BM_SoftmaxCrossEntropy(benchmark::State& state, Device d) {
  const int64_t n = state.range(0), c = state.range(1);
  manual_seed(0);
  Tensor logits = randn({n, c}, d).requires_grad_(true);
  Tensor target = randint(0, c, {n}).to(d);
  for (auto _ : state) {
    Tensor loss = cross_entropy(logits, target);
    loss.backward();
    logits.set_grad(Tensor());
  }
  sync(d);
  state.SetBytesProcessed(state.iterations() * n * c * 4 * 3);
}

void BM_Matmul(benchmark::State& state, Device d) {
  const int64_t n = state.range(0);
  manual_seed(0);
  Tensor a = randn({n, n}, d), b = randn({n, n}, d);
  for (auto _ : state) benchmark::DoNotOptimize(matmul(a, b));
  sync(d);
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * n * n * n * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_LinearMnist(benchmark::State& state, Device d) {
  manual_seed(0);
  Tensor x = randn({64, 320}, d), w = randn({10, 320}, d), b = randn({10}, d);
  for (auto _ : state) benchmark::DoNotOptimize(linear(x, w, b));
  sync(d);
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * 64 * 320 * 10 * state.iterations(), benchmark::Counter::kIsRate);
}

const bool registered = [] {
  for (Device d : devices()) {
    const std::string dev = d.str();
    benchmark::RegisterBenchmark(("dispatch_add_1elem/" + dev).c_str(), BM_DispatchAdd1, d);
    benchmark::RegisterBenchmark(("add/" + dev).c_str(), BM_Add, d)->Arg(1 << 24);
    benchmark::RegisterBenchmark(("relu/" + dev).c_str(), BM_Relu, d)->Arg(1 << 24);
    benchmark::RegisterBenchmark(("sum/" + dev).c_str(), BM_Sum, d)->Arg(1 << 24);
    benchmark::RegisterBenchmark(("softmax_cross_entropy/" + dev).c_str(), BM_SoftmaxCrossEntropy, d)
        ->Args({4096, 1000});
    auto* mm = benchmark::RegisterBenchmark(("matmul/" + dev).c_str(), BM_Matmul, d);
    for (int n : {256, 512, 1024, 2048, 4096}) mm->Arg(n);
    mm->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("linear_mnist/" + dev).c_str(), BM_LinearMnist, d);
  }
  return true;
}();

}  // namespace
