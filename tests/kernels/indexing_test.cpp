// The offset arithmetic the CUDA kernels use, exercised on the CPU (docs/DESIGN.md).
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

// ---- the 32-bit division path (IntDivider) against the 64-bit one ----

namespace {

// Every linear index (or, for large spaces, a spread of them) gives the same offsets on
// the 32-bit path as on the 64-bit one.
template <int N>
void expect_fast_matches_wide(const std::vector<int64_t>& shape,
                              const std::array<const std::vector<int64_t>*, N>& st) {
  OffsetCalculator<N> c;
  ASSERT_TRUE(make_offset_calculator<N>(shape, st, c));
  ASSERT_TRUE(c.fast) << shape_str(shape);
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  const int64_t step = n > 200000 ? n / 100000 + 7 : 1;
  int64_t fast[N], wide[N];
  for (int64_t i = 0; i < n; i += step) {
    c.get(i, fast);
    c.get_wide(i, wide);
    for (int k = 0; k < N; ++k)
      ASSERT_EQ(fast[k], wide[k]) << shape_str(shape) << " index " << i << " operand " << k;
  }
  c.get(n - 1, fast);  // the last index, where every dim is at its top
  c.get_wide(n - 1, wide);
  for (int k = 0; k < N; ++k) EXPECT_EQ(fast[k], wide[k]) << shape_str(shape) << " last index";
}

}  // namespace

TEST(OffsetCalculatorFastPath, SameOffsetsAsSixtyFourBitDivision) {
  {  // transposed [5, 7, 3] against contiguous, with a broadcast (zero-stride) operand
    std::vector<int64_t> shape{5, 7, 3}, so{21, 3, 1}, sa{1, 15, 5}, sb{0, 1, 0};
    expect_fast_matches_wide<3>(shape, {&so, &sa, &sb});
  }
  {  // a narrowed, stepped view: no dims merge
    std::vector<int64_t> shape{4, 6, 9, 2}, so{108, 18, 2, 1}, sa{1000, 37, 5, 2};
    expect_fast_matches_wide<2>(shape, {&so, &sa});
  }
  {  // expanded dims of size 1 << 16 with strides past 32 bits: the index space is 2^32
    std::vector<int64_t> shape{65536, 65536}, so{0, 1}, sa{int64_t(1) << 33, 0};
    expect_fast_matches_wide<2>(shape, {&so, &sa});
  }
  {  // one dim of 2^31 (the largest divisor) times two
    std::vector<int64_t> shape{2, int64_t(1) << 31}, so{1, 0}, sa{0, 3};
    expect_fast_matches_wide<2>(shape, {&so, &sa});
  }
  {  // odd sizes whose product is just below 2^32: 65537 * 65535 = 2^32 - 1
    std::vector<int64_t> shape{65537, 65535}, so{1, 65537}, sa{0, 1};
    expect_fast_matches_wide<2>(shape, {&so, &sa});
  }
}

TEST(OffsetCalculatorFastPath, HandChecksOfTheThirtyTwoBitPath) {
  // [3, 4] read transposed from a [4, 3] tensor, and broadcast along rows.
  std::vector<int64_t> shape{3, 4}, so{4, 1}, sa{1, 3}, sb{0, 1};
  OffsetCalculator<3> c;
  ASSERT_TRUE(make_offset_calculator<3>(shape, {&so, &sa, &sb}, c));
  ASSERT_TRUE(c.fast);
  int64_t off[3];
  c.get(7, off);  // row 1, column 3
  EXPECT_EQ(off[0], 7);
  EXPECT_EQ(off[1], 1 + 3 * 3);
  EXPECT_EQ(off[2], 3);
}

TEST(OffsetCalculatorFastPath, IndexSpacesBeyondThirtyTwoBitsKeepSixtyFourBitDivision) {
  // 2^32 + 2^31 elements (expanded: no storage behind it): the last index needs 33 bits.
  std::vector<int64_t> shape{3, int64_t(1) << 31}, so{1, 0}, sa{0, 5};
  OffsetCalculator<2> c;
  ASSERT_TRUE(make_offset_calculator<2>(shape, {&so, &sa}, c));
  EXPECT_FALSE(c.fast);
  const int64_t last = 3 * (int64_t(1) << 31) - 1;
  int64_t off[2];
  c.get(last, off);
  EXPECT_EQ(off[0], 2);
  EXPECT_EQ(off[1], 5 * ((int64_t(1) << 31) - 1));
  // One (merged) dim above 2^31 is more than IntDivider divides by.
  std::vector<int64_t> big{2, (int64_t(1) << 30) + 1}, sb{2 * ((int64_t(1) << 30) + 1), 2};
  OffsetCalculator<1> one;
  ASSERT_TRUE(make_offset_calculator<1>(big, {&sb}, one));
  ASSERT_EQ(one.ndim, 1);
  EXPECT_FALSE(one.fast);
  int64_t o1[1];
  one.get(int64_t(1) << 31, o1);
  EXPECT_EQ(o1[0], int64_t(1) << 32);
}

TEST(OffsetCalculatorFastPath, DroppingTheInnermostDimReplansTheDivisions) {
  // The CPU loops drop the innermost dim (cpu_loops.h); the remaining dividers must move too.
  std::vector<int64_t> shape{6, 5, 4}, so{20, 4, 1}, sa{1, 30, 6};
  OffsetCalculator<2> c;
  ASSERT_TRUE(make_offset_calculator<2>(shape, {&so, &sa}, c));
  ASSERT_EQ(c.ndim, 3);
  c = drop_innermost(c);
  ASSERT_EQ(c.ndim, 2);
  ASSERT_TRUE(c.fast);
  int64_t fast[2], wide[2];
  for (int64_t r = 0; r < 30; ++r) {
    c.get(r, fast);
    c.get_wide(r, wide);
    EXPECT_EQ(fast[1], wide[1]) << r;
    EXPECT_EQ(fast[1], (r % 5) * 30 + (r / 5) * 1) << r;
  }
}
