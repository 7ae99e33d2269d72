// Float -> integer and -> bool conversions at their edges (NaN, infinities, out of range) are
// defined once (kernels/cast.h) and the same for casts, fills and scalar operands.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/cast_cases.h"

namespace ember {
namespace {

TEST(CastValues, FloatEdgesToIntegersAndBoolOnTheCpu) {
  const test::CastCases c = test::cast_edge_cases();
  for (DType from : {kFloat32, kFloat64}) {
    const Tensor x = from_vector(c.in, {static_cast<int64_t>(c.in.size())}, kFloat64).to(from);
    EXPECT_EQ(x.to(kInt64).to_vector<int64_t>(), c.to_int64) << dtype_name(from);
    EXPECT_EQ(x.to(kUInt8).to_vector<uint8_t>(), c.to_uint8) << dtype_name(from);
    EXPECT_EQ(x.to(kBool).to_vector<bool>(), c.to_bool) << dtype_name(from);
    EXPECT_EQ(x.to(kInt32).to_vector<int32_t>(), c.to_int32) << dtype_name(from);
  }
}

TEST(CastValues, FillsConvertTheSameWay) {
  EXPECT_EQ(full({2}, 300.7, TensorOptions().dtype(kUInt8)).to_vector<uint8_t>(),
            (std::vector<uint8_t>{44, 44}));
  EXPECT_EQ(full({1}, 1e30, TensorOptions().dtype(kInt64)).to_vector<int64_t>(),
            std::vector<int64_t>{std::numeric_limits<int64_t>::max()});
  // A floating scalar operand no longer converts to an integer tensor's dtype: it promotes
  // the tensor (tests/core/scalar_promotion_test.cpp).
}

}  // namespace
}  // namespace ember
