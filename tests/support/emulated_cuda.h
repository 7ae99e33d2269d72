#pragma once
// An emulated CUDA backend for tests: host memory and the CPU kernels behind the cuda device
// type, with N devices, so device plumbing (moves, mixed-device errors, cuda:0 vs cuda:1)
// is tested without a GPU. Installed only by this RAII guard; never implicitly, never as a
// fallback. It proves device semantics, not CUDA kernels.
#include <memory>

#include "ember/extend/backend_registry.h"
#include "ember/kernels/cpu/cpu_backend.h"

namespace ember::test {

class EmulatedCudaBackend final : public CpuBackend {
 public:
  explicit EmulatedCudaBackend(int devices) : devices_(devices) {}
  DeviceType type() const override { return DeviceType::CUDA; }
  int device_count() const override { return devices_; }

 private:
  int devices_;
};

/// Registers an emulated CUDA backend with `devices` devices for its lifetime.
class EmulatedCuda {
 public:
  explicit EmulatedCuda(int devices = 2)
      : previous_(register_backend(DeviceType::CUDA, std::make_shared<EmulatedCudaBackend>(devices))) {}
  ~EmulatedCuda() { register_backend(DeviceType::CUDA, previous_); }
  EmulatedCuda(const EmulatedCuda&) = delete;
  EmulatedCuda& operator=(const EmulatedCuda&) = delete;

 private:
  std::shared_ptr<Backend> previous_;
};

}  // namespace ember::test
