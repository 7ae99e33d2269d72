// Float -> integer and -> bool conversions at their edges (NaN, infinities, out of range) are
// defined once (kernels/cast.h) for casts; fills refuse the values a cast would clamp.
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

// A fill does not convert a value its dtype cannot hold, as a cast does: it refuses it, as
// PyTorch's full does (check_value_fits; tests/core/fill_value_test.cpp). In range it converts
// as a cast does (toward zero).
TEST(CastValues, FillsRefuseWhatACastWouldClamp) {
  EXPECT_THROW(full({2}, 300.7, TensorOptions().dtype(kUInt8)), ValueError);
  EXPECT_THROW(full({1}, 1e30, TensorOptions().dtype(kInt64)), ValueError);
  EXPECT_EQ(full({2}, 200.7, TensorOptions().dtype(kUInt8)).to_vector<uint8_t>(),
            scalar_tensor(200.7, kFloat64).to(kUInt8).expand({2}).to_vector<uint8_t>());
  // A floating scalar operand no longer converts to an integer tensor's dtype: it promotes
  // the tensor (tests/core/scalar_promotion_test.cpp).
}

}  // namespace
}  // namespace ember
