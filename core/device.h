#pragma once
// Where a tensor lives: the CPU or one CUDA device.
#include <cstdint>
#include <ostream>
#include <string>

#include "ember/core/export.h"

namespace ember {

enum class DeviceType : uint8_t { CPU = 0, CUDA = 1 };
constexpr int kNumDeviceTypes = 2;

/// A device value: cpu or cuda:N. Validated when used (allocation, transfer), not here.
struct EMBER_API Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;

  constexpr Device() = default;
  constexpr Device(DeviceType t, int i) : type(t), index(i) {}
  /// Parses "cpu", "cuda" (cuda:0) or "cuda:N"; anything else throws ValueError.
  Device(const std::string& spec);  // NOLINT: implicit, like torch.device("cuda")
  Device(const char* spec);         // NOLINT

  static constexpr Device cpu() { return Device(DeviceType::CPU, 0); }
  static constexpr Device cuda(int i = 0) { return Device(DeviceType::CUDA, i); }

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  /// "cpu" or "cuda:N".
  std::string str() const;

  friend bool operator==(const Device& a, const Device& b) {
    return a.type == b.type && (a.type == DeviceType::CPU || a.index == b.index);
  }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }
};

EMBER_API std::ostream& operator<<(std::ostream& os, const Device& d);
/// Throws what allocating on device would: NotCompiledError for a device type this build
/// lacks, DeviceError for an index out of range.
EMBER_API void check_device_usable(Device device);

}  // namespace ember
