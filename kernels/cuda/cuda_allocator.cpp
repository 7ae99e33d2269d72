// The caching allocator of the CUDA backend: one BlockPool per device over cudaMalloc and
// cudaFree (caching_allocator.h holds the bookkeeping, tested on the CPU).
#include "ember/kernels/cuda/cuda_allocator.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ember/kernels/cuda/caching_allocator.h"
#include "ember/kernels/cuda/cuda_backend.h"
#include "ember/kernels/cuda/cuda_context.h"

#if defined(EMBER_CUDA_EMULATED)
#include "cuda_emulator/control.h"
#include "cuda_emulator/sanitizer.h"
#endif
#if defined(EMBER_EMULATION_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace ember {
namespace {

std::atomic<int> g_alloc_fill{-1};

// EMBER_CUDA_CACHING_ALLOCATOR, read once (docs/DESIGN.md, CUDA).
bool caching_enabled() {
  static const bool enabled = [] {
    try {
      return cuda_detail::caching_enabled_by(std::getenv("EMBER_CUDA_CACHING_ALLOCATOR"));
    } catch (const std::invalid_argument& e) {
      raise<ValueError>(e.what());
    }
  }();
  return enabled;
}

#if defined(EMBER_EMULATION_ASAN)
// Emulated device memory is host memory, so AddressSanitizer can guard it: the caching
// allocator's free blocks (and a block's rounding beyond the bytes asked for) are poisoned,
// and a kernel or copy that touches them is reported. A block's state changes in stream
// order, as its reuse does: work queued before a free may still use it.
void mark_in_stream_order(int device, void* p, size_t n, bool usable) {
  struct Mark {
    void* p;
    size_t n;
    bool usable;
  };
  auto mark = std::make_unique<Mark>(Mark{p, n, usable});
  EMBER_CUDA_CHECK(cudaLaunchHostFunc(
      cuda_detail::stream(device),
      [](void* m) {
        const std::unique_ptr<Mark> owned(static_cast<Mark*>(m));
        if (owned->usable)
          ASAN_UNPOISON_MEMORY_REGION(owned->p, owned->n);
        else
          ASAN_POISON_MEMORY_REGION(owned->p, owned->n);
      },
      mark.get()));
  (void)mark.release();  // queued: the function owns it now
}
#else
void mark_in_stream_order(int, void*, size_t, bool) {}
#endif

#if defined(EMBER_CUDA_EMULATED) && !defined(EMBER_EMULATION_ASAN)
// Without AddressSanitizer, the emulated build still sees a write past a cached block's end:
// each block is asked for kGuardBytes more than the tensor needs, that guard is filled with
// a canary when the block is handed out and checked when it is returned, both in stream
// order. A changed canary ends the process (as a GPU's memory checker does), so the test that
// ran the kernel fails in every emulated mode; the ASan build names the kernel.
constexpr size_t kGuardBytes = 32;
constexpr unsigned char kCanary = 0xA5;

void arm_guard(int device, void* p, size_t nbytes) {
  CudaDeviceGuard guard(device);
  EMBER_CUDA_CHECK(
      cudaMemsetAsync(static_cast<char*>(p) + nbytes, kCanary, kGuardBytes, cuda_detail::stream(device)));
}

void check_guard_in_stream_order(int device, void* p, size_t nbytes) {
  struct Check {
    const unsigned char* guard;
    void* block;
    size_t nbytes;
    int device;
  };
  auto check =
      std::make_unique<Check>(Check{static_cast<const unsigned char*>(p) + nbytes, p, nbytes, device});
  EMBER_CUDA_CHECK(cudaLaunchHostFunc(
      cuda_detail::stream(device),
      [](void* c) {
        const std::unique_ptr<Check> owned(static_cast<Check*>(c));
        for (size_t i = 0; i < kGuardBytes; ++i)
          if (owned->guard[i] != kCanary) {
            std::fprintf(stderr,
                         "ember: device memory overrun on cuda:%d: byte %zu past the end of a %zu-byte "
                         "allocation at %p was written (a kernel or copy ran past a tensor's end; the "
                         "AddressSanitizer build names it)\n",
                         owned->device, i, owned->nbytes, owned->block);
            std::abort();
          }
      },
      check.get()));
  (void)check.release();  // queued: the function owns it now
}
#else
constexpr size_t kGuardBytes = 0;
void arm_guard(int, void*, size_t) {}
void check_guard_in_stream_order(int, void*, size_t) {}
#endif

class CudaCachingAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device device) override {
    if (nbytes == 0) return nullptr;
    cuda_detail::BlockPool& p = pool(device.index);
    // A pass-through block is all the allocation (a memory checker guards its end itself).
    const size_t guard_bytes = p.exact() ? 0 : kGuardBytes;
    void* ptr = p.allocate(nbytes + guard_bytes);
    if (!ptr) throw OutOfMemoryError(cuda_detail::oom_message(nbytes, device.index, p.stats().reserved));
    if (!p.exact()) mark_in_stream_order(device.index, ptr, nbytes, true);
    if (guard_bytes) arm_guard(device.index, ptr, nbytes);
    const int fill = g_alloc_fill.load(std::memory_order_relaxed);
    if (fill >= 0) {
      CudaDeviceGuard guard(device.index);
      EMBER_CUDA_CHECK(cudaMemsetAsync(ptr, fill, nbytes, cuda_detail::stream(device.index)));
    }
    return ptr;
  }

  void deallocate(void* ptr, size_t nbytes, Device device) noexcept override {
    if (!ptr) return;
#if defined(EMBER_CUDA_EMULATED)
    // The block's next user queues on the device's stream at once: a copy on another stream
    // still reading it must be ordered before that (with deferred streams, the only mode
    // where a copy can still be queued, the emulator checks and makes the device's error
    // sticky if not).
    try {
      if (emulation::deferred_streams())
        emulation::may_reuse(device.index, cuda_detail::stream(device.index), ptr, nbytes);
    } catch (...) {  // a broken device: nothing to check
    }
#endif
    if (cuda_detail::BlockPool* p = existing_pool(device.index)) {
      try {
        // A pass-through block goes back to cudaFree, which waits for the device first.
        if (!p->exact()) {
          if (kGuardBytes) check_guard_in_stream_order(device.index, ptr, nbytes);
          mark_in_stream_order(device.index, ptr, nbytes, false);
        }
      } catch (const Error&) {  // a broken device: the block is not poisoned, that is all
      }
      p->deallocate(ptr);
    }
  }

  /// The pool of a device, made on first use.
  cuda_detail::BlockPool& pool(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pools_.empty()) pools_.resize(static_cast<size_t>(builtin_cuda_device_count()));
    builtin_cuda_backend().check_device(Device::cuda(device));
    auto& slot = pools_[static_cast<size_t>(device)];
    if (!slot) {
      const bool exact = !caching_enabled();
      // The pool outlives every tensor: it is never destroyed (see DeviceContext).
      slot = new cuda_detail::BlockPool(
          [device, exact](size_t n) -> void* {
            CudaDeviceGuard guard(device);
            void* p = nullptr;
            const cudaError_t err = cudaMalloc(&p, n);
            if (err == cudaErrorMemoryAllocation) {
              cudaGetLastError();  // not sticky: clear it so later calls do not see it
              return nullptr;
            }
            EMBER_CUDA_CHECK(err);
#if defined(EMBER_EMULATION_ASAN)
            if (!exact) ASAN_POISON_MEMORY_REGION(p, n);  // a new segment is all free blocks
#else
            (void)exact;
#endif
            return p;
          },
          [device](void* p) {
            int previous = -1;
            cudaGetDevice(&previous);
            cudaSetDevice(device);
            cudaFree(p);
            if (previous >= 0) cudaSetDevice(previous);
            cudaGetLastError();
          },
          [device] {
            // Cached blocks may still be read by queued kernels: wait before freeing them.
            CudaDeviceGuard guard(device);
            EMBER_CUDA_CHECK(cudaStreamSynchronize(cuda_detail::stream(device)));
          },
          exact);
    }
    return *slot;
  }

  cuda_detail::BlockPool* existing_pool(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (device < 0 || device >= static_cast<int>(pools_.size())) return nullptr;
    return pools_[static_cast<size_t>(device)];
  }

  std::vector<int> devices_with_pools() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<int> d;
    for (size_t i = 0; i < pools_.size(); ++i)
      if (pools_[i]) d.push_back(static_cast<int>(i));
    return d;
  }

 private:
  std::mutex mutex_;
  std::vector<cuda_detail::BlockPool*> pools_;
};

