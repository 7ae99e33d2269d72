#pragma once
// Views: new geometry over the same storage (and version counter); all differentiable.
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

/// Same elements, new shape; needs compatible strides (ShapeError otherwise). One -1 allowed.
EMBER_API Tensor view(const Tensor& t, const Shape& shape);
/// As view when the strides allow it, else a contiguous copy.
EMBER_API Tensor reshape(const Tensor& t, const Shape& shape);
EMBER_API Tensor flatten(const Tensor& t, int64_t start_dim = 0, int64_t end_dim = -1);
EMBER_API Tensor permute(const Tensor& t, const std::vector<int64_t>& dims);
EMBER_API Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
/// Transpose of a tensor with at most 2 dims.
EMBER_API Tensor t(const Tensor& t);
/// Elements [start, start + length) of dim.
EMBER_API Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
/// The slice at index of dim, which is removed.
EMBER_API Tensor select(const Tensor& t, int64_t dim, int64_t index);
/// Removes every size-1 dim.
EMBER_API Tensor squeeze(const Tensor& t);
/// Removes dim when its size is 1 (else returns t unchanged, as PyTorch does).
EMBER_API Tensor squeeze(const Tensor& t, int64_t dim);
EMBER_API Tensor unsqueeze(const Tensor& t, int64_t dim);
/// Broadcasts size-1 dims (and new leading dims) to shape; -1 keeps a size.
EMBER_API Tensor expand(const Tensor& t, const Shape& shape);

namespace detail {
/// expand without autograd, for kernels' inputs; ShapeError naming op when impossible.
EMBER_API Tensor broadcast_to(const Tensor& t, const Shape& shape, const char* op);
/// Resolves one -1 in shape against numel (ShapeError naming op).
EMBER_API Shape infer_shape(const Shape& shape, int64_t numel, const char* op);
}  // namespace detail

}  // namespace ember
