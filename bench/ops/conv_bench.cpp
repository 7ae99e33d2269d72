// conv2d and max_pool2d rows of ember_bench_ops, per device present, through the op
// front-ends (the CPU's im2col + GEMM, cuDNN on CUDA):
//   conv2d_fwd_<layer>/<device>/threads:<n>     forward only
//   conv2d_fwdbwd_<layer>/<device>/threads:<n>  forward, then the gradients of input, weight
//                                               and bias (one autograd backward)
//   max_pool2d/<device>/<N>/<C>/<H>             2x2 pool, forward
// Layers: mnist1 (batch 64, 1->10, k5, 28x28), mnist2 (batch 64, 10->20, k5, 12x12), the
// tutorial CNN's two convolutions, and resnet (batch 32, 64->64, k3, pad 1, 56x56).
// FLOPs are 2 * N * C_out * H_out * W_out * C_in * kH * kW per direction, three directions
// for fwdbwd.
#include <benchmark/benchmark.h>

#include "bench/common/bench_devices.h"

namespace {
using namespace ember;
using bench::report_rate;
using bench::timed_loop;

struct ConvLayer {
  const char* name;
  int64_t N, C, Co, H, k, pad;
  int64_t out_hw() const { return H + 2 * pad - k + 1; }
  double flops() const { return 2.0 * N * Co * out_hw() * out_hw() * C * k * k; }
};
constexpr ConvLayer kConvLayers[] = {
    {"mnist1", 64, 1, 10, 28, 5, 0}, {"mnist2", 64, 10, 20, 12, 5, 0}, {"resnet", 32, 64, 64, 56, 3, 1}};

struct ConvInputs {
  Tensor x, w, b, grad_out;
  ConvInputs(const ConvLayer& l, Device d, bool grads) {
    manual_seed(0);
    x = randn({l.N, l.C, l.H, l.H}, d).requires_grad_(grads);
    w = (randn({l.Co, l.C, l.k, l.k}, d) * 0.1).requires_grad_(grads);
    b = randn({l.Co}, d).requires_grad_(grads);
    grad_out = randn({l.N, l.Co, l.out_hw(), l.out_hw()}, d);
  }
};

void BM_Conv2dForward(benchmark::State& state, const ConvLayer& l, Device d, int threads) {
  ConvInputs in(l, d, false);
  NoGradGuard no_grad;
  const double s = timed_loop(state, d, threads, [&] {
    benchmark::DoNotOptimize(conv2d(in.x, in.w, in.b, /*stride=*/1, /*padding=*/l.pad));
  });
  report_rate(state, "FLOP/s", l.flops(), s);
}

void BM_Conv2dForwardBackward(benchmark::State& state, const ConvLayer& l, Device d, int threads) {
  ConvInputs in(l, d, true);
  const double s = timed_loop(state, d, threads, [&] {
    for (Tensor* t : {&in.x, &in.w, &in.b}) t->set_grad(Tensor());
    conv2d(in.x, in.w, in.b, /*stride=*/1, /*padding=*/l.pad).backward(in.grad_out);
  });
  report_rate(state, "FLOP/s", 3 * l.flops(), s);
}

// The tutorial CNN's pools: after conv1 (64x10x24x24) and after conv2 (64x20x8x8).
void BM_MaxPool2d(benchmark::State& state, Device d, int64_t n, int64_t c, int64_t hw) {
  manual_seed(0);
  Tensor x = randn({n, c, hw, hw}, d);
  NoGradGuard no_grad;
  const double s = timed_loop(state, d, 1, [&] { benchmark::DoNotOptimize(max_pool2d(x, 2)); });
  report_rate(state, "bytes_per_second", 4.0 * n * c * hw * hw * 5 / 4, s);
}

const bool registered = [] {
  for (Device d : bench::devices()) {
    for (const ConvLayer& l : kConvLayers)
      for (int threads : bench::thread_counts(d)) {
        const std::string suffix = std::string(l.name) + "/" + d.str() + bench::threads_suffix(threads);
        benchmark::RegisterBenchmark(("conv2d_fwd_" + suffix).c_str(), BM_Conv2dForward, l, d, threads)
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("conv2d_fwdbwd_" + suffix).c_str(), BM_Conv2dForwardBackward, l, d,
                                     threads)
            ->Unit(benchmark::kMicrosecond);
      }
    for (const auto& [n, c, hw] : {std::tuple<int64_t, int64_t, int64_t>{64, 10, 24}, {64, 20, 8}}) {
      const std::string name = "max_pool2d/" + d.str() + "/" + std::to_string(n) + "/" + std::to_string(c) +
                               "/" + std::to_string(hw);
      benchmark::RegisterBenchmark(name.c_str(), BM_MaxPool2d, d, n, c, hw)->Unit(benchmark::kMicrosecond);
    }
  }
  return true;
}();

}  // namespace
