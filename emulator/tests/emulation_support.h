#pragma once
// Helpers for the emulator's own cases: device buffers through the emulated runtime, and a
// guard that clears the sticky errors a case provokes on purpose (a real context would
// stay broken; the next case must not inherit it).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "cuda_emulator/control.h"
#include "ember/kernels/cuda/launch.cuh"

namespace ember::test {

struct ClearEmulatorErrors {
  ClearEmulatorErrors() { emulation::clear_errors(); }
  ~ClearEmulatorErrors() { emulation::clear_errors(); }
};

/// Sets the strict-devices mode for a scope (cases about peer access itself turn it off).
struct StrictDevices {
  explicit StrictDevices(bool strict) { emulation::set_strict_devices(strict); }
  ~StrictDevices() { emulation::set_strict_devices(configured); }
  bool configured = emulation::strict_devices();
};

/// n values of T on the current device, freed at scope end.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(size_t n, int byte = 0) : n_(n) {
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemsetAsync(p, byte, n * sizeof(T)), cudaSuccess);
    p_ = static_cast<T*>(p);
  }
  ~DeviceArray() { cudaFree(p_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  T* get() const { return p_; }
  /// The values, read after the device's work is done.
  std::vector<T> host() const {
    std::vector<T> v(n_);
    EXPECT_EQ(cudaMemcpyAsync(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    return v;
  }

 private:
  T* p_ = nullptr;
  size_t n_;
};

}  // namespace ember::test
