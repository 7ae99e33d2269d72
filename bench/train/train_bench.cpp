// ember_bench_train: one SGD training step (forward, cross-entropy, backward, update) and
// one inference pass of the tutorial CNN, per device present, batch 64 and 256, 1 and 2
// CPU threads. Rows: train_step/<device>/<batch>/threads:<n>, infer/<device>/<batch>/threads:<n>;
// items_per_second is images per second.
#include <benchmark/benchmark.h>

#include <chrono>

#include "ember/ember.h"
#include "mnist/tutorial_net.h"

namespace {
using namespace ember;

void finish(Device d, const Tensor& t) {
  if (d.is_cuda()) t.item<float>();  // waits for the device's queued work
}

// Images per second from wall time: Google Benchmark's own rate uses the main thread's CPU
// time, which leaves out the other compute threads, and its real-time switch would rename
// the row.
class WallRate {
 public:
  WallRate() : start_(std::chrono::steady_clock::now()) {}
  void report(benchmark::State& state, int64_t items_per_iteration) const {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    state.counters["items_per_second"] =
        static_cast<double>(state.iterations() * items_per_iteration) / s;
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

void BM_TrainStep(benchmark::State& state, Device device, int64_t batch, int threads) {
  set_num_threads(threads);
  manual_seed(0);
  auto model = std::make_shared<examples::TutorialNet>();
  model->to(device);
  nn::SGDOptions o;
  o.lr = 0.01;
  o.momentum = 0.5;
  nn::SGD optimizer(model->parameters(), o);
  Tensor x = randn({batch, 1, 28, 28}).to(device);
  Tensor y = randint(0, 10, {batch}).to(device);
  Tensor loss;
  WallRate rate;
  for (auto _ : state) {
    optimizer.zero_grad();
    loss = cross_entropy(model->forward(x), y);
    loss.backward();
    optimizer.step();
  }
  finish(device, loss);
  rate.report(state, batch);
}

void BM_Infer(benchmark::State& state, Device device, int64_t batch, int threads) {
  set_num_threads(threads);
  manual_seed(0);
  auto model = std::make_shared<examples::TutorialNet>();
  model->to(device);
  model->eval();
  Tensor x = randn({batch, 1, 28, 28}).to(device);
  Tensor out;
  NoGradGuard no_grad;
  WallRate rate;
  for (auto _ : state) out = model->forward(x);
  finish(device, out);
  rate.report(state, batch);
}

const bool registered = [] {
  std::vector<Device> devices{Device::cpu()};
  if (cuda::is_available()) devices.push_back(Device::cuda(0));
  for (Device d : devices) {
    for (int64_t batch : {64, 256}) {
      // Threads only matter on the CPU; a GPU row is run once, at one host thread.
      for (int threads : d.is_cpu() ? std::vector<int>{1, 2} : std::vector<int>{1}) {
        const std::string suffix = d.str() + "/" + std::to_string(batch) + "/threads:" + std::to_string(threads);
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
