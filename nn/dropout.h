#pragma once
// Dropout layers: active in training mode, the identity in eval mode.
#include "ember/nn/module.h"

namespace ember::nn {

/// What the dropout layers share: p (ValueError outside [0, 1]) and their repr.
class EMBER_API DropoutBase : public Module {
 public:
  std::string extra_repr() const override;
  const double p;

 protected:
  DropoutBase(const char* type_name, double p);
};

/// Zeroes elements with probability p and scales the rest by 1 / (1 - p) while training.
class EMBER_API Dropout : public DropoutBase {
 public:
  explicit Dropout(double p = 0.5) : DropoutBase("Dropout", p) {}
  Tensor forward(const Tensor& input) override;
};

/// Zeroes whole channels ([N, C, H, W]) with probability p while training.
class EMBER_API Dropout2d : public DropoutBase {
 public:
  explicit Dropout2d(double p = 0.5) : DropoutBase("Dropout2d", p) {}
  Tensor forward(const Tensor& input) override;
};

}  // namespace ember::nn
