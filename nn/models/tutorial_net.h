#pragma once
// The classic tutorial CNN of PyTorch's MNIST example: conv 1->10 k5, maxpool 2, relu,
// conv 10->20 k5, maxpool 2, relu, flatten 320, linear 320->10. A ready model for 28x28
// single-channel images; examples/mnist trains it and bench/ember_bench_train times it.
#include <memory>

#include "ember/nn/conv.h"
#include "ember/nn/linear.h"
#include "ember/nn/module.h"

namespace ember::nn::models {

class EMBER_API TutorialNet : public Module {
 public:
  TutorialNet();
  /// [N, 1, 28, 28] images -> [N, 10] class scores (logits).
  Tensor forward(const Tensor& x) override;

  std::shared_ptr<Conv2d> conv1, conv2;
  std::shared_ptr<Linear> fc;
};

}  // namespace ember::nn::models
