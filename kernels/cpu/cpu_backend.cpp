#include "ember/kernels/cpu/cpu_backend.h"

#include <cstring>

namespace ember {
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
