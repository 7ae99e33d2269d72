// cross_entropy / nll_loss with ignore_index and label_smoothing on the CPU: hand-checked
// values (support/training_checks.h, shared with the emulated CUDA suite) and the modules.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/training_checks.h"

using namespace ember;
using ember::test::values_near;

TEST(LossOptions, IgnoreIndexAndLabelSmoothingMatchPyTorchsFormulas) {
  ember::test::check_loss_options(Device::cpu());
}

TEST(LossOptions, ModulesPassTheirOptions) {
  const Tensor x = tensor({{1, 2, 3}, {1, -1, 0.5}}, kFloat64);
  const Tensor t = tensor({2, 0}, kInt64);
  nn::CrossEntropyLoss smoothed(Reduction::Mean, -100, 0.1);
  EXPECT_EQ(smoothed.ignore_index, -100);
  EXPECT_EQ(smoothed.label_smoothing, 0.1);
  EXPECT_TRUE(values_near(smoothed(x, t), {0.5729481087098525}, {}, 1e-12));
  nn::CrossEntropyLoss ignoring(Reduction::Sum, 0);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  EXPECT_TRUE(values_near(ignoring(x, t), {std::log(z) - 3}, {}, 1e-12));
  nn::NLLLoss nll(Reduction::None, 2);
  EXPECT_TRUE(values_near(nll(x, t), {0, -1}, {2}, 1e-12));
  EXPECT_EQ(nn::NLLLoss().ignore_index, -100);
  EXPECT_EQ(nn::CrossEntropyLoss().label_smoothing, 0.0);
  EXPECT_THROW_MSG(nn::CrossEntropyLoss(Reduction::Mean, -100, 1.01), ValueError,
                   "CrossEntropyLoss: label_smoothing must be between 0.0 and 1.0, got 1.01");
}

TEST(LossOptions, OneSampleFormsIgnoreToo) {
  const Tensor x = tensor({1, 2, 3}, kFloat64);
  EXPECT_TRUE(values_near(cross_entropy(x, scalar_tensor(-100, kInt64), Reduction::None), {0}, {}));
  EXPECT_TRUE(std::isnan(cross_entropy(x, scalar_tensor(-100, kInt64)).item<double>()));
  // The 2x3 case's first row alone: 0.5076059644443807.
  EXPECT_TRUE(values_near(cross_entropy(x, scalar_tensor(2, kInt64), Reduction::Mean, -100, 0.1),
                          {0.5076059644443807}, {}, 1e-12));
}
