// ModuleList: children in order, named by position, indexed (negative from the end), typed
// access, iteration, and no forward of its own; Sequential built on it.
#include <gtest/gtest.h>

#include "support/expect.h"

using namespace ember;

TEST(ModuleList, ChildrenAreNamedByPositionAndReachedByIndex) {
  nn::ModuleList layers;
  EXPECT_TRUE(layers.empty());
  layers.append(std::make_shared<nn::Linear>(4, 3));
  layers.extend({std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(3, 2)});
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[0]->type_name(), "Linear");
  EXPECT_EQ(layers[-1].get(), layers[2].get());
  EXPECT_EQ(layers.at<nn::Linear>(2)->weight.shape(), (Shape{2, 3}));
  EXPECT_THROW_LINE(layers.at<nn::Linear>(1), ValueError,
                    "ModuleList: module 1 is a ReLU, not the type asked for");
  EXPECT_THROW_LINE(layers[3], IndexError, "ModuleList: index 3 is out of range for 3 modules");
  EXPECT_THROW_LINE(layers[-4], IndexError, "ModuleList: index -4 is out of range for 3 modules");

  std::vector<std::string> names;
  for (const auto& p : layers.named_parameters()) names.push_back(p.first);
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  std::vector<std::string> types;
  for (const auto& m : layers) types.push_back(m->type_name());
  EXPECT_EQ(types, (std::vector<std::string>{"Linear", "ReLU", "Linear"}));
  EXPECT_THROW_MSG(layers(zeros({1, 4})), NotImplementedError, "ModuleList has no forward");
}

TEST(ModuleList, AModelWalksItsListAndItsParametersAreNamedUnderIt) {
  struct Stack : nn::Module {
    Stack() : Module("Stack") {
      layers = register_module("layers", std::make_shared<nn::ModuleList>());
      for (int i = 0; i < 2; ++i) layers->append(std::make_shared<nn::Linear>(2, 2));
    }
    Tensor forward(const Tensor& x) override {
      Tensor h = x;
      for (const auto& layer : *layers) h = (*layer)(h);
      return h;
    }
    std::shared_ptr<nn::ModuleList> layers;
  } model;
  EXPECT_EQ(model.layers->at<nn::Linear>(1)->weight.name(), "layers.1.weight");
  NoGradGuard no_grad;
  for (const auto& layer : *model.layers) {
    auto lin = std::dynamic_pointer_cast<nn::Linear>(layer);
    lin->weight.copy_(tensor({{2.0, 0.0}, {0.0, 3.0}}));
    lin->bias.fill_(1.0);
  }
  // [1, 1] -> [3, 4] -> [7, 13]
  EXPECT_EQ(model(tensor({{1.0, 1.0}})).to_vector<float>(), (std::vector<float>{7, 13}));
  EXPECT_EQ(model.repr(),
            "Stack(\n  (layers): ModuleList(\n    (0): Linear(in_features=2, out_features=2, bias=True)\n"
            "    (1): Linear(in_features=2, out_features=2, bias=True)\n  )\n)");
}
