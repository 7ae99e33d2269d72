#pragma once
// CudaBackend: hand-written kernels, cuBLAS and cuDNN. Each family lives in its own file.
#include "ember/core/backend.h"

namespace ember {

class CudaBackend : public Backend {
 public:
  DeviceType type() const override { return DeviceType::CUDA; }
  /// The devices the runtime reports; 0 when there is no driver or no GPU.
  int device_count() const override;
  Allocator& allocator() override;

  // cuda_memory.cpp
  void copy_from_host(void* dst, const void* src, size_t nbytes, Device dst_device) override;
  void copy_to_host(void* dst, const void* src, size_t nbytes, Device src_device) override;
  void copy_between_devices(void* dst, Device dst_device, const void* src, Device src_device,
                            size_t nbytes) override;
  void synchronize(Device device) override;
};

/// Makes device current for its scope and restores the previous one.
class CudaDeviceGuard {
 public:
  explicit CudaDeviceGuard(int device);
  ~CudaDeviceGuard();
  CudaDeviceGuard(const CudaDeviceGuard&) = delete;
  CudaDeviceGuard& operator=(const CudaDeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace ember
