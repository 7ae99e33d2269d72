// The common pitfalls of moving training from CPU to GPU, on the emulated device: a sub-model
// held but never registered is named when model.to(device) leaves it behind, parameters are
// found by their dotted names, and errors say their kind.
#include <gtest/gtest.h>

#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;

namespace {

// The BERT case: the encoder is created outside and used inside forward, but never
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

// The other way round: the sub-model moved, the model that holds it (registered) forgotten.
struct Registered : nn::Module {
  Registered() : Module("Registered") {
    encoder = register_module("encoder", std::make_shared<Encoder>());
    head = register_module("head", std::make_shared<nn::Linear>(4, 2));
  }
  Tensor forward(const Tensor& x) override { return head->forward((*encoder)(x)); }
  std::shared_ptr<Encoder> encoder;
  std::shared_ptr<nn::Linear> head;
};

TEST(Pitfalls, RootModelForgottenWhileItsSubModelMovedIsToldToMoveTheModel) {
  test::EmulatedCuda emu(1);
  Registered model;
  model.encoder->to("cuda:0");
  EXPECT_THROW_LINE(
      model(randn({3, 4}, Device::cuda(0))), DeviceMismatchError,
      "tensors on different devices: linear got input on cuda:0 and weight (head.weight) on cpu; "
      "head.weight belongs to Registered, of which to(device) moved only a part: move the whole "
      "model with model.to(device)");
  model.to("cuda:0");
  EXPECT_EQ(model(randn({3, 4}, Device::cuda(0))).shape(), (Shape{3, 2}));
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

namespace {

// A BERT-like model: forward takes ids and a mask, so it is called through ForwardingModule;
// its encoder is held but not registered (the pitfall again).
struct TwoInputModel : nn::ForwardingModule<TwoInputModel> {
  explicit TwoInputModel(std::shared_ptr<Encoder> enc)
      : ForwardingModule("TwoInputModel"), encoder(std::move(enc)) {
    head = register_module("head", std::make_shared<nn::Linear>(4, 2));
  }
  using Module::forward;
  Tensor forward(const Tensor& x, const Tensor& mask) { return head->forward(encoder->forward(x) * mask); }
  std::shared_ptr<Encoder> encoder;
  std::shared_ptr<nn::Linear> head;
};

const char* const kLeftBehind =
    "tensors on different devices: linear got input on cuda:0 and weight (proj.weight) on cpu; "
    "proj.weight belongs to Encoder, a module that to(device) never moved while another module "
    "was moved: register it under your model with register_module(...) so that "
    "model.to(device) moves it, or move it with .to(device)";

}  // namespace

TEST(Pitfalls, TheSubModelLeftBehindIsNamedHoweverForwardIsReached) {
  test::EmulatedCuda emu(1);
  Classifier one(std::make_shared<Encoder>());
  one.to("cuda:0");
  const Tensor x = randn({3, 4}, Device::cuda(0));
  EXPECT_THROW_LINE(one.forward(x), DeviceMismatchError, kLeftBehind);  // not through operator()

  TwoInputModel two(std::make_shared<Encoder>());
  two.to("cuda:0");
  const Tensor mask = ones({3, 1}, Device::cuda(0));
  EXPECT_THROW_LINE(two(x, mask), DeviceMismatchError, kLeftBehind);
  EXPECT_THROW_LINE(two.forward(x, mask), DeviceMismatchError, kLeftBehind);
  two.encoder->to("cuda:0");
  const Tensor y = two(x, mask);
  EXPECT_EQ(y.shape(), (Shape{3, 2}));
  EXPECT_EQ(y.device(), Device::cuda(0));
}

TEST(Pitfalls, TheRootModuleIsNamedForADeepSubModelAndOnlyWhileAMovedModuleLives) {
  test::EmulatedCuda emu(1);
  // The encoder sits two levels down in a container that was never moved.
  nn::Sequential outer{std::make_shared<nn::Sequential>(
      std::initializer_list<std::shared_ptr<nn::Module>>{std::make_shared<nn::Linear>(4, 4)})};
  const Tensor x = randn({2, 4}, Device::cuda(0));
  // Nothing moved anywhere: the generic advice.
  EXPECT_THROW_LINE(
      outer(x), DeviceMismatchError,
      "tensors on different devices: linear got input on cuda:0 and weight (0.0.weight) on cpu; "
      "move the model with model.to(device) or the input with input.to(device)");
  {
    nn::Linear moved(1, 1);
    moved.to("cuda:0");
    EXPECT_THROW_LINE(
        outer(x), DeviceMismatchError,
        "tensors on different devices: linear got input on cuda:0 and weight (0.0.weight) on cpu; "
        "0.0.weight belongs to Sequential, a module that to(device) never moved while another "
        "module was moved: register it under your model with register_module(...) so that "
        "model.to(device) moves it, or move it with .to(device)");
  }
  // The moved module is gone: the generic advice again.
  EXPECT_THROW_MSG(outer(x), DeviceMismatchError,
                   "tensors on different devices: linear got input on cuda:0 and weight (0.0.weight) on cpu; "
                   "move the model");
}

TEST(Pitfalls, AnEmbeddingOutOfRangeNamesItsTable) {
  struct Embeddings : nn::Module {
    Embeddings() : Module("Embeddings") {
      position_embeddings = register_module("position_embeddings", std::make_shared<nn::Embedding>(64, 2));
    }
    std::shared_ptr<nn::Embedding> position_embeddings;
  } m;
  EXPECT_THROW_LINE((*m.position_embeddings)(from_vector(std::vector<int64_t>{3, 79})), IndexError,
                    "embedding: index 79 is out of range for 64 embeddings of position_embeddings.weight");
}

TEST(Pitfalls, TheNotesFrozenBertLeftOnTheCpuIsNamed) {
  // The frozen-encoder pattern with the encoder's move forgotten: the head and the batch are on
  // cuda:0, the pretrained Bert (not registered anywhere) stayed on the CPU. README, "The text
  // classifier", quotes this message.
  test::EmulatedCuda emu(1);
  nn::models::BertConfig c;
  c.vocab_size = 20, c.hidden_size = 8, c.num_hidden_layers = 1, c.num_attention_heads = 2;
  c.intermediate_size = 16, c.max_position_embeddings = 8;
  auto bert = std::make_shared<nn::models::Bert>(c);
  auto head = std::make_shared<nn::Linear>(8, 2);
  head->to("cuda:0");
  const Tensor ids = from_vector(std::vector<int64_t>{2, 5, 7, 3}, {1, 4}).to("cuda:0");
  const Tensor mask = ones({1, 4}, TensorOptions().dtype(kInt64).device(Device::cuda(0)));
  NoGradGuard no_grad;
  EXPECT_THROW_LINE(
      (*bert)(ids, mask), DeviceMismatchError,
      "tensors on different devices: Bert got input_ids on cuda:0 and "
      "embeddings.word_embeddings.weight on cpu; embeddings.word_embeddings.weight belongs to "
      "Bert, a module that to(device) never moved while another module was moved: register it "
      "under your model with register_module(...) so that model.to(device) moves it, or move it "
      "with .to(device)");
  bert->to("cuda:0");
  EXPECT_EQ(head->forward((*bert)(ids, mask).last_hidden_state.select(1, 0)).device(), Device::cuda(0));
}
