#include "ember/nn/activation.h"

#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/views.h"

namespace ember::nn {

Tensor ReLU::forward(const Tensor& input) { return relu(input); }
Tensor Sigmoid::forward(const Tensor& input) { return sigmoid(input); }
Tensor Tanh::forward(const Tensor& input) { return tanh(input); }

Tensor GELU::forward(const Tensor& input) { return gelu(input, approximate); }

std::string GELU::extra_repr() const { return "approximate='" + approximate + "'"; }

Tensor Flatten::forward(const Tensor& input) { return flatten(input, start_dim, end_dim); }

std::string Flatten::extra_repr() const {
  return ember::detail::concat("start_dim=", start_dim, ", end_dim=", end_dim);
}

}  // namespace ember::nn
