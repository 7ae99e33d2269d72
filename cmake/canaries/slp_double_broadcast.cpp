// Canary: GCC 12.2 with AVX-512 enabled at -O2/-O3 builds the constant {4, 4, 0, 0} with
// its SLP vectorizer and stores it with a vpbroadcastq of the first lane: four 4s.
#include "canary.h"

EMBER_CANARY_NOINLINE std::vector<double> ember_canary_make_double_vector() {
  return std::vector<double>{4, 4, 0, 0};
}

// Element by element: a reference vector built from a literal would be miscompiled alike.
inline bool ember_canary_slp_double_broadcast_ok() {
  const std::vector<double> v = ember_canary_make_double_vector();
  return v.size() == 4 && v[0] == 4 && v[1] == 4 && v[2] == 0 && v[3] == 0;
}

EMBER_CANARY_MAIN(ember_canary_slp_double_broadcast_ok)
