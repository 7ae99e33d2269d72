#include "ember/extend/backend_registry.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "ember/core/cuda.h"
#include "ember/core/error.h"
// The registry installs the built-in backends: the one place core includes kernels.
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/rehearsal_backend.h"
#ifdef EMBER_WITH_CUDA
#include "ember/kernels/cuda/cuda_backend.h"
#endif

namespace ember {
namespace {
// Registrations are kept alive here; the hot path reads a raw pointer.
std::mutex g_mutex;
std::array<std::shared_ptr<Backend>, kNumDeviceTypes> g_owned;
std::array<std::atomic<Backend*>, kNumDeviceTypes> g_active{};

constexpr int kMaxRehearsedDevices = 64;
// The rehearsal backend while it is the registered CUDA one (null otherwise).
std::atomic<Backend*> g_rehearsal{nullptr};

Backend* active(DeviceType type) {
  return g_active[static_cast<size_t>(type)].load(std::memory_order_acquire);
}

// EMBER_REHEARSE_CUDA=N, read once, at the first question about CUDA devices with no backend
// registered: rehearse(N), or a note on stderr where a real device makes it moot. A value
// that is not a count is a ValueError at every such question (call_once retries after a throw).
void rehearse_from_environment() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("EMBER_REHEARSE_CUDA");
    if (!env || !*env) return;
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (*end != '\0' || n < 0 || n > kMaxRehearsedDevices)
      raise<ValueError>("EMBER_REHEARSE_CUDA must be a number of devices from 0 to ", kMaxRehearsedDevices,
                        ", got \"", env, "\"");
    if (n > 0 && !cuda::rehearse(static_cast<int>(n))) {
      Backend* real = builtin_backend(DeviceType::CUDA);  // (rehearse refuses only where it has devices)
      const int devices = real ? real->device_count() : 0;
      std::fprintf(stderr, "ember: EMBER_REHEARSE_CUDA=%ld ignored: this machine has %d CUDA device%s\n", n,
                   devices, devices == 1 ? "" : "s");
    }
  });
}

// The registered backend of type, reading the environment's rehearsal first for CUDA.
Backend* registered(DeviceType type) {
  if (Backend* b = active(type)) return b;
  if (type != DeviceType::CUDA) return nullptr;
  rehearse_from_environment();
  return active(type);
}

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
  if (type == DeviceType::CUDA)
    g_rehearsal.store(dynamic_cast<RehearsalBackend*>(g_owned[i].get()), std::memory_order_release);
  return previous;
}

Backend& backend_for(Device device) {
  if (Backend* b = registered(device.type)) return *b;
  if (Backend* b = builtin_backend(device.type)) return *b;
  raise<NotCompiledError>(device.str(), " requested, but Ember was built without CUDA support");
}

Backend& checked_backend_for(Device device) {
  Backend& b = backend_for(device);
  b.check_device(device);
  return b;
}

void check_device_usable(Device device) { checked_backend_for(device); }

Backend* rehearsal_backend() {
  rehearse_from_environment();
  return g_rehearsal.load(std::memory_order_acquire);
}

namespace cuda {
bool is_compiled() {
#ifdef EMBER_WITH_CUDA
  return true;
#else
  return false;
#endif
}

int device_count() {
  if (Backend* b = registered(DeviceType::CUDA)) return b->device_count();
  Backend* b = builtin_backend(DeviceType::CUDA);
  return b ? b->device_count() : 0;
}

bool rehearse(int devices) {
  if (devices < 0 || devices > kMaxRehearsedDevices)
    raise<ValueError>("cuda::rehearse: devices must be from 0 to ", kMaxRehearsedDevices, ", got ", devices);
  // Never beside a real device (nor the emulated build's): the rehearsal is for machines without.
  Backend* builtin = builtin_backend(DeviceType::CUDA);
  if (builtin && builtin->device_count() > 0) return false;
  if (devices == 0) {
    if (is_rehearsed()) register_backend(DeviceType::CUDA, nullptr);
    return false;
  }
  register_backend(DeviceType::CUDA, std::make_shared<RehearsalBackend>(devices));
  return true;
}

bool is_rehearsed() { return rehearsal_backend() != nullptr; }

bool is_available() { return device_count() > 0; }

void synchronize() {
  const int n = device_count();
  for (int d = 0; d < n; ++d) backend_for(Device::cuda(d)).synchronize(Device::cuda(d));
}
}  // namespace cuda

}  // namespace ember
