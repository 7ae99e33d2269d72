#pragma once
// The edge values of a float -> integer cast and what Ember defines them to be
// (kernels/cast.h), shared by the CPU case and the CUDA one so both devices answer alike.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace ember::test {

struct CastCases {
  std::vector<double> in;
  std::vector<int64_t> to_int64;
  std::vector<uint8_t> to_uint8;
  std::vector<bool> to_bool;
  std::vector<int32_t> to_int32;  // the int64 value modulo 2^32
};

inline CastCases cast_edge_cases() {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const int64_t max = std::numeric_limits<int64_t>::max(), min = std::numeric_limits<int64_t>::min();
  return {{300.7, -1.5, nan, inf, -inf, 1e20, -1e20, 2.9, -0.0, 255.0, 256.0},
          {300, -1, 0, max, min, max, min, 2, 0, 255, 256},
          {44, 255, 0, 255, 0, 255, 0, 2, 0, 255, 0},
          {true, true, true, true, true, true, true, true, false, true, true},
          {300, -1, 0, -1, 0, -1, 0, 2, 0, 255, 256}};
}

}  // namespace ember::test
