#include "ember/data/transforms.h"

#include <cmath>

#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"

namespace ember::data {

Normalize::Normalize(double mean, double std) : mean_(mean), std_(std) {
  if (!std::isfinite(mean) || !std::isfinite(std) || !(std > 0))
    raise<ValueError>("Normalize: std must be positive and mean and std finite, got mean ", mean, " and std ",
                      std);
}

Tensor Normalize::operator()(const Tensor& x) const {
  // The op front-ends' messages (core/ops/check.h is not public: data uses the public API).
  if (!x.defined()) raise<ValueError>("normalize: input is an undefined tensor");
  if (!is_floating(x.dtype()))
    raise<DTypeError>("dtype mismatch in normalize: input must be float32 or float64, got ",
                      dtype_name(x.dtype()));
  if (is_identity()) return x;
  return div(sub(x, mean_), std_);
}

}  // namespace ember::data
