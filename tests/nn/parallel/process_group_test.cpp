// The world of one (no launcher; also what a build without MPI gives) and the checks every
// collective makes before any data moves. The cross-rank cases are in tests/mpi.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/parallel/launcher.h"
#include "ember/nn/parallel/parallel.h"
#include "ember/nn/parallel/transport.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"
#include "support/two_branch_net.h"

using namespace ember;
using ember::nn::parallel::AllReduceOp;
using ember::nn::parallel::DistributedDataParallel;
using ember::nn::parallel::ProcessGroup;

TEST(ProcessGroup, WithoutALauncherTheWorldIsOneProcess) {
  ProcessGroup& world = ProcessGroup::world();
  EXPECT_EQ(world.rank(), 0);
  EXPECT_EQ(world.world_size(), 1);
  EXPECT_EQ(world.local_rank(), 0);
  EXPECT_EQ(&world, &ProcessGroup::world());
}

TEST(ProcessGroup, CollectivesOfOneProcessAreIdentities) {
  ProcessGroup& world = ProcessGroup::world();
  Tensor t = tensor({1.5, -2.0, 4.0});
  for (AllReduceOp op : {AllReduceOp::Sum, AllReduceOp::Avg, AllReduceOp::Max}) {
    world.all_reduce(t, op);
    EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1.5f, -2.0f, 4.0f}));
  }
  Tensor i = from_vector(std::vector<int64_t>{3, -7});
  world.broadcast(i, 0);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{3, -7}));
  const std::vector<Tensor> parts = world.all_gather(i);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].to_vector<int64_t>(), (std::vector<int64_t>{3, -7}));
  EXPECT_FALSE(parts[0].is_same(i));  // a copy, as with more ranks
  world.barrier();
}

TEST(ProcessGroup, BadArgumentsAreTypedErrors) {
  ProcessGroup& world = ProcessGroup::world();
  Tensor ints = from_vector(std::vector<int64_t>{1});
  EXPECT_THROW_MSG(world.all_reduce(ints, AllReduceOp::Avg), DTypeError,
                   "dtype mismatch in all_reduce: tensor must be float32 or float64, got int64");
  EXPECT_THROW_MSG(world.broadcast(ints, 1), ValueError,
                   "broadcast: root must be a rank of the world (0 to 0), got 1");
  EXPECT_THROW_MSG(world.all_reduce(Tensor()), ValueError, "all_reduce: tensor is an undefined tensor");
  EXPECT_THROW_MSG(world.all_reduce({tensor({1.0}), tensor({1.0}, TensorOptions(kFloat64))}), DTypeError,
                   "dtype mismatch in all_reduce: tensors[0] is float32 but tensors[1] is float64");
  EXPECT_THROW_MSG(world.all_reduce({tensor({1.0}), Tensor()}), ValueError,
                   "all_reduce: tensors[1] is an undefined tensor");
  EXPECT_THROW_MSG(world.all_reduce({ints, ints}, AllReduceOp::Avg), DTypeError,
                   "dtype mismatch in all_reduce: tensors[0] must be float32 or float64, got int64");
  EXPECT_THROW_MSG(world.set_timeout(std::chrono::milliseconds(0)), ValueError,
                   "ProcessGroup::set_timeout: the timeout must be positive");
}

TEST(ProcessGroup, MixedDevicesInOneCollectiveAreADeviceMismatch) {
  test::EmulatedCuda cuda(1);
  Tensor a = tensor({1.0}), b = tensor({2.0}).to(Device::cuda(0));
  EXPECT_THROW_MSG(ProcessGroup::world().all_reduce({a, b}), DeviceMismatchError,
                   "tensors on different devices: all_reduce got tensors[0] on cpu and tensors[1] on cuda:0");
  // Registered tensors are named, with a hint, as in the op front-ends' messages (cat's).
  nn::Linear on_cpu(1, 1), on_cuda(1, 1);
  on_cuda.to(Device::cuda(0));
  EXPECT_THROW_MSG(ProcessGroup::world().all_reduce({on_cpu.weight, on_cuda.weight}), DeviceMismatchError,
                   "tensors on different devices: all_reduce got tensors[0] (weight) on cpu and tensors[1] "
                   "(weight) on cuda:0; ");
}

