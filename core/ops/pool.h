#pragma once
// 2-D pooling on NCHW (or CHW) input, as torch.nn.functional.max_pool2d / avg_pool2d.
#include "ember/core/ops/conv.h"
#include "ember/core/ops/reduce.h"

namespace ember {

/// Max pooling; stride defaults to the kernel size (pass 0). Padding must be <= kernel / 2.
EMBER_API Tensor max_pool2d(const Tensor& input, IntPair kernel, IntPair stride = 0,
                            IntPair padding = 0);
/// Max pooling that also returns the int64 flat index (h * W + w) of each maximum.
EMBER_API ValuesIndices max_pool2d_with_indices(const Tensor& input, IntPair kernel,
                                                IntPair stride = 0, IntPair padding = 0);
/// Average pooling (padding counts in the divisor, PyTorch's default).
EMBER_API Tensor avg_pool2d(const Tensor& input, IntPair kernel, IntPair stride = 0,
                            IntPair padding = 0);

}  // namespace ember
