#pragma once
// The cuDNN activation path for relu and its gradient, used by the elementwise kernels'
// launchers (cuda_activation.cpp). No cuDNN header here, so .cu files stay light.
#include "ember/core/tensor.h"

namespace ember::cuda_detail {

/// True when out, a and b are contiguous float32 tensors of one shape that cuDNN takes.
bool cudnn_relu_applies(const Tensor& out, const Tensor& a, const Tensor& b);
/// out = relu(in) (NaN propagates, as fn::Relu).
void cudnn_relu_forward(const Tensor& out, const Tensor& in);
/// grad_in = input > 0 ? grad_out : 0 (fn::ReluBackward).
void cudnn_relu_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& input);

}  // namespace ember::cuda_detail
