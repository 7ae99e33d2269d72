#pragma once
// Dropout from the default Philox generator: the same seed drops the same elements on every
// device. p outside [0, 1] -> ValueError.
#include "ember/core/tensor.h"

namespace ember {

/// Zeroes each element with probability p and scales the rest by 1 / (1 - p) when training;
/// the identity otherwise.
EMBER_API Tensor dropout(const Tensor& input, double p = 0.5, bool training = true);
/// Zeroes whole channels (dim 1 of [N, C, ...]) with probability p when training.
EMBER_API Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true);

}  // namespace ember
