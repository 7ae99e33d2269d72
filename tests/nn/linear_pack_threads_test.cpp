// Packing a model's linear weights while other threads serve it (nn::Linear::pack_weight): a
// forward uses the pack in force when it starts, so every result is the product of one of the
// forms (float32 packed or not: the same bits; bfloat16), never a crash or a torn pack. CI runs
// this suite under ThreadSanitizer (.ci/tsan_tests.sh), so a race on the pack fails it too.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "ember/kernels/cpu/bf16_gemm.h"

using namespace ember;

TEST(LinearPackThreads, PackingAndUnpackingBesideThreeServingThreadsGivesOneOfTheForms) {
  manual_seed(31);
  auto first = std::make_shared<nn::Linear>(32, 48), last = std::make_shared<nn::Linear>(48, 16);
  nn::Sequential model({first, std::make_shared<nn::ReLU>(), last});
  model.eval();
  const Tensor x = randn({6, 32});
  NoGradGuard no_grad;
  const std::vector<float> plain = model(x).to_vector<float>();
  const bool bf16 = cpu::bf16_kernel_available(cpu::Bf16Kernel::Best);
  std::vector<float> rounded;
  if (bf16) {
    nn::pack_linear_weights(model, PackFormat::BFloat16);
    rounded = model(x).to_vector<float>();
    nn::pack_linear_weights(model, false);
  }
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0}, runs{0};
  std::vector<std::thread> servers;
  for (int t = 0; t < 3; ++t)
    servers.emplace_back([&] {
      NoGradGuard guard;
      // A forward may see the first Linear in one form and the last in another only while a
      // pack_linear_weights runs; each Linear's own product is always one whole form.
      while (!stop) {
        const std::vector<float> y = first->forward(x).to_vector<float>();
        const std::vector<float> y_plain = linear(x, first->weight, first->bias).to_vector<float>();
        const std::vector<float> y_bf16 =
            bf16 ? linear(x, first->weight, first->bias,
                          pack_linear_weight(first->weight, PackFormat::BFloat16))
                       .to_vector<float>()
                 : y_plain;
        if (y != y_plain && y != y_bf16) ++wrong;
        ++runs;
      }
    });
  for (int round = 0; round < 60 || runs < 30; ++round) {
    switch (round % 4) {
      case 0:
        nn::pack_linear_weights(model, true);
        break;
      case 1:
        if (bf16) nn::pack_linear_weights(model, PackFormat::BFloat16);
        break;
      case 2:
        first->pack_weight(false);
        break;
      default:
        nn::pack_linear_weights(model, false);
    }
    std::this_thread::yield();
  }
  stop = true;
  for (std::thread& t : servers) t.join();
  EXPECT_EQ(wrong, 0);
  nn::pack_linear_weights(model, false);
  EXPECT_EQ(model(x).to_vector<float>(), plain);
  if (bf16) {
    nn::pack_linear_weights(model, PackFormat::BFloat16);
    EXPECT_EQ(model(x).to_vector<float>(), rounded);
  }
}
