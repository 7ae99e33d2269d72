// conv2d and max_pool2d on the CPU at the tutorial CNN's shapes (batch 64: conv 1->10 k5 on
// 28x28, conv 10->20 k5 on 12x12, 2x2 max pools after each), one row per direction, at 1
// and 2 threads. FLOPs are 2 * N * C_out * H_out * W_out * C_in * kH * kW per direction;
// compare with PyTorch's at the same thread count (torch.set_num_threads).
#include <benchmark/benchmark.h>

#include "ember/ember.h"
#include "ember/kernels/cpu/cpu_backend.h"

namespace {

using namespace ember;

struct Layer {
  int64_t C, Co, H, k;
};
constexpr int64_t kBatch = 64;
constexpr Layer kLayers[] = {{1, 10, 28, 5}, {10, 20, 12, 5}};

struct ConvCase {
  Tensor x, w, b, out, grad_out, grad_x, grad_w, grad_b;
  Conv2dParams p;
  double flops;
  explicit ConvCase(const Layer& l) {
    manual_seed(0);
    const int64_t Ho = l.H - l.k + 1;
    x = randn({kBatch, l.C, l.H, l.H});
    w = randn({l.Co, l.C, l.k, l.k});
    b = randn({l.Co});
    out = empty({kBatch, l.Co, Ho, Ho});
    grad_out = randn(out.shape());
    grad_x = empty(x.shape());
    grad_w = empty(w.shape());
    grad_b = empty(b.shape());
    flops = 2.0 * kBatch * l.Co * Ho * Ho * l.C * l.k * l.k;
  }
};

// Runs body at state.range(1) threads, reporting GFLOP/s for `flops` per iteration.
template <class Body>
void run(benchmark::State& state, double flops, const Body& body) {
  set_num_threads(static_cast<int>(state.range(1)));
  body();  // warm the per-thread buffers
  for (auto _ : state) body();
  if (flops > 0)
    state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  set_num_threads(1);
}

void BM_Conv2dForward(benchmark::State& state) {
  ConvCase c(kLayers[state.range(0)]);
  run(state, c.flops, [&] { cpu_backend().conv2d(c.out, c.x, c.w, c.b, c.p); });
}

void BM_Conv2dBackwardInput(benchmark::State& state) {
  ConvCase c(kLayers[state.range(0)]);
  run(state, c.flops, [&] { cpu_backend().conv2d_backward_input(c.grad_x, c.grad_out, c.w, c.p); });
}

void BM_Conv2dBackwardWeight(benchmark::State& state) {
  ConvCase c(kLayers[state.range(0)]);
  run(state, c.flops,
      [&] { cpu_backend().conv2d_backward_weight(c.grad_w, c.grad_b, c.grad_out, c.x, c.p); });
}

// Forward and backward through autograd, as a training step runs them (the first layer's
// input needs no gradient).
void BM_Conv2dTrainStep(benchmark::State& state) {
  const Layer& l = kLayers[state.range(0)];
  ConvCase c(l);
  Tensor x = state.range(0) == 0 ? c.x : c.x.clone().requires_grad_(true);
  Tensor w = c.w.clone().requires_grad_(true), b = c.b.clone().requires_grad_(true);
  const double passes = state.range(0) == 0 ? 2 : 3;
  run(state, passes * c.flops, [&] { conv2d(x, w, b).backward(c.grad_out); });
}

struct PoolCase {
  Tensor x, out, indices, grad_out, grad_x;
  Pool2dParams p;
  explicit PoolCase(const Layer& l) {
    manual_seed(0);
    const int64_t H = l.H - l.k + 1;
    x = randn({kBatch, l.Co, H, H});
    out = empty({kBatch, l.Co, H / 2, H / 2});
    indices = empty(out.shape(), kInt64);
    grad_out = randn(out.shape());
    grad_x = empty(x.shape());
    p.kernel_h = p.kernel_w = p.stride_h = p.stride_w = 2;
  }
};

void BM_MaxPool2dForward(benchmark::State& state) {
  PoolCase c(kLayers[state.range(0)]);
  run(state, 0, [&] { cpu_backend().max_pool2d(c.out, c.indices, c.x, c.p); });
}

void BM_MaxPool2dBackward(benchmark::State& state) {
  PoolCase c(kLayers[state.range(0)]);
  cpu_backend().max_pool2d(c.out, c.indices, c.x, c.p);
  run(state, 0, [&] {
    cpu_backend().max_pool2d_backward(c.grad_x, c.grad_out, c.x, c.out, c.indices, c.p);
  });
}

void layers_and_threads(benchmark::internal::Benchmark* b) {
  b->ArgNames({"layer", "threads"})->UseRealTime()->Unit(benchmark::kMicrosecond);
  for (int64_t threads : {1, 2})
    for (int64_t layer : {0, 1}) b->Args({layer, threads});
}

BENCHMARK(BM_Conv2dForward)->Apply(layers_and_threads);
BENCHMARK(BM_Conv2dBackwardInput)->Apply(layers_and_threads);
BENCHMARK(BM_Conv2dBackwardWeight)->Apply(layers_and_threads);
BENCHMARK(BM_Conv2dTrainStep)->Apply(layers_and_threads);
BENCHMARK(BM_MaxPool2dForward)->Apply(layers_and_threads);
BENCHMARK(BM_MaxPool2dBackward)->Apply(layers_and_threads);

}  // namespace
