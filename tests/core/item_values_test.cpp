// item<T>() and to_vector<T>() hand back the tensor's values themselves: a value that the C++
// type cannot hold is a ValueError naming the value and the type, not INT_MIN or 300 -> 44.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "ember/ember.h"
#include "support/expect.h"

namespace ember {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor f64(double v) { return scalar_tensor(v, kFloat64); }
Tensor i64(int64_t v) { return from_vector(std::vector<int64_t>{v}, {}); }

TEST(ItemValues, IntFromFloatingTakesTheWholeRangeAfterTruncation) {
  EXPECT_EQ(f64(2147483647.0).item<int>(), 2147483647);
  EXPECT_EQ(f64(2147483647.9).item<int>(), 2147483647);
  EXPECT_EQ(f64(-2147483648.9).item<int>(), -2147483647 - 1);
  EXPECT_THROW_MSG(f64(2147483648.0).item<int>(), ValueError, "item: value 2.14748e+09 does not fit int");
  EXPECT_THROW_MSG(f64(-2147483649.0).item<int>(), ValueError, "item: value -2.14748e+09 does not fit int");
  EXPECT_THROW_MSG(f64(3e9).item<int>(), ValueError, "item: value 3e+09 does not fit int");
  EXPECT_THROW_MSG(f64(kInf).item<int>(), ValueError, "item: value inf does not fit int");
  EXPECT_THROW_MSG(scalar_tensor(-kInf).item<int>(), ValueError, "item: value -inf does not fit int");
}

TEST(ItemValues, IntFromInt64IsARangeCheck) {
  EXPECT_EQ(i64(2147483647).item<int>(), 2147483647);
  EXPECT_EQ(i64(-2147483648LL).item<int>(), -2147483647 - 1);
  EXPECT_THROW_MSG(i64(2147483648LL).item<int>(), ValueError, "item: value 2147483648 does not fit int");
  EXPECT_THROW_MSG(i64(-2147483649LL).item<int>(), ValueError, "item: value -2147483649 does not fit int");
}

TEST(ItemValues, Uint8HoldsZeroTo255) {
  EXPECT_EQ(f64(255.0).item<uint8_t>(), 255);
  EXPECT_EQ(f64(255.9).item<uint8_t>(), 255);
  EXPECT_EQ(f64(-0.5).item<uint8_t>(), 0);  // truncated toward zero: 0 fits
  EXPECT_EQ(i64(255).item<uint8_t>(), 255);
  EXPECT_THROW_MSG(f64(256.0).item<uint8_t>(), ValueError, "item: value 256 does not fit uint8");
  EXPECT_THROW_MSG(f64(300.0).item<uint8_t>(), ValueError, "item: value 300 does not fit uint8");
  EXPECT_THROW_MSG(f64(-1.0).item<uint8_t>(), ValueError, "item: value -1 does not fit uint8");
  EXPECT_THROW_MSG(i64(256).item<uint8_t>(), ValueError, "item: value 256 does not fit uint8");
  EXPECT_THROW_MSG(i64(-1).item<uint8_t>(), ValueError, "item: value -1 does not fit uint8");
  EXPECT_EQ(full({}, 200, TensorOptions(kUInt8)).item<uint8_t>(), 200);
}

TEST(ItemValues, Int64FromFloatingStopsBelowTwoToThe63) {
  const double two63 = 9223372036854775808.0;  // what double(INT64_MAX) rounds to
  EXPECT_EQ(f64(std::nextafter(two63, 0.0)).item<int64_t>(), int64_t{9223372036854774784});
  EXPECT_EQ(f64(-two63).item<int64_t>(), std::numeric_limits<int64_t>::min());
  EXPECT_THROW_MSG(f64(two63).item<int64_t>(), ValueError, "item: value 9.22337e+18 does not fit int64");
  EXPECT_THROW_MSG(scalar_tensor(float(two63)).item<int64_t>(), ValueError,
                   "item: value 9.22337e+18 does not fit int64");
  EXPECT_THROW_MSG(f64(kNaN).item<int64_t>(), ValueError, "item: value nan does not fit int64");
  EXPECT_THROW_MSG(f64(-kNaN).item<int64_t>(), ValueError, "item: value nan does not fit int64");
  EXPECT_EQ(i64(std::numeric_limits<int64_t>::max()).item<int64_t>(), std::numeric_limits<int64_t>::max());
}

TEST(ItemValues, FloatHoldsItsRangeInfinitiesAndNaN) {
  const double fmax = std::numeric_limits<float>::max();
  EXPECT_EQ(f64(fmax).item<float>(), std::numeric_limits<float>::max());
  EXPECT_EQ(f64(-fmax).item<float>(), -std::numeric_limits<float>::max());
  EXPECT_EQ(f64(0.1).item<float>(), 0.1f);  // rounded, not an error
  EXPECT_EQ(f64(kInf).item<float>(), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(f64(kNaN).item<float>()));
  EXPECT_THROW_MSG(f64(1e39).item<float>(), ValueError, "item: value 1e+39 does not fit float");
  EXPECT_THROW_MSG(f64(-1e39).item<float>(), ValueError, "item: value -1e+39 does not fit float");
  EXPECT_EQ(i64(std::numeric_limits<int64_t>::max()).item<float>(), 9223372036854775808.0f);
  EXPECT_EQ(f64(1e300).item<double>(), 1e300);
}

TEST(ItemValues, BoolIsTrueForAnyNonzeroValue) {
  EXPECT_TRUE(f64(0.5).item<bool>());
  EXPECT_TRUE(f64(kNaN).item<bool>());
  EXPECT_TRUE(i64(256).item<bool>());
  EXPECT_FALSE(f64(-0.0).item<bool>());
  EXPECT_FALSE(i64(0).item<bool>());
}

TEST(ItemValues, ToVectorChecksEveryValueAndNamesItself) {
  const Tensor t = from_vector(std::vector<double>{1.5, 1e10, -1e10}, {3});
  EXPECT_THROW_MSG(t.to_vector<int>(), ValueError, "to_vector: value 1e+10 does not fit int");
  EXPECT_THROW_MSG(t.narrow(0, 2, 1).to_vector<int>(), ValueError,
                   "to_vector: value -1e+10 does not fit int");
  EXPECT_EQ(t.narrow(0, 0, 1).to_vector<int>(), std::vector<int>{1});
  EXPECT_THROW_MSG(from_vector(std::vector<double>{0, kNaN}, {2}).to_vector<int64_t>(), ValueError,
                   "to_vector: value nan does not fit int64");
  EXPECT_EQ(from_vector(std::vector<int64_t>{0, 255, 7}, {3}).to_vector<uint8_t>(),
            (std::vector<uint8_t>{0, 255, 7}));
}

TEST(ItemValues, TensorCastsKeepTheirSaturatingRule) {
  // .to(dtype) is a tensor cast (kernels/cast.h), not a value handed to C++: NaN -> 0 and
  // 1e30 -> INT64_MAX stay as they were.
  const Tensor t = from_vector(std::vector<double>{kNaN, 1e30, 300.7}, {3});
  EXPECT_EQ(t.to(kInt64).to_vector<int64_t>(),
            (std::vector<int64_t>{0, std::numeric_limits<int64_t>::max(), 300}));
  EXPECT_EQ(t.to(kUInt8).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 255, 44}));
}

TEST(ItemValues, ToVectorTooLargeForMemoryIsOutOfMemoryError) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's operator new aborts on a request it cannot serve";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer's operator new aborts on a request it cannot serve";
#endif
#endif
  // 2^60 bytes: past any machine's address space, so the allocation fails without using memory.
  const Tensor huge = zeros({1}, TensorOptions(kUInt8)).expand({int64_t{1} << 60});
  EXPECT_THROW_MSG(huge.to_vector<uint8_t>(), OutOfMemoryError,
                   "to_vector: cannot allocate 1152921504606846976 bytes");
  EXPECT_THROW_MSG(huge.to_vector<float>(), OutOfMemoryError,
                   "to_vector: cannot allocate 4611686018427387904 bytes");
  // 2^65 bytes do not fit a size_t: the count is named instead.
  EXPECT_THROW_MSG(huge.expand({4, int64_t{1} << 60}).to_vector<double>(), OutOfMemoryError,
                   "to_vector: cannot allocate 4611686018427387904 values of 8 bytes");
}

}  // namespace
}  // namespace ember
