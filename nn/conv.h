#pragma once
// Conv2d: 2-D convolution over NCHW input, as torch.nn.Conv2d (groups = 1).
#include "ember/core/ops/conv.h"
#include "ember/nn/module.h"

namespace ember::nn {

class EMBER_API Conv2d : public Module {
 public:
  /// weight [out_channels, in_channels, kH, kW] and bias [out_channels], PyTorch's default
  /// init. ValueError for sizes < 1, stride or dilation < 1, padding < 0.
  Conv2d(int64_t in_channels, int64_t out_channels, IntPair kernel_size, IntPair stride = 1,
         IntPair padding = 0, IntPair dilation = 1, bool bias = true);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();

  const int64_t in_channels, out_channels;
  const IntPair kernel_size, stride, padding, dilation;
  Tensor weight;
  Tensor bias;  // undefined without bias
};

}  // namespace ember::nn
