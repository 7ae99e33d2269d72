// Ember's choice of a cuDNN convolution algorithm (kernels/cuda/cuda_conv.cpp) on the
// emulated cuDNN: when the search finds an acceptable algorithm, the fallback's workspace is
// never asked for (the query would cost a call per direction and new problem).
#include <gtest/gtest.h>

#include "cuda_emulator/control.h"
#include "ember/ember.h"

namespace {

using namespace ember;

TEST(CudaConvChoice, AFoundAlgorithmNeedsNoFallbackWorkspaceQuery) {
  // A problem no other case uses, so each direction searches afresh.
  manual_seed(17);
  const Tensor x = randn({1, 3, 9, 7}).cuda().requires_grad_(true);
  const Tensor w = randn({2, 3, 2, 2}).cuda().requires_grad_(true);
  const uint64_t before = emulation::cudnn_workspace_queries();
  conv2d(x, w).sum().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().cpu().numel(), 189);
  EXPECT_EQ(emulation::cudnn_workspace_queries(), before);
}

}  // namespace
