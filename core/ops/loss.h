#pragma once
// Losses. Class targets are int64 in [0, C); a target outside throws IndexError naming the
// value and C, unless it equals ignore_index (as PyTorch: 0 loss, 0 gradient, and left out
// of the mean's divisor, so a mean over ignored targets only is nan).
#include "ember/core/tensor.h"

namespace ember {

enum class Reduction { Mean, Sum, None };

/// Cross-entropy of logits input [N, C] (or [C]) against int64 class targets [N] (or []);
/// label_smoothing eps in [0, 1] (else ValueError) gives (1 - eps) * nll + eps * the mean
/// over classes of -log_softmax, as torch.nn.functional.cross_entropy.
EMBER_API Tensor cross_entropy(const Tensor& input, const Tensor& target,
                               Reduction reduction = Reduction::Mean, int64_t ignore_index = -100,
                               double label_smoothing = 0.0);
/// Negative log-likelihood of log-probabilities input [N, C] against int64 targets [N].
EMBER_API Tensor nll_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean,
                          int64_t ignore_index = -100);
/// Mean squared error; input and target of one shape.
EMBER_API Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);

}  // namespace ember
