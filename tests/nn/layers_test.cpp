// Layers and losses: default initialisation, forward values against hand-computed numbers,
// output shapes, train/eval behaviour, functional forms.
#include <gtest/gtest.h>

#include <cmath>

#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

namespace {

void set_values(Tensor t, const std::vector<double>& v) {
  NoGradGuard no_grad;
  t.copy_(from_vector(v, t.shape()));
}

struct Stats {
  double min, max, mean, var;
};
Stats stats_of(const Tensor& t) {
  const std::vector<double> v = t.to_vector<double>();
  Stats s{v[0], v[0], 0, 0};
  for (double x : v) {
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
    s.mean += x / static_cast<double>(v.size());
  }
  for (double x : v) s.var += (x - s.mean) * (x - s.mean) / static_cast<double>(v.size());
  return s;
}

// Uniform on +-bound: inside it, reaching near both ends, mean 0, variance bound^2 / 3 (within
// five standard errors for this many samples).
void expect_uniform(const Tensor& t, double bound) {
  const Stats s = stats_of(t);
  const double n = static_cast<double>(t.numel());
  EXPECT_GE(s.min, -bound);
  EXPECT_LT(s.max, bound);
  EXPECT_LT(s.min, -(1 - 10 / n) * bound);
  EXPECT_GT(s.max, (1 - 10 / n) * bound);
  EXPECT_NEAR(s.mean, 0, 5 * bound / std::sqrt(3 * n));
  EXPECT_NEAR(s.var, bound * bound / 3, 5 * std::sqrt(0.8 / n) * bound * bound / 3);
}

}  // namespace

TEST(Init, DefaultLayerInitMatchesPyTorchBounds) {
  manual_seed(0);
  nn::Linear fc(400, 300);
  expect_uniform(fc.weight, 1 / std::sqrt(400.0));  // kaiming_uniform(a = sqrt(5))
  expect_uniform(fc.bias, 1 / std::sqrt(400.0));
  nn::Conv2d conv(16, 64, 5);
  expect_uniform(conv.weight, 1 / std::sqrt(16 * 25.0));  // fan_in = C_in * kH * kW
  expect_uniform(conv.bias, 1 / std::sqrt(16 * 25.0));
  // Drawn from the default generator: the same seed gives the same model.
  manual_seed(9);
  nn::Linear a(5, 4);
  manual_seed(9);
  nn::Linear b(5, 4);
  EXPECT_EQ(a.weight.to_vector<float>(), b.weight.to_vector<float>());
  EXPECT_EQ(a.bias.to_vector<float>(), b.bias.to_vector<float>());
}

TEST(Init, Initialisers) {
  manual_seed(1);
  Tensor w = empty({200, 300});
  nn::init::xavier_uniform_(w);
  expect_uniform(w, std::sqrt(6.0 / 500));
  nn::init::kaiming_uniform_(w, 0, nn::init::FanMode::FanIn, nn::init::Nonlinearity::ReLU);
  expect_uniform(w, std::sqrt(2.0) * std::sqrt(3.0 / 300));
  nn::init::kaiming_normal_(w, 0, nn::init::FanMode::FanOut, nn::init::Nonlinearity::ReLU);
  EXPECT_NEAR(std::sqrt(stats_of(w).var), std::sqrt(2.0 / 200), 0.05 * std::sqrt(2.0 / 200));
  Tensor p = zeros({3}, TensorOptions().requires_grad(true));
  nn::init::constant_(p, 2.5);  // allowed on a parameter: it runs without recording
  EXPECT_TRUE(values_near(p, {2.5, 2.5, 2.5}, {3}));
  EXPECT_EQ(nn::init::calculate_fan_in_and_fan_out(empty({8, 3, 5, 5})),
            (std::pair<int64_t, int64_t>{75, 200}));
  EXPECT_THROW_MSG(nn::init::calculate_fan_in_and_fan_out(empty({3})), ValueError, "fan in and fan out need");
  Tensor ints = zeros({2, 2}, kInt64);
  EXPECT_THROW_MSG(nn::init::uniform_(ints), DTypeError, "uniform_: needs a float32 or float64 tensor");
}

