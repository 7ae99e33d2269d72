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

bool argument_accessible(int device, const void* p, size_t n, const std::string& what) {
  if (state().strict_devices) {
    const Where w = locate(p, n);
    if (w.device >= 0 && w.device != device) {
      set_sticky_error(
          device, cudaErrorIllegalAddress,
          what + ": " + hex(p) + " is memory of cuda:" + std::to_string(w.device) +
              ", used on cuda:" + std::to_string(device) +
              " (strict devices: arguments live on the device of their work, peer access or not)");
      return false;
    }
  }
  return accessible(device, p, n, what);
}

bool check_kernel_pointer(const LaunchConfig& config, int device, const void* p, int argument) {
  Lock lock(state().mutex);
  const std::string what = std::string("kernel ") + config.kernel + " argument " + std::to_string(argument);
  // Any argument may be written, so each is checked as a write. (A kernel that only reads
  // a pending copy's source would be harmless; Ember queues none unordered with the copy.)
  return argument_accessible(device, p, 1, what) &&
         may_write(stream_or_null(config.stream, device), p, 1, what);
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
    // Not for another device's copies: one still queued to read the block keeps it (the
    // fault is sticky; the copy, when it runs, reads memory that still exists).
    if (!may_free(static_cast<int>(d), ptr, it->second)) return cudaErrorIllegalAddress;
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
  CUstream_st& queue = stream_or_null(stream, d);
  const std::string what =
      "cudaMemcpyAsync of " + std::to_string(count) + " bytes from " + hex(src) + " to " + hex(dst);
  if (dst_device && !may_write(queue, dst, count, what)) return cudaErrorIllegalAddress;
  if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost) {
    // From pageable memory the source is staged before the call returns, so the caller
    // may reuse it at once.
    auto staged = std::make_shared<std::vector<unsigned char>>(
        static_cast<const unsigned char*>(src), static_cast<const unsigned char*>(src) + count);
    submit_function(stream, d, [dst, staged] { std::memcpy(dst, staged->data(), staged->size()); });
  } else if (st.deferred) {
    const uint64_t read = add_pending_read(queue, src, count, what);
    submit_function(stream, d, [dst, src, count, read] {
      std::memmove(dst, src, count);
      retire_pending_read(read);
    });
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
  CUstream_st& queue = stream_or_null(stream, d);
  const std::string what = "cudaMemcpyPeerAsync of " + std::to_string(count) + " bytes from " + hex(src) +
                           " on cuda:" + std::to_string(src_device) + " to " + hex(dst) +
                           " on cuda:" + std::to_string(dst_device);
  if (!may_write(queue, dst, count, what)) return cudaErrorIllegalAddress;
  if (!st.deferred) {
    submit_function(stream, d, [dst, src, count] { std::memmove(dst, src, count); });
    return cudaSuccess;
  }
  const uint64_t read = add_pending_read(queue, src, count, what);
  submit_function(stream, d, [dst, src, count, read] {
    std::memmove(dst, src, count);
    retire_pending_read(read);
  });
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = device_of(stream);
  if (const cudaError_t e = usable(d)) return e;
  if (count == 0) return cudaSuccess;
  if (!accessible(d, ptr, count, "cudaMemsetAsync")) return cudaErrorIllegalAddress;
  CUstream_st& queue = stream_or_null(stream, d);
  if (!may_write(queue, ptr, count, "cudaMemsetAsync of " + std::to_string(count) + " bytes at " + hex(ptr)))
    return cudaErrorIllegalAddress;
  submit_function(stream, d, [ptr, value, count] { std::memset(ptr, value, count); });
  return cudaSuccess;
}
