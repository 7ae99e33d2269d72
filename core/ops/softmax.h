#pragma once
// Numerically stable softmax and log_softmax along one dim.
#include "ember/core/tensor.h"

namespace ember {

EMBER_API Tensor softmax(const Tensor& input, int64_t dim);
EMBER_API Tensor log_softmax(const Tensor& input, int64_t dim);

}  // namespace ember
