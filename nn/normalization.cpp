#include "ember/nn/normalization.h"

#include <string>

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/norm.h"

namespace ember::nn {
namespace {

// "(768,)" or "(2, 3)": a shape as Python prints a tuple.
std::string py_tuple(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

}  // namespace

LayerNorm::LayerNorm(Shape shape, double eps_, bool elementwise_affine, bool with_bias)
    : Module("LayerNorm"), normalized_shape(std::move(shape)), eps(eps_) {
  if (normalized_shape.empty())
    raise<ValueError>("LayerNorm: normalized_shape must have at least one dim, got []");
  for (int64_t n : normalized_shape)
    if (n < 0)
      raise<ValueError>("LayerNorm: normalized_shape must not be negative, got ",
                        shape_str(normalized_shape));
  if (!(eps_ >= 0)) raise<ValueError>("LayerNorm: eps must be >= 0, got ", eps_);
  if (elementwise_affine) {
    weight = register_parameter("weight", ones(normalized_shape));
    if (with_bias) bias = register_parameter("bias", zeros(normalized_shape));
  }
}

LayerNorm::LayerNorm(std::initializer_list<int64_t> shape, double eps_, bool elementwise_affine,
                     bool with_bias)
    : LayerNorm(Shape(shape), eps_, elementwise_affine, with_bias) {}

LayerNorm::LayerNorm(int64_t n, double eps_, bool elementwise_affine, bool with_bias)
    : LayerNorm(Shape{n}, eps_, elementwise_affine, with_bias) {}

Tensor LayerNorm::forward(const Tensor& input) {
  return layer_norm(input, normalized_shape, weight, bias, eps);
}

Tensor LayerNorm::forward(const Tensor& input, const Tensor& residual) {
  return add_layer_norm(input, residual, normalized_shape, weight, bias, eps);
}

std::string LayerNorm::extra_repr() const {
  return py_tuple(normalized_shape) + ", eps=" + detail::py_float(eps) +
         ", elementwise_affine=" + (weight.defined() ? "True" : "False");
}

}  // namespace ember::nn
