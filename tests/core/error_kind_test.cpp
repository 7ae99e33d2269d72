// ember::Error::kind(): branch on what went wrong without a dynamic_cast chain.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

TEST(ErrorKind, EachErrorReportsItsOwnKindAndName) {
  try {
    (void)(zeros({2, 3}) + zeros({4, 3}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Shape);
    EXPECT_STREQ(e.kind_name(), "ShapeError");
  }
  try {
    (void)Device("gpu");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    EXPECT_STREQ(e.kind_name(), "ValueError");
  }
  try {
    (void)(zeros({2}) + zeros({2}, kFloat64));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::DType);
  }
}

TEST(ErrorKind, EveryKindHasTheClassName) {
  EXPECT_EQ(DeviceMismatchError("x").kind(), ErrorKind::DeviceMismatch);
  EXPECT_EQ(OutOfMemoryError("x").kind(), ErrorKind::OutOfMemory);
  EXPECT_STREQ(IndexError("x").kind_name(), "IndexError");
  EXPECT_STREQ(IOError("x").kind_name(), "IOError");
  EXPECT_STREQ(NotCompiledError("x").kind_name(), "NotCompiledError");
  EXPECT_STREQ(NotImplementedError("x").kind_name(), "NotImplementedError");
  EXPECT_STREQ(AutogradError("x").kind_name(), "AutogradError");
  EXPECT_STREQ(CudaError("x").kind_name(), "CudaError");
  EXPECT_STREQ(DeviceError("x").kind_name(), "DeviceError");
  EXPECT_EQ(DistributedError("x").kind(), ErrorKind::Distributed);
  EXPECT_STREQ(DistributedError("x").kind_name(), "DistributedError");
  EXPECT_STREQ(Error("x").kind_name(), "Error");
  EXPECT_STREQ(Error("plain message").what(), "plain message");
}
