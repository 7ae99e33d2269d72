// Canary: the int64 twin of slp_double_broadcast.cpp, {7, 7, 0, 0} stored as four 7s.
#include <cstdint>

#include "canary.h"

EMBER_CANARY_NOINLINE std::vector<int64_t> ember_canary_make_int64_vector() {
  return std::vector<int64_t>{7, 7, 0, 0};
}

// Element by element: a reference vector built from a literal would be miscompiled alike.
inline bool ember_canary_slp_int64_broadcast_ok() {
  const std::vector<int64_t> v = ember_canary_make_int64_vector();
  return v.size() == 4 && v[0] == 7 && v[1] == 7 && v[2] == 0 && v[3] == 0;
}

EMBER_CANARY_MAIN(ember_canary_slp_int64_broadcast_ok)
