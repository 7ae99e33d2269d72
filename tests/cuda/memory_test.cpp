// Real-GPU allocation and transfers.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "gpu_required.h"

using namespace ember;

TEST(CudaMemory, RoundTripPreservesValues) {
  EMBER_REQUIRE_GPU();
  for (DType dt : {kFloat32, kFloat64, kInt64, kUInt8, kBool}) {
    Tensor a = arange(0, 1000, 1, kInt64).to(dt);
    Tensor g = a.to(Device::cuda(0));
    EXPECT_EQ(g.device(), Device::cuda(0));
    EXPECT_EQ(g.cpu().to_vector<double>(), a.to_vector<double>());
  }
}

TEST(CudaMemory, TwoDevices) {
  EMBER_REQUIRE_GPU();
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  Tensor a = arange(0, 100, 1, kFloat32);
  Tensor b = a.cuda(0).cuda(1);
  EXPECT_EQ(b.device(), Device::cuda(1));
  EXPECT_EQ(b.cpu().to_vector<float>(), a.to_vector<float>());
}
