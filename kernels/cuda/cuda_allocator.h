#pragma once
// Scratch device memory (workspaces, partial results) from the caching allocator.
#include <cstddef>
#include <utility>

namespace ember::cuda_detail {

/// Device memory from the caching allocator for the current scope. Returning it at scope
/// end is safe while kernels still use it: every later user of the block runs after them
/// on the device's one stream.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(int device, size_t nbytes);
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      swap(o);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  size_t size() const { return size_; }

 private:
  void reset() noexcept;
  void swap(DeviceBuffer& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(size_, o.size_);
    std::swap(device_, o.device_);
  }
  void* ptr_ = nullptr;
  size_t size_ = 0;
  int device_ = 0;
};

}  // namespace ember::cuda_detail
