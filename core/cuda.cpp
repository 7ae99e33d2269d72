// The ember::cuda switches and memory figures. Defined here so that they exist in every
// build; the figures come from the CUDA backend only when it is compiled in.
#include "ember/core/cuda.h"

#include <atomic>

#include "ember/core/device.h"
#include "ember/core/error.h"

#ifdef EMBER_WITH_CUDA
#include "ember/kernels/cuda/cuda_backend.h"
#endif

namespace ember::cuda {
namespace {
std::atomic<bool> g_allow_tf32{false};
std::atomic<bool> g_deterministic{false};

#ifdef EMBER_WITH_CUDA
// The figures are the real allocator's, so the index is checked against the real devices
// (not an emulated backend that may be registered).
void check_real_device(int device) { builtin_cuda_backend().check_device(Device::cuda(device)); }
#endif
}  // namespace

MemoryStats memory_stats(int device) {
#ifdef EMBER_WITH_CUDA
  check_real_device(device);
  return cuda_detail::memory_stats(device);
#else
  raise<NotCompiledError>(Device::cuda(device).str(),
                          " requested, but Ember was built without CUDA support");
#endif
}

void reset_peak_memory_stats(int device) {
#ifdef EMBER_WITH_CUDA
  check_real_device(device);
  cuda_detail::reset_peak_memory_stats(device);
#else
  raise<NotCompiledError>(Device::cuda(device).str(),
                          " requested, but Ember was built without CUDA support");
#endif
}

std::string versions() {
#ifdef EMBER_WITH_CUDA
  return cuda_detail::versions();
#else
  return "not compiled";
#endif
}

void empty_cache() {
#ifdef EMBER_WITH_CUDA
  cuda_detail::empty_cache();
#endif
}

bool is_emulated() {
#ifdef EMBER_CUDA_EMULATED
  return true;
#else
  return false;
#endif
}

void set_allow_tf32(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }
bool allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }
void set_deterministic(bool d) { g_deterministic.store(d, std::memory_order_relaxed); }
bool deterministic() { return g_deterministic.load(std::memory_order_relaxed); }

}  // namespace ember::cuda
