// add_layer_norm: layer_norm(input + residual) with the two ops' bits on every path (the CPU
// backend's one-pass kernel where nothing is recorded, the ops otherwise), the same gradients
// as the two ops, nn::LayerNorm's two-input forward, and the argument checks.
#include <gtest/gtest.h>

#include <utility>

#include "ember/ember.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;

TEST(AddLayerNorm, TheCpuKernelGivesTheTwoOpsBits) {
  manual_seed(5);
  const Tensor x = randn({3, 4, 40}), r = randn({3, 4, 40}) * 3.0, w = randn({40}), b = randn({40});
  NoGradGuard no_grad;
  const Tensor want = layer_norm(x + r, {40}, w, b, 1e-5);
  // The backend entry itself (the op might route around it).
  const Tensor out = empty({3, 4, 40}), mean = empty({12}, kFloat64), rstd = empty({12}, kFloat64);
  cpu_backend().add_layer_norm(out, mean, rstd, x, r, w, b, 1e-5);
  EXPECT_EQ(out.to_vector<float>(), want.to_vector<float>());
  // Without weight, bias or both.
  cpu_backend().add_layer_norm(out, mean, rstd, x, r, Tensor(), Tensor(), 1e-5);
  EXPECT_EQ(out.to_vector<float>(), layer_norm(x + r, {40}).to_vector<float>());
  cpu_backend().add_layer_norm(out, mean, rstd, x, r, w, Tensor(), 1e-5);
  EXPECT_EQ(out.to_vector<float>(), layer_norm(x + r, {40}, w).to_vector<float>());
  // The statistics are the sum's: the mean of each row of x + r.
  const Tensor row_means = (x + r).to(kFloat64).mean({2}).reshape({12});
  EXPECT_TRUE(test::values_near(mean, row_means.to_vector<double>(), {12}));
}

TEST(AddLayerNorm, EveryPathGivesTheTwoOpsBits) {
  manual_seed(6);
  const Tensor x = randn({2, 3, 4, 5}), r = randn({2, 3, 4, 5}), w = randn({4, 5}), b = randn({4, 5});
  for (const Shape& normalized : {Shape{5}, Shape{4, 5}}) {
    const Tensor wn = normalized.size() == 1 ? w.select(0, 1) : w,
                 bn = normalized.size() == 1 ? b.select(0, 2) : b;
    const std::string what = "over " + shape_str(normalized);
    const Tensor want = [&] {
      NoGradGuard no_grad;
      return layer_norm(x + r, normalized, wn, bn);
    }();
    NoGradGuard no_grad;
    EXPECT_EQ(add_layer_norm(x, r, normalized, wn, bn).to_vector<float>(), want.to_vector<float>()) << what;
    // Strided operands and a broadcast residual take the two ops.
    const Tensor strided = x.transpose(0, 1).contiguous().transpose(0, 1);
    EXPECT_EQ(add_layer_norm(strided, r, normalized, wn, bn).to_vector<float>(), want.to_vector<float>())
        << what;
    const Tensor row = r.select(0, 0).select(0, 0);  // [4, 5], broadcast over the first two dims
    EXPECT_EQ(add_layer_norm(x, row, normalized, wn, bn).to_vector<float>(),
              layer_norm(x + row, normalized, wn, bn).to_vector<float>())
        << what;
    EXPECT_EQ(add_layer_norm(x, r, normalized, wn, bn).shape(), x.shape()) << what;
    // Leading ones: a residual without input's (the one pass), and one with more (the ops,
    // whose sum has the residual's rank).
    const Tensor x1 = x.select(0, 1).unsqueeze(0), r1 = r.select(0, 1);  // [1, 3, 4, 5], [3, 4, 5]
    for (const auto& [a, c] : {std::pair{x1, r1}, std::pair{r1, x1}}) {
      const Tensor got = add_layer_norm(a, c, normalized, wn, bn),
                   two_ops = layer_norm(a + c, normalized, wn, bn);
      EXPECT_EQ(got.shape(), two_ops.shape()) << what;
      EXPECT_EQ(got.to_vector<float>(), two_ops.to_vector<float>()) << what;
    }
  }
}

TEST(AddLayerNorm, RecordedGivesTheTwoOpsGradients) {
  manual_seed(7);
  const Tensor x0 = randn({4, 6}), r0 = randn({4, 6}), w0 = randn({6}), b0 = randn({6}), g = randn({4, 6});
  auto grads = [&](bool fused) {
    Tensor x = x0.clone().requires_grad_(true), r = r0.clone().requires_grad_(true),
           w = w0.clone().requires_grad_(true), b = b0.clone().requires_grad_(true);
    const Tensor y = fused ? add_layer_norm(x, r, {6}, w, b) : layer_norm(x + r, {6}, w, b);
    (y * g).sum().backward();
    return std::vector<std::vector<float>>{y.detach().to_vector<float>(), x.grad().to_vector<float>(),
                                           r.grad().to_vector<float>(), w.grad().to_vector<float>(),
                                           b.grad().to_vector<float>()};
  };
  EXPECT_EQ(grads(true), grads(false));
}

TEST(AddLayerNorm, LayerNormModuleTakesAResidual) {
  manual_seed(8);
  nn::LayerNorm norm(8, 1e-6);
  {
    NoGradGuard no_grad;
    norm.weight.copy_(randn({8}));
    norm.bias.copy_(randn({8}));
  }
  const Tensor x = randn({2, 5, 8}), r = randn({2, 5, 8});
  NoGradGuard no_grad;
  EXPECT_EQ(norm.forward(x, r).to_vector<float>(), norm(x + r).to_vector<float>());
}

TEST(AddLayerNorm, Errors) {
  EXPECT_THROW_LINE(add_layer_norm(zeros({2, 4}), Tensor(), {4}), ValueError,
                    "add_layer_norm: residual is an undefined tensor");
  // The sum's shape is checked as + checks it, then layer_norm's as it checks its input.
  EXPECT_THROW(add_layer_norm(zeros({2, 4}), zeros({3}), {4}), ShapeError);
  EXPECT_THROW_LINE(add_layer_norm(zeros({2, 4}), zeros({2, 4}), {3}), ShapeError,
                    "shape mismatch in layer_norm: given normalized_shape=[3], expected input with shape "
                    "[*, 3], but got input of size [2, 4]");
  test::EmulatedCuda emu(1);
  EXPECT_THROW_LINE(add_layer_norm(zeros({2, 4}), zeros({2, 4}, Device::cuda(0)), {4}), DeviceMismatchError,
                    "tensors on different devices: add_layer_norm got input on cpu and residual on cuda:0");
}