TEST(LinearLayer, ForwardAgainstHandNumbers) {
  nn::Linear fc(2, 3);
  set_values(fc.weight, {1, 2, 3, 4, 5, 6});
  set_values(fc.bias, {0.5, -1, 2});
  EXPECT_TRUE(values_near(fc(tensor({{1, -1}, {2, 0.5}})), {-0.5, -2, 1, 3.5, 7, 15}, {2, 3}));
  nn::Linear no_bias(2, 1, false);
  EXPECT_FALSE(no_bias.bias.defined());
  EXPECT_EQ(no_bias.parameters().size(), 1u);
  set_values(no_bias.weight, {2, -1});
  EXPECT_TRUE(values_near(no_bias(tensor({3, 4}, kFloat32)), {2}, {1}));  // 1-D input
  // A 3-D input with the features empty: its [2, 3] rows each get the bias alone.
  nn::Linear from_nothing(0, 2);
  set_values(from_nothing.bias, {1.5, -2});
  EXPECT_TRUE(values_near(from_nothing(zeros({2, 3, 0})),
                          {1.5, -2, 1.5, -2, 1.5, -2, 1.5, -2, 1.5, -2, 1.5, -2}, {2, 3, 2}));
  // Empty layers can be built (PyTorch allows them): there is nothing to draw.
  EXPECT_EQ(nn::Linear(0, 2).weight.shape(), (Shape{2, 0}));
  EXPECT_EQ(nn::Linear(3, 0).bias.shape(), (Shape{0}));
}

TEST(Conv2dLayer, ForwardAgainstHandNumbers) {
  nn::Conv2d conv(1, 1, 2);
  set_values(conv.weight, {1, 2, 3, 4});
  set_values(conv.bias, {0.5});
  const Tensor x = arange(1, 10).reshape({1, 1, 3, 3});
  EXPECT_TRUE(values_near(conv(x), {37.5, 47.5, 67.5, 77.5}, {1, 1, 2, 2}));
  nn::Conv2d strided(1, 1, 2, /*stride=*/2, /*padding=*/1);
  set_values(strided.weight, {1, 2, 3, 4});
  set_values(strided.bias, {0.5});
  EXPECT_TRUE(values_near(strided(x), {4.5, 18.5, 36.5, 77.5}, {1, 1, 2, 2}));
}

TEST(Layers, OutputShapesOfTheMnistNet) {
  manual_seed(0);
  const Tensor x = randn({2, 1, 28, 28});
  nn::Conv2d conv1(1, 32, 3, 1), conv2(32, 64, 3, 1);
  nn::MaxPool2d pool(2);
  nn::Flatten flatten;
  nn::Linear fc(9216, 128);
  Tensor h = conv1(x);
  EXPECT_EQ(h.shape(), (Shape{2, 32, 26, 26}));
  h = conv2(nn::ReLU()(h));
  EXPECT_EQ(h.shape(), (Shape{2, 64, 24, 24}));
  h = pool(h);
  EXPECT_EQ(h.shape(), (Shape{2, 64, 12, 12}));
  h = flatten(nn::Dropout2d(0.25)(h));
  EXPECT_EQ(h.shape(), (Shape{2, 9216}));
  EXPECT_EQ(fc(nn::Dropout(0.5)(h)).shape(), (Shape{2, 128}));
  EXPECT_EQ(nn::BatchNorm2d(32)(conv1(x)).shape(), (Shape{2, 32, 26, 26}));
  EXPECT_EQ(nn::Flatten(0)(x).shape(), (Shape{2 * 28 * 28}));
}

