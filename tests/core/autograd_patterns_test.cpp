// Autograd patterns users write: leaves shared by several graphs, overlapping and
// expanded in-place writes, dtype holes, exceptions from hooks.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

namespace {
Tensor parameter(const nn::Module& m, const std::string& name) {
  for (const auto& [n, t] : m.named_parameters())
    if (n == name) return t;
  ADD_FAILURE() << "no parameter " << name;
  return Tensor();
}
}  // namespace

TEST(AutogradSharedLeaf, TwoGraphsOfOneLeafEachBackwardOnce) {
  Tensor w = tensor({1, 2, 3}, kFloat32).requires_grad_(true);
  Tensor l1 = (w * 2.0).sum();
  Tensor l2 = (w * 3.0).sum();
  l1.backward();
  l2.backward();
  EXPECT_TRUE(values_near(w.grad(), {5, 5, 5}, {3}));
  // Each graph itself is freed: its second backward is still refused.
  EXPECT_THROW_MSG(l1.backward(), AutogradError, "trying to backward through the graph a second time");
}

TEST(AutogradSharedLeaf, MicroBatchesForwardFirstThenBackward) {
  nn::Linear layer(3, 2);
  Tensor x1 = tensor({{1, 2, 3}}, kFloat32);
  Tensor x2 = tensor({{-1, 0, 2}}, kFloat32);
  Tensor l1 = layer(x1).sum();
  Tensor l2 = layer(x2).sum();
  l1.backward();
  l2.backward();
  // d/dW of sum(W x + b) over both samples: each row gets x1 + x2; the bias 2.
  const Tensor weight = parameter(layer, "weight");
  const Tensor bias = parameter(layer, "bias");
  EXPECT_TRUE(values_near(weight.grad(), {0, 2, 5, 0, 2, 5}, {2, 3}));
  EXPECT_TRUE(values_near(bias.grad(), {2, 2}, {2}));
}

TEST(AutogradSharedLeaf, AGraphKeptAliveAcrossIterationsStillBackwards) {
  Tensor w = tensor({1, 1}, kFloat32).requires_grad_(true);
  Tensor kept = (w * w).sum();  // never backwarded until the end
  for (int i = 0; i < 3; ++i) (w * 1.0).sum().backward();
  kept.backward();
  EXPECT_TRUE(values_near(w.grad(), {5, 5}, {2}));
}

TEST(InplaceOverlap, CopyFromAnOverlappingSourceGoesThroughATemporary) {
  Tensor a = tensor({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}, kFloat32);
  a.copy_(a.t());
  EXPECT_TRUE(values_near(a, {1, 4, 7, 2, 5, 8, 3, 6, 9}, {3, 3}));
  Tensor b = tensor({1, 2, 3, 4}, kFloat32);
  b.narrow(0, 1, 3).copy_(b.narrow(0, 0, 3));
  EXPECT_TRUE(values_near(b, {1, 1, 2, 3}, {4}));
  Tensor c = tensor({1, 2, 3, 4}, kFloat32);
  c.narrow(0, 0, 3).copy_(c.narrow(0, 1, 3));
  EXPECT_TRUE(values_near(c, {2, 3, 4, 4}, {4}));
}

TEST(InplaceOverlap, LoadingAModelsOwnTransposedWeightIsExact) {
  nn::Linear layer(3, 3, /*bias=*/false);
  Tensor weight = parameter(layer, "weight");
  const std::vector<double> before = weight.to_vector<double>();
  layer.load_state_dict({{"weight", weight.t()}});
  const std::vector<double> after = weight.to_vector<double>();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(after[i * 3 + j], before[j * 3 + i]) << i << "," << j;
}

TEST(InplaceOverlap, WritingIntoAnExpandedTensorIsRefused) {
  Tensor base = tensor({1, 2}, kFloat32);
  Tensor wide = base.unsqueeze(0).expand({3, 2});
  const char* msg = "copy_: the tensor written in place has internal overlap";
  EXPECT_THROW_MSG(wide.copy_(ones({3, 2})), ValueError, msg);
  EXPECT_THROW_MSG(wide.add_(ones({3, 2})), ValueError,
                   "add_: the tensor written in place has internal overlap");
  EXPECT_THROW_MSG(wide.mul_(2.0), ValueError, "mul_: the tensor written in place");
  EXPECT_THROW_MSG(wide.fill_(0), ValueError, "fill_: the tensor written in place");
  EXPECT_TRUE(values_near(base, {1, 2}, {2}));
  // Expanding a dim of size 1 to size 1 shares nothing: allowed.
  Tensor same = base.unsqueeze(0).expand({1, 2});
  same.add_(1.0);
  EXPECT_TRUE(values_near(base, {2, 3}, {2}));
}

TEST(AutogradDtype, OnlyFloatingTensorsCarryGradients) {
  Tensor w = tensor({1.5, 2.5, -3.5}).requires_grad_(true);
  Tensor ints = zeros({3}, kInt64);
  ints.copy_(w);
  EXPECT_FALSE(ints.requires_grad());
  EXPECT_EQ(ints.grad_fn(), nullptr);
  EXPECT_EQ(ints.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, -3}));
  EXPECT_FALSE(w.to(kInt64).requires_grad());
  EXPECT_FALSE(w.argmax(0).requires_grad());
  EXPECT_THROW_MSG(set_data(w, arange(3, kInt64)), AutogradError,
                   "set_data: the tensor requires grad, so its data must be floating, got int64");
  EXPECT_EQ(w.dtype(), kFloat32);
  // A floating copy still differentiates.
  Tensor f = zeros({3});
  f.copy_(w * 2.0);
  f.sum().backward();
  EXPECT_TRUE(values_near(w.grad(), {2, 2, 2}, {3}));
}

TEST(AutogradOverwrite, ANonLeafOverwrittenByConstantsStillRequiresGradButGetsNone) {
  Tensor w = tensor({1, 2}, kFloat32).requires_grad_(true);
  Tensor y = w * 3.0;
  y.copy_(tensor({7, 7}, kFloat32));
  EXPECT_TRUE(y.requires_grad());
  (y * w).sum().backward();  // only the second factor reaches w
  EXPECT_TRUE(values_near(w.grad(), {7, 7}, {2}));
  Tensor z = w * 3.0;
  z.fill_(1);
  normal_(z, 0, 1);
  (z * 0.0 + w).sum().backward();
  EXPECT_TRUE(values_near(w.grad(), {8, 8}, {2}));
}

TEST(AutogradHooks, ANonStandardExceptionFromAHookBecomesAnAutogradError) {
  Tensor w = tensor({1, 2}, kFloat32).requires_grad_(true);
  w.register_post_accumulate_grad_hook([](const Tensor&) { throw 42; });
  EXPECT_THROW_MSG((w * 2.0).sum().backward(), AutogradError,
                   "a post-accumulate-grad hook of a leaf of shape [2] threw");
  EXPECT_TRUE(values_near(w.grad(), {2, 2}, {2}));  // .grad keeps the sum
}

TEST(AutogradHooks, ANonStandardExceptionFromACallbackBecomesAnAutogradError) {
  Tensor w = tensor({1, 2}, kFloat32).requires_grad_(true);
  w.register_post_accumulate_grad_hook(
      [](const Tensor&) { autograd::queue_callback([] { throw std::string("not an exception"); }); });
  EXPECT_THROW_MSG((w * 2.0).sum().backward(), AutogradError, "a callback queued during backward threw");
}
