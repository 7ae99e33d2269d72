#include "ember/nn/models/small_resnet.h"

#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/reduce.h"

namespace ember::nn::models {
namespace {
// 3x3, padding 1, no bias (the BatchNorm that follows has one), as in ResNet.
std::shared_ptr<Conv2d> conv3x3(int64_t in, int64_t out, int64_t stride) {
  return std::make_shared<Conv2d>(in, out, 3, stride, 1, 1, /*bias=*/false);
}
}  // namespace

ResidualBlock::ResidualBlock(int64_t in, int64_t out, int64_t stride) : Module("ResidualBlock") {
  conv1 = register_module("conv1", conv3x3(in, out, stride));
  bn1 = register_module("bn1", std::make_shared<BatchNorm2d>(out));
  conv2 = register_module("conv2", conv3x3(out, out, 1));
  bn2 = register_module("bn2", std::make_shared<BatchNorm2d>(out));
  if (stride != 1 || in != out) {
    shortcut_conv =
        register_module("shortcut_conv", std::make_shared<Conv2d>(in, out, 1, stride, 0, 1, /*bias=*/false));
    shortcut_bn = register_module("shortcut_bn", std::make_shared<BatchNorm2d>(out));
  }
}

Tensor ResidualBlock::forward(const Tensor& x) {
  Tensor h = relu(bn1->forward(conv1->forward(x)));
  h = bn2->forward(conv2->forward(h));
  const Tensor shortcut = shortcut_conv ? shortcut_bn->forward(shortcut_conv->forward(x)) : x;
  return relu(add(h, shortcut));
}

SmallResNet::SmallResNet(int64_t num_classes) : Module("SmallResNet") {
  stem = register_module("stem", conv3x3(3, 16, 1));
  stem_bn = register_module("stem_bn", std::make_shared<BatchNorm2d>(16));
  block1 = register_module("block1", std::make_shared<ResidualBlock>(16, 16, 1));
  block2 = register_module("block2", std::make_shared<ResidualBlock>(16, 32, 2));
  block3 = register_module("block3", std::make_shared<ResidualBlock>(32, 64, 2));
  fc = register_module("fc", std::make_shared<Linear>(64, num_classes));
}

Tensor SmallResNet::forward(const Tensor& x) {
  Tensor h = relu(stem_bn->forward(stem->forward(x)));
  h = block3->forward(block2->forward(block1->forward(h)));
  return fc->forward(mean(h, {2, 3}));  // global average pooling
}

}  // namespace ember::nn::models
