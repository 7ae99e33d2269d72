#pragma once
// Distance in float32 units in the last place, for results that may differ by rounding
// between libm and CUDA's math functions (normal draws: log and cos).
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace ember::test {

/// Ulps between two finite floats of the same sign (or both zero).
inline int64_t ulps_apart(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  return std::llabs(static_cast<int64_t>(ia) - static_cast<int64_t>(ib));
}

}  // namespace ember::test
