// DistributedDataParallel across real ranks (CTest runs it under mpirun -np 2 and -np 3).
// Each rank also trains a one-process reference on the whole batch, so a case needs no
// second program: the data-parallel model must follow the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/parallel/parallel.h"
#include "support/expect.h"
#include "support/two_branch_net.h"
#include "training_case.h"

using namespace ember;
using ember::nn::parallel::DistributedDataParallel;
using ember::nn::parallel::ProcessGroup;

namespace {

ProcessGroup& world() { return ProcessGroup::world(); }

std::shared_ptr<nn::models::TutorialNet> seeded_net(uint64_t seed) {
  manual_seed(seed);
  return std::make_shared<nn::models::TutorialNet>();
}

// |a - b| <= atol + rtol * |b| for every element, naming this rank.
void expect_close(const Tensor& a, const Tensor& b, const std::string& what, double atol, double rtol) {
  EXPECT_TRUE(test::all_close(a, b, atol, rtol)) << what << " on rank " << world().rank();
}

}  // namespace

TEST(DistributedDataParallelMpi, BroadcastMakesDifferentInitialParametersEqual) {
  // Each rank starts from its own seed; rank 0's values must win everywhere.
  auto net = seeded_net(100 + static_cast<uint64_t>(world().rank()));
  const std::vector<Tensor> rank0 = seeded_net(100)->parameters();
  const std::vector<Tensor> mine_before = net->parameters();
  if (world().rank() != 0) {
    EXPECT_NE(mine_before[0].to_vector<float>(), rank0[0].to_vector<float>()) << "the seeds should differ";
  }
  DistributedDataParallel ddp(net);
  const std::vector<Tensor> after = net->parameters();
  ASSERT_EQ(after.size(), rank0.size());
  for (size_t i = 0; i < after.size(); ++i)
    EXPECT_EQ(after[i].to_vector<float>(), rank0[i].to_vector<float>()) << i;
  // The handles are the same: the optimizer built on them before wrapping follows.
  EXPECT_TRUE(after[0].is_same(mine_before[0]));
}

// 2 ranks with 32 images each (3 ranks: 22, 21, 21) take the same 5 SGD steps (momentum 0.5)
// as one process. DDP averages per rank, as PyTorch: the reference's loss is the mean of the
// shards' mean losses, which for equal shards is the plain mean over all 64 images.
TEST(DistributedDataParallelMpi, FiveSgdStepsMatchOneProcessOnTheWholeBatch) {
  const test::TrainingData data = test::training_data();
  const int w = world().world_size();
  const auto [first, count] = test::shard_of(64, world().rank(), w);
  const bool equal_shards = 64 % w == 0;

  auto reference = seeded_net(7);
  auto net = seeded_net(world().rank() == 0 ? 7 : 8);  // the broadcast must fix rank 1's start
  auto ddp = std::make_shared<DistributedDataParallel>(net);
  nn::SGDOptions sgd;
  sgd.lr = 0.05;
  sgd.momentum = 0.5;
  nn::SGD opt_ref(reference->parameters(), sgd);
  nn::SGD opt(ddp->parameters(), sgd);

  for (int step = 0; step < 5; ++step) {
    opt_ref.zero_grad();
    Tensor loss_ref;
    if (equal_shards) {
      loss_ref = cross_entropy((*reference)(data.images), data.labels);
    } else {
      for (int r = 0; r < w; ++r) {
        const auto [f, c] = test::shard_of(64, r, w);
        Tensor l = cross_entropy((*reference)(data.images.narrow(0, f, c)), data.labels.narrow(0, f, c));
        loss_ref = loss_ref.defined() ? loss_ref + l : l;
      }
      loss_ref = loss_ref / static_cast<double>(w);
    }
    loss_ref.backward();
    opt_ref.step();

    opt.zero_grad();
    Tensor loss =
        cross_entropy((*ddp)(data.images.narrow(0, first, count)), data.labels.narrow(0, first, count));
    loss.backward();
    ddp->sync_gradients();
    opt.step();
  }
  const nn::NamedTensors ref = reference->named_parameters(), got = net->named_parameters();
  ASSERT_EQ(ref.size(), got.size());
  for (size_t i = 0; i < got.size(); ++i)
    expect_close(got[i].second, ref[i].second, got[i].first, 1e-5, 1e-4);
  // And the parameters moved: a step that did nothing would also "agree".
  const std::vector<Tensor> start = seeded_net(7)->parameters();
  EXPECT_GT((got[0].second - start[0]).abs().max().item<float>(), 1e-4f);
}

