#pragma once
// Allocators own device memory; a Storage returns its bytes to the allocator that gave them.
#include <cstddef>

#include "ember/core/device.h"
#include "ember/core/export.h"

namespace ember {

class EMBER_API Allocator {
 public:
  virtual ~Allocator() = default;
  /// Returns at least nbytes on device (aligned to 64 bytes); throws on failure.
  virtual void* allocate(size_t nbytes, Device device) = 0;
  /// Gives back a block obtained from allocate with the same size and device.
  virtual void deallocate(void* ptr, size_t nbytes, Device device) noexcept = 0;
};

}  // namespace ember
