#pragma once
// The caching allocator's bookkeeping, free of CUDA so that the CPU tests exercise it: device
// memory is obtained in segments through a raw allocation function, cut into blocks, and
// freed blocks are kept (merged with free neighbours) for the next request of a fitting size.
// All work of a device runs on that device's one stream, so a block freed by the host can be
// handed out again at once: any later use is queued after every earlier use on the stream.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace ember::cuda_detail {

/// "512 bytes", "1.50 KiB", "20.00 MiB", "2.00 GiB".
inline std::string format_bytes(size_t n) {
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (n < 1024) return std::to_string(n) + " bytes";
  double v = static_cast<double>(n) / 1024.0;
  int u = 0;
  while (v >= 1024.0 && u < 3) {
    v /= 1024.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}

/// The OutOfMemoryError message (docs/DESIGN.md): what was asked for, where, and what is held.
inline std::string oom_message(size_t requested, int device, size_t reserved) {
  return "cudaMalloc failed: out of memory (tried to allocate " + format_bytes(requested) +
         " on cuda:" + std::to_string(device) + "; " + format_bytes(reserved) + " reserved)";
}

/// EMBER_CUDA_CACHING_ALLOCATOR's value: unset, "1" or "0" (as PyTorch's
/// PYTORCH_NO_CUDA_MEMORY_CACHING=1, for a memory checker: every block is its own cudaMalloc
/// of exactly the bytes asked for, freed with cudaFree). Throws std::invalid_argument for
/// anything else, so that a misspelt setting does not pass silently.
inline bool caching_enabled_by(const char* value) {
  if (value == nullptr || std::string(value) == "1") return true;
  if (std::string(value) == "0") return false;
  throw std::invalid_argument(std::string("EMBER_CUDA_CACHING_ALLOCATOR must be 0 or 1, got \"") + value +
                              "\"");
}

struct PoolStats {
  size_t allocated = 0, reserved = 0, peak_allocated = 0, peak_reserved = 0;
  uint64_t raw_allocs = 0, raw_frees = 0;
};

class BlockPool {
 public:
  /// Returns nullptr when the device has no memory left.
  using RawAlloc = std::function<void*(size_t)>;
  using RawFree = std::function<void(void*)>;
  /// Called before cached segments are returned on the out-of-memory path: waits until no
  /// queued work can still touch them.
  using Sync = std::function<void()>;

  static constexpr size_t kRound = 512;              // block sizes are multiples of this
  static constexpr size_t kSmallRequest = 1u << 20;  // up to 1 MiB: the small pool
  static constexpr size_t kSmallSegment = 2u << 20;  // small pool segments
  static constexpr size_t kMidRequest = 10u << 20;   // below 10 MiB: 20 MiB segments
  static constexpr size_t kMidSegment = 20u << 20;
  static constexpr size_t kLargeRound = 2u << 20;  // larger segments: multiples of 2 MiB

  /// exact: no cache; every request is a raw allocation of exactly its size, freed when the
  /// block is (EMBER_CUDA_CACHING_ALLOCATOR=0), so a memory checker sees each block's end.
  BlockPool(
      RawAlloc raw_alloc, RawFree raw_free, Sync sync = [] {}, bool exact = false)
      : raw_alloc_(std::move(raw_alloc)),
        raw_free_(std::move(raw_free)),
        sync_(std::move(sync)),
        exact_(exact) {}
  ~BlockPool() {
    // Only whole segments are returned; a pool destroyed with live blocks leaks them (the
    // CUDA allocators live for the whole process and are never destroyed).
    release_cached_locked();
  }
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  static size_t round_size(size_t n) { return n < kRound ? kRound : (n + kRound - 1) / kRound * kRound; }
  static size_t segment_size(size_t rounded) {
    if (rounded <= kSmallRequest) return kSmallSegment;
    if (rounded < kMidRequest) return kMidSegment;
    return (rounded + kLargeRound - 1) / kLargeRound * kLargeRound;
  }

  /// A block of at least nbytes (> 0). When the device is full, the cache is returned to
  /// the driver and the request tried once more; nullptr when that fails too.
  void* allocate(size_t nbytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (exact_) return allocate_exact(nbytes);
    const size_t size = round_size(nbytes);
    const bool small = size <= kSmallRequest;
    Block* b = take_free(size, small);
    if (!b) {
      b = new_segment(size, small);
      if (!b) {
        sync_();
        release_cached_locked();
        b = new_segment(size, small);
        if (!b) return nullptr;
      }
    }
    split(b, size);
    b->free = false;
    live_.emplace(b->ptr, b);
    stats_.allocated += b->size;
    if (stats_.allocated > stats_.peak_allocated) stats_.peak_allocated = stats_.allocated;
    return b->ptr;
  }

  /// Returns a block to the cache. Pointers this pool did not hand out are ignored.
  void deallocate(void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(ptr);
    if (it == live_.end()) return;
    Block* b = it->second;
    live_.erase(it);
    stats_.allocated -= b->size;
    if (exact_) {
      raw_free_(b->ptr);
      ++stats_.raw_frees;
      stats_.reserved -= b->size;
      delete b;
      return;
    }
    b->free = true;
    if (b->prev && b->prev->free) b = merge(b->prev, b);
    if (b->next && b->next->free) b = merge(b, b->next);
    pool(b->small).insert(b);
  }

  /// Returns every wholly free segment to the driver (the caller has synchronised).
  void release_cached() {
    std::lock_guard<std::mutex> lock(mutex_);
    release_cached_locked();
  }

  PoolStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  void reset_peaks() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.peak_allocated = stats_.allocated;
    stats_.peak_reserved = stats_.reserved;
  }
  /// Whether requests pass through at their exact size (no cache).
  bool exact() const { return exact_; }
  /// The size of the block handed out at ptr (0 when unknown).
  size_t block_size(void* ptr) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(ptr);
    return it == live_.end() ? 0 : it->second->size;
  }

 private:
  struct Block {
    char* ptr;
    size_t size;
    bool small;
    bool free = true;
    Block* prev = nullptr;  // neighbours inside the same segment
    Block* next = nullptr;
  };
  struct BySize {
    bool operator()(const Block* a, const Block* b) const {
      return a->size != b->size ? a->size < b->size : a->ptr < b->ptr;
    }
  };
  using FreeSet = std::set<Block*, BySize>;

  FreeSet& pool(bool small) { return small ? free_small_ : free_large_; }

  // The smallest cached block that fits (best fit), removed from its free set.
  Block* take_free(size_t size, bool small) {
    FreeSet& set = pool(small);
    Block key{nullptr, size, small};
    auto it = set.lower_bound(&key);
    if (it == set.end()) return nullptr;
    Block* b = *it;
    set.erase(it);
    return b;
  }

  Block* new_segment(size_t size, bool small) { return new_segment_of(segment_size(size), small); }
  Block* new_segment_of(size_t seg, bool small) {
    void* p = raw_alloc_(seg);
    if (!p) return nullptr;
    ++stats_.raw_allocs;
    stats_.reserved += seg;
    if (stats_.reserved > stats_.peak_reserved) stats_.peak_reserved = stats_.reserved;
    return new Block{static_cast<char*>(p), seg, small};
  }

  // The pass-through: a segment of exactly nbytes per request, with the driver's own
  // out-of-memory retry (nothing is cached, so nothing can be released first).
  void* allocate_exact(size_t nbytes) {
    Block* b = new_segment_of(nbytes, false);
    if (!b) return nullptr;
    b->free = false;
    live_.emplace(b->ptr, b);
    stats_.allocated += b->size;
    if (stats_.allocated > stats_.peak_allocated) stats_.peak_allocated = stats_.allocated;
    return b->ptr;
  }

  // Cuts the unused tail of b off as a free block when it is worth keeping apart.
  void split(Block* b, size_t size) {
    const size_t rest = b->size - size;
    if (b->small ? rest < kRound : rest <= kSmallRequest) return;
    Block* tail = new Block{b->ptr + size, rest, b->small};
    tail->prev = b;
    tail->next = b->next;
    if (b->next) b->next->prev = tail;
    b->next = tail;
    b->size = size;
    pool(b->small).insert(tail);
  }

  // Joins b into a (its free left neighbour, or b's right neighbour into b); returns the
  // survivor, out of every free set.
  Block* merge(Block* a, Block* b) {
    pool(a->small).erase(a);
    pool(b->small).erase(b);
    a->size += b->size;
    a->next = b->next;
    if (b->next) b->next->prev = a;
    delete b;
    return a;
  }

  void release_cached_locked() {
    for (FreeSet* set : {&free_small_, &free_large_}) {
      for (auto it = set->begin(); it != set->end();) {
        Block* b = *it;
        if (b->prev || b->next) {
          ++it;
          continue;
        }
        raw_free_(b->ptr);
        ++stats_.raw_frees;
        stats_.reserved -= b->size;
        it = set->erase(it);
        delete b;
      }
    }
  }

  RawAlloc raw_alloc_;
  RawFree raw_free_;
  Sync sync_;
  bool exact_;
  mutable std::mutex mutex_;
  FreeSet free_small_, free_large_;
  std::unordered_map<void*, Block*> live_;
  PoolStats stats_;
};

}  // namespace ember::cuda_detail
