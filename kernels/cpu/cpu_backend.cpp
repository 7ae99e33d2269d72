#include "ember/kernels/cpu/cpu_backend.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "ember/core/error.h"

namespace ember {
namespace {
// 64-byte aligned blocks so that Eigen's and the compiler's vector loads are aligned.
class CpuAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device) override {
    const size_t rounded = (std::max<size_t>(nbytes, 1) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (!p) raise<OutOfMemoryError>("CPU allocation of ", nbytes, " bytes failed");
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
