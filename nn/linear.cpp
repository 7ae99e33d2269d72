#include "ember/nn/linear.h"

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/linalg.h"
#include "ember/nn/init.h"

namespace ember::nn {

Linear::Linear(int64_t in, int64_t out, bool with_bias)
    : Module("Linear"), in_features(in), out_features(out) {
  if (in < 0 || out < 0)
    raise<ValueError>("Linear: feature counts must be >= 0, got in_features=", in, " out_features=", out);
  weight = register_parameter("weight", empty({out, in}));
  if (with_bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Linear::reset_parameters() { init::default_layer_init_(weight, bias); }

Tensor Linear::forward(const Tensor& input) { return linear(input, weight, bias); }

std::string Linear::extra_repr() const {
  return ember::detail::concat("in_features=", in_features, ", out_features=", out_features,
                               ", bias=", bias.defined() ? "True" : "False");
}

}  // namespace ember::nn
