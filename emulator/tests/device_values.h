#pragma once
// Values into and out of the emulator's device memory for the library models' cases.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <vector>

#include "emulation_support.h"

namespace ember::test {

/// Copies v to the start of d (the copy is staged at once: v may go).
template <class T>
void upload(const DeviceArray<T>& d, const std::vector<T>& v) {
  ASSERT_EQ(cudaMemcpyAsync(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
}

/// Exactly representable test values: small multiples of 1/4, different for each seed.
template <class T>
std::vector<T> values(size_t n, int seed) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<T>(static_cast<int>((i * 37 + size_t(seed) * 11) % 17) - 8) / 4;
  return v;
}

/// Sets the current device for a scope.
struct OnDevice {
  int previous = 0;
  explicit OnDevice(int d) {
    cudaGetDevice(&previous);
    cudaSetDevice(d);
  }
  ~OnDevice() { cudaSetDevice(previous); }
};

/// Turns deferred streams on (or off) for a scope.
struct DeferredStreams {
  bool was = emulation::deferred_streams();
  explicit DeferredStreams(bool on = true) { emulation::set_deferred_streams(on); }
  ~DeferredStreams() { emulation::set_deferred_streams(was); }
};

}  // namespace ember::test
