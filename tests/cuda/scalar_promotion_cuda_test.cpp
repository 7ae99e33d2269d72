// Scalar promotion on the CUDA backend, against the CPU's answers: promoted results, exact
// int64 scalars, refused in-place ops.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ember/ember.h"
#include "gpu_required.h"
#include "support/expect.h"

using namespace ember;

namespace {
const Device kGpu = Device::cuda(0);
}  // namespace

TEST(CudaScalars, PromotionAndExactInt64MatchTheCpu) {
  EMBER_REQUIRE_GPU();
  const int64_t big = (int64_t{1} << 53) + 1;
  const Tensor t = from_vector(std::vector<int64_t>{big, 2}).to(kGpu);
  EXPECT_EQ((t + 1).to_vector<int64_t>(), (std::vector<int64_t>{big + 1, 3}));
  EXPECT_EQ((t == big).to_vector<bool>(), (std::vector<bool>{true, false}));
  const Tensor s = tensor({1, 2}, kInt64).to(kGpu);
  EXPECT_EQ((s * 0.5).dtype(), kFloat32);
  EXPECT_EQ((s * 0.5).to_vector<float>(), (std::vector<float>{0.5f, 1.0f}));
  EXPECT_EQ((s / 2).to_vector<float>(), (std::vector<float>{0.5f, 1.0f}));
  EXPECT_EQ(where(s > 1, s, 0.25).to_vector<float>(), (std::vector<float>{0.25f, 2.0f}));
  Tensor in_place = s.clone();
  EXPECT_THROW_MSG(in_place.mul_(0.5), DTypeError,
                   "mul_: result type float32 can't be cast to the desired output type int64");
}
