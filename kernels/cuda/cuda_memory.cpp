// Device discovery, allocation and transfers for the CUDA backend.
#include <cuda_runtime_api.h>

#include <mutex>

#include "ember/kernels/cuda/cuda_backend.h"
#include "ember/kernels/cuda/cuda_check.h"

namespace ember {

Backend& builtin_cuda_backend() {
  static CudaBackend instance;
  return instance;
}

int CudaBackend::device_count() const {
  // Any failure (no driver: "CUDA driver version is insufficient", no device) means zero.
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

CudaDeviceGuard::CudaDeviceGuard(int device) {
  EMBER_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != device) EMBER_CUDA_CHECK(cudaSetDevice(device));
}
CudaDeviceGuard::~CudaDeviceGuard() {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current != previous_ && previous_ >= 0)
    cudaSetDevice(previous_);
}

namespace {
class CudaAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device device) override {
    if (nbytes == 0) return nullptr;
    CudaDeviceGuard guard(device.index);
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, nbytes);
    if (err != cudaSuccess) {
      cudaGetLastError();
      raise<OutOfMemoryError>("cudaMalloc failed: ", cudaGetErrorString(err), " (tried to allocate ",
                              nbytes, " bytes on ", device.str(), ")");
    }
    return p;
  }
  void deallocate(void* ptr, size_t, Device device) noexcept override {
    if (!ptr) return;
    int previous = -1;
    cudaGetDevice(&previous);
    cudaSetDevice(device.index);
    cudaFree(ptr);
    if (previous >= 0) cudaSetDevice(previous);
  }
};
}  // namespace

Allocator& CudaBackend::allocator() {
  static CudaAllocator instance;
  return instance;
}

void CudaBackend::copy_from_host(void* dst, const void* src, size_t nbytes, Device dst_device) {
  CudaDeviceGuard guard(dst_device.index);
  EMBER_CUDA_CHECK(cudaMemcpy(dst, src, nbytes, cudaMemcpyHostToDevice));
}

void CudaBackend::copy_to_host(void* dst, const void* src, size_t nbytes, Device src_device) {
  CudaDeviceGuard guard(src_device.index);
  EMBER_CUDA_CHECK(cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToHost));
}

void CudaBackend::copy_between_devices(void* dst, Device dst_device, const void* src,
                                       Device src_device, size_t nbytes) {
  if (dst_device == src_device) {
    CudaDeviceGuard guard(dst_device.index);
    EMBER_CUDA_CHECK(cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToDevice));
    return;
  }
  // cudaMemcpyPeer uses peer access where the devices allow it and stages otherwise.
  EMBER_CUDA_CHECK(cudaMemcpyPeer(dst, dst_device.index, src, src_device.index, nbytes));
}

void CudaBackend::synchronize(Device device) {
  CudaDeviceGuard guard(device.index);
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace ember
