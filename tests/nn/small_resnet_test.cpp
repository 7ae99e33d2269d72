// nn::models::SmallResNet (the untuned benchmark model): its parameters against a hand count,
// its wiring against the same network written out with core ops, the residual identity
// against hand-checked values, and training (every parameter gets a gradient).
#include <gtest/gtest.h>

#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

namespace {

// The network written out with core ops on the model's own parameters, training mode, on
// copies of the running statistics (batch_norm updates them in place).
Tensor bn_ref(const nn::BatchNorm2d& bn, const Tensor& x) {
  return batch_norm(x, bn.running_mean.clone(), bn.running_var.clone(), bn.weight, bn.bias, true);
}
Tensor block_ref(const nn::models::ResidualBlock& b, const Tensor& x, int64_t stride) {
  Tensor h = relu(bn_ref(*b.bn1, conv2d(x, b.conv1->weight, Tensor(), stride, 1)));
  h = bn_ref(*b.bn2, conv2d(h, b.conv2->weight, Tensor(), 1, 1));
  const Tensor s =
      b.shortcut_conv ? bn_ref(*b.shortcut_bn, conv2d(x, b.shortcut_conv->weight, Tensor(), stride)) : x;
  return relu(add(h, s));
}

TEST(SmallResNet, ParameterCountAndNames) {
  nn::models::SmallResNet net;
  // stem 3*16*9 + BN 32; block1 2*(16*16*9) + 2 BN of 16; block2 16*32*9 + 32*32*9 + 1x1 16*32
  // + 3 BN of 32; block3 32*64*9 + 64*64*9 + 1x1 32*64 + 3 BN of 64; fc 64*10 + 10.
  const int64_t expected = (432 + 32) + (2 * 2304 + 2 * 32) + (4608 + 9216 + 512 + 3 * 64) +
                           (18432 + 36864 + 2048 + 3 * 128) + 650;
  EXPECT_EQ(expected, 78042);
  int64_t count = 0;
  std::vector<std::string> names;
  for (const auto& [name, p] : net.named_parameters()) {
    count += p.numel();
    names.push_back(name);
  }
  EXPECT_EQ(count, expected);
  EXPECT_EQ(names.size(), 29u);  // 9 conv weights, 9 BN weight + bias pairs, fc weight and bias
  EXPECT_EQ(net.block1->shortcut_conv, nullptr);
  ASSERT_NE(net.block2->shortcut_conv, nullptr);
  EXPECT_EQ(net.block2->shortcut_conv->weight.shape(), (Shape{32, 16, 1, 1}));
  EXPECT_EQ(net.block3->conv1->stride.h, 2);
}

TEST(SmallResNet, ForwardMatchesTheNetworkWrittenOutWithCoreOps) {
  manual_seed(3);
  nn::models::SmallResNet net;
  const Tensor x = randn({2, 3, 32, 32});
  Tensor h = relu(bn_ref(*net.stem_bn, conv2d(x, net.stem->weight, Tensor(), 1, 1)));
  h = block_ref(*net.block3, block_ref(*net.block2, block_ref(*net.block1, h, 1), 2), 2);
  EXPECT_EQ(h.shape(), (Shape{2, 64, 8, 8}));
  const Tensor expected = linear(h.mean({2, 3}), net.fc->weight, net.fc->bias);
  const Tensor y = net.forward(x);
  ASSERT_EQ(y.shape(), (Shape{2, 10}));
  EXPECT_TRUE(values_near(y, expected.to_vector<double>(), {2, 10}, 1e-5));
  // Global average pooling makes any input size give one score per class.
  EXPECT_EQ(net.forward(randn({1, 3, 20, 12})).shape(), (Shape{1, 10}));
}

TEST(SmallResNet, IdentityBlockWithZeroConvolutionsPassesReluOfItsInput) {
  nn::models::ResidualBlock block(2, 2, 1);
  {
    NoGradGuard no_grad;
    block.conv1->weight.zero_();
    block.conv2->weight.zero_();
  }
  // conv = 0, BN of a constant = its bias (0), so the block is relu(0 + x).
  const Tensor x = from_vector<float>({-1, 2, 3, -4, 0.5, -0.25, 6, -7}, {1, 2, 2, 2});
  EXPECT_TRUE(values_near(block.forward(x), {0, 2, 3, 0, 0.5, 0, 6, 0}, {1, 2, 2, 2}));
}

TEST(SmallResNet, TrainingGivesEveryParameterAGradientAndUpdatesRunningStats) {
  manual_seed(5);
  nn::models::SmallResNet net;
  const Tensor x = randn({4, 3, 16, 16});
  const Tensor y = from_vector<int64_t>({1, 7, 3, 0}, {4});
  cross_entropy(net.forward(x), y).backward();
  for (const auto& [name, p] : net.named_parameters()) {
    ASSERT_TRUE(p.grad().defined()) << name;
    EXPECT_GT(p.grad().abs().sum().item<double>(), 0.0) << name;
  }
  EXPECT_EQ(net.block3->shortcut_bn->num_batches_tracked.item<int64_t>(), 1);
  EXPECT_GT(net.stem_bn->running_mean.abs().sum().item<double>(), 0.0);
}

}  // namespace
