// The class losses' ignore_index / label_smoothing and clip_grad_norm_ on cuda:0 (the CUDA
// kernels, emulated or real): the same hand-checked values as the CPU suite
// (support/training_checks.h), plus gradients spread over two devices.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
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
