#pragma once
// Batch normalisation over [N, C] or [N, C, H, W] input, as torch.nn.functional.batch_norm.
#include "ember/core/tensor.h"

namespace ember {

/// Training: normalises with the batch statistics and, when running_mean/running_var are
/// given, updates them in place (running = (1 - momentum) * running + momentum * batch,
/// the variance unbiased). Eval: normalises with the running statistics (required).
/// weight and bias (the affine transform, [C]) are optional. An empty input gives an empty
/// output of its shape and leaves the running statistics alone (PyTorch).
EMBER_API Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                            const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                            bool training = true, double momentum = 0.1, double eps = 1e-5);

}  // namespace ember
