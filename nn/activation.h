#pragma once
// Parameterless layers: activations and Flatten.
#include <string>
#include <utility>

#include "ember/nn/module.h"

namespace ember::nn {

class EMBER_API ReLU : public Module {
 public:
  ReLU() : Module("ReLU") {}
  Tensor forward(const Tensor& input) override;
};

class EMBER_API Sigmoid : public Module {
 public:
  Sigmoid() : Module("Sigmoid") {}
  Tensor forward(const Tensor& input) override;
};

class EMBER_API Tanh : public Module {
 public:
  Tanh() : Module("Tanh") {}
  Tensor forward(const Tensor& input) override;
};

/// gelu(input, approximate) as torch.nn.GELU: approximate "none" (exact) or "tanh"; another
/// string is gelu's ValueError at forward, as in PyTorch.
class EMBER_API GELU : public Module {
 public:
  explicit GELU(std::string approximate = "none") : Module("GELU"), approximate(std::move(approximate)) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  const std::string approximate;
};

/// Flattens dims start_dim..end_dim into one (a view when possible), as torch.nn.Flatten.
class EMBER_API Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : Module("Flatten"), start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  const int64_t start_dim, end_dim;
};

}  // namespace ember::nn
