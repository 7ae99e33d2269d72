#pragma once
// Dropout from the default Philox generator: the same seed drops the same elements on every
// device. p outside [0, 1] -> ValueError.
#include "ember/core/tensor.h"

namespace ember {

/// Zeroes each element with probability p and scales the rest by 1 / (1 - p) when training;
/// the identity otherwise.
EMBER_API Tensor dropout(const Tensor& input, double p = 0.5, bool training = true);
/// The scaled keep mask dropout(x, p) multiplies an x of this shape by: 1 / (1 - p) with
/// probability 1 - p, else 0, drawn as dropout draws it (from the same generator state, the
/// same mask). For ops that need the mask again in their backward. p must be in [0, 1).
EMBER_API Tensor dropout_mask(const Shape& shape, double p, const TensorOptions& options);
/// Zeroes whole channels (dim 1 of [N, C, ...]) with probability p when training.
EMBER_API Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true);

}  // namespace ember
