// int32 tensors and scalar promotion on the CUDA backend, against the CPU's answers: casts
// both ways, comparisons, arithmetic, int32 indices, exact int64 scalars.
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

TEST(CudaInt32, CastsBothWaysMatchTheCpu) {
  EMBER_REQUIRE_GPU();
  const Tensor f = tensor({2.9, -2.9, 0, 1e10, 7});
  for (DType from : {kFloat32, kFloat64, kInt64, kUInt8, kBool}) {
    const Tensor cpu = f.to(from).to(kInt32);
    EXPECT_EQ(f.to(from).to(kGpu).to(kInt32).to_vector<int32_t>(), cpu.to_vector<int32_t>())
        << dtype_name(from);
  }
  const Tensor i = tensor({-3, 0, 5}, kInt32).to(kGpu);
  EXPECT_EQ(i.dtype(), kInt32);
  EXPECT_EQ(i.to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{-3, 0, 5}));
  EXPECT_EQ(i.to(kFloat64).to_vector<double>(), (std::vector<double>{-3, 0, 5}));
  EXPECT_EQ(i.to(kBool).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(i.to(kUInt8).to_vector<uint8_t>(), (std::vector<uint8_t>{253, 0, 5}));
  EXPECT_EQ(full({3}, 9, TensorOptions(kInt32).device(kGpu)).to_vector<int32_t>(),
            (std::vector<int32_t>{9, 9, 9}));
  EXPECT_EQ(arange(3, TensorOptions(kInt32).device(kGpu)).to_vector<int32_t>(),
            (std::vector<int32_t>{0, 1, 2}));
}

TEST(CudaInt32, ComparisonsArithmeticAndIndices) {
  EMBER_REQUIRE_GPU();
  const Tensor a = tensor({1, 5, -3}, kInt32).to(kGpu), b = tensor({2, 5, -4}, kInt32).to(kGpu);
  EXPECT_EQ((a < b).to_vector<bool>(), (std::vector<bool>{true, false, false}));
  EXPECT_EQ((a == b).to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ((a != 5).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ((a < 1.5).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ((a * b + 1).to_vector<int32_t>(), (std::vector<int32_t>{3, 26, 13}));
  EXPECT_EQ((a * 0.5).to_vector<float>(), (std::vector<float>{0.5f, 2.5f, -1.5f}));
  EXPECT_EQ((a / b).to_vector<float>(), (std::vector<float>{0.5f, 1.0f, 0.75f}));
  EXPECT_EQ(floor_divide(a, 2).to_vector<int32_t>(), (std::vector<int32_t>{0, 2, -2}));
  EXPECT_EQ(a.sum().item<int64_t>(), 3);
  EXPECT_EQ(a.max().item<int>(), 5);
  const Tensor w = tensor({{0, 1}, {10, 11}, {20, 21}}, kFloat32).to(kGpu);
  EXPECT_EQ(embedding(tensor({2, 0}, kInt32).to(kGpu), w).to_vector<float>(),
            (std::vector<float>{20, 21, 0, 1}));
  EXPECT_EQ(index_select(w, 0, tensor({1}, kInt32).to(kGpu)).to_vector<float>(),
            (std::vector<float>{10, 11}));
}

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
