// The configure-time miscompile canaries (cmake/canaries), compiled again here with the
// flags of the test binary itself: on an AVX-512 host with GCC 12 they fail unless the
// workaround that configure chose reaches every Ember target. Elements are compared with
// scalars: a reference vector built from a literal would be miscompiled the same way.
#include <gtest/gtest.h>

#define EMBER_CANARY_NO_MAIN
#include "../../cmake/canaries/slp_double_broadcast.cpp"
#include "../../cmake/canaries/slp_int64_broadcast.cpp"

TEST(ToolchainCanary, DoubleInitializerListKeepsItsZeros) {
  const std::vector<double> v = ember_canary_make_double_vector();
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], 4.0);
  EXPECT_EQ(v[1], 4.0);
  EXPECT_EQ(v[2], 0.0);
  EXPECT_EQ(v[3], 0.0);
  EXPECT_TRUE(ember_canary_slp_double_broadcast_ok());
}

TEST(ToolchainCanary, Int64InitializerListKeepsItsZeros) {
  const std::vector<int64_t> v = ember_canary_make_int64_vector();
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], 7);
  EXPECT_EQ(v[1], 7);
  EXPECT_EQ(v[2], 0);
  EXPECT_EQ(v[3], 0);
  EXPECT_TRUE(ember_canary_slp_int64_broadcast_ok());
}
