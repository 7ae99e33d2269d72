#pragma once
// A Storage owns the bytes of one or more tensor views on one device, and their version.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "ember/core/device.h"
#include "ember/core/export.h"

namespace ember {

class Allocator;  // extend/allocator.h: the extension set

class EMBER_API Storage {
 public:
  /// Allocates nbytes on device through that device's backend allocator.
  Storage(size_t nbytes, Device device);
  /// Wraps memory owned elsewhere: Ember never frees it itself; deleter (when set) is called
  /// with external once the last tensor or view of this storage is gone.
  Storage(void* external, size_t nbytes, Device device, std::function<void(void*)> deleter = nullptr);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  /// The version counter shared by every view: bumped by each in-place op.
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  Device device_;
  Allocator* allocator_ = nullptr;      // null for external memory
  std::function<void(void*)> deleter_;  // external memory's release, if any
  std::atomic<uint64_t> version_{0};
};

/// Caps the bytes of any single Storage allocation (0, the default: no cap). A larger
/// request throws OutOfMemoryError before the allocator is asked, so a process that must
/// bound its memory (a fuzzer, a service loading untrusted files) gets a typed error
/// instead of an allocation it cannot afford.
EMBER_API void set_allocation_limit(size_t bytes);
/// The current cap (0: none).
EMBER_API size_t allocation_limit();

}  // namespace ember
