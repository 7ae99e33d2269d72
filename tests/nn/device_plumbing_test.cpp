// A small conv net across devices with the emulated CUDA backend: the same seed trains the
// same on cpu and cuda:0, a model left behind is named in the error, and an optimizer made
// before Module::to keeps working after it.
#include <gtest/gtest.h>

#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;

namespace {

struct SmallCnn : nn::Module {
  SmallCnn() : Module("SmallCnn") {
    conv1 = register_module("conv1", std::make_shared<nn::Conv2d>(1, 4, 3));
    bn = register_module("bn", std::make_shared<nn::BatchNorm2d>(4));
    pool = register_module("pool", std::make_shared<nn::MaxPool2d>(2));
    drop = register_module("drop", std::make_shared<nn::Dropout>(0.25));
    fc = register_module("fc", std::make_shared<nn::Linear>(4 * 3 * 3, 3));
  }
  Tensor forward(const Tensor& x) override {
    Tensor h = pool->forward(relu(bn->forward(conv1->forward(x))));
    return fc->forward(drop->forward(h.flatten(1)));
  }
  std::shared_ptr<nn::Conv2d> conv1;
  std::shared_ptr<nn::BatchNorm2d> bn;
  std::shared_ptr<nn::MaxPool2d> pool;
  std::shared_ptr<nn::Dropout> drop;
  std::shared_ptr<nn::Linear> fc;
};

// Losses of a few SGD (momentum) steps of a model seeded identically, trained on device.
std::vector<double> train_losses(Device device, int steps = 4) {
  manual_seed(7);
  SmallCnn model;
  model.to(device);
  nn::SGD opt(model.parameters(), {0.05, 0.9});
  nn::CrossEntropyLoss criterion;
  const Tensor x = randn({6, 1, 8, 8}).to(device);
  const Tensor y = from_vector(std::vector<int64_t>{0, 1, 2, 0, 1, 2}).to(device);
  std::vector<double> losses;
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    Tensor loss = criterion(model(x), y);
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

}  // namespace

TEST(DevicePlumbing, SameSeedSameLossesOnCpuAndCuda) {
  ember::test::EmulatedCuda emu(2);
  const std::vector<double> cpu = train_losses(Device::cpu());
  EXPECT_EQ(train_losses(Device::cuda(0)), cpu);
  EXPECT_EQ(train_losses(Device::cuda(1)), cpu);
  EXPECT_LT(cpu.back(), cpu.front());  // it trains
}

TEST(DevicePlumbing, ModelLeftOnCpuIsNamedAndToFixesIt) {
  ember::test::EmulatedCuda emu(2);
  SmallCnn model;
  const Tensor x = randn({2, 1, 8, 8}, Device::cuda(0));
  EXPECT_THROW_LINE(model(x), DeviceMismatchError,
                    "tensors on different devices: conv2d got input on cuda:0 and weight (conv1.weight) on "
                    "cpu; move the model with model.to(device) or the input with input.to(device)");
  model.to(x.device());
  EXPECT_EQ(model(x).device(), Device::cuda(0));
  EXPECT_THROW_LINE(model(x.to("cuda:1")), DeviceMismatchError,
                    "tensors on different devices: conv2d got input on cuda:1 and weight (conv1.weight) on "
                    "cuda:0; move the model with model.to(device) or the input with input.to(device)");
}

TEST(DevicePlumbing, OptimizerMadeBeforeTheMoveFollowsTheModel) {
  ember::test::EmulatedCuda emu(1);
  for (bool adam : {false, true}) {
    manual_seed(11);
    SmallCnn moved, reference;
    reference.load_state_dict(moved.state_dict());
    std::unique_ptr<nn::Optimizer> opt_moved, opt_ref;
    if (adam) {
      opt_moved = std::make_unique<nn::Adam>(moved.parameters(), nn::AdamOptions{0.01});
      opt_ref = std::make_unique<nn::Adam>(reference.parameters(), nn::AdamOptions{0.01});
    } else {
      opt_moved = std::make_unique<nn::SGD>(moved.parameters(), nn::SGDOptions{0.05, 0.9});
      opt_ref = std::make_unique<nn::SGD>(reference.parameters(), nn::SGDOptions{0.05, 0.9});
    }
    moved.eval();  // no dropout draws, so both models see the same computation
    reference.eval();
    manual_seed(12);
    const Tensor x = randn({4, 1, 8, 8});
    const Tensor y = from_vector(std::vector<int64_t>{0, 1, 2, 1});
    auto step = [](nn::Module& m, nn::Optimizer& opt, const Tensor& in, const Tensor& target) {
      opt.zero_grad();
      Tensor loss = cross_entropy(m(in), target);
      loss.backward();
      opt.step();
      return loss.item<double>();
    };
    EXPECT_EQ(step(moved, *opt_moved, x, y), step(reference, *opt_ref, x, y));  // state on cpu
    moved.to("cuda:0");
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(step(moved, *opt_moved, x.to("cuda:0"), y.to("cuda:0")), step(reference, *opt_ref, x, y))
          << (adam ? "Adam" : "SGD") << " step " << i;
    const nn::StateDict state = opt_moved->state_dict();
    EXPECT_EQ(state.at(adam ? "state.0.exp_avg" : "state.0.momentum_buffer").device(), Device::cuda(0));
    EXPECT_EQ(moved.conv1->weight.to_vector<float>(), reference.conv1->weight.to_vector<float>());
    EXPECT_EQ(moved.conv1->weight.name(), "conv1.weight");
  }
}

TEST(DevicePlumbing, CheckpointResumesTrainingOnAnotherDevice) {
  ember::test::EmulatedCuda emu(1);
  const std::string path = std::string(EMBER_BINARY_DIR) + "/device_plumbing_ckpt.safetensors";
  manual_seed(21);
  SmallCnn a;
  a.eval();
  nn::SGD opt_a(a.parameters(), {0.05, 0.9});
  const Tensor x = randn({4, 1, 8, 8});
  const Tensor y = from_vector(std::vector<int64_t>{2, 1, 0, 1});
  auto step = [](nn::Module& m, nn::Optimizer& opt, const Tensor& in, const Tensor& target) {
    opt.zero_grad();
    Tensor loss = cross_entropy(m(in), target);
    loss.backward();
    opt.step();
    return loss.item<double>();
  };
  step(a, opt_a, x, y);
  nn::StateDict ckpt = a.state_dict().with_prefix("model.");
  ckpt.merge(opt_a.state_dict().with_prefix("optim."));
  nn::save_file(ckpt, path);

  SmallCnn b;
  b.eval();
  b.to("cuda:0");
  nn::SGD opt_b(b.parameters(), {0.05, 0.9});
  const nn::StateDict loaded = nn::load_file(path, Device::cuda(0));
  b.load_state_dict(loaded.sub("model."));
  opt_b.load_state_dict(loaded.sub("optim."));
  std::remove(path.c_str());
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(step(b, opt_b, x.to("cuda:0"), y.to("cuda:0")), step(a, opt_a, x, y)) << i;
}
