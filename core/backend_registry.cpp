#include "ember/core/backend_registry.h"

#include <array>
#include <atomic>
#include <mutex>

#include "ember/core/cuda.h"
#include "ember/core/error.h"
// The registry installs the built-in backends: the one place core includes kernels.
#include "ember/kernels/cpu/cpu_backend.h"
#ifdef EMBER_WITH_CUDA
#include "ember/kernels/cuda/cuda_backend.h"
#endif

namespace ember {
namespace {
// Registrations are kept alive here; the hot path reads a raw pointer.
std::mutex g_mutex;
std::array<std::shared_ptr<Backend>, kNumDeviceTypes> g_owned;
std::array<std::atomic<Backend*>, kNumDeviceTypes> g_active{};

}  // namespace

Backend* builtin_backend(DeviceType type) {
  if (type == DeviceType::CPU) return &cpu_backend();
#ifdef EMBER_WITH_CUDA
  return &builtin_cuda_backend();
#else
  return nullptr;
#endif
}

std::shared_ptr<Backend> register_backend(DeviceType type, std::shared_ptr<Backend> backend) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto i = static_cast<size_t>(type);
  std::shared_ptr<Backend> previous = std::move(g_owned[i]);
  g_owned[i] = std::move(backend);
  g_active[i].store(g_owned[i].get(), std::memory_order_release);
  return previous;
}

Backend& backend_for(Device device) {
  const auto i = static_cast<size_t>(device.type);
  if (Backend* b = g_active[i].load(std::memory_order_acquire)) return *b;
  if (Backend* b = builtin_backend(device.type)) return *b;
  raise<NotCompiledError>(device.str(), " requested, but Ember was built without CUDA support");
}

Backend& checked_backend_for(Device device) {
  Backend& b = backend_for(device);
  b.check_device(device);
  return b;
}

void check_device_usable(Device device) { checked_backend_for(device); }

namespace cuda {
bool is_compiled() {
#ifdef EMBER_WITH_CUDA
  return true;
#else
  return false;
#endif
}

int device_count() {
  const auto i = static_cast<size_t>(DeviceType::CUDA);
  if (Backend* b = g_active[i].load(std::memory_order_acquire)) return b->device_count();
  Backend* b = builtin_backend(DeviceType::CUDA);
  return b ? b->device_count() : 0;
}

bool is_available() { return device_count() > 0; }

void synchronize() {
  const int n = device_count();
  for (int d = 0; d < n; ++d) backend_for(Device::cuda(d)).synchronize(Device::cuda(d));
}
}  // namespace cuda

}  // namespace ember
