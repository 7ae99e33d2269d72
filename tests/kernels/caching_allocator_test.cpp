// The CUDA caching allocator's bookkeeping, run on host memory: reuse, splitting, merging,
// the figures, and the out-of-memory path (release the cache, retry once).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "ember/kernels/cuda/caching_allocator.h"

using ember::cuda_detail::BlockPool;
using ember::cuda_detail::format_bytes;
using ember::cuda_detail::oom_message;

namespace {
// Host memory standing in for a device with `capacity` bytes.
struct FakeDevice {
  size_t capacity;
  size_t used = 0;
  int syncs = 0;
  std::map<void*, size_t> live;
  BlockPool pool{[this](size_t n) -> void* {
                   if (used + n > capacity) return nullptr;
                   void* p = std::malloc(n);
                   used += n;
                   live[p] = n;
                   return p;
                 },
                 [this](void* p) {
                   used -= live[p];
                   live.erase(p);
                   std::free(p);
                 },
                 [this] { ++syncs; }};
  explicit FakeDevice(size_t cap) : capacity(cap) {}
};
constexpr size_t MiB = 1u << 20;
}  // namespace

TEST(CachingAllocator, FormatsSizesAndTheOutOfMemoryMessage) {
  EXPECT_EQ(format_bytes(100), "100 bytes");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(20 * MiB), "20.00 MiB");
  EXPECT_EQ(format_bytes(size_t(2) << 30), "2.00 GiB");
  EXPECT_EQ(oom_message(size_t(2) << 30, 0, size_t(3) << 29),
            "cudaMalloc failed: out of memory (tried to allocate 2.00 GiB on cuda:0; 1.50 GiB reserved)");
}

TEST(CachingAllocator, RoundsAndChoosesSegments) {
  EXPECT_EQ(BlockPool::round_size(1), 512u);
  EXPECT_EQ(BlockPool::round_size(513), 1024u);
  EXPECT_EQ(BlockPool::segment_size(512), 2 * MiB);
  EXPECT_EQ(BlockPool::segment_size(MiB), 2 * MiB);
  EXPECT_EQ(BlockPool::segment_size(MiB + 512), 20 * MiB);
  EXPECT_EQ(BlockPool::segment_size(11 * MiB), 12 * MiB);
}

TEST(CachingAllocator, ReusesFreedBlocksWithoutNewSegments) {
  FakeDevice dev(1 << 30);
  void* a = dev.pool.allocate(1000);
  void* b = dev.pool.allocate(3000);
  EXPECT_NE(a, b);
  EXPECT_EQ(dev.pool.stats().raw_allocs, 1u);  // both cut from one 2 MiB small segment
  EXPECT_EQ(dev.pool.stats().allocated, 1024u + 3072u);
  dev.pool.deallocate(a);
  void* c = dev.pool.allocate(900);  // best fit: a's block again
  EXPECT_EQ(c, a);
  for (int step = 0; step < 100; ++step) {  // a steady "training step" never allocates anew
    void* x = dev.pool.allocate(5 * MiB);
    void* y = dev.pool.allocate(700);
    dev.pool.deallocate(x);
    dev.pool.deallocate(y);
  }
  EXPECT_EQ(dev.pool.stats().raw_allocs, 2u);
  dev.pool.deallocate(b);
  dev.pool.deallocate(c);
  EXPECT_EQ(dev.pool.stats().allocated, 0u);
  EXPECT_EQ(dev.pool.stats().reserved, 22 * MiB);
}

TEST(CachingAllocator, SplitsAndMergesNeighbours) {
  FakeDevice dev(1 << 30);
  void* a = dev.pool.allocate(512);
  void* b = dev.pool.allocate(512);
  void* c = dev.pool.allocate(512);
  EXPECT_EQ(static_cast<char*>(b) - static_cast<char*>(a), 512);
  EXPECT_EQ(static_cast<char*>(c) - static_cast<char*>(b), 512);
  dev.pool.deallocate(a);
  dev.pool.deallocate(c);
  dev.pool.deallocate(b);  // joins a, b, c and the segment's tail back into one block
  // 2 MiB is above the small pool's limit: a new 20 MiB segment, not the merged small one.
  void* whole = dev.pool.allocate(2 * MiB);
  EXPECT_EQ(dev.pool.stats().raw_allocs, 2u);
  dev.pool.deallocate(whole);
  void* big = dev.pool.allocate(MiB);  // the small segment is whole again: served from it
  EXPECT_EQ(big, a);
  EXPECT_EQ(dev.pool.block_size(big), MiB);
  dev.pool.deallocate(big);
  dev.pool.release_cached();
  EXPECT_EQ(dev.pool.stats().reserved, 0u);
  EXPECT_EQ(dev.pool.stats().raw_frees, 2u);
  EXPECT_TRUE(dev.live.empty());
}

TEST(CachingAllocator, ReleasesTheCacheAndRetriesWhenTheDeviceIsFull) {
  FakeDevice dev(40 * MiB);
  void* a = dev.pool.allocate(15 * MiB);  // 16 MiB segment
  void* b = dev.pool.allocate(15 * MiB);  // another
  dev.pool.deallocate(a);
  dev.pool.deallocate(b);
  EXPECT_EQ(dev.pool.stats().reserved, 32 * MiB);
  // 30 MiB fits in neither cached block and not beside them: the cache goes, then it fits.
  void* c = dev.pool.allocate(30 * MiB);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(dev.syncs, 1);
  EXPECT_EQ(dev.pool.stats().reserved, 30 * MiB);
  EXPECT_EQ(dev.pool.allocate(20 * MiB), nullptr);  // still too much: nullptr, no crash
  EXPECT_EQ(dev.syncs, 2);
  dev.pool.deallocate(c);
  EXPECT_EQ(dev.pool.stats().peak_reserved, 32 * MiB);
  dev.pool.reset_peaks();
  EXPECT_EQ(dev.pool.stats().peak_reserved, 30 * MiB);
  EXPECT_EQ(dev.pool.stats().peak_allocated, 0u);
}

TEST(CachingAllocator, IgnoresForeignPointers) {
  FakeDevice dev(1 << 30);
  int x = 0;
  dev.pool.deallocate(&x);
  EXPECT_EQ(dev.pool.stats().allocated, 0u);
}
