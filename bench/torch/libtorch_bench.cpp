// ember_bench_libtorch: ember_bench_train's rows in LibTorch, the peer a C++ user would pick
// (no Python in the loop). Same networks, same step (zero_grad, forward, cross_entropy,
// backward, SGD lr 0.01 momentum 0.5), same batch already in memory, same wall-clock timing
// (warmed up once). Rows: train_step/cpu/64/threads:<n>, infer/cpu/<1|64>/threads:<n>,
// resnet_train_step/cpu/64/threads:<n>; items_per_second is images per second. The label
// carries TORCH_VERSION. Built only when EMBER_LIBTORCH_DIR names a LibTorch (bench/README.md).
#include <benchmark/benchmark.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <string>

#include "bench/torch/libtorch_timing.h"

namespace {
namespace F = torch::nn::functional;

// The tutorial CNN (nn::models::TutorialNet).
struct TutorialNetImpl : torch::nn::Module {
  torch::nn::Conv2d conv1{torch::nn::Conv2dOptions(1, 10, 5)}, conv2{torch::nn::Conv2dOptions(10, 20, 5)};
  torch::nn::Linear fc{320, 10};
  TutorialNetImpl() {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("fc", fc);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto h = torch::relu(F::max_pool2d(conv1(x), F::MaxPool2dFuncOptions(2)));
    h = torch::relu(F::max_pool2d(conv2(h), F::MaxPool2dFuncOptions(2)));
    return fc(h.flatten(1));
  }
};
TORCH_MODULE(TutorialNet);

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, k).stride(stride).padding(pad).bias(false));
}

// nn::models::ResidualBlock.
struct BlockImpl : torch::nn::Module {
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, shortcut_conv{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, shortcut_bn{nullptr};
  BlockImpl(int64_t in, int64_t out, int64_t stride) {
    conv1 = register_module("conv1", conv(in, out, 3, stride, 1));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(out));
    conv2 = register_module("conv2", conv(out, out, 3, 1, 1));
    bn2 = register_module("bn2", torch::nn::BatchNorm2d(out));
    if (stride != 1 || in != out) {
      shortcut_conv = register_module("shortcut_conv", conv(in, out, 1, stride, 0));
      shortcut_bn = register_module("shortcut_bn", torch::nn::BatchNorm2d(out));
    }
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto h = torch::relu(bn1(conv1(x)));
    h = bn2(conv2(h));
    return torch::relu(h + (shortcut_conv ? shortcut_bn(shortcut_conv(x)) : x));
  }
};
TORCH_MODULE(Block);

// nn::models::SmallResNet.
struct SmallResNetImpl : torch::nn::Module {
  torch::nn::Conv2d stem{conv(3, 16, 3, 1, 1)};
  torch::nn::BatchNorm2d stem_bn{16};
  Block block1{16, 16, 1}, block2{16, 32, 2}, block3{32, 64, 2};
  torch::nn::Linear fc{64, 10};
  SmallResNetImpl() {
    register_module("stem", stem);
    register_module("stem_bn", stem_bn);
    register_module("block1", block1);
    register_module("block2", block2);
    register_module("block3", block3);
    register_module("fc", fc);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto h = torch::relu(stem_bn(stem(x)));
    h = block3(block2(block1(h)));
    return fc(h.mean({2, 3}));
  }
};
TORCH_MODULE(SmallResNet);

template <class Net>
void BM_TrainStep(benchmark::State& state, std::vector<int64_t> input, int threads) {
  torch::manual_seed(0);
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.5));
  const auto x = torch::randn(input);
  const auto y = torch::randint(0, 10, {input[0]}, torch::kLong);
  ember::bench::libtorch_timed(state, threads, static_cast<double>(input[0]), [&] {
    optimizer.zero_grad();
    F::cross_entropy(model->forward(x), y).backward();
    optimizer.step();
  });
}

void BM_Infer(benchmark::State& state, int64_t batch, int threads) {
  torch::manual_seed(0);
  TutorialNet model;
  model->eval();
  const auto x = torch::randn({batch, 1, 28, 28});
  torch::NoGradGuard no_grad;
  ember::bench::libtorch_timed(state, threads, static_cast<double>(batch),
                               [&] { benchmark::DoNotOptimize(model->forward(x)); });
}

const bool registered = [] {
  for (int threads : {1, 2}) {
    auto name = [&](const char* workload, int64_t batch) {
      return std::string(workload) + "/cpu/" + std::to_string(batch) + "/threads:" + std::to_string(threads);
    };
    benchmark::RegisterBenchmark(name("train_step", 64).c_str(), BM_TrainStep<TutorialNet>,
                                 std::vector<int64_t>{64, 1, 28, 28}, threads)
        ->Unit(benchmark::kMillisecond);
    for (int64_t batch : {1, 64})
      benchmark::RegisterBenchmark(name("infer", batch).c_str(), BM_Infer, batch, threads)
          ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(name("resnet_train_step", 64).c_str(), BM_TrainStep<SmallResNet>,
                                 std::vector<int64_t>{64, 3, 32, 32}, threads)
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