TEST(DistributedDataParallelMpi, NoSyncAccumulatesLocallyThenAveragesTheSums) {
  const test::TrainingData data = test::training_data();
  const int w = world().world_size(), r = world().rank();
  auto net = seeded_net(11);
  DistributedDataParallel ddp(net);
  // Micro-batch A of rank r: images [4r, 4r + 4); micro-batch B: [32 + 4r, 32 + 4r + 4).
  auto loss_on = [&](nn::Module& m, int64_t first) {
    return cross_entropy(m(data.images.narrow(0, first, 4)), data.labels.narrow(0, first, 4));
  };
  {
    auto guard = ddp.no_sync();
    loss_on(ddp, 4 * r).backward();
    ddp.sync_gradients();  // inside no_sync: the gradient stays this rank's own
  }
  auto local = seeded_net(11);
  loss_on(*local, 4 * r).backward();
  expect_close(net->fc->weight.grad(), local->fc->weight.grad(), "local fc.weight grad", 0, 0);

  loss_on(ddp, 32 + 4 * r).backward();
  ddp.sync_gradients();
  // Reference: the mean over ranks of each rank's accumulated (A + B) gradient.
  auto reference = seeded_net(11);
  for (int q = 0; q < w; ++q) {
    (loss_on(*reference, 4 * q) / static_cast<double>(w)).backward();
    (loss_on(*reference, 32 + 4 * q) / static_cast<double>(w)).backward();
  }
  const nn::NamedTensors ref = reference->named_parameters(), got = net->named_parameters();
  for (size_t i = 0; i < got.size(); ++i)
    expect_close(got[i].second.grad(), ref[i].second.grad(), got[i].first, 1e-6, 1e-4);
}

TEST(DistributedDataParallelMpi, RanksWithDifferentModelsGetAClearErrorEverywhere) {
  const bool zero = world().rank() == 0;
  EXPECT_THROW_MSG(DistributedDataParallel(std::make_shared<nn::Linear>(4, 3, /*bias=*/zero)),
                   DistributedError,
                   "DistributedDataParallel: the ranks hold different models: rank 0 has 2 parameters and 0 "
                   "buffers, rank 1 has 1 parameters");
  EXPECT_THROW_MSG(
      DistributedDataParallel(std::make_shared<nn::Linear>(4, zero ? 3 : 2)), DistributedError,
      "DistributedDataParallel: the ranks hold different models: rank 1's parameter or buffer shapes");
}

