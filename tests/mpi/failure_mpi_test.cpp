// A rank that stops taking part (stuck, or it caught an error and went on) must not leave the
// others waiting forever: they stop at the timeout with a DistributedError naming the rank and
// the collective, and refuse further collectives. DISABLED_ so that a plain run of this binary
// skips it: it breaks the world, so CTest runs it alone (--gtest_also_run_disabled_tests).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "ember/ember.h"
#include "ember/nn/parallel/parallel.h"
#include "support/expect.h"

using namespace ember;
using ember::nn::parallel::ProcessGroup;

TEST(DistributedFailureMpi, DISABLED_ARankThatSkipsACollectiveStopsTheOthersAtTheTimeout) {
  ProcessGroup& world = ProcessGroup::world();
  world.barrier();  // everyone is here: what follows is only the skipped call
  if (world.rank() == 1) {
    std::this_thread::sleep_for(std::chrono::seconds(3));  // rank 1 never calls the barrier
    return;
  }
  world.set_timeout(std::chrono::milliseconds(1500));
  EXPECT_THROW_MSG(
      world.barrier(), DistributedError,
      "barrier: rank " + std::to_string(world.rank()) + " of " + std::to_string(world.world_size()) +
          " timed out after 1.5 s waiting for the other ranks; one of them failed, exited or did not "
          "call barrier");
  Tensor t = tensor({1.0});
  EXPECT_THROW_MSG(world.all_reduce(t), DistributedError,
                   "all_reduce: rank " + std::to_string(world.rank()) + " of " +
                       std::to_string(world.world_size()) +
                       " cannot run collectives any more: an earlier one failed");
}

// The same for the gradients' all-reduces, which start during backward and are awaited at its
// end: a rank that skips backward stops the others there.
TEST(DistributedFailureMpi, DISABLED_ARankThatSkipsBackwardStopsTheOthersAtItsEnd) {
  ProcessGroup& world = ProcessGroup::world();
  auto net = std::make_shared<nn::Linear>(3, 2);
  nn::parallel::DistributedDataParallel ddp(net);
  world.barrier();
  if (world.rank() == 1) {
    std::this_thread::sleep_for(std::chrono::seconds(3));  // rank 1 never runs backward
    return;
  }
  world.set_timeout(std::chrono::milliseconds(1500));
  EXPECT_THROW_MSG(
      ddp(tensor({{1.0, 2.0, 3.0}})).sum().backward(), DistributedError,
      "all_reduce of gradient bucket 0: rank " + std::to_string(world.rank()) + " of " +
          std::to_string(world.world_size()) +
          " timed out after 1.5 s waiting for the other ranks; one of them failed, exited or did "
          "not call all_reduce of gradient bucket 0");
  EXPECT_THROW_MSG(world.barrier(), DistributedError,
                   "barrier: rank " + std::to_string(world.rank()) + " of " +
                       std::to_string(world.world_size()) +
                       " cannot run collectives any more: an earlier one failed");
}
