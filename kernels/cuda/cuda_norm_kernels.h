#pragma once
// Ember's batch-norm kernels (cuda_batch_norm.cpp routes to them where cuDNN does not serve):
// training statistics, normalising, both gradients, and inference mode's saved statistics.
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::cuda_detail {

/// save_mean = running_mean, save_invstd = 1 / sqrt(running_var + eps) (either may be
/// undefined).
void batch_norm_inference_stats(const Tensor& save_mean, const Tensor& save_invstd,
                                const Tensor& running_mean, const Tensor& running_var, double eps);
/// Training statistics over contiguous [n, c, rest] input: save_mean, save_invstd = 1 /
/// sqrt(biased var + eps), and the momentum update of the running statistics (unbiased
/// variance) when they are defined.
void batch_norm_train_stats(const Tensor& save_mean, const Tensor& save_invstd, const Tensor& running_mean,
                            const Tensor& running_var, const Tensor& input, int64_t n, int64_t c,
                            int64_t rest, double momentum, double eps);
/// out = (x - mean) * invstd * weight + bias per channel (weight, bias may be undefined).
void batch_norm_normalize(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                          const Tensor& mean, const Tensor& invstd, int64_t c, int64_t rest);
/// The gradient of y = (x - mean) * invstd * w + b over contiguous [n, c, rest] tensors:
/// with mean and invstd the batch's (training) or constants (inference). Every output may
/// be undefined, weight too (then 1).
void batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                         const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                         const Tensor& mean, const Tensor& invstd, int64_t n, int64_t c, int64_t rest,
                         bool training);

}  // namespace ember::cuda_detail
