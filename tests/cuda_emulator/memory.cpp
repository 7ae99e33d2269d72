// Emulated device memory: each cudaMalloc is its own 256-byte aligned host allocation of
// exactly the size asked for (so AddressSanitizer sees overruns), filled with 0xFF bytes
// (NaNs: uninitialised memory is not zeros), recorded per device, with
// recent frees remembered for the diagnosis. Copies and memsets check their device ends:
// a host pointer, a freed block, a range past an allocation's end, or another device's
// memory without peer access is a sticky cudaErrorIllegalAddress.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_emulator/internal.h"
#include "cuda_emulator/sanitizer.h"
#if defined(EMBER_EMULATION_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace ember::emulation {
namespace {

std::string hex(const void* p) {
  std::ostringstream os;
  os << p;
  return os.str();
}

}  // namespace

Where locate(const void* p, size_t n) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  State& st = state();
  for (size_t d = 0; d < st.devices.size(); ++d) {
    const auto& live = st.devices[d].live;
    auto it = live.upper_bound(a);
    if (it == live.begin()) continue;
    --it;
    if (a >= it->first + it->second) continue;
    if (n > it->first + it->second - a)
      return {-1, hex(p) + " + " + std::to_string(n) + " bytes runs past the end of its allocation on cuda:" +
                      std::to_string(d) + " (" + std::to_string(it->second) + " bytes at " +
                      hex(reinterpret_cast<void*>(it->first)) + ")"};
    return {static_cast<int>(d), ""};
  }
  for (size_t d = 0; d < st.devices.size(); ++d)
    for (const auto& f : st.devices[d].freed)
      if (a >= f.first && a < f.first + f.second)
        return {-1, hex(p) + " lies in a block freed on cuda:" + std::to_string(d)};
  return {-1, hex(p) + " is not device memory (a host pointer?)"};
}

bool accessible(int device, const void* p, size_t n, const std::string& what) {
  Where w = locate(p, n);
  if (w.device >= 0 && w.device != device &&
      !state().devices[static_cast<size_t>(device)].peers.count(w.device))
    w.problem = hex(p) + " is memory of cuda:" + std::to_string(w.device) +
                ", used on cuda:" + std::to_string(device) + " without peer access";
  if (w.problem.empty()) return true;
  set_sticky_error(device, cudaErrorIllegalAddress, what + ": " + w.problem);
  return false;
}

bool check_kernel_pointer(int device, const void* p, const char* kernel, int argument) {
  Lock lock(state().mutex);
  return accessible(device, p, 1, std::string("kernel ") + kernel + " argument " + std::to_string(argument));
}

}  // namespace ember::emulation

using namespace ember::emulation;

cudaError_t cudaMalloc(void** ptr, size_t size) {
  State& st = state();
  Lock lock(st.mutex);
  *ptr = nullptr;
  if (const cudaError_t e = usable(current_device())) return e;
  if (size == 0) return cudaSuccess;
  DeviceState& dev = st.devices[static_cast<size_t>(current_device())];
  const size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded < size || rounded > dev.capacity - std::min(dev.capacity, dev.used))
    return fail(cudaErrorMemoryAllocation);
  void* p = nullptr;
  // Exactly size bytes, so AddressSanitizer sees an overrun past the end.
  if (::posix_memalign(&p, kAlignment, size) != 0 || !p) return fail(cudaErrorMemoryAllocation);
  // cudaMalloc gives no zeros: fresh memory is all 0xFF bytes, a NaN as float or double
  // (and -1 as an integer), so a kernel that reads what nobody wrote shows it.
  std::memset(p, 0xFF, size);
  dev.live[reinterpret_cast<uintptr_t>(p)] = size;
  dev.used += rounded;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  State& st = state();
  Lock lock(st.mutex);
  if (!ptr) return cudaSuccess;
  for (size_t d = 0; d < st.devices.size(); ++d) {
    DeviceState& dev = st.devices[d];
    auto it = dev.live.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == dev.live.end()) continue;
    drain_device(static_cast<int>(d));  // cudaFree waits for the device
#if defined(EMBER_EMULATION_ASAN)
    ASAN_UNPOISON_MEMORY_REGION(ptr, it->second);  // the caching allocator may have poisoned parts
#endif
    dev.used -= (it->second + kAlignment - 1) / kAlignment * kAlignment;
    dev.freed.emplace_back(it->first, it->second);
    if (dev.freed.size() > kFreedRemembered) dev.freed.pop_front();
    dev.live.erase(it);
    std::free(ptr);
    return dev.sticky == cudaSuccess ? cudaSuccess : fail(dev.sticky);
  }
  return fail(cudaErrorInvalidValue);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = device_of(stream);
  if (const cudaError_t e = usable(d)) return e;
  if (count == 0) return cudaSuccess;
  if (kind == cudaMemcpyDefault)
    kind = locate(src, 1).device >= 0
               ? (locate(dst, 1).device >= 0 ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
               : (locate(dst, 1).device >= 0 ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDeviceToDevice)
    return fail(cudaErrorInvalidMemcpyDirection);
  if (dst_device && !accessible(d, dst, count, "cudaMemcpyAsync destination")) return cudaErrorIllegalAddress;
  if (src_device && !accessible(d, src, count, "cudaMemcpyAsync source")) return cudaErrorIllegalAddress;
  if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost) {
    // From pageable memory the source is staged before the call returns, so the caller
    // may reuse it at once.
    auto staged = std::make_shared<std::vector<unsigned char>>(
        static_cast<const unsigned char*>(src), static_cast<const unsigned char*>(src) + count);
    submit_function(stream, d, [dst, staged] { std::memcpy(dst, staged->data(), staged->size()); });
  } else {
    submit_function(stream, d, [dst, src, count] { std::memmove(dst, src, count); });
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t count,
                                cudaStream_t stream) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = device_of(stream);
  if (const cudaError_t e = usable(d)) return e;
  if (!valid_device(dst_device) || !valid_device(src_device)) return fail(cudaErrorInvalidDevice);
  if (count == 0) return cudaSuccess;
  // Staged through the host where peers cannot reach each other: each side on its device.
  if (!accessible(dst_device, dst, count, "cudaMemcpyPeerAsync destination")) return cudaErrorIllegalAddress;
  if (!accessible(src_device, src, count, "cudaMemcpyPeerAsync source")) return cudaErrorIllegalAddress;
  submit_function(stream, d, [dst, src, count] { std::memmove(dst, src, count); });
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = device_of(stream);
  if (const cudaError_t e = usable(d)) return e;
  if (count == 0) return cudaSuccess;
  if (!accessible(d, ptr, count, "cudaMemsetAsync")) return cudaErrorIllegalAddress;
  submit_function(stream, d, [ptr, value, count] { std::memset(ptr, value, count); });
  return cudaSuccess;
}
