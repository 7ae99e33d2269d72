// CUDA ops at a few sizes and the tutorial CNN's training step on cuda:0. Device work is
// asynchronous, so every iteration ends with a synchronisation (small ops therefore include
// one launch-and-wait round trip); each case warms up first (handles, cuDNN algorithm
// search, allocator cache). Without a GPU every case reports an error row and stops.
// Compare with PyTorch on the same GPU (bench/compare_torch.py), TF32 off on both sides.
#include <benchmark/benchmark.h>

#include <vector>

#include "ember/ember.h"

namespace {

using namespace ember;

bool have_gpu(benchmark::State& state) {
  if (cuda::is_available()) return true;
  state.SkipWithError("no CUDA device");
  return false;
}

// Times body (queued on cuda:0) and reports rate counters per iteration.
template <class Body>
void run(benchmark::State& state, double flops, double bytes, const Body& body) {
  body();
  cuda::synchronize();
  for (auto _ : state) {
    body();
    cuda::synchronize();
  }
  if (flops > 0)
    state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  if (bytes > 0)
    state.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

Tensor gpu_randn(const Shape& s) { return randn(s).to(Device::cuda(0)); }

void BM_CudaMatmul(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const int64_t n = state.range(0);
  const Tensor a = gpu_randn({n, n}), b = gpu_randn({n, n});
  run(state, 2.0 * n * n * n, 0, [&] { benchmark::DoNotOptimize(matmul(a, b)); });
}
BENCHMARK(BM_CudaMatmul)->Arg(256)->Arg(1024)->Arg(4096)->UseRealTime();

void BM_CudaAdd(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const int64_t n = state.range(0);
  const Tensor a = gpu_randn({n}), b = gpu_randn({n});
  run(state, 0, 3.0 * 4 * n, [&] { benchmark::DoNotOptimize(a + b); });
}
BENCHMARK(BM_CudaAdd)->Arg(1 << 20)->Arg(1 << 24)->UseRealTime();

void BM_CudaSum(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const int64_t n = state.range(0);
  const Tensor a = gpu_randn({n});
  run(state, 0, 4.0 * n, [&] { benchmark::DoNotOptimize(sum(a)); });
}
BENCHMARK(BM_CudaSum)->Arg(1 << 20)->Arg(1 << 24)->UseRealTime();

void BM_CudaSoftmax(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const Tensor x = gpu_randn({4096, state.range(0)});
  run(state, 0, 2.0 * 4 * x.numel(), [&] { benchmark::DoNotOptimize(softmax(x, 1)); });
}
BENCHMARK(BM_CudaSoftmax)->Arg(10)->Arg(1000)->UseRealTime();

// The tutorial CNN's convolutions (batch 64): 1->10 k5 on 28x28 and 10->20 k5 on 12x12.
struct Layer {
  int64_t C, Co, H, k;
};
constexpr Layer kLayers[] = {{1, 10, 28, 5}, {10, 20, 12, 5}};

void BM_CudaConv2dForwardBackward(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const Layer l = kLayers[state.range(0)];
  const int64_t Ho = l.H - l.k + 1;
  const Tensor x = gpu_randn({64, l.C, l.H, l.H}).requires_grad_(true);
  const Tensor w = gpu_randn({l.Co, l.C, l.k, l.k}).requires_grad_(true);
  const Tensor b = gpu_randn({l.Co}).requires_grad_(true);
  const Tensor g = gpu_randn({64, l.Co, Ho, Ho});
  run(state, 3 * 2.0 * 64 * l.Co * Ho * Ho * l.C * l.k * l.k, 0,
      [&] { conv2d(x, w, b).backward(g); });
}
BENCHMARK(BM_CudaConv2dForwardBackward)->Arg(0)->Arg(1)->UseRealTime();

// One SGD step of the tutorial CNN on a batch of 64 (forward, backward, fused update).
void BM_CudaMnistCnnStep(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const Device dev = Device::cuda(0);
  manual_seed(0);
  auto param = [&](const Shape& s, double scale) { return (randn(s) * scale).to(dev).detach().requires_grad_(true); };
  std::vector<Tensor> params{param({10, 1, 5, 5}, 0.2), param({10}, 0.1), param({20, 10, 5, 5}, 0.06),
                             param({20}, 0.1),          param({50, 320}, 0.05), param({50}, 0.1),
                             param({10, 50}, 0.14),     param({10}, 0.1)};
  std::vector<Tensor> bufs;
  for (const Tensor& p : params) bufs.push_back(zeros_like(p));
  const Tensor x = rand({64, 1, 28, 28}).to(dev), y = randint(0, 10, {64}).to(dev);
  SgdParams sp;
  sp.lr = 0.01;
  sp.momentum = 0.9;
  int64_t step = 0;
  run(state, 0, 0, [&] {
    for (Tensor& p : params) p.set_grad(Tensor());
    Tensor h = max_pool2d(relu(conv2d(x, params[0], params[1])), 2);
    h = max_pool2d(relu(conv2d(h, params[2], params[3])), 2);
    h = relu(linear(h.reshape({64, 320}), params[4], params[5]));
    cross_entropy(linear(h, params[6], params[7]), y).backward();
    std::vector<Tensor> grads;
    for (const Tensor& p : params) grads.push_back(p.grad());
    sp.first_step = step++ == 0;
    NoGradGuard ng;
    backend_for(dev).sgd_step(params, grads, bufs, sp);
  });
  state.counters["images/s"] = benchmark::Counter(64, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_CudaMnistCnnStep)->UseRealTime();

}  // namespace
