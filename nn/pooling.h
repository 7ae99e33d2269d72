#pragma once
// Pooling layers over NCHW (or CHW) input, as torch.nn.MaxPool2d / AvgPool2d.
#include "ember/core/ops/conv.h"
#include "ember/nn/module.h"

namespace ember::nn {

/// What the pooling layers share: window, stride (unset means the window, PyTorch's
/// default; stride holds the resolved value) and padding.
class EMBER_API Pool2d : public Module {
 public:
  const IntPair kernel_size, stride, padding;

 protected:
  Pool2d(const char* type_name, IntPair kernel_size, OptionalIntPair stride, IntPair padding);
  std::string window_repr() const;
};

class EMBER_API MaxPool2d : public Pool2d {
 public:
  explicit MaxPool2d(IntPair kernel_size, OptionalIntPair stride = {}, IntPair padding = 0)
      : Pool2d("MaxPool2d", kernel_size, stride, padding) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
};

class EMBER_API AvgPool2d : public Pool2d {
 public:
  explicit AvgPool2d(IntPair kernel_size, OptionalIntPair stride = {}, IntPair padding = 0)
      : Pool2d("AvgPool2d", kernel_size, stride, padding) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
};

}  // namespace ember::nn