TEST(DistributedDataParallel, OneProcessTrainsLikeThePlainModule) {
  manual_seed(5);
  auto net = std::make_shared<nn::Linear>(3, 2);
  manual_seed(5);
  auto plain = std::make_shared<nn::Linear>(3, 2);
  DistributedDataParallel ddp(net);
  EXPECT_EQ(ddp.named_parameters()[0].first, "module.weight");
  Tensor x = tensor({{1.0, 2.0, 3.0}, {-1.0, 0.5, 2.0}});
  (ddp(x) * ddp(x)).sum().backward();
  ddp.sync_gradients();
  ((*plain)(x) * (*plain)(x)).sum().backward();
  EXPECT_EQ(net->weight.grad().to_vector<float>(), plain->weight.grad().to_vector<float>());
  EXPECT_EQ(net->bias.grad().to_vector<float>(), plain->bias.grad().to_vector<float>());
}

TEST(DistributedDataParallel, BucketsFollowReverseRegistrationOrderAndTheirSize) {
  // Linear(3, 2): weight 24 bytes, bias 8 bytes; two layers: 32 + 32 bytes.
  auto net = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(3, 2), std::make_shared<nn::Linear>(3, 2)});
  EXPECT_EQ(DistributedDataParallel(net).bucket_sizes(), (std::vector<size_t>{4}));
  nn::parallel::DistributedDataParallelOptions options;
  options.bucket_bytes = 32;
  EXPECT_EQ(DistributedDataParallel(net, ProcessGroup::world(), options).bucket_sizes(),
            (std::vector<size_t>{2, 2}));
  // A parameter larger than a bucket gets a bucket of its own.
  options.bucket_bytes = 10;
  EXPECT_EQ(DistributedDataParallel(net, ProcessGroup::world(), options).bucket_sizes(),
            (std::vector<size_t>{1, 1, 1, 1}));
  EXPECT_THROW_MSG(DistributedDataParallel(nullptr), ValueError, "DistributedDataParallel: module is null");
}

TEST(DistributedDataParallel, AMissingGradientIsAnErrorUnlessAllowed) {
  auto net = std::make_shared<nn::Linear>(3, 2);
  DistributedDataParallel strict(net);
  EXPECT_THROW_MSG(
      strict.sync_gradients(), DistributedError,
      "DistributedDataParallel: parameter weight got no gradient in this step on this rank (rank 0 of 1)");
  nn::parallel::DistributedDataParallelOptions options;
  options.allow_unused_parameters = true;
  DistributedDataParallel lenient(net, ProcessGroup::world(), options);
  lenient.sync_gradients();
  EXPECT_EQ(net->weight.grad().to_vector<float>(), std::vector<float>(6, 0.0f));
}

