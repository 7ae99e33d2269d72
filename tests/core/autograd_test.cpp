#include <gtest/gtest.h>

#include <thread>

#include "ember/ember.h"
#include "ember/extend/autograd_node.h"
#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

TEST(Autograd, HandCheckedGradients) {
  Tensor x = tensor({1, 2, 3}, kFloat32).requires_grad_(true);
  Tensor y = tensor({4, 5, 6}, kFloat32).requires_grad_(true);
  Tensor z = (x * y + x * x).sum();  // dz/dx = y + 2x, dz/dy = x
  EXPECT_FALSE(z.is_leaf());
  EXPECT_STREQ(z.grad_fn()->name(), "sum");
  z.backward();
  EXPECT_TRUE(values_near(x.grad(), {6, 9, 12}, {3}));
  EXPECT_TRUE(values_near(y.grad(), {1, 2, 3}, {3}));
}

TEST(Autograd, GradientsAccumulateAndBroadcastSumsBack) {
  Tensor w = tensor({{1, 2, 3}}, kFloat32).requires_grad_(true);  // [1, 3], broadcast over 2 rows
  Tensor x = tensor({{1, 1, 1}, {2, 2, 2}}, kFloat32);
  (w * x).sum().backward();
  EXPECT_TRUE(values_near(w.grad(), {3, 3, 3}, {1, 3}));
  (w * x).sum().backward();
  EXPECT_TRUE(values_near(w.grad(), {6, 6, 6}, {1, 3}));
  Tensor b = scalar_tensor(2.0).requires_grad_(true);
  (x + b).sum().backward();
  EXPECT_TRUE(values_near(b.grad(), {6}, {}));
}

TEST(Autograd, NoGradGuardAndDetach) {
  Tensor x = ones({2}).requires_grad_(true);
  {
    NoGradGuard guard;
    EXPECT_FALSE((x * 2.0).requires_grad());
  }
  EXPECT_TRUE((x * 2.0).requires_grad());
  Tensor d = (x * 2.0).detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  // Grad mode is per thread.
  bool other_thread = true;
  {
    NoGradGuard guard;
    std::thread t([&] { other_thread = GradMode::is_enabled(); });
    t.join();
  }
  EXPECT_TRUE(other_thread);
}

TEST(Autograd, RetainGraphAllowsASecondBackward) {
  Tensor x = tensor({1, 2}, kFloat32).requires_grad_(true);
  Tensor y = (x * x).sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  EXPECT_TRUE(values_near(x.grad(), {4, 8}, {2}));
  EXPECT_THROW_MSG(y.backward(), AutogradError,
                   "trying to backward through the graph a second time (at sum)");
}

TEST(Autograd, ErrorsByTypeAndFirstLine) {
  Tensor x = tensor({1, 2}, kFloat32).requires_grad_(true);
  EXPECT_THROW_LINE(
      (x * 2.0).backward(), AutogradError,
      "backward: grad can be implicitly created only for scalar outputs; this tensor has shape [2]");
  EXPECT_THROW_LINE(tensor({1.0}).sum().backward(), AutogradError,
                    "backward: the tensor does not require grad and has no grad_fn");
  EXPECT_THROW_LINE((x * 2.0).backward(ones({3})), AutogradError,
                    "backward: the gradient has shape [3] but the tensor has shape [2]");
  // A tensor saved for backward, then modified in place: the message names the op.
  Tensor a = tensor({1, 2}, kFloat32).requires_grad_(true);
  Tensor h = a * 1.0;
  Tensor out = (h * h).sum();
  h.add_(1.0);
  EXPECT_THROW_MSG(out.backward(), AutogradError,
                   "a tensor saved for the backward of mul was modified by an in-place operation");
  EXPECT_THROW_MSG(x.add_(1.0), AutogradError,
                   "a leaf tensor that requires grad is used in an in-place operation (add_)");
  EXPECT_THROW_MSG(tensor({1}, kInt64).requires_grad_(true), AutogradError,
                   "requires_grad_: only floating tensors can require grad, got int64");
}

TEST(Autograd, InPlaceOpsOnNonLeavesAreDifferentiable) {
  Tensor x = tensor({1, 2, 3}, kFloat32).requires_grad_(true);
  Tensor h = x * 2.0;
  h.mul_(h);  // h = (2x)^2
  h.add_(x);  // h = 4x^2 + x
  h.sum().backward();
  EXPECT_TRUE(values_near(x.grad(), {9, 17, 25}, {3}));
}

TEST(Autograd, ABranchThatGetsNoGradientDoesNotStall) {
  Tensor x = tensor({1, 2}, kFloat32).requires_grad_(true);
  Tensor y = tensor({3, 4}, kFloat32).requires_grad_(true);
  Tensor a = x * y;
  Tensor c = where(tensor({1, 0}, kFloat32) > 0.5, a, x);  // both branches feed the output
  (c.sum() + (y * 0.0).sum()).backward();
  EXPECT_TRUE(values_near(x.grad(), {3, 1}, {2}));
  EXPECT_TRUE(values_near(y.grad(), {1, 0}, {2}));
}

TEST(Autograd, AHundredThousandOpChainDoesNotOverflowTheStack) {
  Tensor x = tensor({1.0}).requires_grad_(true);
  Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = y * 1.0 + 0.0;
  y.sum().backward();
  EXPECT_TRUE(values_near(x.grad(), {1}, {1}));
  // An unused long graph is also destroyed without recursion.
  Tensor z = x;
  for (int i = 0; i < 100000; ++i) z = z * 1.0;
  z = Tensor();
  SUCCEED();
}

TEST(Autograd, ViewGradientsScatterBack) {
  Tensor x = arange(0, 6, 1, kFloat64).reshape({2, 3}).detach().requires_grad_(true);
  (x.narrow(1, 1, 2).select(0, 1) * tensor({10, 20}, kFloat64)).sum().backward();
  EXPECT_TRUE(values_near(x.grad(), {0, 0, 0, 0, 10, 20}, {2, 3}));
  Tensor y = ones({3}, kFloat64).requires_grad_(true);
  y.expand({4, 3}).sum().backward();
  EXPECT_TRUE(values_near(y.grad(), {4, 4, 4}, {3}));
}
