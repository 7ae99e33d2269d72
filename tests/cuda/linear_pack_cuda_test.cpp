// nn::Linear::pack_weight on a CUDA device (real or emulated): the CUDA backend has no packed
// form (cuBLAS reads the weight in place), so the packed module gives the unpacked one's bits
// there, and packs again on the CPU when it moves back.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/kernels/cpu/sgemm.h"
#include "gpu_required.h"

using namespace ember;

TEST(CudaLinearPack, NoPackedFormOnTheGpuAndTheSameBitsAsUnpacked) {
  EMBER_REQUIRE_GPU();
  manual_seed(12);
  const Tensor w = randn({40, 24}).cuda(), b = randn({40}).cuda(), x = randn({10, 24}).cuda();
  const LinearWeightPack pack = pack_linear_weight(w);
  EXPECT_FALSE(pack.defined());
  EXPECT_TRUE(pack.is_current_for(w));
  EXPECT_EQ(linear(x, w, b, pack).cpu().to_vector<float>(), linear(x, w, b).cpu().to_vector<float>());

  nn::Linear packed(24, 40), plain(24, 40);
  {
    NoGradGuard no_grad;
    plain.weight.copy_(packed.weight);
    plain.bias.copy_(packed.bias);
  }
  packed.pack_weight();
  packed.to(Device::cuda(0));
  plain.to(Device::cuda(0));
  EXPECT_EQ(packed(x).cpu().to_vector<float>(), plain(x).cpu().to_vector<float>());
  packed.to(Device::cpu());
  plain.to(Device::cpu());
  EXPECT_EQ(packed(x.cpu()).to_vector<float>(), plain(x.cpu()).to_vector<float>());
  EXPECT_EQ(pack_linear_weight(packed.weight).defined(), cpu::sgemm_available());
}
