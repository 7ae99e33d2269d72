// conv2d and max_pool2d through the front-ends on each CUDA device present (cuDNN), at the
// tutorial CNN's shapes (batch 64: conv 1->10 k5 on 28x28, conv 10->20 k5 on 12x12, 2x2
// pools); conv_bench.cpp measures the same shapes on the CPU backend. Rows:
// conv2d_fwd_bwd/<device>/<layer> (forward, then the gradients of input, weight and bias)
// and max_pool2d_fwd_bwd/<device>/<layer>. The first call (cuDNN's algorithm search, handles,
// the allocator's cache) runs before timing; the device is synchronised after the loop.
#include <benchmark/benchmark.h>

#include <string>

#include "ember/ember.h"

namespace {

using namespace ember;

struct Layer {
  int64_t C, Co, H, k;
};
constexpr int64_t kBatch = 64;
constexpr Layer kLayers[] = {{1, 10, 28, 5}, {10, 20, 12, 5}};

void BM_CudaConv2dFwdBwd(benchmark::State& state, Device d) {
  const Layer l = kLayers[state.range(0)];
  const int64_t Ho = l.H - l.k + 1;
  manual_seed(0);
  Tensor x = randn({kBatch, l.C, l.H, l.H}, d).requires_grad_(true);
  Tensor w = randn({l.Co, l.C, l.k, l.k}, d).requires_grad_(true);
  Tensor b = randn({l.Co}, d).requires_grad_(true);
  const Tensor g = randn({kBatch, l.Co, Ho, Ho}, d);
  auto step = [&] {
    for (Tensor* t : {&x, &w, &b}) t->set_grad(Tensor());
    conv2d(x, w, b).backward(g);
  };
  step();
  cuda::synchronize();
  for (auto _ : state) step();
  cuda::synchronize();
  const double flops = 3 * 2.0 * kBatch * l.Co * Ho * Ho * l.C * l.k * l.k;
  state.counters["FLOP/s"] = benchmark::Counter(flops * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_CudaMaxPool2dFwdBwd(benchmark::State& state, Device d) {
  const Layer l = kLayers[state.range(0)];
  const int64_t Ho = l.H - l.k + 1;
  manual_seed(0);
  Tensor x = randn({kBatch, l.Co, Ho, Ho}, d).requires_grad_(true);
  const Tensor g = randn({kBatch, l.Co, Ho / 2, Ho / 2}, d);
  auto step = [&] {
    x.set_grad(Tensor());
    max_pool2d(x, 2).backward(g);
  };
  step();
  cuda::synchronize();
  for (auto _ : state) step();
  cuda::synchronize();
  state.SetBytesProcessed(state.iterations() * kBatch * l.Co * Ho * Ho * 4 * 2);
}

const bool registered = [] {
  for (int i = 0; i < cuda::device_count(); ++i) {
    const Device d = Device::cuda(i);
    benchmark::RegisterBenchmark(("conv2d_fwd_bwd/" + d.str()).c_str(), BM_CudaConv2dFwdBwd, d)->Arg(0)->Arg(1);
    benchmark::RegisterBenchmark(("max_pool2d_fwd_bwd/" + d.str()).c_str(), BM_CudaMaxPool2dFwdBwd, d)
        ->Arg(0)
        ->Arg(1);
  }
  return true;
}();

}  // namespace
