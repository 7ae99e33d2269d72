#pragma once
// A small CIFAR-style residual network, the kind of model nobody tuned Ember for: a 3x3 stem
// (3 -> 16 channels), three basic residual blocks of 16, 32 and 64 channels (the last two
// halve the resolution with stride 2 and project the shortcut with a 1x1 convolution),
// BatchNorm after every convolution, ReLU, global average pooling and a linear classifier.
// Nine convolutions, 78,042 parameters, about 25 MFLOP per 32x32 image forward.
// bench/ember_bench_train times it; PyTorch's torchvision-style BasicBlock is the reference.
#include <memory>

#include "ember/nn/batchnorm.h"
#include "ember/nn/conv.h"
#include "ember/nn/linear.h"
#include "ember/nn/module.h"

namespace ember::nn::models {

/// conv3x3(stride) - BN - ReLU - conv3x3 - BN, plus the input (projected by a 1x1 convolution
/// and BN when the stride or the channel count changes), then ReLU.
class EMBER_API ResidualBlock : public Module {
 public:
  ResidualBlock(int64_t in_channels, int64_t out_channels, int64_t stride);
  Tensor forward(const Tensor& x) override;

  std::shared_ptr<Conv2d> conv1, conv2, shortcut_conv;  // shortcut_conv: null for identity
  std::shared_ptr<BatchNorm2d> bn1, bn2, shortcut_bn;
};

class EMBER_API SmallResNet : public Module {
 public:
  explicit SmallResNet(int64_t num_classes = 10);
  /// [N, 3, H, W] images (32x32 for CIFAR) -> [N, num_classes] class scores (logits).
  Tensor forward(const Tensor& x) override;

  std::shared_ptr<Conv2d> stem;
  std::shared_ptr<BatchNorm2d> stem_bn;
  std::shared_ptr<ResidualBlock> block1, block2, block3;
  std::shared_ptr<Linear> fc;
};

}  // namespace ember::nn::models
