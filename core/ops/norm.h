#pragma once
// Batch normalisation over [N, C] or [N, C, H, W] input, as torch.nn.functional.batch_norm,
// and layer normalisation over trailing dims, as torch.nn.functional.layer_norm.
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

/// Normalises over the last normalized_shape.size() dims of input, which must equal
/// normalized_shape: each slice by its own mean and biased variance, then times weight and plus
/// bias (each of normalized_shape's shape, optional). An empty input gives an empty output.
EMBER_API Tensor layer_norm(const Tensor& input, const Shape& normalized_shape,
                            const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                            double eps = 1e-5);

/// layer_norm(input + residual, ...), a transformer's residual connection and its norm, with
/// +'s broadcasting and checks. Where autograd records nothing and both are contiguous and of
/// one dtype and shape (but for leading ones the residual lacks), the backend reads both once
/// (no tensor of the sum); the result's bits are the two ops' either way.
EMBER_API Tensor add_layer_norm(const Tensor& input, const Tensor& residual, const Shape& normalized_shape,
                                const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                                double eps = 1e-5);

}  // namespace ember