CudaCachingAllocator& caching_allocator() {
  static auto* instance = new CudaCachingAllocator;  // never destroyed, like the pools
  return *instance;
}

}  // namespace

Allocator& CudaBackend::allocator() { return caching_allocator(); }

namespace cuda_detail {

DeviceBuffer::DeviceBuffer(int device, size_t nbytes) : size_(nbytes), device_(device) {
  ptr_ = caching_allocator().allocate(nbytes, Device::cuda(device));
}

void DeviceBuffer::reset() noexcept {
  if (ptr_) caching_allocator().deallocate(ptr_, size_, Device::cuda(device_));
  ptr_ = nullptr;
  size_ = 0;
}

void set_alloc_fill(int byte) {
  g_alloc_fill.store(byte < 0 ? -1 : (byte & 0xFF), std::memory_order_relaxed);
}

}  // namespace cuda_detail

// The caching allocator's figures and cache, for ember::cuda (core/cuda.cpp forwards).
cuda::MemoryStats CudaBackend::memory_stats(int device) {
  cuda::MemoryStats m;
  if (cuda_detail::BlockPool* p = caching_allocator().existing_pool(device)) {
    const cuda_detail::PoolStats s = p->stats();
    m.allocated = s.allocated;
    m.reserved = s.reserved;
    m.peak_allocated = s.peak_allocated;
    m.peak_reserved = s.peak_reserved;
    m.device_allocs = s.raw_allocs;
    m.device_frees = s.raw_frees;
  }
  return m;
}

void CudaBackend::reset_peak_memory_stats(int device) {
  if (cuda_detail::BlockPool* p = caching_allocator().existing_pool(device)) p->reset_peaks();
}

void CudaBackend::empty_cache() {
  for (int d : caching_allocator().devices_with_pools()) {
    CudaDeviceGuard guard(d);
    EMBER_CUDA_CHECK(cudaStreamSynchronize(cuda_detail::stream(d)));
    caching_allocator().existing_pool(d)->release_cached();
  }
}

}  // namespace ember
