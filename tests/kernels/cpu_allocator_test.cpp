// The CPU allocator's block cache (kernels/cpu/cpu_allocator.cpp): a large block freed by one
// tensor is handed to the next tensor of the same rounded size, alignment holds for cached and
// new blocks, and empty_cache gives the blocks back.
#include <gtest/gtest.h>

#include <cstdint>

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

TEST(CpuAllocator, EmptyCacheKeepsLiveTensorsIntact) {
  Tensor live = full({300000}, 3.0);
  { Tensor freed = empty({300000}); }
  cpu_backend().empty_cache();
  EXPECT_EQ(live.sum().item<double>(), 900000.0);
  Tensor again = empty({300000});
  EXPECT_NE(address(again), address(live));
}

}  // namespace
