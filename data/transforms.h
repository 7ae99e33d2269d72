#pragma once
// Transforms applied to examples' data.
#include "ember/core/tensor.h"

namespace ember::data {

/// (x - mean) / std. The default (mean 0, std 1) leaves values unchanged.
class EMBER_API Normalize {
 public:
  Normalize() = default;
  /// ValueError unless std > 0 and both are finite.
  Normalize(double mean, double std);

  double mean() const { return mean_; }
  double std() const { return std_; }
  /// True for the default, which changes nothing.
  bool is_identity() const { return mean_ == 0.0 && std_ == 1.0; }
  /// (x - mean) / std for a floating tensor (DTypeError otherwise).
  Tensor operator()(const Tensor& x) const;

 private:
  double mean_ = 0.0;
  double std_ = 1.0;
};

}  // namespace ember::data
