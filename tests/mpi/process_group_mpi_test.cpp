// ProcessGroup across real ranks (run by CTest under mpirun -np 2 and -np 3): every rank runs
// each case, and every case calls the same collectives in the same order on every rank.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/parallel/parallel.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;
using ember::nn::parallel::AllReduceOp;
using ember::nn::parallel::ProcessGroup;

namespace {
ProcessGroup& world() { return ProcessGroup::world(); }
}  // namespace

TEST(ProcessGroupMpi, TheWorldIsTheLaunchersAndRanksAreDistinct) {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!size) size = std::getenv("PMI_SIZE");
  ASSERT_NE(size, nullptr) << "this suite must run under mpirun";
  EXPECT_EQ(world().world_size(), std::atoi(size));
  EXPECT_GE(world().world_size(), 2);
  // One machine: the local ranks are the ranks.
  EXPECT_EQ(world().local_rank(), world().rank());
  const std::vector<Tensor> ranks = world().all_gather(from_vector(std::vector<int64_t>{world().rank()}));
  ASSERT_EQ(ranks.size(), static_cast<size_t>(world().world_size()));
  for (int r = 0; r < world().world_size(); ++r) EXPECT_EQ(ranks[static_cast<size_t>(r)].item<int64_t>(), r);
}

TEST(ProcessGroupMpi, AllReduceSumsAveragesAndMaximisesEveryDType) {
  const int r = world().rank(), w = world().world_size();
  const double sum_r = w * (w - 1) / 2.0;  // 0 + 1 + ... + (w - 1)

  Tensor f = tensor({1.0 + r, -2.0 * r});
  world().all_reduce(f, AllReduceOp::Sum);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{float(w + sum_r), float(-2 * sum_r)}));

  Tensor d = tensor({1.0 + r, 0.5 * r}, TensorOptions(kFloat64));
  world().all_reduce(d, AllReduceOp::Avg);
  EXPECT_DOUBLE_EQ(d.to_vector<double>()[0], 1.0 + sum_r / w);
  EXPECT_DOUBLE_EQ(d.to_vector<double>()[1], 0.5 * sum_r / w);

  Tensor i = from_vector(std::vector<int64_t>{int64_t{1} << 40, 7 * r, -r});
  world().all_reduce(i, AllReduceOp::Max);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{int64_t{1} << 40, 7 * (w - 1), 0}));

  Tensor u = from_vector(std::vector<uint8_t>{uint8_t(r), 3});
  world().all_reduce(u, AllReduceOp::Sum);
  EXPECT_EQ(u.to_vector<uint8_t>(), (std::vector<uint8_t>{uint8_t(sum_r), uint8_t(3 * w)}));

  // A boolean sum is a logical or: true when any rank says true.
  Tensor b = tensor({r == 1 ? 1.0 : 0.0, 0.0}, TensorOptions(kBool));
  world().all_reduce(b, AllReduceOp::Sum);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false}));
}

TEST(ProcessGroupMpi, AllReduceWritesBackIntoAStridedViewAndBumpsTheVersion) {
  const int r = world().rank(), w = world().world_size();
  Tensor base = tensor({{1.0, 2.0}, {3.0, 4.0}}) * static_cast<double>(r + 1);
  Tensor view = base.t();  // not contiguous: reduced through a staging copy
  const uint64_t before = base.version();
  world().all_reduce(view, AllReduceOp::Sum);
  const double k = w * (w + 1) / 2.0;
  EXPECT_EQ(base.to_vector<float>(),
            (std::vector<float>{float(k), float(2 * k), float(3 * k), float(4 * k)}));
  EXPECT_GT(base.version(), before);
  Tensor direct = tensor({1.0});
  const uint64_t v = direct.version();
  world().all_reduce(direct);
  EXPECT_FLOAT_EQ(direct.item<float>(), float(w));
  EXPECT_GT(direct.version(), v);
}

TEST(ProcessGroupMpi, CoalescedAllReduceReducesEachTensor) {
  const int r = world().rank(), w = world().world_size();
  Tensor a = full({2, 2}, r), b = full({3}, 10.0 * r);
  world().all_reduce({a, b}, AllReduceOp::Avg);
  const double mean_r = (w - 1) / 2.0;
  for (float x : a.to_vector<float>()) EXPECT_FLOAT_EQ(x, float(mean_r));
  for (float x : b.to_vector<float>()) EXPECT_FLOAT_EQ(x, float(10 * mean_r));
}

