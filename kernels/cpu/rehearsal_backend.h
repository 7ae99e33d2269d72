#pragma once
// The rehearsal CUDA devices (ember::cuda::rehearse, EMBER_REHEARSE_CUDA=N): on a machine
// without a GPU, N devices of type CUDA whose tensors live in host memory and run on the CPU
// kernels. Every device check, move and error is the one a GPU gives, so a program's
// placement mistakes (a model left on the CPU, a sub-model never moved, a batch that collate
// did not move) fail on a laptop where they would fail on the GPU machine, with the same
// message; its numbers and its speed are the CPU's. The registry (core/backend_registry.cpp)
// installs it only where no real CUDA device exists.
#include "ember/kernels/cpu/cpu_backend.h"

namespace ember {

class RehearsalBackend final : public CpuBackend {
 public:
  explicit RehearsalBackend(int devices) : devices_(devices) {}
  DeviceType type() const override { return DeviceType::CUDA; }
  int device_count() const override { return devices_; }
  /// As on CUDA, where cuBLAS reads a weight in place: no float32 pack, bfloat16 refused.
  Tensor pack_linear_weight(const Tensor& weight, PackFormat format) override {
    return Backend::pack_linear_weight(weight, format);
  }
  /// Zeros: no device memory is used (the host's is the CPU allocator's).
  cuda::MemoryStats memory_stats(int) override { return {}; }
  void reset_peak_memory_stats(int) override {}
  std::string versions() override;

 private:
  int devices_;
};

}  // namespace ember
