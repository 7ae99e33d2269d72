#pragma once
// The classic tutorial CNN: conv 1->10 k5, maxpool 2, relu, conv 10->20 k5, maxpool 2, relu,
// flatten 320, linear 320->10. Shared by examples/mnist and bench/ember_bench_train.
#include <memory>

#include "ember/ember.h"

namespace ember::examples {

class TutorialNet : public nn::Module {
 public:
  TutorialNet() : nn::Module("TutorialNet") {
    conv1 = register_module("conv1", std::make_shared<nn::Conv2d>(1, 10, 5));
    conv2 = register_module("conv2", std::make_shared<nn::Conv2d>(10, 20, 5));
    fc = register_module("fc", std::make_shared<nn::Linear>(320, 10));
  }

  Tensor forward(const Tensor& x) override {
    Tensor h = relu(max_pool2d(conv1->forward(x), 2));
    h = relu(max_pool2d(conv2->forward(h), 2));
    return fc->forward(h.flatten(1));
  }

  std::shared_ptr<nn::Conv2d> conv1, conv2;
  std::shared_ptr<nn::Linear> fc;
};

}  // namespace ember::examples