TEST(PoolingLayers, MaxAndAverageValues) {
  const Tensor x = arange(16).reshape({1, 1, 4, 4});
  EXPECT_TRUE(values_near(nn::MaxPool2d(2)(x), {5, 7, 13, 15}, {1, 1, 2, 2}));
  EXPECT_TRUE(values_near(nn::AvgPool2d(2)(x), {2.5, 4.5, 10.5, 12.5}, {1, 1, 2, 2}));
  EXPECT_TRUE(values_near(nn::MaxPool2d(3, 1)(x), {10, 11, 14, 15}, {1, 1, 2, 2}));
  EXPECT_EQ(nn::MaxPool2d(IntPair(2, 3)).stride.w, 3);
}

TEST(Activations, ValuesAndShapes) {
  const Tensor x = tensor({-2, 0, 3}, kFloat32);
  EXPECT_TRUE(values_near(nn::ReLU()(x), {0, 0, 3}, {3}));
  EXPECT_TRUE(values_near(nn::Sigmoid()(x), {1 / (1 + std::exp(2.0)), 0.5, 1 / (1 + std::exp(-3.0))}, {3}));
  EXPECT_TRUE(values_near(nn::Tanh()(x), {std::tanh(-2.0), 0, std::tanh(3.0)}, {3}));
}

TEST(DropoutLayer, EvalIsTheIdentityAndTrainingDropsAndScales) {
  manual_seed(3);
  const Tensor x = ones({100, 100});
  nn::Dropout drop(0.3);
  drop.eval();
  EXPECT_TRUE(drop(x).is_same(x));
  drop.train();
  const std::vector<float> y = drop(x).to_vector<float>();
  size_t zeros_seen = 0;
  for (float v : y) {
    if (v == 0)
      ++zeros_seen;
    else
      EXPECT_NEAR(v, 1 / 0.7, 1e-6);
  }
  EXPECT_NEAR(static_cast<double>(zeros_seen) / y.size(), 0.3, 0.03);

  nn::Dropout2d drop2d(0.5);
  const Tensor img = ones({8, 16, 3, 3});
  const Tensor out = drop2d(img);
  const std::vector<float> v = out.to_vector<float>();
  for (size_t c = 0; c < 8 * 16; ++c)  // a channel is kept or dropped as a whole
    for (size_t k = 1; k < 9; ++k) EXPECT_EQ(v[c * 9 + k], v[c * 9]);
  drop2d.eval();
  EXPECT_TRUE(drop2d(img).is_same(img));
}

TEST(BatchNorm2dLayer, TrainingNormalisesAndUpdatesRunningStats) {
  nn::BatchNorm2d bn(2);
  // Channel 0 holds 1, 3, 5, 7 (mean 4, variance 5, unbiased 20/3); channel 1 holds
  // 2, 2, 2, 6 (mean 3, variance 3, unbiased 4).
  const Tensor x = from_vector(std::vector<float>{1, 3, 2, 2, 5, 7, 2, 6}, {2, 2, 1, 2});
  const double s0 = std::sqrt(5 + 1e-5), s1 = std::sqrt(3 + 1e-5);
  EXPECT_TRUE(values_near(bn(x), {-3 / s0, -1 / s0, -1 / s1, -1 / s1, 1 / s0, 3 / s0, -1 / s1, 3 / s1},
                          {2, 2, 1, 2}, 1e-5));
  EXPECT_TRUE(values_near(bn.running_mean, {0.4, 0.3}, {2}));
  EXPECT_TRUE(values_near(bn.running_var, {0.9 + 0.1 * 20 / 3.0, 0.9 + 0.1 * 4}, {2}));
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 1);

  // Eval: the running statistics and the affine parameters.
  set_values(bn.weight, {2, 1});
  set_values(bn.bias, {0, 10});
  bn.eval();
  const double r0 = std::sqrt(0.9 + 2 / 3.0 + 1e-5), r1 = std::sqrt(1.3 + 1e-5);
  const Tensor y = bn(from_vector(std::vector<float>{1.4f, 0.3f}, {1, 2, 1, 1}));
  EXPECT_TRUE(values_near(y, {2 * (1.4 - 0.4) / r0, 10 + (0.3 - 0.3) / r1}, {1, 2, 1, 1}, 1e-5));
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 1);  // eval counts nothing
  EXPECT_THROW_MSG(bn(ones({2, 2})), ShapeError,
                   "BatchNorm2d: expected 4-D input [N, C, H, W], got shape [2, 2]");
  bn.reset_running_stats();
  EXPECT_TRUE(values_near(bn.running_var, {1, 1}, {2}));

  nn::BatchNorm2d plain(2, 1e-5, 0.1, /*affine=*/false, /*track_running_stats=*/false);
  EXPECT_TRUE(plain.parameters().empty());
  EXPECT_TRUE(plain.buffers().empty());
  plain.eval();  // without running statistics eval uses the batch's
  EXPECT_TRUE(values_near(plain(x).mean(), {0}, {}, 1e-6));
}

