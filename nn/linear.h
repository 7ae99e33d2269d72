#pragma once
// Linear: y = x W^T + b, as torch.nn.Linear.
#include "ember/nn/module.h"

namespace ember::nn {

class EMBER_API Linear : public Module {
 public:
  /// weight [out_features, in_features] and bias [out_features], PyTorch's default init.
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  /// input [..., in_features] -> [..., out_features].
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  /// Re-draws weight and bias from the default generator.
  void reset_parameters();

  const int64_t in_features, out_features;
  Tensor weight;
  Tensor bias;  // undefined without bias
};

}  // namespace ember::nn
