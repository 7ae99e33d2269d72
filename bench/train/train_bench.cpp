// ember_bench_train: one SGD training step (forward, cross-entropy, backward, update) and
// one inference pass of the tutorial CNN, per device present, batch 64 and 256, 1 and 2
// CPU threads. Rows: train_step/<device>/<batch>/threads:<n>, infer/<device>/<batch>/threads:<n>;
// items_per_second is images per second.
#include <benchmark/benchmark.h>

#include "bench/common/bench_devices.h"

namespace {
using namespace ember;

void BM_TrainStep(benchmark::State& state, Device device, int64_t batch, int threads) {
  manual_seed(0);
  auto model = std::make_shared<nn::models::TutorialNet>();
  model->to(device);
  nn::SGDOptions o;
  o.lr = 0.01;
  o.momentum = 0.5;
  nn::SGD optimizer(model->parameters(), o);
  Tensor x = randn({batch, 1, 28, 28}).to(device);
  Tensor y = randint(0, 10, {batch}).to(device);
  const double s = bench::timed_loop(state, device, threads, [&] {
    optimizer.zero_grad();
    cross_entropy(model->forward(x), y).backward();
    optimizer.step();
  });
  bench::report_rate(state, "items_per_second", static_cast<double>(batch), s);
}

void BM_Infer(benchmark::State& state, Device device, int64_t batch, int threads) {
  manual_seed(0);
  auto model = std::make_shared<nn::models::TutorialNet>();
  model->to(device);
  model->eval();
  Tensor x = randn({batch, 1, 28, 28}).to(device);
  NoGradGuard no_grad;
  const double s =
      bench::timed_loop(state, device, threads, [&] { benchmark::DoNotOptimize(model->forward(x)); });
  bench::report_rate(state, "items_per_second", static_cast<double>(batch), s);
}

const bool registered = [] {
  for (Device d : bench::devices()) {
    for (int64_t batch : {64, 256}) {
      for (int threads : bench::thread_counts(d)) {
        const std::string suffix = d.str() + "/" + std::to_string(batch) + bench::threads_suffix(threads);
        benchmark::RegisterBenchmark(("train_step/" + suffix).c_str(), BM_TrainStep, d, batch, threads)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("infer/" + suffix).c_str(), BM_Infer, d, batch, threads)
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
  return true;
}();

}  // namespace
