// ember_bench_sdpa: scaled_dot_product_attention forward + backward, causal, batch 1, 4 heads,
// head size 64, float32, at L = 256, 1024 and 4096, one thread. Rows:
// sdpa_causal_fwdbwd/cpu/<L>/threads:1; counters: the process's peak RSS in MiB (run one row
// per process, --benchmark_filter, for a figure of that row alone) and FLOP/s (the causal
// half of 2 L^2 E multiply-adds forward and 5 L^2 E backward). bench/sdpa_twin.py measures PyTorch's backends
// the same way.
#include <benchmark/benchmark.h>

#include "bench/common/bench_devices.h"

namespace {
using namespace ember;

constexpr int64_t kHeads = 4, kHeadSize = 64;

void BM_SdpaCausal(benchmark::State& state, int64_t length) {
  manual_seed(0);
  const Shape shape{1, kHeads, length, kHeadSize};
  Tensor q = randn(shape).requires_grad_(), k = randn(shape).requires_grad_(),
         v = randn(shape).requires_grad_();
  const Tensor grad = randn(shape);
  const double s = bench::timed_loop(state, Device::cpu(), 1, [&] {
    const Tensor out = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, /*is_causal=*/true);
    out.backward(grad);
  });
  // Causal: half the scores. Forward QK^T and PV; backward the scores recomputed, dP, dV, dK
  // and dQ: 2 + 5 products of L^2/2 x E multiply-adds.
  const double macs =
      7.0 * static_cast<double>(kHeads) * static_cast<double>(length * length) / 2 * kHeadSize;
  bench::report_rate(state, "FLOP/s", 2 * macs, s);
  state.counters["peak_rss_mib"] = bench::peak_rss_mib();
}

const bool registered = [] {
  for (int64_t length : {256, 1024, 4096})
    benchmark::RegisterBenchmark(("sdpa_causal_fwdbwd/cpu/" + std::to_string(length) + "/threads:1").c_str(),
                                 BM_SdpaCausal, length)
        ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
