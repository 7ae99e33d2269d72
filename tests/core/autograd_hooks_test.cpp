// Post-accumulate-grad hooks and callbacks queued during backward, checked by hand.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

TEST(PostAccumulateGradHook, SeesTheAccumulatedGradientOncePerBackward) {
  Tensor w = tensor({1, 2, 3}, kFloat32).requires_grad_(true);
  w.set_grad(
      tensor({10, 10, 10}, kFloat32));  // an earlier backward's gradient, which the hook sees summed in
  std::vector<std::vector<float>> seen;
  w.register_post_accumulate_grad_hook([&](const Tensor& leaf) {
    EXPECT_TRUE(leaf.is_same(w));
    seen.push_back(leaf.grad().to_vector<float>());
  });
  // w is used twice: d/dw (w * x + w * w) = x + 2w = [3, 6, 9]; one call with the total.
  const Tensor x = tensor({1, 2, 3}, kFloat32);
  (w * x + w * w).sum().backward();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], (std::vector<float>{13, 16, 19}));
  (w * x).sum().backward();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1], (std::vector<float>{14, 18, 22}));
}

TEST(PostAccumulateGradHook, RunInRegistrationOrderAndLaterLayersFirst) {
  Tensor w1 = tensor({2.0}).requires_grad_(true);
  Tensor w2 = tensor({3.0}).requires_grad_(true);
  std::vector<std::string> order;
  w1.register_post_accumulate_grad_hook([&](const Tensor&) { order.push_back("w1"); });
  w2.register_post_accumulate_grad_hook([&](const Tensor&) { order.push_back("w2.a"); });
  w2.register_post_accumulate_grad_hook([&](const Tensor&) { order.push_back("w2.b"); });
  // A chain x -> *w1 -> *w2: backward reaches w2 (the later layer) first.
  ((tensor({5.0}) * w1) * w2).sum().backward();
  EXPECT_EQ(order, (std::vector<std::string>{"w2.a", "w2.b", "w1"}));
  EXPECT_TRUE(values_near(w1.grad(), {15}, {1}));
  EXPECT_TRUE(values_near(w2.grad(), {10}, {1}));
}

TEST(PostAccumulateGradHook, RemovedHooksStopRunning) {
  Tensor w = tensor({1.0}).requires_grad_(true);
  int a = 0, b = 0, once = 0;
  HookHandle ha = w.register_post_accumulate_grad_hook([&](const Tensor&) { ++a; });
  HookHandle hb;
  HookHandle self;
  // A hook may remove itself and the ones after it; those do not run in this backward.
  self = w.register_post_accumulate_grad_hook([&](const Tensor&) {
    ++once;
    self.remove();
    hb.remove();
  });
  hb = w.register_post_accumulate_grad_hook([&](const Tensor&) { ++b; });
  (w * 2.0).sum().backward();
  EXPECT_EQ(a, 1);
  EXPECT_EQ(once, 1);
  EXPECT_EQ(b, 0);
  ha.remove();
  ha.remove();  // twice does nothing
  (w * 2.0).sum().backward();
  EXPECT_EQ(a, 1);
  EXPECT_EQ(once, 1);
  EXPECT_TRUE(values_near(w.grad(), {4}, {1}));
  {
    Tensor gone = tensor({1.0}).requires_grad_(true);
    ha = gone.register_post_accumulate_grad_hook([](const Tensor&) {});
  }
  ha.remove();  // after its tensor is gone: nothing to do
}

