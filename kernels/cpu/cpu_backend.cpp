#include "ember/kernels/cpu/cpu_backend.h"

#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "ember/core/error.h"

namespace ember {
namespace {
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeThreshold = size_t{4} << 20;

// 64-byte aligned blocks so that Eigen's and the compiler's vector loads are aligned.
// Large blocks are 2 MiB aligned and asked to be backed by transparent huge pages: the
// allocator hands them to the kernel on free, so every large op output is faulted in anew,
// and one fault per 2 MiB instead of per 4 KiB is what keeps a 64 MiB elementwise op
// memory-bound rather than fault-bound.
class CpuAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device) override {
    const bool huge = nbytes >= kHugeThreshold;
    const size_t align = huge ? kHugePage : 64;
    const size_t rounded = (std::max<size_t>(nbytes, 1) + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded);
    if (!p) raise<OutOfMemoryError>("CPU allocation of ", nbytes, " bytes failed");
#ifdef MADV_HUGEPAGE
    if (huge) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure changes nothing
#endif
    return p;
  }
  void deallocate(void* ptr, size_t, Device) noexcept override { std::free(ptr); }
};
}  // namespace

Allocator& CpuBackend::allocator() {
  static CpuAllocator instance;
  return instance;
}

CpuBackend& cpu_backend() {
  static CpuBackend instance;
  return instance;
}

void CpuBackend::copy_from_host(void* dst, const void* src, size_t nbytes, Device) {
  if (nbytes) std::memcpy(dst, src, nbytes);
}
void CpuBackend::copy_to_host(void* dst, const void* src, size_t nbytes, Device) {
  if (nbytes) std::memcpy(dst, src, nbytes);
}
void CpuBackend::copy_between_devices(void* dst, Device, const void* src, Device, size_t nbytes) {
  if (nbytes) std::memcpy(dst, src, nbytes);
}

}  // namespace ember
