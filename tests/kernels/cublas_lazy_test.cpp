// A CUDA build does not map cuBLAS (about 215 MiB resident) until a CUDA matmul needs it
// (kernels/cuda/cublas_loader.h): Ember's start-up, CPU work and device probing leave it
// unloaded. /proc/self/maps lists every mapped library.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "ember/ember.h"

namespace {

#if defined(EMBER_WITH_CUDA) && defined(__linux__)
bool cublas_mapped() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("libcublas") != std::string::npos) return true;
  return false;
}
#endif

TEST(CublasLazy, CpuWorkNeverMapsCublas) {
#if !defined(EMBER_WITH_CUDA) || !defined(__linux__)
  GTEST_SKIP() << "a CPU-only build never links cuBLAS";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: nothing ran before
  EXPECT_EXIT(
      {
        ember::Tensor x = ember::randn({8, 8}).requires_grad_(true);
        ember::matmul(x, x).sum().backward();
        (void)ember::cuda::is_available();
        std::exit(cublas_mapped() ? 1 : 0);
      },
      testing::ExitedWithCode(0), "");
#endif
}

}  // namespace
