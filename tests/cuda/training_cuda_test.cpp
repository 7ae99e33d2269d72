// The class losses' ignore_index / label_smoothing and clip_grad_norm_ on cuda:0 (the CUDA
// kernels, emulated or real): the same hand-checked values as the CPU suite
// (support/training_checks.h), plus gradients spread over two devices.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "ember/ember.h"
#include "ember/extend/backend.h"
#include "gpu_required.h"
#include "support/expect.h"
#include "support/training_checks.h"

using namespace ember;
using ember::test::values_near;

TEST(CudaLossOptions, IgnoreIndexAndLabelSmoothingMatchPyTorchsFormulas) {
  EMBER_REQUIRE_GPU();
  ember::test::check_loss_options(Device::cuda(0));
}

TEST(CudaLossOptions, WideRowsWithSmoothingMatchTheCpu) {
  EMBER_REQUIRE_GPU();
  // 1500 classes: 512 threads a row; rows 1 and 4 ignored.
  manual_seed(3);
  const Tensor x = randn({6, 1500}, TensorOptions().dtype(kFloat64));
  const Tensor t = tensor({3, -100, 1499, 0, -100, 700}, kInt64);
  for (Reduction r : {Reduction::Mean, Reduction::Sum, Reduction::None}) {
    Tensor xc = x.clone().requires_grad_(), xg = x.to(Device::cuda(0)).requires_grad_();
    Tensor ref = cross_entropy(xc, t, r, -100, 0.2),
           got = cross_entropy(xg, t.to(Device::cuda(0)), r, -100, 0.2);
    EXPECT_TRUE(values_near(got, ref.to_vector<double>(), ref.shape(), 1e-12));
    ref.sum().backward();
    got.sum().backward();
    EXPECT_TRUE(values_near(xg.grad(), xc.grad().to_vector<double>(), x.shape(), 1e-12));
  }
}

TEST(CudaClipGradNorm, HandComputedNormsAndScaling) {
  EMBER_REQUIRE_GPU();
  ember::test::check_clip_grad(Device::cuda(0));
}

// The same checks on cuda:1 with every tensor made there (factories and host copies): no
// copy crosses devices, so peer access stays off and a kernel handed cuda:0's memory fails.
TEST(CudaLossOptions, OnTheSecondDeviceWithTensorsMadeThere) {
  EMBER_REQUIRE_GPU();
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  ember::test::check_loss_options(Device::cuda(1));
}

TEST(CudaClipGradNorm, OnTheSecondDeviceWithTensorsMadeThere) {
  EMBER_REQUIRE_GPU();
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  ember::test::check_clip_grad(Device::cuda(1));
}

// A training step on cuda:1 whose weights and batch come from factories on cuda:1 (random
// draws equal the CPU's for a seed), against the same step on the CPU.
TEST(CudaTraining, AStepOnTheSecondDeviceFromItsOwnFactoriesMatchesTheCpu) {
  EMBER_REQUIRE_GPU();
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  struct Step {
    Tensor loss, w1, b1, w2;
  };
  auto step = [](const TensorOptions& on) {
    manual_seed(21);
    Step s;
    s.w1 = (rand({16, 37}, on) - 0.5).detach().requires_grad_(true);
    s.b1 = full({16}, 0.25, on).requires_grad_(true);
    s.w2 = (rand({5, 16}, on) - 0.5).detach().requires_grad_(true);
    const Tensor b2 = zeros({5}, on);
    const Tensor x = rand({9, 37}, on), y = randint(0, 5, {9}, TensorOptions(on).dtype(kInt64));
    const Tensor scale = arange(1, 10, 1, on).reshape({9, 1});
    s.loss =
        cross_entropy(linear(relu(linear(x * scale, s.w1, s.b1)), s.w2, b2), y, Reduction::Mean, -100, 0.1);
    s.loss.backward();
    SgdParams sp;
    sp.lr = 0.1;
    NoGradGuard ng;
    backend_for(on.device()).sgd_step({s.w1, s.b1, s.w2}, {s.w1.grad(), s.b1.grad(), s.w2.grad()}, {}, sp);
    return s;
  };
  const Step cpu = step(TensorOptions()), dev = step(TensorOptions().device(Device::cuda(1)));
  EXPECT_EQ(dev.loss.device(), Device::cuda(1));
  EXPECT_TRUE(values_near(dev.loss.cpu(), cpu.loss.to_vector<double>(), {}, 1e-5));
  for (auto [got, want] : {std::pair<Tensor, Tensor>{dev.w1, cpu.w1}, {dev.b1, cpu.b1}, {dev.w2, cpu.w2}}) {
    EXPECT_EQ(got.device(), Device::cuda(1));
    EXPECT_TRUE(values_near(got.cpu(), want.to_vector<double>(), want.shape(), 1e-5));
    EXPECT_TRUE(values_near(got.grad().cpu(), want.grad().to_vector<double>(), want.shape(), 1e-5));
  }
}

TEST(CudaClipGradNorm, GradientsOnTwoDevicesAreNormedTogether) {
  EMBER_REQUIRE_GPU();
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  Tensor a = zeros({2}, TensorOptions().device(Device::cuda(1))).requires_grad_();
  Tensor b = zeros({1}, TensorOptions().device(Device::cuda(0))).requires_grad_();
  Tensor c = zeros({1}).requires_grad_();
  a.set_grad(tensor({3, -4}, kFloat32).to(Device::cuda(1)));
  b.set_grad(tensor({12}, kFloat32).to(Device::cuda(0)));
  c.set_grad(tensor({84}, kFloat32));  // 3^2 + 4^2 + 12^2 + 84^2 = 85^2
  const Tensor total = nn::utils::clip_grad_norm_({a, b, c}, 8.5);
  EXPECT_EQ(total.device(), Device::cuda(1));
  EXPECT_TRUE(values_near(total, {85}, {}));
  const double k = 8.5 / (85 + 1e-6);
  EXPECT_TRUE(values_near(a.grad(), {3 * k, -4 * k}, {2}, 1e-7));
  EXPECT_TRUE(values_near(b.grad(), {12 * k}, {1}, 1e-7));
  EXPECT_TRUE(values_near(c.grad(), {84 * k}, {1}, 1e-7));
  EXPECT_EQ(b.grad().device(), Device::cuda(0));
}
