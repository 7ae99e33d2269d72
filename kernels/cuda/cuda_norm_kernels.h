#pragma once
// Batch-norm kernels that complement cuDNN (cuda_batch_norm.cpp): inference mode's saved
// statistics and gradient.
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::cuda_detail {

/// save_mean = running_mean, save_invstd = 1 / sqrt(running_var + eps) (either may be
/// undefined).
void batch_norm_inference_stats(const Tensor& save_mean, const Tensor& save_invstd, const Tensor& running_mean,
                                const Tensor& running_var, double eps);
/// The gradient of y = (x - mean) * invstd * w + b with mean and invstd constant, over
/// contiguous [n, c, rest] tensors; every output may be undefined, weight too (then 1).
void batch_norm_inference_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                   const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                   const Tensor& mean, const Tensor& invstd, int64_t n, int64_t c,
                                   int64_t rest);

}  // namespace ember::cuda_detail