TEST(ProcessGroupMpi, BroadcastCopiesTheRootsTensorFromEveryRoot) {
  for (int root = 0; root < world().world_size(); ++root) {
    Tensor t = from_vector(std::vector<int64_t>{world().rank(), 100 + world().rank()});
    world().broadcast(t, root);
    EXPECT_EQ(t.to_vector<int64_t>(), (std::vector<int64_t>{root, 100 + root})) << "root " << root;
  }
  Tensor t = tensor({1.0});
  EXPECT_THROW_MSG(world().broadcast(t, world().world_size()), ValueError, "broadcast: root must be a rank");
}

TEST(ProcessGroupMpi, AllGatherReturnsEveryRanksTensorInRankOrder) {
  Tensor t = full({2, 3}, world().rank() * 1.5, TensorOptions(kFloat64));
  const std::vector<Tensor> parts = world().all_gather(t);
  ASSERT_EQ(parts.size(), static_cast<size_t>(world().world_size()));
  for (int r = 0; r < world().world_size(); ++r) {
    EXPECT_EQ(parts[static_cast<size_t>(r)].shape(), (Shape{2, 3}));
    for (double x : parts[static_cast<size_t>(r)].to_vector<double>()) EXPECT_EQ(x, r * 1.5);
  }
}

TEST(ProcessGroupMpi, RanksWithDifferentShapesGetAShapeErrorEverywhere) {
  Tensor t = zeros({world().rank() == 0 ? 3 : 4});
  EXPECT_THROW_MSG(world().all_reduce(t), ShapeError,
                   "shape mismatch in all_reduce: the ranks passed different shapes or dtypes (rank " +
                       std::to_string(world().rank()));
  Tensor u = zeros({2}, TensorOptions(world().rank() == 0 ? kFloat32 : kFloat64));
  EXPECT_THROW_MSG(world().broadcast(u), ShapeError, "shape mismatch in broadcast");
  // The group still works afterwards: the check runs before any data moves.
  world().barrier();
  Tensor ok = tensor({1.0});
  world().all_reduce(ok);
  EXPECT_FLOAT_EQ(ok.item<float>(), float(world().world_size()));
}

TEST(ProcessGroupMpi, MetricsAverageALossAndSumCountsOverTheRanks) {
  const int r = world().rank(), w = world().world_size();
  EXPECT_DOUBLE_EQ(nn::parallel::mean_over_ranks(0.25 + r), 0.25 + (w - 1) / 2.0);
  EXPECT_EQ(nn::parallel::sum_over_ranks(10 + r), 10 * w + w * (w - 1) / 2);
}

// CUDA tensors are staged through host memory and copied back: the emulated device (host
// memory behind cuda:N) checks that path, and that results stay on the tensor's device.
TEST(ProcessGroupMpi, CudaTensorsAreStagedThroughTheHostAndStayOnTheirDevice) {
  test::EmulatedCuda cuda(1);
  const int r = world().rank(), w = world().world_size();
  Tensor t = tensor({1.0 + r, 2.0}).to(Device::cuda(0));
  world().all_reduce(t, AllReduceOp::Sum);
  EXPECT_EQ(t.device(), Device::cuda(0));
  EXPECT_EQ(t.cpu().to_vector<float>(), (std::vector<float>{float(w + w * (w - 1) / 2), float(2 * w)}));
  Tensor b = full({3}, r, TensorOptions(kInt64).device(Device::cuda(0)));
  world().broadcast(b, w - 1);
  EXPECT_EQ(b.cpu().to_vector<int64_t>(), std::vector<int64_t>(3, w - 1));
  const std::vector<Tensor> parts = world().all_gather(b);
  EXPECT_EQ(parts.back().device(), Device::cuda(0));
  Tensor a = tensor({1.0});
  EXPECT_THROW_MSG(world().all_reduce({a, t}), DeviceMismatchError,
                   "tensors on different devices: all_reduce got tensors[0] on cpu and tensors[1] on cuda:0");
}
