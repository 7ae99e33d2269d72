// In-place ops through views rewrite the base's history (docs/DESIGN.md, "Autograd: in-place
// ops and views"): hand-computed gradients for every view kind, then gradcheck.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/extend/autograd_node.h"
#include "support/expect.h"
#include "support/gradcheck.h"

using namespace ember;
using ember::test::gradcheck;
using ember::test::leaf;
using ember::test::values_near;

TEST(AutogradInplaceView, NarrowOfANonLeafScalesOnlyItsRegion) {
  Tensor w = tensor({1, 2, 3}, kFloat32).requires_grad_(true);
  Tensor y = w * 2.0;
  y.narrow(0, 0, 2).mul_(10);
  EXPECT_STREQ(y.grad_fn()->name(), "copy_slices");
  EXPECT_TRUE(values_near(y, {20, 40, 6}, {3}));
  y.sum().backward();
  EXPECT_TRUE(values_near(w.grad(), {20, 20, 2}, {3}));
}

TEST(AutogradInplaceView, SelectAddOfAnotherElementOfTheLeaf) {
  Tensor w = tensor({1, 2, 3}, kFloat32).requires_grad_(true);
  Tensor y = w * 1.0;
  y.select(0, 1).add_(w.select(0, 2));  // y = [1, 5, 3]
  (y * y).sum().backward();             // dL/dy = 2y = [2, 10, 6]; y1 also feeds w2
  EXPECT_TRUE(values_near(w.grad(), {2, 10, 16}, {3}));
}

TEST(AutogradInplaceView, ViewReshapeFlattenAndSqueezeOfTheBase) {
  Tensor w = tensor({{1, 2}, {3, 4}}, kFloat32).requires_grad_(true);
  Tensor y = w * 1.0;
  y.view({4}).mul_(tensor({1, 2, 3, 4}, kFloat32));
  y.reshape({1, 4}).squeeze(0).add_(1.0);
  y.flatten().unsqueeze(0).mul_(2.0);  // y = 2 * (w * [1 2; 3 4] + 1)
  (y * y).sum().backward();            // dL/dw = 2y * 2 * [1 2; 3 4]
  const double a[4] = {1, 2, 3, 4};
  std::vector<double> expected;
  for (int i = 0; i < 4; ++i) expected.push_back(2 * (2 * (a[i] * a[i] + 1)) * 2 * a[i]);
  EXPECT_TRUE(values_near(w.grad(), expected, {2, 2}));
}

TEST(AutogradInplaceView, TransposeAndPermuteWriteTheirOwnElements) {
  Tensor w = tensor({{1, 2, 3}, {4, 5, 6}}, kFloat32).requires_grad_(true);
  Tensor y = w * 1.0;
  // y.t()[0] is y's first column [1, 4]: scaled by [10, 100].
  y.t().select(0, 0).mul_(tensor({10, 100}, kFloat32));
  y.unsqueeze(0).permute({2, 1, 0}).select(0, 2).mul_(3.0);  // third column times 3
  EXPECT_TRUE(values_near(y, {10, 2, 9, 400, 5, 18}, {2, 3}));
  y.sum().backward();
  EXPECT_TRUE(values_near(w.grad(), {10, 1, 3, 100, 1, 3}, {2, 3}));
}

TEST(AutogradInplaceView, ChainsOfViewsAndStaleSiblingViews) {
  Tensor w = tensor({1, 2, 3, 4, 5, 6}, kFloat32).requires_grad_(true);
  Tensor y = w * 1.0;
  Tensor row = y.view({2, 3}).select(0, 1);  // [4, 5, 6], made before the in-place op
  Tensor other = y.view({2, 3}).select(0, 0);
  other.narrow(0, 1, 2).mul_(0.0);  // y = [1, 0, 0, 4, 5, 6]
  row.mul_(row);                    // y = [1, 0, 0, 16, 25, 36]
  EXPECT_TRUE(values_near(y, {1, 0, 0, 16, 25, 36}, {6}));
  y.sum().backward();
  EXPECT_TRUE(values_near(w.grad(), {1, 0, 0, 8, 10, 12}, {6}));
}

TEST(AutogradInplaceView, AViewMadeBeforeTheBaseChangedFollowsTheNewHistory) {
  Tensor w = tensor({1, 2, 3}, kFloat32).requires_grad_(true);
  Tensor y = w * 1.0;
  Tensor head = y.narrow(0, 0, 2);
  y.mul_(w);  // y = w^2, on the base itself
  head.sum().backward();
  EXPECT_TRUE(values_near(w.grad(), {2, 4, 0}, {3}));
}

TEST(AutogradInplaceView, AnExpandedViewOfAChangedBaseSumsItsGradient) {
  Tensor w = tensor({1, 2}, kFloat32).requires_grad_(true);
  Tensor y = w * 1.0;
  Tensor wide = y.unsqueeze(0).expand({3, 2});
  y.mul_(3.0);
  wide.sum().backward();  // each element of y is read three times, times 3
  EXPECT_TRUE(values_near(w.grad(), {9, 9}, {2}));
}

