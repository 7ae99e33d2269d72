// ember_bench_train: one SGD training step (zero_grad, forward, cross-entropy, backward,
// update; lr 0.01, momentum 0.5) and one inference pass, per device present, at 1 and 2 CPU
// threads. Rows: train_step/<device>/64/threads:<n> and infer/<device>/<1|64>/threads:<n> (the
// tutorial CNN on 28x28 digits; batch 1 is the embedding case, one request, one answer) and
// resnet_train_step/<device>/64/threads:<n> (nn::models::SmallResNet on 3x32x32 images, the
// model nobody tuned for). items_per_second is images per second. bench/torch has the same
// rows for LibTorch.
#include <benchmark/benchmark.h>

#include "bench/common/bench_devices.h"

namespace {
using namespace ember;

template <class Model>
void BM_TrainStep(benchmark::State& state, Device device, Shape input, int threads) {
  manual_seed(0);
  const int64_t batch = input[0];
  auto model = std::make_shared<Model>();
  model->to(device);
  nn::SGDOptions o;
  o.lr = 0.01;
  o.momentum = 0.5;
  nn::SGD optimizer(model->parameters(), o);
  Tensor x = randn(input).to(device);
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
    for (int threads : bench::thread_counts(d)) {
      auto name = [&](const char* workload, int64_t batch) {
        return std::string(workload) + "/" + d.str() + "/" + std::to_string(batch) +
               bench::threads_suffix(threads);
      };
      benchmark::RegisterBenchmark(name("train_step", 64).c_str(), BM_TrainStep<nn::models::TutorialNet>, d,
                                   Shape{64, 1, 28, 28}, threads)
          ->Unit(benchmark::kMillisecond);
      for (int64_t batch : {1, 64})
        benchmark::RegisterBenchmark(name("infer", batch).c_str(), BM_Infer, d, batch, threads)
            ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(name("resnet_train_step", 64).c_str(),
                                   BM_TrainStep<nn::models::SmallResNet>, d, Shape{64, 3, 32, 32}, threads)
          ->Unit(benchmark::kMillisecond);
    }
  }
  return true;
}();

}  // namespace
