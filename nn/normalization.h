#pragma once
// LayerNorm: normalisation over the trailing dims of each sample, as torch.nn.LayerNorm.
#include <initializer_list>

#include "ember/nn/module.h"

namespace ember::nn {

class EMBER_API LayerNorm : public Module {
 public:
  /// Normalises over the last normalized_shape.size() dims of its input. elementwise_affine:
  /// a learnable weight (ones, of normalized_shape) and, when bias, a learnable bias (zeros).
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true,
                     bool bias = true);
  /// LayerNorm({2, 3}): a braced list would otherwise be ambiguous with the copy constructor.
  explicit LayerNorm(std::initializer_list<int64_t> normalized_shape, double eps = 1e-5,
                     bool elementwise_affine = true, bool bias = true);
  /// LayerNorm(768): normalised over the last dim, of that size.
  explicit LayerNorm(int64_t normalized_shape, double eps = 1e-5, bool elementwise_affine = true,
                     bool bias = true);
  /// layer_norm(input, normalized_shape, weight, bias, eps).
  Tensor forward(const Tensor& input) override;
  /// layer_norm of input + residual (add_layer_norm: one pass over both where nothing is
  /// recorded), for a residual connection that feeds this norm.
  Tensor forward(const Tensor& input, const Tensor& residual);
  /// "(768,), eps=1e-05, elementwise_affine=True", as PyTorch prints it.
  std::string extra_repr() const override;

  const Shape normalized_shape;
  const double eps;
  Tensor weight, bias;  // undefined unless elementwise_affine (bias: and bias)
};

}  // namespace ember::nn
