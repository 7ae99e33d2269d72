#pragma once
// Pooling kernels that complement cuDNN's forward (cuda_pool.cpp): the max positions and
// both gradients.
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::cuda_detail {

/// Planes of [h, w] inputs pooled into [oh, ow] outputs.
struct PoolGeometry {
  int64_t planes, h, w, oh, ow, kh, kw, sh, sw, ph, pw;
};

/// indices[p, y, x] = h * W + w of the maximum of each window (the first NaN, else the
/// first maximum in row-major window order); padded positions never win.
void max_pool2d_indices(const Tensor& indices, const Tensor& input, const PoolGeometry& g);
/// grad_input[p, y, x] = sum of grad_out over the windows whose index is h * W + w, in
/// window order (deterministic).
void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices,
                         const PoolGeometry& g);
/// grad_input[p, y, x] = sum over windows holding (y, x) of grad_out / (kh * kw).
void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const PoolGeometry& g);

}  // namespace ember::cuda_detail
