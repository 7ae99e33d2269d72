#pragma once
// One definition of a value conversion between dtypes, used by casts, fills and scalar
// operands on both devices. C++ leaves a float -> integer conversion undefined when the value
// does not fit (x86 then gives INT64_MIN, PTX's cvt saturates), so Ember defines it:
//   to bool:           x != 0 (NaN is true)
//   float -> integer:  truncate toward zero through int64, saturating at int64's limits, NaN
//                      to 0; then, for uint8, modulo 256 (PyTorch converts float to uint8
//                      through int64 the same way: 300.7 -> 44, -1.5 -> 255)
//   anything else:     static_cast (integers wrap modulo 2^bits; float <-> double rounds)
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ember/kernels/hd.h"

namespace ember {

template <class To, class From>
EMBER_HD_INLINE To cast_value(From x) {
  if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // 2^63 is exact in float and double: every finite x strictly between -2^63 and 2^63 fits.
    constexpr From kLimit = From(9223372036854775808.0);
    int64_t i = 0;
    if (x >= kLimit)
      i = std::numeric_limits<int64_t>::max();
    else if (x <= -kLimit)
      i = std::numeric_limits<int64_t>::min();
    else if (x == x)
      i = static_cast<int64_t>(x);
    return static_cast<To>(i);
  } else {
    return static_cast<To>(x);
  }
}

}  // namespace ember