TEST(PostAccumulateGradHook, AThrowingHookStopsBackwardAndLeavesTheGradientSummed) {
  Tensor w = tensor({1, 2}, kFloat32).requires_grad_(true);
  w.set_name("fc.weight");
  HookHandle h =
      w.register_post_accumulate_grad_hook([](const Tensor&) { throw std::runtime_error("boom"); });
  EXPECT_THROW_MSG((w * 3.0).sum().backward(), AutogradError,
                   "a post-accumulate-grad hook of fc.weight of shape [2] threw: boom");
  EXPECT_TRUE(values_near(w.grad(), {3, 3}, {2}));
  EXPECT_TRUE(GradMode::is_enabled());
  h.remove();
  // An Ember error goes through as it is.
  h = w.register_post_accumulate_grad_hook([](const Tensor&) { raise<ValueError>("bad value"); });
  EXPECT_THROW_MSG((w * 1.0).sum().backward(), ValueError, "bad value");
  h.remove();
  // Nothing is left behind: the next backward runs normally and queues no stale callback.
  (w * 1.0).sum().backward();
  EXPECT_TRUE(values_near(w.grad(), {5, 5}, {2}));
  EXPECT_THROW_MSG(autograd::queue_callback([] {}), AutogradError, "queue_callback: no backward is running");
}

TEST(PostAccumulateGradHook, OnlyOnLeavesThatRequireGrad) {
  Tensor w = tensor({1.0}).requires_grad_(true);
  EXPECT_THROW_MSG((w * 2.0).register_post_accumulate_grad_hook([](const Tensor&) {}), AutogradError,
                   "register_post_accumulate_grad_hook: only a leaf tensor that requires grad has an "
                   "accumulated gradient; this one is not a leaf");
  EXPECT_THROW_MSG(tensor({1.0}).register_post_accumulate_grad_hook([](const Tensor&) {}), AutogradError,
                   "register_post_accumulate_grad_hook: only a leaf tensor that requires grad has an "
                   "accumulated gradient; this one does not require grad");
  EXPECT_THROW_MSG(w.register_post_accumulate_grad_hook(PostAccumulateGradHook()), ValueError,
                   "register_post_accumulate_grad_hook: the hook is empty");
}

TEST(BackwardCallback, RunsOnceAfterEveryNodeInTheOrderQueued) {
  Tensor w1 = tensor({2.0}).requires_grad_(true);
  Tensor w2 = tensor({3.0}).requires_grad_(true);
  std::vector<std::string> events;
  std::vector<float> grads_at_end;
  bool queued = false;
  // Queued by the first hook, the callback sees both leaves' gradients.
  auto hook = [&](const Tensor& leaf) {
    events.push_back(leaf.is_same(w1) ? "w1" : "w2");
    if (queued) return;
    queued = true;
    autograd::queue_callback([&] {
      events.push_back("end");
      grads_at_end = {w1.grad().item<float>(), w2.grad().item<float>()};
      autograd::queue_callback([&] { events.push_back("queued by a callback"); });
    });
  };
  w1.register_post_accumulate_grad_hook(hook);
  w2.register_post_accumulate_grad_hook(hook);
  ((tensor({5.0}) * w1) * w2).sum().backward();
  EXPECT_EQ(events, (std::vector<std::string>{"w2", "w1", "end", "queued by a callback"}));
  EXPECT_EQ(grads_at_end, (std::vector<float>{15, 10}));
}

TEST(BackwardCallback, AThrowingCallbackEndsBackwardWithItsError) {
  Tensor w = tensor({1.0}).requires_grad_(true);
  HookHandle h = w.register_post_accumulate_grad_hook(
      [](const Tensor&) { autograd::queue_callback([] { raise<DistributedError>("rank 1 failed"); }); });
  EXPECT_THROW_MSG((w * 2.0).sum().backward(), DistributedError, "rank 1 failed");
  h.remove();
  h = w.register_post_accumulate_grad_hook(
      [](const Tensor&) { autograd::queue_callback([] { throw std::logic_error("oops"); }); });
  EXPECT_THROW_MSG((w * 2.0).sum().backward(), AutogradError,
                   "a callback queued during backward threw: oops");
  h.remove();
  (w * 2.0).sum().backward();
  EXPECT_TRUE(values_near(w.grad(), {6}, {1}));
}
