#include "ember/nn/models/tutorial_net.h"

#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/pool.h"
#include "ember/core/ops/views.h"

namespace ember::nn::models {

TutorialNet::TutorialNet() : Module("TutorialNet") {
  conv1 = register_module("conv1", std::make_shared<Conv2d>(1, 10, 5));
  conv2 = register_module("conv2", std::make_shared<Conv2d>(10, 20, 5));
  fc = register_module("fc", std::make_shared<Linear>(320, 10));
}

Tensor TutorialNet::forward(const Tensor& x) {
  Tensor h = relu(max_pool2d(conv1->forward(x), 2));
  h = relu(max_pool2d(conv2->forward(h), 2));
  return fc->forward(h.flatten(1));
}

}  // namespace ember::nn::models
