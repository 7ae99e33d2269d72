// What PyTorch users write, compiling and meaning the same in Ember: `outputs.max(1)` giving
// values and indices, `loss.item()` a double, `std::cout << t.shape()`, and parse_values of a
// list of strings (Python's ['1', '0']).
#include <gtest/gtest.h>

#include <sstream>
#include <type_traits>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;

TEST(PytorchIdioms, MaxAndMinAlongADimGiveValuesAndIndices) {
  const Tensor outputs = from_vector(std::vector<float>{0.1f, 0.7f, 0.2f, 0.9f, 0.05f, 0.05f}, {2, 3});
  auto [values, indices] = outputs.max(1);
  EXPECT_EQ(values.to_vector<float>(), (std::vector<float>{0.7f, 0.9f}));
  EXPECT_EQ(indices.to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(outputs.max(1, true).values.shape(), (Shape{2, 1}));
  auto [low, at] = outputs.min(0);
  EXPECT_EQ(low.to_vector<float>(), (std::vector<float>{0.1f, 0.05f, 0.05f}));
  EXPECT_EQ(at.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1}));
  EXPECT_THROW_MSG(outputs.max(2), IndexError, "max");
}

TEST(PytorchIdioms, ItemWithoutATypeIsADouble) {
  static_assert(std::is_same_v<decltype(std::declval<Tensor>().item()), double>);
  EXPECT_EQ(scalar_tensor(0.25f).item(), 0.25);
  EXPECT_EQ(scalar_tensor(int64_t(7)).item(), 7.0);
  EXPECT_EQ(scalar_tensor(1.0f).item<float>(), 1.0f);  // the typed form is unchanged
  EXPECT_THROW_MSG(zeros({2}).item(), ValueError, "item: only one-element tensors can be converted");
}

TEST(PytorchIdioms, ShapesPrint) {
  std::ostringstream os;
  os << zeros({2, 3}).shape() << ' ' << scalar_tensor(1).shape();
  EXPECT_EQ(os.str(), "[2, 3] []");
}

TEST(PytorchIdioms, ParseValuesTakesAListOfStrings) {
  EXPECT_EQ(data::parse_values({"1", "0", " 1 "}).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
  const std::vector<std::string> labels = {"0.5", "2"};
  EXPECT_EQ(data::parse_values(labels, kFloat32).to_vector<float>(), (std::vector<float>{0.5f, 2.0f}));
  EXPECT_EQ(data::parse_values(std::vector<std::string>{}).numel(), 0);
  EXPECT_THROW_LINE(data::parse_values({"1", "1,0"}), ValueError,
                    "parse_values: \"1,0\" (position 2) is not a valid int64 number");
  EXPECT_THROW_LINE(data::parse_values({"1", ""}), ValueError,
                    "parse_values: \"\" (position 2) is not a valid int64 number");
  EXPECT_THROW_MSG(data::parse_values({"x"}), ValueError, "parse_values: \"x\" (position 1)");
}
