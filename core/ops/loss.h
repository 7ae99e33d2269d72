#pragma once
// Losses. Class targets are int64 in [0, C); a target outside throws IndexError naming the
// value and C.
#include "ember/core/tensor.h"

namespace ember {

enum class Reduction { Mean, Sum, None };

/// Cross-entropy of logits input [N, C] (or [C]) against int64 class targets [N] (or []).
EMBER_API Tensor cross_entropy(const Tensor& input, const Tensor& target,
                               Reduction reduction = Reduction::Mean);
/// Negative log-likelihood of log-probabilities input [N, C] against int64 targets [N].
EMBER_API Tensor nll_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
/// Mean squared error; input and target of one shape.
EMBER_API Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);

}  // namespace ember