TEST(BatchNorm2dLayer, AnEmptyBatchLeavesTheRunningStatsButCountsTheBatch) {
  // PyTorch's _BatchNorm.forward adds 1 to num_batches_tracked before calling batch_norm,
  // whatever the batch size; batch_norm returns early for an empty input.
  nn::BatchNorm2d bn(2);
  const Tensor out = bn(zeros({0, 2, 3, 3}));
  EXPECT_EQ(out.shape(), (Shape{0, 2, 3, 3}));
  EXPECT_EQ(bn.running_mean.to_vector<float>(), (std::vector<float>{0, 0}));
  EXPECT_EQ(bn.running_var.to_vector<float>(), (std::vector<float>{1, 1}));
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 1);
}

TEST(Sequential, ChainsChildrenInOrder) {
  nn::Sequential seq{std::make_shared<nn::Linear>(2, 2), std::make_shared<nn::ReLU>()};
  auto fc = std::dynamic_pointer_cast<nn::Linear>(seq[0]);
  set_values(fc->weight, {1, 0, 0, -1});
  set_values(fc->bias, {0, 0});
  EXPECT_TRUE(values_near(seq(tensor({{3, 4}}, kFloat32)), {3, 0}, {1, 2}));
  seq.push_back(std::make_shared<nn::Flatten>(0));
  EXPECT_EQ(seq.size(), 3u);
  EXPECT_EQ(seq.named_children()[2].first, "2");
  EXPECT_THROW_MSG(seq[3], IndexError, "Sequential: index 3 is out of range for 3 modules");
  nn::Sequential named(
      nn::NamedModules{{"fc", std::make_shared<nn::Linear>(2, 1)}, {"act", std::make_shared<nn::Tanh>()}});
  EXPECT_EQ(named.state_dict().keys(), (std::vector<std::string>{"fc.weight", "fc.bias"}));
}

TEST(Losses, ModulesMatchTheCoreOps) {
  const Tensor logits = tensor({{1, 2, 3}, {0, -1, 5}}, kFloat32);
  const Tensor target = from_vector(std::vector<int64_t>{2, 0});
  // -log softmax: row 0 picks class 2, row 1 class 0.
  const double l0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)) - 3;
  const double l1 = std::log(1 + std::exp(-1.0) + std::exp(5.0)) - 0;
  EXPECT_TRUE(values_near(nn::CrossEntropyLoss()(logits, target), {(l0 + l1) / 2}, {}, 1e-6));
  EXPECT_TRUE(values_near(nn::CrossEntropyLoss(Reduction::Sum)(logits, target), {l0 + l1}, {}, 1e-6));
  EXPECT_TRUE(values_near(nn::NLLLoss(Reduction::None)(logits, target), {-3, 0}, {2}));
  EXPECT_TRUE(values_near(nn::MSELoss()(tensor({1, 2}, kFloat32), tensor({2, 4}, kFloat32)), {2.5}, {}));
  namespace F = nn::functional;
  EXPECT_TRUE(values_near(F::cross_entropy(logits, target), {(l0 + l1) / 2}, {}, 1e-6));
  EXPECT_TRUE(values_near(F::relu(tensor({-1, 1}, kFloat32)), {0, 1}, {2}));
  EXPECT_EQ(F::flatten(ones({2, 3, 4}), 1).shape(), (Shape{2, 12}));
}
