#pragma once
// Label smoothing's two weights for the class-loss kernels, computed once on the host so
// that both backends use the same rounded values.
#include <cstdint>

#include "ember/extend/op_kinds.h"

namespace ember {

template <class T>
struct SmoothingFactors {
  bool on = false;  // eps > 0 (eps == 0 keeps the plain formulas, which a 0 * inf would spoil)
  T keep = 1;       // 1 - eps: the target's weight
  T spread = 0;     // eps / C: every class's weight

  SmoothingFactors(const ClassLossParams& p, int64_t classes) {
    if (p.input_is_log_prob || !(p.label_smoothing > 0) || classes <= 0) return;
    on = true;
    keep = static_cast<T>(1.0 - p.label_smoothing);
    spread = static_cast<T>(p.label_smoothing / static_cast<double>(classes));
  }
};

}  // namespace ember
