// nn::utils::clip_grad_norm_ and clip_grad_value_ on hand-computed gradients (the checks in
// support/training_checks.h run on the emulated CUDA device too), devices and arguments.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"
#include "support/training_checks.h"

using namespace ember;
using ember::test::values_near;

TEST(ClipGradNorm, HandComputedNormsAndScaling) { ember::test::check_clip_grad(Device::cpu()); }

TEST(ClipGradNorm, NoGradientsGiveZero) {
  Tensor p = zeros({3}).requires_grad_();
  const Tensor total = nn::utils::clip_grad_norm_({p}, 1.0);
  EXPECT_EQ(total.dtype(), kFloat32);
  EXPECT_EQ(total.item<double>(), 0.0);
  EXPECT_EQ(nn::utils::clip_grad_norm_({}, 1.0).item<double>(), 0.0);
  EXPECT_FALSE(p.grad().defined());
}

TEST(ClipGradNorm, EmptyGradientsCountForNothing) {
  Tensor p = zeros({0}).requires_grad_(), q = zeros({2}).requires_grad_();
  p.set_grad(zeros({0}));
  q.set_grad(tensor({6, 8}, kFloat32));
  EXPECT_TRUE(values_near(nn::utils::clip_grad_norm_({p, q}, 5.0, INFINITY), {8}, {}));
  EXPECT_TRUE(values_near(q.grad(), {6 * 5 / (8 + 1e-6), 8 * 5 / (8 + 1e-6)}, {2}, 1e-7));
}

TEST(ClipGradNorm, GradientsFromBackwardAreClippedInPlace) {
  nn::Linear model(3, 2);
  model(ones({4, 3})).sum().backward();
  // d sum / d weight is 4 in every entry (6 of them), d sum / d bias is 4 (2 of them).
  const Tensor grad_handle = model.weight.grad();
  const Tensor total = nn::utils::clip_grad_norm_(model.parameters(), 1.0);
  EXPECT_TRUE(values_near(total, {std::sqrt(8 * 16.0)}, {}, 1e-6));
  const double c = 1.0 / (std::sqrt(128.0) + 1e-6);
  EXPECT_TRUE(values_near(grad_handle, std::vector<double>(6, 4 * c), {2, 3}, 1e-6));
  EXPECT_TRUE(values_near(model.bias.grad(), {4 * c, 4 * c}, {2}, 1e-6));
}

TEST(ClipGradNorm, GradientsOnSeveralDevicesAreNormedTogether) {
  ember::test::EmulatedCuda emulated;
  Tensor a = zeros({2}).requires_grad_();
  Tensor b = zeros({1}, TensorOptions().device(Device::cuda(0))).requires_grad_();
  a.set_grad(tensor({3, -4}, kFloat32));
  b.set_grad(tensor({12}, kFloat32).to(Device::cuda(0)));
  // The total lives on the first gradient's device; each gradient is scaled on its own.
  const Tensor total = nn::utils::clip_grad_norm_({a, b}, 6.5);
  EXPECT_EQ(total.device(), Device::cpu());
  EXPECT_TRUE(values_near(total, {13}, {}));
  const double c = 6.5 / (13 + 1e-6);
  EXPECT_TRUE(values_near(a.grad(), {3 * c, -4 * c}, {2}, 1e-7));
  EXPECT_EQ(b.grad().device(), Device::cuda(0));
  EXPECT_TRUE(values_near(b.grad(), {12 * c}, {1}, 1e-7));
  const Tensor reversed = nn::utils::clip_grad_norm_({b, a}, 100.0, INFINITY);
  EXPECT_EQ(reversed.device(), Device::cuda(0));
  EXPECT_TRUE(values_near(reversed, {12 * c}, {}, 1e-6));
}

TEST(ClipGradNorm, BadArguments) {
  Tensor p = zeros({2}).requires_grad_();
  EXPECT_THROW_MSG(nn::utils::clip_grad_norm_({p}, 1.0, 0.0), ValueError,
                   "clip_grad_norm_: norm_type must be positive or inf, got 0");
  EXPECT_THROW_MSG(nn::utils::clip_grad_norm_({p}, 1.0, -INFINITY), ValueError,
                   "clip_grad_norm_: norm_type must be positive or inf, got -inf");
  EXPECT_THROW_MSG(nn::utils::clip_grad_norm_({p}, std::nan("")), ValueError,
                   "clip_grad_norm_: max_norm must be a number, got nan");
  EXPECT_THROW_MSG(nn::utils::clip_grad_norm_({p, Tensor()}, 1.0), ValueError,
                   "clip_grad_norm_: parameters[1] is an undefined tensor");
  EXPECT_THROW_MSG(nn::utils::clip_grad_value_({p}, -1.0), ValueError,
                   "clip_grad_value_: clip_value must be >= 0, got -1");
  EXPECT_THROW_MSG(nn::utils::clip_grad_value_({Tensor()}, 1.0), ValueError,
                   "clip_grad_value_: parameters[0] is an undefined tensor");
}
