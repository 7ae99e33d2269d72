// The seeds' pitfalls of moving training from CPU to GPU, on the emulated device: a sub-model
// held but never registered is named when model.to(device) leaves it behind, parameters are
// found by their dotted names, and errors say their kind.
#include <gtest/gtest.h>

#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;

namespace {

// The seeds' BERT case: the encoder is created outside and used inside forward, but never
// registered, so model.to(device) does not move it.
struct Encoder : nn::Module {
  Encoder() : Module("Encoder") { proj = register_module("proj", std::make_shared<nn::Linear>(4, 4)); }
  Tensor forward(const Tensor& x) override { return relu(proj->forward(x)); }
  std::shared_ptr<nn::Linear> proj;
};

struct Classifier : nn::Module {
  explicit Classifier(std::shared_ptr<Encoder> enc) : Module("Classifier"), encoder(std::move(enc)) {
    head = register_module("head", std::make_shared<nn::Linear>(4, 2));
  }
  Tensor forward(const Tensor& x) override { return head->forward((*encoder)(x)); }
  std::shared_ptr<Encoder> encoder;  // held, not registered: the pitfall
  std::shared_ptr<nn::Linear> head;
};

}  // namespace

TEST(Pitfalls, UnregisteredSubModelLeftBehindIsNamedWithItsRootModule) {
  test::EmulatedCuda emu(1);
  Classifier model(std::make_shared<Encoder>());
  model.to("cuda:0");
  EXPECT_TRUE(model.was_moved());
  EXPECT_TRUE(model.head->was_moved());
  EXPECT_FALSE(model.encoder->was_moved());
  const Tensor x = randn({3, 4}, Device::cuda(0));
  EXPECT_THROW_LINE(
      model(x), DeviceMismatchError,
      "tensors on different devices: linear got input on cuda:0 and weight (proj.weight) on cpu; "
      "proj.weight belongs to Encoder, a module that to(device) never moved while another module "
      "was moved: register it under your model with register_module(...) so that "
      "model.to(device) moves it, or move it with .to(device)");
  // Either fix works; moving the sub-model itself is the quick one.
  model.encoder->to("cuda:0");
  EXPECT_EQ(model(x).shape(), (Shape{3, 2}));
}

TEST(Pitfalls, ModelNeverMovedGetsTheGenericHint) {
  test::EmulatedCuda emu(1);
  Classifier model(std::make_shared<Encoder>());
  EXPECT_THROW_LINE(
      model(randn({3, 4}, Device::cuda(0))), DeviceMismatchError,
      "tensors on different devices: linear got input on cuda:0 and weight (proj.weight) on cpu; "
      "move the model with model.to(device) or the input with input.to(device)");
}

TEST(Pitfalls, ParametersAndBuffersAreFoundByTheirDottedNames) {
  nn::Sequential seq;
  seq.push_back(std::make_shared<nn::Conv2d>(1, 2, 3));
  seq.push_back(std::make_shared<nn::BatchNorm2d>(2));
  EXPECT_TRUE(seq.parameter("0.weight").is_same(std::dynamic_pointer_cast<nn::Conv2d>(seq[0])->weight));
  EXPECT_EQ(seq.parameter("1.bias").shape(), (Shape{2}));
  EXPECT_EQ(seq.buffer("1.running_var").to_vector<float>(), (std::vector<float>{1, 1}));
  EXPECT_THROW_LINE(seq.parameter("0.wieght"), ValueError,
                    "parameter: Sequential has no parameter named \"0.wieght\"; it has 0.weight, 0.bias, "
                    "1.weight, 1.bias");
  EXPECT_THROW_MSG(seq.buffer("0.weight"), ValueError, "buffer: Sequential has no buffer named \"0.weight\"");
  EXPECT_THROW_LINE(nn::ReLU().parameter("weight"), ValueError,
                    "parameter: ReLU has no parameter named \"weight\" (it has none)");
}
