// One model serving several inference threads at once (the text classifier's --mode predict;
// README, "Predicting"): a Bert in eval mode, each thread under its own NoGradGuard, gives
// every thread the answer a lone caller gets and records no graph. CI runs this suite under
// ThreadSanitizer (.ci/tsan_tests.sh), so a data race in the forward path fails it too.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::test::max_abs_diff;
using nn::models::Bert;
using nn::models::BertConfig;

namespace {

constexpr int kThreads = 3;
constexpr int kRounds = 8;

BertConfig tiny() {
  BertConfig c;
  c.vocab_size = 40, c.hidden_size = 16, c.num_hidden_layers = 2, c.num_attention_heads = 2;
  c.intermediate_size = 32, c.max_position_embeddings = 12;
  return c;
}

// Thread t's batch: two sequences of 6 ids, the second padded after 4 tokens.
struct Inputs {
  Tensor ids, mask, types;
};
Inputs inputs_of(int t) {
  std::vector<int64_t> ids(12);
  for (size_t i = 0; i < ids.size(); ++i)
    ids[i] = static_cast<int64_t>((7 * i + 5 * static_cast<size_t>(t)) % 40);
  return {from_vector(ids, {2, 6}),
          from_vector(std::vector<int64_t>{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, {2, 6}),
          from_vector(std::vector<int64_t>{0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0}, {2, 6})};
}

// Serves kThreads threads from one eval-mode model and checks each gets a lone caller's answer.
// With `packed`, the linears' weights are packed (nn::pack_linear_weights) and then made stale
// (a new version of every weight), so the threads' first forwards race to pack them again.
void serve_several_threads(bool packed) {
  manual_seed(3);
  Bert bert(tiny());
  bert.eval();
  std::vector<Tensor> expected;
  {
    NoGradGuard no_grad;
    for (int t = 0; t < kThreads; ++t) {
      const Inputs in = inputs_of(t);
      expected.push_back(bert(in.ids, in.mask, in.types).pooler_output);
    }
  }
  // The three batches give three different answers, so a thread that got another's would fail.
  ASSERT_GT(max_abs_diff(expected[0], expected[1]), 1e-3f);
  ASSERT_GT(max_abs_diff(expected[1], expected[2]), 1e-3f);
  if (packed) {
    ASSERT_EQ(nn::pack_linear_weights(bert), 2 * 6 + 1);  // 6 per layer and the pooler's
    NoGradGuard no_grad;
    for (Tensor p : bert.parameters()) p.mul_(1.0f);
  }

  std::atomic<int> ready{0};
  std::vector<double> worst(kThreads, 0.0);
  std::vector<int> recorded(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      try {
        NoGradGuard no_grad;  // grad mode is per thread: each server thread sets its own
        const Inputs in = inputs_of(t);
        for (int r = 0; r < kRounds; ++r) {
          const Tensor out = bert(in.ids, in.mask, in.types).pooler_output;
          recorded[static_cast<size_t>(t)] += out.requires_grad() ? 1 : 0;
          worst[static_cast<size_t>(t)] =
              std::max(worst[static_cast<size_t>(t)], max_abs_diff(out, expected[static_cast<size_t>(t)]));
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << "thread " << t << " threw: " << e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    // Reductions may split differently when threads share the pool: float rounding, no more.
    EXPECT_LE(worst[static_cast<size_t>(t)], 1e-6) << "thread " << t;
    EXPECT_EQ(recorded[static_cast<size_t>(t)], 0) << "thread " << t << " recorded a graph";
  }
}

}  // namespace

TEST(BertInferenceThreads, OneEvalModelServesSeveralThreads) { serve_several_threads(false); }

TEST(BertInferenceThreads, PackedWeightsArePackedAgainOnceWhileThreadsServe) { serve_several_threads(true); }

TEST(BertInferenceThreads, GradModeOfOneThreadDoesNotLeakIntoAnother) {
  // A server thread's NoGradGuard must not turn recording off for a training thread.
  manual_seed(4);
  Bert bert(tiny());
  bert.eval();
  const Inputs in = inputs_of(0);
  std::atomic<bool> guard_held{false}, trained{false};
  std::thread server([&] {
    NoGradGuard no_grad;
    guard_held = true;
    while (!trained) std::this_thread::yield();
  });
  while (!guard_held) std::this_thread::yield();
  const Tensor out = bert(in.ids, in.mask, in.types).pooler_output;
  trained = true;
  server.join();
  EXPECT_TRUE(out.requires_grad());
}
