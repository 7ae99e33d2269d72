#include "ember/data/transforms.h"

#include <cmath>

#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"
#include "ember/extend/check.h"

namespace ember::data {

Normalize::Normalize(double mean, double std) : mean_(mean), std_(std) {
  if (!std::isfinite(mean) || !std::isfinite(std) || !(std > 0))
    raise<ValueError>("Normalize: std must be positive and mean and std finite, got mean ", mean, " and std ",
                      std);
}

Tensor Normalize::operator()(const Tensor& x) const {
  check_defined("normalize", {{"input", x}});
  check_floating("normalize", {"input", x});
  if (is_identity()) return x;
  return div(sub(x, mean_), std_);
}

}  // namespace ember::data
