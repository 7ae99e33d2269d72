#pragma once
// Matrix products on the backend's GEMM (Eigen on the CPU, cuBLAS on CUDA).
#include "ember/core/tensor.h"

namespace ember {

/// 1-D/2-D/batched product with PyTorch's matmul rules (batch dims broadcast);
/// ShapeError "shape mismatch in matmul: lhs [64, 320] and rhs [310, 10] cannot be multiplied".
EMBER_API Tensor matmul(const Tensor& lhs, const Tensor& rhs);
/// y = input @ weight^T + bias; input [..., in], weight [out, in], bias [out] or undefined.
EMBER_API Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor());

}  // namespace ember
