// The CUDA parity suite's entry point: with no GPU every case skips with a message (or
// fails, when EMBER_REQUIRE_GPU=1), and the run ends with how many ran and were skipped.
#include <gtest/gtest.h>

#include <cstdio>

#include "ember/core/cuda.h"

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
  return RUN_ALL_TESTS();
}
