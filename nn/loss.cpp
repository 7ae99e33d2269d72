#include "ember/nn/loss.h"

#include "ember/core/error.h"

namespace ember::nn {

CrossEntropyLoss::CrossEntropyLoss(Reduction reduction, int64_t ignore_index, double label_smoothing)
    : Loss("CrossEntropyLoss", reduction), ignore_index(ignore_index), label_smoothing(label_smoothing) {
  // Checked at construction too (PyTorch waits for the first call), so a bad value fails where it is set.
  if (!(label_smoothing >= 0.0 && label_smoothing <= 1.0))
    raise<ValueError>("CrossEntropyLoss: label_smoothing must be between 0.0 and 1.0, got ", label_smoothing);
}

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  return cross_entropy(input, target, reduction, ignore_index, label_smoothing);
}
Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) {
  return nll_loss(input, target, reduction, ignore_index);
}
Tensor MSELoss::forward(const Tensor& input, const Tensor& target) {
  return mse_loss(input, target, reduction);
}

}  // namespace ember::nn
