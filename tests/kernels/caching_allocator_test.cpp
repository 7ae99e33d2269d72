// The CUDA caching allocator's bookkeeping, run on host memory: reuse, splitting, merging,
// the figures, and the out-of-memory path (release the cache, retry once).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <stdexcept>

#include "ember/kernels/cuda/caching_allocator.h"

using ember::cuda_detail::BlockPool;
using ember::cuda_detail::caching_enabled_by;
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

TEST(CachingAllocator, TheSettingIsZeroOrOne) {
  EXPECT_TRUE(caching_enabled_by(nullptr));
  EXPECT_TRUE(caching_enabled_by("1"));
  EXPECT_FALSE(caching_enabled_by("0"));
  EXPECT_THROW(caching_enabled_by("off"), std::invalid_argument);
  EXPECT_THROW(caching_enabled_by(""), std::invalid_argument);
}

// EMBER_CUDA_CACHING_ALLOCATOR=0: no rounding, no cache, no segments shared between blocks.
TEST(CachingAllocator, ExactModePassesEveryRequestThrough) {
  std::map<void*, size_t> raw;
  BlockPool pool(
      [&](size_t n) -> void* {
        void* p = std::malloc(n);
        raw[p] = n;
        return p;
      },
      [&](void* p) {
        raw.erase(p);
        std::free(p);
      },
      [] {}, /*exact=*/true);
  ASSERT_TRUE(pool.exact());
  void* a = pool.allocate(4004);
  void* b = pool.allocate(1);
  ASSERT_EQ(raw.size(), 2u);
  EXPECT_EQ(raw.at(a), 4004u);
  EXPECT_EQ(raw.at(b), 1u);
  EXPECT_EQ(pool.block_size(a), 4004u);
  auto s = pool.stats();
  EXPECT_EQ(s.allocated, 4005u);
  EXPECT_EQ(s.reserved, 4005u);
  EXPECT_EQ(s.raw_allocs, 2u);
  pool.deallocate(a);
  EXPECT_EQ(raw.count(a), 0u);  // freed at once, not cached
  void* c = pool.allocate(4004);
  EXPECT_EQ(raw.at(c), 4004u);
  pool.deallocate(b);
  pool.deallocate(c);
  s = pool.stats();
  EXPECT_TRUE(raw.empty());
  EXPECT_EQ(s.allocated, 0u);
  EXPECT_EQ(s.reserved, 0u);
  EXPECT_EQ(s.raw_allocs, 3u);
  EXPECT_EQ(s.raw_frees, 3u);
  EXPECT_EQ(s.peak_allocated, 4005u);
}

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
