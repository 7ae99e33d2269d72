#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;

TEST(Device, ParsesValidStrings) {
  EXPECT_EQ(Device("cpu"), Device::cpu());
  EXPECT_EQ(Device("cuda"), Device::cuda(0));
  EXPECT_EQ(Device("cuda:1"), Device::cuda(1));
  EXPECT_EQ(Device("cuda:12").index, 12);
  EXPECT_EQ(Device::cpu().str(), "cpu");
  EXPECT_EQ(Device::cuda(0).str(), "cuda:0");
  EXPECT_EQ(Device("cuda:3").str(), "cuda:3");
  EXPECT_NE(Device::cuda(0), Device::cuda(1));
  EXPECT_NE(Device::cpu(), Device::cuda(0));
}

TEST(Device, RejectsBadStrings) {
  EXPECT_THROW_LINE(Device("gpu"), ValueError,
                    "invalid device string \"gpu\": expected \"cpu\", \"cuda\" or \"cuda:N\"");
  for (const char* bad : {"cuda:-1", "cuda:x", "cuda:1:2", "", "CPU", "cuda:", " cpu", "cuda1"}) {
    EXPECT_THROW_LINE(
        Device{std::string(bad)}, ValueError,
        std::string("invalid device string \"") + bad + "\": expected \"cpu\", \"cuda\" or \"cuda:N\"");
  }
}

TEST(Device, NoDriverMeansNoDevices) {
  // On machines without a GPU or driver both report nothing and nothing crashes; on a GPU
  // machine they agree with each other.
  EXPECT_EQ(cuda::is_available(), cuda::device_count() > 0);
  EXPECT_GE(cuda::device_count(), 0);
  EXPECT_NO_THROW(cuda::synchronize());
}

TEST(Device, UsingAMissingCudaDeviceThrows) {
  const int n = cuda::device_count();
  if (!cuda::is_compiled()) {
    EXPECT_THROW_LINE(zeros({2}, Device::cuda(0)), NotCompiledError,
                      "cuda:0 requested, but Ember was built without CUDA support");
  } else if (n == 0) {
    // Why there is none follows (tests/cuda/no_device_test.cpp checks each reason).
    EXPECT_THROW_MSG(zeros({2}, Device::cuda(2)), DeviceError,
                     "cuda:2 requested, but no CUDA device is available: ");
  } else {
    const std::string plural = n == 1 ? " CUDA device is available" : " CUDA devices are available";
    EXPECT_THROW_LINE(zeros({2}, Device::cuda(n + 2)), DeviceError,
                      "cuda:" + std::to_string(n + 2) + " requested, but only " + std::to_string(n) + plural);
  }
}

TEST(Device, EmulatedDevicesReportTheirCount) {
  const int before = cuda::device_count();
  {
    test::EmulatedCuda emu(1);
    EXPECT_TRUE(cuda::is_available());
    EXPECT_EQ(cuda::device_count(), 1);
    EXPECT_THROW_LINE(zeros({2}, Device::cuda(3)), DeviceError,
                      "cuda:3 requested, but only 1 CUDA device is available");
    EXPECT_THROW_LINE(zeros({2}, Device::cuda(-1)), DeviceError,
                      "cuda:-1 requested, but only 1 CUDA device is available");
  }
  EXPECT_EQ(cuda::device_count(), before);
}

TEST(DType, NamesAndSizes) {
  EXPECT_STREQ(dtype_name(kFloat32), "float32");
  EXPECT_STREQ(dtype_name(kFloat64), "float64");
  EXPECT_STREQ(dtype_name(kInt64), "int64");
  EXPECT_STREQ(dtype_name(kUInt8), "uint8");
  EXPECT_STREQ(dtype_name(kBool), "bool");
  EXPECT_EQ(itemsize(kFloat32), 4u);
  EXPECT_EQ(itemsize(kFloat64), 8u);
  EXPECT_EQ(itemsize(kInt64), 8u);
  EXPECT_EQ(itemsize(kUInt8), 1u);
  EXPECT_EQ(itemsize(kBool), 1u);
}

TEST(DType, ConversionsRoundAndTruncateLikePyTorch) {
  Tensor f = tensor({-1.7, 0.0, 2.5, 255.9});
  EXPECT_EQ(f.to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{-1, 0, 2, 255}));
  EXPECT_EQ(f.to(kBool).to_vector<bool>(), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(f.to(kFloat64).dtype(), kFloat64);
  EXPECT_TRUE(test::values_near(f.to(kFloat64), {-1.7, 0.0, 2.5, 255.9}, {4}, 1e-6));
  Tensor b = from_vector(std::vector<bool>{true, false});
  EXPECT_EQ(b.dtype(), kBool);
  EXPECT_EQ(b.to(kFloat32).to_vector<float>(), (std::vector<float>{1.f, 0.f}));
}

TEST(Version, ReportsItself) { EXPECT_STREQ(version(), EMBER_VERSION_STRING); }
