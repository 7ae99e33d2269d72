// CPU memory for tensors. Blocks are 64-byte aligned so that Eigen's and the compiler's vector
// loads are aligned; blocks of 4 MiB and more are 2 MiB aligned and asked to be backed by
// transparent huge pages (one fault per 2 MiB instead of per 4 KiB).
//
// Large blocks are kept after they are freed and handed out again for the same rounded size.
// A training step frees and asks for the same sizes every iteration, and glibc gives large
// blocks back to the kernel on free: without the cache every step faulted in, and had the
// kernel zero, all of its activations and gradients again (about a tenth of the small ResNet's
// step under perf). The cache is bounded (kCacheLimit; past it a freed block goes straight
// back; blocks over 16 MiB are never kept), emptied when an allocation fails, and by
// Backend::empty_cache().
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "ember/core/error.h"
#include "ember/kernels/cpu/conv/conv_scratch.h"
#include "ember/kernels/cpu/cpu_backend.h"

namespace ember {
namespace {
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeThreshold = size_t{4} << 20;
constexpr size_t kCacheMin = size_t{256} << 10;
constexpr size_t kCacheGranule = size_t{64} << 10;
// Blocks from 1 KiB up to kCacheMin are kept too, rounded up to an eighth of the power of two
// above them. At batch 1 (the tutorial net's forward: ten blocks of 1-23 KiB) malloc and free
// took a tenth of the time, most of it merging freed small chunks (malloc_consolidate runs
// before every request of 1 KiB or more). Smaller blocks stay in malloc's per-thread caches
// (through plain malloc: see aligned_by_hand).
constexpr size_t kSmallCacheMin = size_t{1} << 10;

size_t small_granule(size_t nbytes) {
  size_t pow2 = kSmallCacheMin;
  while (pow2 < nbytes) pow2 <<= 1;
  return pow2 / 8;
}
// 256 MiB: with 1 GiB, one epoch of examples/text_classifier (packed batches: new sizes at
// every step) peaked at 1.1 GB, the cache filling with blocks no later step reused; at 256 MiB
// it peaks at 0.48 GB at the same speed (128 MiB: 0.32 GB, about a tenth slower).
constexpr size_t kCacheLimit = size_t{256} << 20;
// Larger blocks are not kept: their page faults are small next to the work done on them, and
// a big evaluation batch's activations, kept, would add to the peak memory of training.
constexpr size_t kCacheMaxBlock = size_t{16} << 20;

struct Block {
  size_t bytes, align;
};

// The size and alignment actually allocated for nbytes: cached sizes are rounded up (to 64 KiB
// from kCacheMin, at most a quarter more than asked; below, to an eighth of a power of two) so
// that nearby sizes share blocks.
Block block_for(size_t nbytes) {
  const bool huge = nbytes >= kHugeThreshold;
  const size_t align = huge ? kHugePage : 64;
  const size_t granule = huge                       ? kHugePage
                         : nbytes >= kCacheMin      ? kCacheGranule
                         : nbytes >= kSmallCacheMin ? small_granule(nbytes)
                                                    : align;
  return {(std::max<size_t>(nbytes, 1) + granule - 1) / granule * granule, align};
}

bool cacheable(size_t bytes) { return bytes >= kSmallCacheMin && bytes <= kCacheMaxBlock; }

// Blocks this small come from malloc, 64 bytes more, aligned by hand (the address malloc gave
// kept just below the block): aligned_alloc never takes from malloc's per-thread caches, and
// went through malloc's slow path for every small tensor (a layer norm's statistics, a bias);
// a malloc of up to 1024 bytes does. A BERT forward of 16 features a token, so that its
// tensors are small, took 17.5 -> 14.5 us.
constexpr size_t kAlignedByHandMax = 1024 - 64;

void* aligned_by_hand(size_t bytes) {
  void* raw = std::malloc(bytes + 64);
  if (!raw) return nullptr;
  void* p = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(raw) + 64) & ~uintptr_t{63});
  static_cast<void**>(p)[-1] = raw;
  return p;
}

void free_aligned_by_hand(void* p) {
  if (p) std::free(static_cast<void**>(p)[-1]);
}

class CpuAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device) override {
    const Block b = block_for(nbytes);
    if (cacheable(b.bytes)) {
      std::lock_guard<std::mutex> lock(mutex_);
      // Best fit within a quarter: the smallest kept block at least this big. A packed BERT
      // batch (Bert::set_skip_padding) asks for other sizes at every step; with exact sizes
      // only, the cache filled to its limit with blocks no later step asked for (a 1.1 GB
      // peak for one epoch of examples/text_classifier).
      auto it = cache_.lower_bound(b.bytes);
      while (it != cache_.end() && it->second.empty()) ++it;
      // A block kept under a huge size may have come from a request just below the
      // threshold (64-byte aligned): a huge request takes it only if it is 2 MiB aligned.
      if (it != cache_.end() && it->first - b.bytes <= b.bytes / 4 &&
          reinterpret_cast<uintptr_t>(it->second.back()) % b.align == 0) {
        void* p = it->second.back();
        it->second.pop_back();  // the list stays, with its capacity (see cache_)
        cached_bytes_ -= it->first;
        return p;
      }
    }
    const auto fresh = [&] {
      return b.bytes <= kAlignedByHandMax ? aligned_by_hand(b.bytes) : std::aligned_alloc(b.align, b.bytes);
    };
    void* p = fresh();
    if (!p) {  // memory held by the cache may be what is missing
      release_cache();
      p = fresh();
    }
    if (!p) raise<OutOfMemoryError>("CPU allocation of ", nbytes, " bytes failed");
#ifdef MADV_HUGEPAGE
    if (b.align == kHugePage) madvise(p, b.bytes, MADV_HUGEPAGE);  // advice only: failure changes nothing
#endif
    return p;
  }

  void deallocate(void* ptr, size_t nbytes, Device) noexcept override {
    const Block b = block_for(nbytes);
    if (ptr && cacheable(b.bytes)) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (cached_bytes_ + b.bytes <= kCacheLimit) {
        try {
          cache_[b.bytes].push_back(ptr);
          cached_bytes_ += b.bytes;
          return;
        } catch (const std::bad_alloc&) {
          // No room to remember the block: give it back instead.
        }
      }
    }
    if (b.bytes <= kAlignedByHandMax)
      free_aligned_by_hand(ptr);
    else
      std::free(ptr);
  }

  void release_cache() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [bytes, blocks] : cache_)
      for (void* p : blocks) std::free(p);
    cache_.clear();
    cached_bytes_ = 0;
  }

 private:
  std::mutex mutex_;
  // Rounded size -> free blocks of at least that size (a block taken by a smaller request
  // comes back under that request's size). A size's list stays when its last block is taken:
  // erased, every round trip of a block (a batch-1 BERT forward makes about 30) cost a map
  // node and a vector buffer, two mallocs and two frees. Rounded sizes are few (64 KiB
  // granules up to 16 MiB, eight per power of two below 256 KiB), so the map stays small.
  std::map<size_t, std::vector<void*>> cache_;
  size_t cached_bytes_ = 0;
};

// Never destroyed: tensors with static storage may be freed after any static destructor ran.
CpuAllocator& cpu_allocator() {
  static CpuAllocator* instance = new CpuAllocator;
  return *instance;
}
}  // namespace

Allocator& CpuBackend::allocator() { return cpu_allocator(); }

void CpuBackend::empty_cache() {
  cpu_allocator().release_cache();
  cpu::release_conv_scratch();
}

}  // namespace ember
