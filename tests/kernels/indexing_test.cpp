// The offset arithmetic the CUDA kernels use, exercised on the CPU (DESIGN.md).
#include <gtest/gtest.h>

#include "ember/kernels/indexing.h"

using namespace ember;

TEST(OffsetCalculator, MergesContiguousDimsAndDropsOnes) {
  std::vector<int64_t> shape{2, 1, 3, 4}, st{12, 12, 4, 1};
  OffsetCalculator<1> c;
  ASSERT_TRUE(make_offset_calculator<1>(shape, {&st}, c));
  EXPECT_EQ(c.ndim, 1);
  EXPECT_EQ(c.sizes[0], 24);
  int64_t off[1];
  c.get(17, off);
  EXPECT_EQ(off[0], 17);
}

TEST(OffsetCalculator, TransposedAndBroadcastOperands) {
  // out [3, 2] contiguous; a = transpose of a [2, 3] tensor; b broadcast over rows.
  std::vector<int64_t> shape{3, 2}, so{2, 1}, sa{1, 3}, sb{0, 1};
  OffsetCalculator<3> c;
  ASSERT_TRUE(make_offset_calculator<3>(shape, {&so, &sa, &sb}, c));
  EXPECT_EQ(c.ndim, 2);
  int64_t off[3];
  for (int64_t i = 0; i < 6; ++i) {
    c.get(i, off);
    const int64_t r = i / 2, col = i % 2;
    EXPECT_EQ(off[0], i);
    EXPECT_EQ(off[1], r * 1 + col * 3);
    EXPECT_EQ(off[2], col);
  }
}

TEST(OffsetCalculator, TooManyDimsIsReported) {
  std::vector<int64_t> shape(kMaxDims + 1, 2), st(kMaxDims + 1);
  int64_t s = 1;
  for (size_t i = 0; i < st.size(); ++i) {  // strides that never merge
    st[st.size() - 1 - i] = s;
    s *= 3;
  }
  OffsetCalculator<1> c;
  EXPECT_FALSE(make_offset_calculator<1>(shape, {&st}, c));
}

TEST(OffsetCalculator, PlanOffsetsRaisesForTooManyDims) {
  std::vector<int64_t> shape(kMaxDims + 1, 2), st(kMaxDims + 1);
  int64_t s = 1;
  for (size_t i = 0; i < st.size(); ++i) {
    st[st.size() - 1 - i] = s;
    s *= 3;
  }
  EXPECT_THROW(plan_offsets<1>(shape, {&st}), ValueError);
  std::vector<int64_t> ok{2, 3}, ost{3, 1};
  EXPECT_EQ(plan_offsets<1>(ok, {&ost}).sizes[0], 6);
}
