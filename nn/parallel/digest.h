#pragma once
// A 62-bit digest of tensors' dtypes and shapes: ranks compare digests instead of shapes, so
// checking that they agree costs one small collective whatever the rank count.
#include <cstdint>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::parallel::detail {

/// Equal for equal (dtype, shape) lists; non-negative, so -digest is a valid int64 too.
int64_t shape_digest(const std::vector<Tensor>& tensors);

}  // namespace ember::nn::parallel::detail
