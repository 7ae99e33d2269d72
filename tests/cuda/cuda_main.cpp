// The CUDA parity suite's entry point: with no GPU every case skips with a message (or
// fails, when EMBER_REQUIRE_GPU=1), and the run ends with how many ran and were skipped.
// EMBER_PARITY_EMULATE=1 runs the suite against the emulated device (CPU kernels behind
// cuda:N) instead: a dry run of the harness and its tolerances on a machine without a GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "ember/core/cuda.h"
#include "support/emulated_cuda.h"

namespace {
class Summary : public ::testing::EmptyTestEventListener {
  void OnTestProgramEnd(const ::testing::UnitTest& u) override {
    std::printf("[ember] CUDA parity suite: %d ran, %d passed, %d failed, %d skipped (devices: %d)\n",
                u.test_to_run_count() - u.skipped_test_count(), u.successful_test_count(),
                u.failed_test_count(), u.skipped_test_count(), ember::cuda::device_count());
  }
};
}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new Summary);
  std::printf("[ember] %s; %d CUDA device(s)\n", ember::cuda::versions().c_str(),
              ember::cuda::device_count());
  std::unique_ptr<ember::test::EmulatedCuda> emulated;
  const char* emulate = std::getenv("EMBER_PARITY_EMULATE");
  if (emulate && std::strcmp(emulate, "1") == 0) {
    std::printf(
        "[ember] EMBER_PARITY_EMULATE=1: running against the emulated device (CPU kernels), "
        "not a GPU\n");
    emulated = std::make_unique<ember::test::EmulatedCuda>(2);
  }
  return RUN_ALL_TESTS();
}
