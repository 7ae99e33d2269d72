#pragma once
// Argument checks of the collectives, in the messages of Ember's op front-ends (devices first,
// then dtypes). core/ops/check.h is not public, and nn/ uses the public API only.
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::parallel::detail {

/// ValueError "<collective>: <name> is an undefined tensor".
void check_defined(const char* collective, const char* name, const Tensor& t);
/// DTypeError "dtype mismatch in <collective>: <name> must be float32 or float64, got int64".
void check_floating(const char* collective, const char* name, const Tensor& t);
/// For a list, each named tensors[i]: undefined ones (ValueError), then the first whose device
/// differs from tensors[0]'s (DeviceMismatchError "tensors on different devices: <collective>
/// got tensors[0] on cpu and tensors[1] on cuda:0"), then the first whose dtype differs
/// (DTypeError "dtype mismatch in <collective>: tensors[0] is float32 but tensors[1] is float64").
void check_one_device_and_dtype(const char* collective, const std::vector<Tensor>& tensors);

}  // namespace ember::nn::parallel::detail