TEST(DistributedDataParallel, AParameterUnusedInBackwardIsAnErrorAtItsEndUnlessAllowed) {
  manual_seed(2);
  auto net = std::make_shared<test::TwoBranchNet>(test::TwoBranchNet::Use::AOnly);
  const Tensor x = tensor({{1.0, 2.0, 3.0}});
  {
    DistributedDataParallel strict(net);
    EXPECT_THROW_MSG(strict(x).sum().backward(), DistributedError,
                     "DistributedDataParallel: parameter b.weight got no gradient in this step on this rank "
                     "(rank 0 of 1); every rank must use every parameter, or set allow_unused_parameters");
    // The next step starts afresh.
    net->use = test::TwoBranchNet::Use::AThenB;
    strict(x).sum().backward();
    EXPECT_EQ(strict.launch_order(), (std::vector<size_t>{0}));
  }
  net->zero_grad(/*set_to_none=*/true);
  net->use = test::TwoBranchNet::Use::AOnly;
  nn::parallel::DistributedDataParallelOptions options;
  options.allow_unused_parameters = true;
  options.bucket_bytes = 1;  // a bucket per parameter
  DistributedDataParallel lenient(net, ProcessGroup::world(), options);
  lenient(x).sum().backward();
  EXPECT_EQ(net->b->weight.grad().to_vector<float>(), std::vector<float>(6, 0.0f));
  EXPECT_EQ(net->a->weight.grad().to_vector<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  // Buckets b.bias, b.weight, a.bias, a.weight: those of b start only at the end of backward,
  // and a's wait for them.
  EXPECT_EQ(lenient.launch_order(), (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(DistributedDataParallel, HooksLeaveWithTheWrapper) {
  auto net = std::make_shared<nn::Linear>(3, 2);
  { DistributedDataParallel ddp(net); }
  (*net)(tensor({{1.0, 2.0, 3.0}})).sum().backward();  // no hook of the gone wrapper runs
  EXPECT_EQ(net->weight.grad().to_vector<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
}

namespace {
// Sets a variable for the scope of a test, restoring what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_.empty()) {
      ::unsetenv(name_);
    } else {
      ::setenv(name_, old_.c_str(), 1);
    }
  }

 private:
  const char* name_;
  std::string old_;
};
}  // namespace

TEST(ProcessGroup, LauncherVariablesOfOpenMpiMpichPmixAndSlurmAreRecognised) {
  using nn::parallel::detail::detect_launcher;
  ASSERT_FALSE(detect_launcher().launched) << "run the normal test binary without a launcher";
  {
    ScopedEnv v("OMPI_COMM_WORLD_SIZE", "4");
    EXPECT_TRUE(detect_launcher().launched);
    EXPECT_EQ(detect_launcher().world_size, 4);
    EXPECT_STREQ(detect_launcher().variable, "OMPI_COMM_WORLD_SIZE");
  }
  {
    ScopedEnv v("PMI_SIZE", "3");
    EXPECT_EQ(detect_launcher().world_size, 3);
  }
  {
    ScopedEnv v("SLURM_STEP_NUM_TASKS", "2");
    EXPECT_EQ(detect_launcher().world_size, 2);
  }
  {
    ScopedEnv v("PMIX_RANK", "0");
    EXPECT_TRUE(detect_launcher().launched);
    EXPECT_FALSE(detect_launcher().world_size.has_value());
  }
  EXPECT_FALSE(detect_launcher().launched);
}

TEST(ProcessGroup, MetricsOfOneProcessAreItsOwn) {
  EXPECT_DOUBLE_EQ(nn::parallel::mean_over_ranks(0.125), 0.125);
  EXPECT_EQ(nn::parallel::sum_over_ranks(int64_t{1} << 40), int64_t{1} << 40);
}

TEST(ProcessGroup, TheTimeoutComesFromTheEnvironmentOrFiveMinutes) {
  using nn::parallel::detail::make_single_process_transport;
  EXPECT_EQ(ProcessGroup(make_single_process_transport()).timeout(), std::chrono::minutes(5));
  {
    ScopedEnv v("EMBER_DISTRIBUTED_TIMEOUT", "2.5");
    EXPECT_EQ(ProcessGroup(make_single_process_transport()).timeout(), std::chrono::milliseconds(2500));
  }
  for (const char* bad : {"abc", "0", "-3", "5s"}) {
    ScopedEnv v("EMBER_DISTRIBUTED_TIMEOUT", bad);
    EXPECT_THROW_MSG(
        ProcessGroup{make_single_process_transport()}, ValueError,
        std::string("EMBER_DISTRIBUTED_TIMEOUT must be a positive number of seconds, got \"") + bad);
  }
  ProcessGroup group(make_single_process_transport());
  group.set_timeout(std::chrono::milliseconds(1234));
  EXPECT_EQ(group.timeout(), std::chrono::milliseconds(1234));
}
