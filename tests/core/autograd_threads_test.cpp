// Backward on several threads into shared leaves (docs/DESIGN.md, "Threads and autograd").
// CI runs this suite under ThreadSanitizer (.ci/run, the TSan stage): each pattern repeats at
// least 50 times per thread, and the sums are exact (small integers in float).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "ember/extend/autograd_node.h"
#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

namespace {

constexpr int kThreads = 2;
constexpr int kRounds = 50;

// Runs body(thread index) on kThreads threads released together; rethrows nothing (a failed
// EXPECT inside body is reported by gtest from any thread).
template <class Body>
void on_threads(const Body& body) {
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      try {
        body(t);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "thread " << t << " threw: " << e.what();
      }
    });
  for (auto& th : threads) th.join();
}

}  // namespace

TEST(AutogradThreads, SeparateGraphsIntoOneLeafSumExactly) {
  for (int rep = 0; rep < 3; ++rep) {
    Tensor w = zeros({300}).requires_grad_(true);
    on_threads([&](int t) {
      for (int i = 0; i < kRounds; ++i) (w * static_cast<double>(t + 1)).sum().backward();
    });
    // Thread 0 adds 1 per round, thread 1 adds 2: 50 * (1 + 2) per element.
    EXPECT_TRUE(values_near(w.grad(), std::vector<double>(300, kRounds * 3.0), {300}));
  }
}

TEST(AutogradThreads, GraphsBuiltAtOnceShareOneAccumulator) {
  // Forwards on both threads create the leaf's accumulator at the same time, then backward.
  for (int i = 0; i < kRounds; ++i) {
    Tensor w = tensor({1, 2}, kFloat32).requires_grad_(true);
    std::vector<Tensor> losses(kThreads);
    on_threads([&](int t) { losses[static_cast<size_t>(t)] = (w * w).sum(); });
    // loss <- sum <- mul <- the leaf's accumulator
    auto accumulator = [](const Tensor& loss) {
      return loss.grad_fn()->next_edges()[0].fn->next_edges()[0].fn;
    };
    EXPECT_EQ(accumulator(losses[0]), accumulator(losses[1]));
    on_threads([&](int t) { losses[static_cast<size_t>(t)].backward(); });
    EXPECT_TRUE(values_near(w.grad(), {4, 8}, {2}));
  }
}

TEST(AutogradThreads, ASharedLinearLayerAccumulatesEveryThreadsGradient) {
  nn::Linear layer(4, 3);
  const Tensor x = tensor({{1, 2, 0, -1}, {0, 1, 1, 1}}, kFloat32);  // columns sum to [1, 3, 1, 0]
  on_threads([&](int) {
    for (int i = 0; i < kRounds; ++i) layer(x).sum().backward();
  });
  const double rounds = kThreads * kRounds;
  for (const auto& [name, p] : layer.named_parameters()) {
    if (name == "weight")
      for (int r = 0; r < 3; ++r)
        EXPECT_TRUE(values_near(p.grad().select(0, r), {rounds, 3 * rounds, rounds, 0}, {4})) << r;
    else
      EXPECT_TRUE(values_near(p.grad(), {2 * rounds, 2 * rounds, 2 * rounds}, {3}));
  }
}

TEST(AutogradThreads, HooksRunOncePerBackwardOnEveryThread) {
  Tensor w = ones({8}).requires_grad_(true);
  std::atomic<int> calls{0};
  w.register_post_accumulate_grad_hook([&](const Tensor&) { calls.fetch_add(1); });
  on_threads([&](int) {
    for (int i = 0; i < kRounds; ++i) (w * 2.0).sum().backward();
  });
  EXPECT_EQ(calls.load(), kThreads * kRounds);
  EXPECT_TRUE(values_near(w.grad(), std::vector<double>(8, 2.0 * kThreads * kRounds), {8}));
}