TEST(AutogradInplaceView, CopyIntoAViewOfABaseWithoutHistoryGivesTheBaseOne) {
  Tensor w = tensor({5, 7}, kFloat32).requires_grad_(true);
  Tensor buffer = zeros({4});
  EXPECT_FALSE(buffer.requires_grad());
  buffer.narrow(0, 1, 2).copy_(w * w);
  EXPECT_TRUE(buffer.requires_grad());
  (buffer * tensor({1, 2, 3, 4}, kFloat32)).sum().backward();
  EXPECT_TRUE(values_near(w.grad(), {2 * 5 * 2, 2 * 7 * 3}, {2}));
}

TEST(AutogradInplaceView, OverwritingARegionCutsItsOldGradient) {
  Tensor w = tensor({1, 2, 3}, kFloat32).requires_grad_(true);
  Tensor y = w * 4.0;
  y.select(0, 0).fill_(0);
  y.narrow(0, 2, 1).copy_(zeros({1}));
  y.sum().backward();
  EXPECT_TRUE(values_near(w.grad(), {0, 4, 0}, {3}));
}

TEST(AutogradInplaceView, ViewsOfALeafThatRequiresGradRefuseInPlaceOps) {
  Tensor w = tensor({1, 2, 3}, kFloat32).requires_grad_(true);
  EXPECT_THROW_MSG(w.narrow(0, 0, 2).mul_(10), AutogradError,
                   "a view of a leaf tensor that requires grad is used in an in-place operation (mul_)");
  EXPECT_THROW_MSG(w.view({3, 1}).select(1, 0).add_(1.0), AutogradError, "a view of a leaf tensor");
  EXPECT_THROW_MSG(w.unsqueeze(1).t().copy_(zeros({1, 3})), AutogradError, "a view of a leaf tensor");
  EXPECT_THROW_MSG(w.expand({3}).fill_(0), AutogradError, "a view of a leaf tensor");
  EXPECT_TRUE(values_near(w, {1, 2, 3}, {3}));
  {
    NoGradGuard no_grad;  // what optimizers do
    w.narrow(0, 0, 2).mul_(10);
  }
  EXPECT_TRUE(values_near(w, {10, 20, 3}, {3}));
}

TEST(AutogradInplaceView, AViewMadeUnderNoGradIsNotModifiedWithGradOn) {
  Tensor w = tensor({1, 2}, kFloat32).requires_grad_(true);
  Tensor y = w * 2.0;
  Tensor v;
  {
    NoGradGuard no_grad;
    v = y.narrow(0, 0, 1);
  }
  EXPECT_THROW_MSG(v.mul_(2.0), AutogradError, "a view made under NoGradGuard is modified in place (mul_)");
}

TEST(AutogradInplaceView, ANonContiguousBaseIsRefusedNotMisdifferentiated) {
  Tensor w = tensor({{1, 2}, {3, 4}}, kFloat32).requires_grad_(true);
  Tensor base = (w * 1.0).t().detach();  // not a view in autograd's sense, and not contiguous
  EXPECT_THROW_MSG(base.select(0, 0).copy_(w.select(0, 1)), AutogradError,
                   "copy_: an in-place operation on a view needs its base's gradient");
}

TEST(AutogradInplaceView, GradcheckThroughInPlaceOpsOnViews) {
  Tensor a = leaf({3, 4});
  Tensor b = leaf({4});
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) {
        Tensor y = in[0] * 1.0;
        y.t().select(0, 1).mul_(in[0].select(1, 2));  // column 1 times column 2
        y.narrow(0, 1, 2).add_(in[1].unsqueeze(0).expand({2, 4}));
        y.view({12}).narrow(0, 3, 5).mul_(y.view({12}).narrow(0, 0, 5).clone());
        Tensor r = y.permute({1, 0});
        r.select(0, 3).copy_(in[1].narrow(0, 0, 3) * 2.0);
        return y * y;
      },
      {a, b}));
}

TEST(AutogradInplaceView, GradcheckThroughSqueezeUnsqueezeReshapeAndFlattenChains) {
  Tensor a = leaf({2, 1, 3});
  Tensor b = leaf({3});
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) {
        Tensor y = in[0] * 2.0;
        y.squeeze(1).select(1, 0).mul_(in[1].narrow(0, 0, 2));  // [2] through a squeeze
        y.reshape({6}).narrow(0, 2, 3).add_(in[1] * in[1]);     // a flat window across rows
        y.flatten(1).unsqueeze(0).squeeze().t().select(0, 2).mul_(y.select(2, 1).squeeze(1).clone());
        return y.exp();
      },
      {a, b}));
}
