#pragma once
// Gradient clipping, as torch.nn.utils.clip_grad_norm_ / clip_grad_value_: call between
// backward() and the optimizer's step().
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::utils {

/// Scales every parameter's gradient in place by min(1, max_norm / (total + 1e-6)), total
/// being the norm of order norm_type (> 0, or INFINITY for the largest magnitude) of all
/// gradients together, and returns total as a [] tensor on the first gradient's device, of
/// the gradients' dtype (float64 when any is float64). Parameters without a gradient are
/// skipped; with none, the total is 0 (float32, on the cpu). Gradients may be on several
/// devices (each device's norm is reduced on its device, then moved to the first one); no
/// value is read back to the host unless error_if_nonfinite, which reads the total once and
/// raises ValueError when it is NaN or infinite, leaving the gradients as they were.
/// ValueError for max_norm NaN, norm_type <= 0 or NaN, or an undefined parameter
/// ("clip_grad_norm_: parameters[1] is an undefined tensor").
EMBER_API Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                                 double norm_type = 2.0, bool error_if_nonfinite = false);

/// Clamps every parameter's gradient in place to [-clip_value, clip_value] (ValueError for
/// a negative or NaN clip_value). Parameters without a gradient are skipped.
EMBER_API void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);

}  // namespace ember::nn::utils
