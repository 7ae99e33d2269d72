#pragma once
// 2-D pooling on NCHW (or CHW) input, as torch.nn.functional.max_pool2d / avg_pool2d.
#include "ember/core/ops/conv.h"
#include "ember/core/ops/reduce.h"

namespace ember {

/// Max pooling; an unset stride (std::nullopt, the default) is the kernel size, and a stride
/// < 1 is a ValueError. Padding must be <= kernel / 2.
EMBER_API Tensor max_pool2d(const Tensor& input, IntPair kernel, OptionalIntPair stride = {},
                            IntPair padding = 0);
/// Max pooling that also returns the int64 flat index (h * W + w) of each maximum.
EMBER_API ValuesIndices max_pool2d_with_indices(const Tensor& input, IntPair kernel,
                                                OptionalIntPair stride = {}, IntPair padding = 0);
/// Average pooling (padding counts in the divisor, PyTorch's default).
EMBER_API Tensor avg_pool2d(const Tensor& input, IntPair kernel, OptionalIntPair stride = {},
                            IntPair padding = 0);

}  // namespace ember
