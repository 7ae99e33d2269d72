// A value a tensor's dtype cannot hold is refused by every fill and factory that takes one
// (check_value_fits), as PyTorch refuses it, instead of being stored as garbage: NaN into
// int64 gave zeros, 300 into uint8 gave 44. Values that fit, the ends of each range included,
// are stored as they were before.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;

TEST(FillValue, FullRefusesWhatTheDtypeCannotHold) {
  const double nan = std::nan("");
  EXPECT_THROW_LINE(full({2}, nan, kInt64), ValueError,
                    "full: value nan cannot be converted to int64 without overflow");
  EXPECT_THROW_LINE(full({2}, 300, kUInt8), ValueError,
                    "full: value 300 cannot be converted to uint8 without overflow");
  EXPECT_THROW_MSG(full({2}, -1, kUInt8), ValueError, "full: value -1 cannot be converted to uint8");
  EXPECT_THROW_MSG(full({2}, 1e300, kFloat32), ValueError,
                   "full: value 1e+300 cannot be converted to float32");
  EXPECT_THROW_MSG(full({2}, INFINITY, kInt32), ValueError, "full: value inf cannot be converted to int32");
  EXPECT_THROW_MSG(full({1}, int64_t(2147483648LL), kInt32), ValueError, "full: value 2147483648 cannot");
  EXPECT_THROW_MSG(full({1}, 0x1p63, kInt64), ValueError,
                   "full: value 9.22337e+18 cannot be converted to int64");
  EXPECT_THROW_MSG(full_like(zeros({2}, kInt64), nan), ValueError, "full: value nan");
  EXPECT_THROW_MSG(scalar_tensor(1e300), ValueError,
                   "scalar_tensor: value 1e+300 cannot be converted to float32");
}

TEST(FillValue, ValuesThatFitAreStoredAsBefore) {
  EXPECT_EQ(full({1}, 2.7, kInt64).item<int64_t>(), 2);  // truncated toward zero, as PyTorch
  EXPECT_EQ(full({1}, -2.7, kInt64).item<int64_t>(), -2);
  EXPECT_EQ(full({1}, -0x1p63, kInt64).item<int64_t>(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(full({1}, std::numeric_limits<int64_t>::max(), kInt64).item<int64_t>(),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(full({1}, 255, kUInt8).item<uint8_t>(), 255);
  EXPECT_EQ(full({1}, 255.9, kUInt8).item<uint8_t>(), 255);
  EXPECT_EQ(full({1}, -2147483648LL, kInt32).item<int32_t>(), std::numeric_limits<int32_t>::min());
  EXPECT_TRUE(std::isinf(full({1}, INFINITY, kFloat32).item<float>()));
  EXPECT_TRUE(std::isnan(full({1}, std::nan(""), kFloat32).item<float>()));
  EXPECT_EQ(full({1}, 1e300, kFloat64).item<double>(), 1e300);
  EXPECT_TRUE(full({1}, 300, kBool).item<bool>());  // any value is a truth value
}

TEST(FillValue, FillMaskedFillAndPadSequenceCheckTheSameWay) {
  Tensor ids = arange(4, kInt64);
  EXPECT_THROW_LINE(ids.fill_(std::nan("")), ValueError,
                    "fill_: value nan cannot be converted to int64 without overflow");
  EXPECT_EQ(ids.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3}));  // unchanged
  const Tensor mask = from_vector(std::vector<bool>{true, false, true, false}, {4});
  EXPECT_THROW_MSG(ids.masked_fill(mask, 1e300), ValueError,
                   "masked_fill: value 1e+300 cannot be converted to int64");
  EXPECT_THROW_MSG(ids.masked_fill_(mask, std::nan("")), ValueError, "masked_fill_: value nan");
  EXPECT_EQ(ids.masked_fill(mask, -7).to_vector<int64_t>(), (std::vector<int64_t>{-7, 1, -7, 3}));
  const std::vector<Tensor> seqs = {arange(3, kInt64), arange(1, kInt64)};
  EXPECT_THROW_LINE(data::pad_sequence(seqs, true, std::nan("")), ValueError,
                    "pad_sequence: padding_value nan cannot be converted to int64 without overflow");
  EXPECT_THROW_MSG(data::pad_sequence({arange(2, kUInt8)}, true, 300), ValueError,
                   "pad_sequence: padding_value 300 cannot be converted to uint8");
  EXPECT_EQ(data::pad_sequence(seqs, true, -1).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2, 0, -1, -1}));
}
