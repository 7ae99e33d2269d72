// parse_values: a label file's "1,0,1" as a tensor, and a clear error for what is not a number.
#include <gtest/gtest.h>

#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;

TEST(ParseValues, LabelsInCommasOrWhitespaceBecomeAnInt64Tensor) {
  const Tensor t = data::parse_values("1,0,1");
  EXPECT_EQ(t.dtype(), kInt64);
  EXPECT_EQ(t.to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(data::parse_values(" 3, 4 ,\n5\n").to_vector<int64_t>(), (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(data::parse_values("7 8\n9\t10").to_vector<int64_t>(), (std::vector<int64_t>{7, 8, 9, 10}));
  EXPECT_EQ(data::parse_values(" \n").numel(), 0);
  EXPECT_EQ(data::parse_values("-2.5, 1e-3", kFloat32).to_vector<float>(),
            (std::vector<float>{-2.5f, 1e-3f}));
  EXPECT_EQ(data::parse_values("1,0", kFloat64).dtype(), kFloat64);
  test::EmulatedCuda emu(1);
  EXPECT_EQ(data::parse_values("2,1", TensorOptions(kInt64).device(Device::cuda(0))).device(),
            Device::cuda(0));
}

TEST(ParseValues, WhatIsNotANumberIsNamedWithItsPosition) {
  EXPECT_THROW_LINE(data::parse_values("1,x,1"), ValueError,
                    "parse_values: \"x\" (position 2) is not a valid int64 number");
  EXPECT_THROW_LINE(data::parse_values("1,0,x"), ValueError,
                    "parse_values: \"x\" (position 3) is not a valid int64 number");
  EXPECT_THROW_LINE(data::parse_values("1,2.5"), ValueError,
                    "parse_values: \"2.5\" (position 2) is not a valid int64 number");
  EXPECT_THROW_LINE(data::parse_values("1,,3"), ValueError,
                    "parse_values: \"\" (position 2) is not a valid int64 number");
  EXPECT_THROW_LINE(data::parse_values("99999999999999999999"), ValueError,
                    "parse_values: \"99999999999999999999\" (position 1) is not a valid int64 number");
  EXPECT_THROW_LINE(data::parse_values("1 256", kUInt8), ValueError,
                    "parse_values: \"256\" (position 2) is not a valid uint8 number");
  EXPECT_THROW_LINE(data::parse_values("[1, 0]", kFloat32), ValueError,
                    "parse_values: \"[1\" (position 1) is not a valid float32 number");
}
