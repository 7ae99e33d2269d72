// Pooling's stride: left out (or std::nullopt) it is the window's size; an explicit 0 is a
// mistake and a ValueError, not a silent "same as kernel".
#include <gtest/gtest.h>

#include "support/expect.h"

using namespace ember;

TEST(PoolStride, UnsetMeansTheKernelAndZeroIsAnError) {
  const Tensor x = arange(0, 32).view({1, 2, 4, 4});
  EXPECT_EQ(max_pool2d(x, 2).to_vector<float>(), max_pool2d(x, 2, 2).to_vector<float>());
  EXPECT_EQ(max_pool2d(x, 2, std::nullopt).to_vector<float>(),
            (std::vector<float>{5, 7, 13, 15, 21, 23, 29, 31}));
  EXPECT_EQ(avg_pool2d(x, {2, 1}).shape(), (Shape{1, 2, 2, 4}));
  EXPECT_THROW_LINE(max_pool2d(x, 2, 0), ValueError, "max_pool2d: stride must be >= 1, got [0, 0]");
  EXPECT_THROW_LINE(avg_pool2d(x, 2, {0, 1}), ValueError, "avg_pool2d: stride must be >= 1, got [0, 1]");
  EXPECT_THROW_LINE(max_pool2d_with_indices(x, 2, 0), ValueError,
                    "max_pool2d_with_indices: stride must be >= 1, got [0, 0]");
  EXPECT_EQ(nn::MaxPool2d(3).stride.h, 3);
  EXPECT_THROW_LINE(nn::MaxPool2d(2, 0)(x), ValueError, "max_pool2d: stride must be >= 1, got [0, 0]");
}
