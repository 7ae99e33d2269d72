// The CPU allocator's block cache (kernels/cpu/cpu_allocator.cpp): a large block freed by one
// tensor is handed to the next tensor of the same rounded size or a little smaller, alignment
// holds for cached and new blocks, and empty_cache gives the blocks back.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ember/ember.h"
#include "ember/kernels/cpu/cpu_backend.h"

namespace {
using namespace ember;

uintptr_t address(const Tensor& t) { return reinterpret_cast<uintptr_t>(t.raw_data()); }

TEST(CpuAllocator, ALargeFreedBlockIsReusedForTheSameRoundedSize) {
  cpu_backend().empty_cache();
  uintptr_t first;
  {
    Tensor a = empty({262144});  // 1 MiB
    first = address(a);
  }
  Tensor b = empty({262144});
  EXPECT_EQ(address(b), first);
  // 1 MiB minus a few floats rounds up to the same 64 KiB granule: the same block again.
  b = Tensor();
  Tensor c = empty({262144 - 100});
  EXPECT_EQ(address(c), first);
  // Values written through the reused block are the tensor's own.
  c.fill_(2.5);
  EXPECT_EQ(c.sum().item<double>(), 2.5 * (262144 - 100));
}

TEST(CpuAllocator, BlocksAreAlignedForVectorsAndHugePages) {
  for (int64_t n : {1, 17, 70000, 262144, 1 << 21}) {
    for (int repeat = 0; repeat < 2; ++repeat) {  // a new block, then a cached one
      Tensor t = empty({n});
      EXPECT_EQ(address(t) % 64, 0u) << n;
      if (n * 4 >= (int64_t{4} << 20)) {
        EXPECT_EQ(address(t) % (size_t{2} << 20), 0u) << n;
      }
    }
  }
}

// Blocks of up to 960 bytes come from malloc, aligned by hand (the address malloc gave kept
// just below the block): every size either side of that limit is 64-byte aligned, and blocks
// alive together are their own (a block's bookkeeping written into another's bytes, or a
// block shorter than asked, would change the values read back).
TEST(CpuAllocator, SmallBlocksAreAlignedAndTheirOwn) {
  std::vector<Tensor> alive;
  for (int64_t n = 1; n <= 300; ++n) {  // 4 to 1200 bytes
    Tensor t = empty({n});
    EXPECT_EQ(address(t) % 64, 0u) << n;
    t.fill_(static_cast<double>(n));
    alive.push_back(t);
  }
  for (int64_t n = 1; n <= 300; ++n) {
    const std::vector<float> values = alive[static_cast<size_t>(n - 1)].to_vector<float>();
    EXPECT_EQ(values, std::vector<float>(static_cast<size_t>(n), static_cast<float>(n))) << n;
  }
}

// Packed BERT batches ask for a slightly different size at every step: a kept block up to a
// quarter larger serves a smaller request; one more than a quarter larger does not.
TEST(CpuAllocator, AKeptBlockServesASmallerRequestWithinAQuarter) {
  cpu_backend().empty_cache();
  uintptr_t kept;
  {
    Tensor a = empty({300 * 1024});  // 1200 KiB
    kept = address(a);
  }
  {
    Tensor too_small = empty({200 * 1024});  // 800 KiB: the kept block is half again larger
    EXPECT_NE(address(too_small), kept);
  }
  cpu_backend().empty_cache();
  {
    Tensor a = empty({300 * 1024});
    kept = address(a);
  }
  Tensor b = empty({256 * 1024});  // 1024 KiB: the kept block is 17 % larger
  EXPECT_EQ(address(b), kept);
  b.fill_(1.5);
  EXPECT_EQ(b.sum().item<double>(), 1.5 * 256 * 1024);
}

// A size whose last kept block was taken keeps its (empty) list: the search passes over it to
// the next kept block within a quarter.
TEST(CpuAllocator, AnEmptiedSizeDoesNotHideALargerKeptBlock) {
  cpu_backend().empty_cache();
  { Tensor a = empty({256 * 1024}); }  // 1024 KiB, kept
  Tensor b = empty({256 * 1024});      // takes it: the 1024 KiB list is now empty
  uintptr_t kept;
  {
    Tensor c = empty({300 * 1024});  // 1200 KiB, kept
    kept = address(c);
  }
  Tensor d = empty({256 * 1024});
  EXPECT_EQ(address(d), kept);
  EXPECT_NE(address(d), address(b));
  d.fill_(0.5);
  b.fill_(2.0);
  EXPECT_EQ(d.sum().item<double>(), 0.5 * 256 * 1024);
}

// A block just below the huge-page threshold rounds up to it but is only 64-byte aligned: a
// huge request of that rounded size must not be handed it.
TEST(CpuAllocator, AHugeRequestIsNeverHandedAnUnalignedKeptBlock) {
  cpu_backend().empty_cache();
  const int64_t threshold_floats = (int64_t{4} << 20) / 4;
  { Tensor below = empty({threshold_floats - 1000}); }
  Tensor huge = empty({threshold_floats});
  EXPECT_EQ(address(huge) % (size_t{2} << 20), 0u);
}

TEST(CpuAllocator, EmptyCacheKeepsLiveTensorsIntact) {
  Tensor live = full({300000}, 3.0);
  { Tensor freed = empty({300000}); }
  cpu_backend().empty_cache();
  EXPECT_EQ(live.sum().item<double>(), 900000.0);
  Tensor again = empty({300000});
  EXPECT_NE(address(again), address(live));
}

}  // namespace
