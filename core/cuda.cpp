// The ember::cuda switches and memory figures. Defined here so that they exist in every
// build; the figures come from the built-in CUDA backend, through the Backend interface,
// when it is compiled in.
#include "ember/core/cuda.h"

#include <atomic>

#include "ember/core/device.h"
#include "ember/core/error.h"
#include "ember/extend/backend.h"
#include "ember/extend/backend_registry.h"

namespace ember {
namespace {
std::atomic<bool> g_allow_tf32{false};
std::atomic<bool> g_deterministic{false};

// The figures are the built-in backend's (its allocator), so the index is checked against
// the real devices, not an emulated backend a test may have registered; while devices are
// rehearsed, the rehearsal's (zeros: no device memory).
Backend& real_cuda_backend(int device) {
  Backend* b = rehearsal_backend();
  if (!b) b = builtin_backend(DeviceType::CUDA);
  if (!b)
    raise<NotCompiledError>(Device::cuda(device).str(),
                            " requested, but Ember was built without CUDA support");
  b->check_device(Device::cuda(device));
  return *b;
}
}  // namespace

BackendSettings backend_settings() {
  return {g_allow_tf32.load(std::memory_order_relaxed), g_deterministic.load(std::memory_order_relaxed)};
}

namespace cuda {

MemoryStats memory_stats(int device) { return real_cuda_backend(device).memory_stats(device); }

void reset_peak_memory_stats(int device) { real_cuda_backend(device).reset_peak_memory_stats(device); }

std::string versions() {
  Backend* b = builtin_backend(DeviceType::CUDA);
  const std::string built = b ? b->versions() : "not compiled";
  Backend* rehearsal = rehearsal_backend();
  return rehearsal ? rehearsal->versions() + "; CUDA " + built : built;
}

const char* device_note(Device device) {
  if (!device.is_cuda()) return "";
  if (is_rehearsed()) return " (rehearsed on the CPU)";
  return is_emulated() ? " (emulated)" : "";
}

void empty_cache() {
  if (Backend* b = builtin_backend(DeviceType::CUDA)) b->empty_cache();
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

}  // namespace cuda
}  // namespace ember