TEST(DistributedDataParallelMpi, AParameterWithoutGradientIsAnErrorOnEveryRankAtTheEndOfBackward) {
  manual_seed(3);
  // Rank 1 skips branch b, as a forward pass that took the wrong path by mistake would.
  const bool skips = world().rank() == 1;
  auto net = std::make_shared<test::TwoBranchNet>(skips ? test::TwoBranchNet::Use::AOnly
                                                        : test::TwoBranchNet::Use::AThenB);
  DistributedDataParallel ddp(net);
  EXPECT_THROW_MSG(
      ddp(tensor({{1.0, 2.0, 3.0}})).sum().backward(), DistributedError,
      std::string("DistributedDataParallel: parameter b.weight got no gradient in this step on ") +
          (skips ? "this rank" : "another rank"));
  // Every rank completed every bucket before raising: the ranks are still in step.
  net->use = test::TwoBranchNet::Use::AThenB;
  net->zero_grad();
  ddp(tensor({{1.0, 2.0, 3.0}})).sum().backward();
  EXPECT_EQ(net->b->weight.grad().to_vector<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
}

// The overlapped path (each bucket's all-reduce started from the hooks during backward, MPI's
// non-blocking algorithm) and the reduction after backward (sync_gradients, MPI's blocking one)
// reduce the same buffers: after five SGD steps the parameters are equal, bitwise for two ranks
// (a + b is b + a); for more, the two algorithms may add in different orders.
TEST(DistributedDataParallelMpi, OverlappedAveragingEqualsAveragingAfterBackward) {
  const test::TrainingData data = test::training_data();
  const auto [first, count] = test::shard_of(64, world().rank(), world().world_size());
  nn::parallel::DistributedDataParallelOptions overlapped, after;
  overlapped.bucket_bytes = after.bucket_bytes = 4096;  // several buckets
  after.overlap_with_backward = false;
  auto net_o = seeded_net(21), net_a = seeded_net(21);
  DistributedDataParallel ddp_o(net_o, world(), overlapped), ddp_a(net_a, world(), after);
  ASSERT_GT(ddp_o.bucket_sizes().size(), 2u);
  nn::SGDOptions sgd;
  sgd.lr = 0.05;
  sgd.momentum = 0.5;
  nn::SGD opt_o(net_o->parameters(), sgd), opt_a(net_a->parameters(), sgd);
  const Tensor x = data.images.narrow(0, first, count), y = data.labels.narrow(0, first, count);
  std::vector<size_t> in_order(ddp_o.bucket_sizes().size());
  for (size_t b = 0; b < in_order.size(); ++b) in_order[b] = b;
  for (int step = 0; step < 5; ++step) {
    opt_o.zero_grad();
    cross_entropy(ddp_o(x), y).backward();
    EXPECT_EQ(ddp_o.launch_order(), in_order);
    ddp_o.sync_gradients();  // already averaged: nothing to do
    opt_o.step();

    opt_a.zero_grad();
    cross_entropy(ddp_a(x), y).backward();
    ddp_a.sync_gradients();
    opt_a.step();
  }
  const nn::NamedTensors o = net_o->named_parameters(), a = net_a->named_parameters();
  const double tolerance = world().world_size() == 2 ? 0.0 : 1e-6;
  for (size_t i = 0; i < o.size(); ++i)
    expect_close(o[i].second, a[i].second, o[i].first, tolerance, tolerance);
  EXPECT_NE(o[0].second.to_vector<float>(), seeded_net(21)->parameters()[0].to_vector<float>());
}

// Even ranks put branch a first in the sum, odd ranks branch b: backward reaches the parameters
// in different orders, yet every rank starts the buckets (one per parameter) in one order.
TEST(DistributedDataParallelMpi, BucketsStartInOneOrderWhateverOrderBackwardReachesThem) {
  using Use = test::TwoBranchNet::Use;
  const int w = world().world_size(), r = world().rank();
  auto input_of = [](int rank) {
    manual_seed(50 + static_cast<uint64_t>(rank));
    return randn({2, 3});
  };
  manual_seed(4);
  auto net = std::make_shared<test::TwoBranchNet>(r % 2 == 0 ? Use::AThenB : Use::BThenA);
  nn::parallel::DistributedDataParallelOptions options;
  options.bucket_bytes = 1;
  DistributedDataParallel ddp(net, world(), options);
  std::vector<int64_t> reached;
  const nn::NamedTensors params = net->named_parameters();
  std::vector<HookHandle> hooks;
  for (size_t k = 0; k < params.size(); ++k)
    hooks.push_back(params[k].second.register_post_accumulate_grad_hook(
        [&reached, k](const Tensor&) { reached.push_back(static_cast<int64_t>(k)); }));
  (ddp(input_of(r)) * ddp(input_of(r))).sum().backward();
  for (HookHandle& h : hooks) h.remove();

  EXPECT_EQ(ddp.launch_order(), (std::vector<size_t>{0, 1, 2, 3}));
  const std::vector<Tensor> orders = world().all_gather(from_vector(reached));
  EXPECT_NE(orders[0].to_vector<int64_t>(), orders[1].to_vector<int64_t>())
      << "the ranks' orders should differ";
  // The reference: every rank's loss, each divided by the world size, on one model.
  manual_seed(4);
  test::TwoBranchNet reference;
  for (int q = 0; q < w; ++q) {
    const Tensor out = reference(input_of(q));
    ((out * out).sum() / static_cast<double>(w)).backward();
  }
  const nn::NamedTensors ref = reference.named_parameters();
  for (size_t i = 0; i < params.size(); ++i)
    expect_close(params[i].second.grad(), ref[i].second.grad(), params[i].first, 1e-5, 1e-5);
}
