// nn::LayerNorm: its parameters (names, initial values, which exist), PyTorch's repr, the
// forward against the functional form, and moving to a device.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

TEST(LayerNormLayer, ParametersAsPyTorch) {
  nn::LayerNorm ln(768);
  EXPECT_EQ(ln.state_dict().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(ln.weight.shape(), (Shape{768}));
  EXPECT_EQ(sum(ln.weight).item<double>(), 768.0);
  EXPECT_EQ(sum(ln.bias.abs()).item<double>(), 0.0);
  EXPECT_TRUE(ln.weight.requires_grad());
  EXPECT_EQ(ln.repr(), "LayerNorm((768,), eps=1e-05, elementwise_affine=True)");

  nn::LayerNorm two({2, 3}, 1e-6);
  EXPECT_EQ(two.weight.shape(), (Shape{2, 3}));
  EXPECT_EQ(two.repr(), "LayerNorm((2, 3), eps=1e-06, elementwise_affine=True)");

  nn::LayerNorm no_bias(4, 1e-5, true, /*bias=*/false);
  EXPECT_EQ(no_bias.state_dict().keys(), std::vector<std::string>{"weight"});
  EXPECT_FALSE(no_bias.bias.defined());

  nn::LayerNorm plain(4, 0.001, /*elementwise_affine=*/false);
  EXPECT_TRUE(plain.state_dict().empty());
  EXPECT_EQ(plain.repr(), "LayerNorm((4,), eps=0.001, elementwise_affine=False)");
}

TEST(LayerNormLayer, ForwardIsTheFunctionalForm) {
  manual_seed(4);
  nn::LayerNorm ln({3, 4});
  {
    NoGradGuard no_grad;
    ln.weight.copy_(randn({3, 4}));
    ln.bias.copy_(randn({3, 4}));
  }
  const Tensor x = randn({2, 3, 4});
  const Tensor expected = layer_norm(x, {3, 4}, ln.weight, ln.bias);
  EXPECT_TRUE(values_near(ln(x), expected.to_vector<double>(), {2, 3, 4}, 0));
  ln(x).sum().backward();
  EXPECT_TRUE(values_near(ln.bias.grad(), std::vector<double>(12, 2.0), {3, 4}));
}

TEST(LayerNormLayer, BadArguments) {
  EXPECT_THROW_LINE(nn::LayerNorm(Shape{}), ValueError,
                    "LayerNorm: normalized_shape must have at least one dim, got []");
  EXPECT_THROW_LINE(nn::LayerNorm(-2), ValueError,
                    "LayerNorm: normalized_shape must not be negative, got [-2]");
  EXPECT_THROW_LINE(nn::LayerNorm(4, -1.0), ValueError, "LayerNorm: eps must be >= 0, got -1");
  nn::LayerNorm ln(4);
  EXPECT_THROW_MSG(ln(zeros({2, 3})), ShapeError, "shape mismatch in layer_norm: given normalized_shape=[4]");
}

TEST(LayerNormLayer, MovesToADevice) {
  test::EmulatedCuda emu(1);
  nn::LayerNorm ln(5);
  const Tensor x = randn({3, 5});
  const Tensor on_cpu = ln(x);
  ln.to(Device::cuda(0));
  EXPECT_EQ(ln.weight.device(), Device::cuda(0));
  EXPECT_EQ(ln.bias.device(), Device::cuda(0));
  const Tensor y = ln(x.to(Device::cuda(0)));
  EXPECT_EQ(y.device(), Device::cuda(0));
  EXPECT_TRUE(values_near(y, on_cpu.to_vector<double>(), {3, 5}, 0));
  EXPECT_THROW_MSG(ln(x), DeviceMismatchError,
                   "tensors on different devices: layer_norm got input on cpu and weight");
}
