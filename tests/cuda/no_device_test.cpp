// CUDA compiled in, but no device to use: the DeviceError says why (no driver, or a driver
// that finds no device), as cudaGetDeviceCount told it. The emulator reads its devices from
// the environment once per process, so each case runs this binary again, as a child with
// EMBER_EMULATED_CUDA_DEVICES=0 or EMBER_EMULATED_CUDA_DRIVER=none, on a DISABLED_ case.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;

namespace {

struct ChildRun {
  int status = -1;
  std::string output;
};

ChildRun run_this_binary(const std::string& env, const std::string& test) {
  char self[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return {};
  // Not the parent's gtest shard (CI's TSan stage shards this binary): the child runs one case.
  const std::string cmd = "env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX " + env + " '" +
                          std::string(self, static_cast<size_t>(n)) +
                          "' --gtest_also_run_disabled_tests --gtest_color=no --gtest_filter=" + test +
                          " 2>&1";
  ChildRun run;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return run;
  char buf[4096];
  size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) run.output.append(buf, got);
  const int status = ::pclose(p);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

void expect_child_passes(const std::string& env, const std::string& test) {
  if (!cuda::is_emulated()) GTEST_SKIP() << "needs the emulator, which can be told to have no device";
  const ChildRun run = run_this_binary(env, test);
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("[  PASSED  ] 1 test."), std::string::npos) << run.output;
}

}  // namespace

TEST(CudaNoDevice, ADriverWithoutDevicesIsNamed) {
  expect_child_passes("EMBER_EMULATED_CUDA_DEVICES=0", "CudaNoDevice.DISABLED_ChildWithoutDevices");
}

TEST(CudaNoDevice, AMissingDriverIsNamed) {
  expect_child_passes("EMBER_EMULATED_CUDA_DRIVER=none", "CudaNoDevice.DISABLED_ChildWithoutADriver");
}

TEST(CudaNoDevice, DISABLED_ChildWithoutDevices) {
  ASSERT_EQ(cuda::device_count(), 0);
  EXPECT_FALSE(cuda::is_available());
  EXPECT_THROW_LINE(zeros({2}, Device::cuda(0)), DeviceError,
                    "cuda:0 requested, but no CUDA device is available: the driver finds no CUDA device "
                    "(none installed, or CUDA_VISIBLE_DEVICES hides them) (cudaGetDeviceCount: no "
                    "CUDA-capable device is detected)");
  EXPECT_THROW_MSG((void)ones({2}).to(Device::cuda(1)), DeviceError,
                   "cuda:1 requested, but no CUDA device is available: the driver finds no CUDA device");
  EXPECT_THROW_MSG((void)cuda::memory_stats(0), DeviceError,
                   "cuda:0 requested, but no CUDA device is available: the driver finds no CUDA device");
}

TEST(CudaNoDevice, DISABLED_ChildWithoutADriver) {
  ASSERT_EQ(cuda::device_count(), 0);
  EXPECT_THROW_LINE(zeros({2}, Device::cuda(0)), DeviceError,
                    "cuda:0 requested, but no CUDA device is available: no NVIDIA driver is installed "
                    "(cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version)");
  EXPECT_NE(cuda::versions().find("(emulated: no driver, 0 device(s)"), std::string::npos)
      << cuda::versions();
}
