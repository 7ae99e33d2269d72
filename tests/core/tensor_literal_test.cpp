// tensor({...}): nested braced lists of any depth, with torch.tensor's dtypes (floating
// numbers give float32, integers int64, bools bool) unless options name one. The README's
// tensor({{1}, {2}}) is here because GCC 12 once found it ambiguous (clang did not).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;

TEST(TensorLiteral, IntegersGiveInt64AtEveryDepth) {
  const Tensor one = tensor({1, 2, 3});
  EXPECT_EQ(one.shape(), (Shape{3}));
  EXPECT_EQ(one.dtype(), kInt64);
  EXPECT_EQ(one.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3}));
  const Tensor column = tensor({{1}, {2}});
  EXPECT_EQ(column.shape(), (Shape{2, 1}));
  EXPECT_EQ(column.dtype(), kInt64);
  EXPECT_EQ(column.to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  const Tensor row = tensor({{1, 2}});
  EXPECT_EQ(row.shape(), (Shape{1, 2}));
  const Tensor cube = tensor({{{1, 2}, {3, 4}}, {{5, 6}, {7, -8}}});
  EXPECT_EQ(cube.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(cube.dtype(), kInt64);
  EXPECT_EQ(cube.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, -8}));
  EXPECT_EQ(tensor({{{{7}}}}).shape(), (Shape{1, 1, 1, 1}));
  // int64's extremes survive (no trip through double).
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(tensor({big, int64_t{-1}}).to_vector<int64_t>(), (std::vector<int64_t>{big, -1}));
}

TEST(TensorLiteral, FloatingNumbersGiveFloat32AtEveryDepth) {
  const Tensor column = tensor({{1.0}, {2.0}});
  EXPECT_EQ(column.shape(), (Shape{2, 1}));
  EXPECT_EQ(column.dtype(), kFloat32);
  EXPECT_EQ(column.to_vector<float>(), (std::vector<float>{1, 2}));
  const Tensor cube = tensor({{{0.5, 1.5}}, {{2.5, -3.5}}});
  EXPECT_EQ(cube.shape(), (Shape{2, 1, 2}));
  EXPECT_EQ(cube.dtype(), kFloat32);
  EXPECT_EQ(cube.to_vector<float>(), (std::vector<float>{0.5f, 1.5f, 2.5f, -3.5f}));
  EXPECT_EQ(tensor({1.0f, 2.0f}).dtype(), kFloat32);
  // One floating number anywhere makes the whole floating, as torch.tensor([[1], [2.5]]).
  const Tensor mixed = tensor({{1, 2}, {3, 4.5}});
  EXPECT_EQ(mixed.dtype(), kFloat32);
  EXPECT_EQ(mixed.to_vector<float>(), (std::vector<float>{1, 2, 3, 4.5f}));
  EXPECT_EQ(tensor({{1}, {2.5}}).shape(), (Shape{2, 1}));
}

TEST(TensorLiteral, BoolsEmptyListsAndSingleNumbers) {
  const Tensor mask = tensor({{true, false}, {false, true}});
  EXPECT_EQ(mask.dtype(), kBool);
  EXPECT_EQ(mask.to_vector<bool>(), (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(tensor({true, 2}).dtype(), kInt64);  // bool < integer < floating
  const Tensor none = tensor({});
  EXPECT_EQ(none.shape(), (Shape{0}));
  EXPECT_EQ(none.dtype(), kFloat32);
  EXPECT_EQ(tensor({{}, {}}).shape(), (Shape{2, 0}));
  const Tensor s = tensor(7);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.item<int64_t>(), 7);
}

TEST(TensorLiteral, ADtypeInTheOptionsWins) {
  const Tensor f = tensor({{1, 2}, {3, 4}}, kFloat32);
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(tensor({{1.5}, {2}}, kFloat64).to_vector<double>(), (std::vector<double>{1.5, 2}));
  EXPECT_EQ(tensor({1, 0, 2}, kBool).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(tensor({{1}, {2}}, TensorOptions().dtype(kUInt8)).dtype(), kUInt8);
  // Options without a dtype leave the inference alone.
  const Tensor g = tensor({1.0, 2.0}, TensorOptions().requires_grad(true));
  EXPECT_EQ(g.dtype(), kFloat32);
  EXPECT_TRUE(g.requires_grad());
  EXPECT_EQ(tensor({1, 2}, Device::cpu()).dtype(), kInt64);
  EXPECT_THROW_MSG(tensor({1, 2}, TensorOptions().requires_grad(true)), AutogradError,
                   "requires_grad_: only floating tensors can require grad, got int64");
}

TEST(TensorLiteral, RaggedOrMixedListsAreValueErrors) {
  EXPECT_THROW_MSG(tensor({{1, 2}, {3}}), ValueError, "tensor: rows of unequal length ([2] and [1])");
  EXPECT_THROW_MSG(tensor({{{1, 2}}, {{3, 4}, {5, 6}}}), ValueError,
                   "tensor: rows of unequal length ([1, 2] and [2, 2])");
  EXPECT_THROW_MSG(tensor({{1}, {{2}}}), ValueError, "tensor: rows of unequal length ([1] and [1, 1])");
  EXPECT_THROW_MSG(tensor({1, {2}}), ValueError, "tensor: a list holds both numbers and lists");
  EXPECT_THROW_MSG(tensor({std::numeric_limits<uint64_t>::max()}), ValueError,
                   "tensor: 18446744073709551615 does not fit int64");
}
