// layer_norm against hand-computed numbers, rows with a large common offset, its gradients'
// closed forms, thread-count independence of the weight and bias gradients, empty inputs,
// and the argument checks (devices, then dtypes, then shapes). Finite differences and the
// CUDA parity run from the op catalog (tests/support/op_catalog_layernorm.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"
#include "support/threads_guard.h"

using namespace ember;
using ember::test::values_near;

namespace {

// Each row of x ([rows, cols], float64 values) normalised in double, the test's reference.
std::vector<double> reference(const std::vector<double>& x, int64_t cols, double eps) {
  std::vector<double> out(x.size());
  for (size_t lo = 0; lo < x.size(); lo += static_cast<size_t>(cols)) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < cols; ++j) mean += x[lo + static_cast<size_t>(j)];
    mean /= static_cast<double>(cols);
    for (int64_t j = 0; j < cols; ++j) var += std::pow(x[lo + static_cast<size_t>(j)] - mean, 2);
    var /= static_cast<double>(cols);
    for (int64_t j = 0; j < cols; ++j)
      out[lo + static_cast<size_t>(j)] = (x[lo + static_cast<size_t>(j)] - mean) / std::sqrt(var + eps);
  }
  return out;
}

}  // namespace

TEST(LayerNorm, HandCheckedRow) {
  // 1, 2, 3, 4: mean 2.5, biased variance 1.25, so -1.5, -0.5, 0.5, 1.5 over sqrt(1.25 + eps).
  for (DType dtype : {kFloat32, kFloat64}) {
    const double eps = 1e-5, s = 1 / std::sqrt(1.25 + eps);
    const Tensor out = layer_norm(tensor({1, 2, 3, 4}, dtype).reshape({1, 4}), {4});
    EXPECT_EQ(out.dtype(), dtype);
    EXPECT_TRUE(values_near(out, {-1.5 * s, -0.5 * s, 0.5 * s, 1.5 * s}, {1, 4}, 1e-6));
    EXPECT_TRUE(values_near(out, {-1.3416, -0.4472, 0.4472, 1.3416}, {1, 4}, 1e-4));
  }
}

TEST(LayerNorm, WeightBiasAndTwoDimensionalShape) {
  // [2, 2, 2]: row 0 holds 1, 2, 3, 4; row 1 holds 0, 0, 4, 4 (mean 2, variance 4).
  const Tensor x = tensor({1, 2, 3, 4, 0, 0, 4, 4}, kFloat32).reshape({2, 2, 2});
  const Tensor w = tensor({1, 2, -1, 0.5}).reshape({2, 2}),
               b = tensor({0, 1, 0, -1}, kFloat32).reshape({2, 2});
  const double eps = 1e-3, s0 = 1 / std::sqrt(1.25 + eps), s1 = 1 / std::sqrt(4 + eps);
  const Tensor out = layer_norm(x, {2, 2}, w, b, eps);
  EXPECT_TRUE(values_near(out,
                          {-1.5 * s0, -0.5 * s0 * 2 + 1, -0.5 * s0, 1.5 * s0 * 0.5 - 1,  //
                           -2 * s1, -2 * s1 * 2 + 1, -2 * s1, 2 * s1 * 0.5 - 1},
                          {2, 2, 2}));
  // Over the last dim only: pairs (1, 2), (3, 4), (0, 0), (4, 4).
  const double p = 0.5 / std::sqrt(0.25 + eps);
  EXPECT_TRUE(
      values_near(layer_norm(x, {2}, Tensor(), Tensor(), eps), {-p, p, -p, p, 0, 0, 0, 0}, {2, 2, 2}));
  // A 2-D input over both its dims: one row of four, given back in the input's shape.
  EXPECT_TRUE(values_near(layer_norm(x.select(0, 0), {2, 2}, w, b, eps),
                          {-1.5 * s0, -0.5 * s0 * 2 + 1, -0.5 * s0, 1.5 * s0 * 0.5 - 1}, {2, 2}));
}

// Without autograd a contiguous input of any rank goes to the backend in its own shape and
// its result is made in that shape (no views); a recorded or strided input goes through a
// [rows, cols] view. The same bits each way, over one trailing dim or two.
TEST(LayerNorm, EveryInputPathGivesTheSameBits) {
  manual_seed(3);
  const Tensor x = randn({2, 3, 4, 5}), w = randn({4, 5}), b = randn({4, 5});
  for (const Shape& normalized : {Shape{5}, Shape{4, 5}}) {
    const Tensor wn = normalized.size() == 1 ? w.select(0, 1) : w,
                 bn = normalized.size() == 1 ? b.select(0, 2) : b;
    Tensor plain, strided;
    {
      NoGradGuard no_grad;
      plain = layer_norm(x, normalized, wn, bn);
      // The same values through a strided view: dims 0 and 1 swapped, then swapped back.
      strided = layer_norm(x.transpose(0, 1).contiguous().transpose(0, 1), normalized, wn, bn);
    }
    const Tensor recorded = layer_norm(x.detach().requires_grad_(true), normalized, wn, bn);
    const std::string what = "over " + shape_str(normalized);
    ASSERT_EQ(plain.shape(), x.shape()) << what;
    ASSERT_EQ(strided.shape(), x.shape()) << what;
    EXPECT_EQ(plain.to_vector<float>(), recorded.detach().to_vector<float>()) << what;
    EXPECT_EQ(plain.to_vector<float>(), strided.to_vector<float>()) << what;
    // And the values: the double reference of each row.
    const int64_t cols = normalized.size() == 1 ? 5 : 20;
    const Tensor x_hat = layer_norm(x, normalized, Tensor(), Tensor());
    EXPECT_TRUE(values_near(x_hat, reference(x.to_vector<double>(), cols, 1e-5), x.shape())) << what;
  }
}

TEST(LayerNorm, RowsInGroupsGiveEachRowAloneItsBits) {
  // The CPU takes the statistics of rows of whole 32-float blocks four at a time (with
  // AVX-512, in interleaved 16-lane vectors): each row's output is that of the row alone, for
  // row counts leaving a remainder, with and without a residual, and the double reference's.
  manual_seed(11);
  for (const int64_t cols : {32, 96, 128, 100}) {
    const Tensor offsets = from_vector(std::vector<float>{0, 1e4f, -3, 0.5f, 7, 2, -1e3f}, {7, 1});
    const Tensor x = randn({7, cols}) * 2 + offsets, res = randn({7, cols}), w = randn({cols}),
                 b = randn({cols});
    NoGradGuard no_grad;
    const Tensor all = layer_norm(x, {cols}, w, b), all_res = add_layer_norm(x, res, {cols}, w, b);
    for (int64_t r = 0; r < 7; ++r) {
      const std::string what = "cols " + std::to_string(cols) + ", row " + std::to_string(r);
      const Tensor row = x.narrow(0, r, 1), row_res = res.narrow(0, r, 1);
      EXPECT_EQ(all.narrow(0, r, 1).to_vector<float>(), layer_norm(row, {cols}, w, b).to_vector<float>())
          << what;
      EXPECT_EQ(all_res.narrow(0, r, 1).to_vector<float>(),
                add_layer_norm(row, row_res, {cols}, w, b).to_vector<float>())
          << what;
    }
    const Tensor x_hat = layer_norm(x, {cols}, Tensor(), Tensor());
    EXPECT_TRUE(values_near(x_hat, reference(x.to_vector<double>(), cols, 1e-5), x.shape(), 1e-4))
        << "cols " << cols;
  }
}

TEST(LayerNorm, LargeOffsetRowsKeepTheirDeviations) {
  // 10^4 + k / 8: exact in float32, whose spacing there is 2^-10. E[x^2] - E[x]^2 in float
  // would subtract two numbers near 10^8 (spacing 8) to get a variance of 0.0205.
  std::vector<double> row;
  for (int k = 0; k < 8; ++k) row.push_back(1e4 + k / 8.0);
  const Tensor out = layer_norm(from_vector(row, {1, 8}).to(kFloat32), {8});
  EXPECT_TRUE(values_near(out, reference(row, 8, 1e-5), {1, 8}, 1e-4));

  // Long rows (longer than the CPU's 4096-element spans) of 10^4 + 0.01 z, against the
  // float64 reference from the same float32 values.
  manual_seed(5);
  const int64_t cols = 10000;
  const Tensor x = randn({3, cols}) * 0.01 + 1e4;
  const std::vector<double> expected = reference(x.to_vector<double>(), cols, 1e-5);
  EXPECT_TRUE(values_near(layer_norm(x, {cols}), expected, {3, cols}, 1e-4));
  // The backward sees the same deviations: with eps 0, sum(y * y) is the row length whatever
  // x is, so its input gradient is zero up to rounding (about 1e-4 here, rstd being 100). A
  // float-rounded mean would shift x_hat by up to 0.05 and the gradient by about 10.
  const Tensor xr = x.detach().requires_grad_(true);
  const Tensor y = layer_norm(xr, {cols}, Tensor(), Tensor(), 0.0);
  (y * y).sum().backward();
  EXPECT_LT(max(xr.grad().abs()).item<double>(), 1e-2);
}

TEST(LayerNorm, GradientsHaveTheirClosedForms) {
  manual_seed(1);
  const Tensor x = randn({6, 5}, kFloat64).requires_grad_(true);
  const Tensor w = randn({5}, kFloat64).requires_grad_(true);
  const Tensor b = randn({5}, kFloat64).requires_grad_(true);
  layer_norm(x, {5}, w, b).sum().backward();
  // d/db sums the ones over rows; d/dw sums x_hat over rows; d/dx of a row's sum of w * x_hat
  // is rstd * (w - mean(w) - x_hat * mean(w * x_hat)).
  EXPECT_TRUE(values_near(b.grad(), std::vector<double>(5, 6.0), {5}, 1e-12));
  const Tensor xhat = layer_norm(x.detach(), {5});
  EXPECT_TRUE(values_near(w.grad(), sum(xhat, {0}).to_vector<double>(), {5}, 1e-12));
  const Tensor var = mean((x.detach() - mean(x.detach(), {1}, true)).pow(2.0), {1}, true);
  const Tensor rstd = 1.0 / (var + 1e-5).sqrt();
  const Tensor wx = w.detach() * xhat;
  const Tensor gx = rstd * (w.detach() - mean(w.detach()) - xhat * mean(wx, {1}, true));
  EXPECT_TRUE(values_near(x.grad(), gx.to_vector<double>(), {6, 5}, 1e-10));
}

TEST(LayerNorm, WeightAndBiasGradientsDoNotDependOnTheThreadCount) {
  manual_seed(2);
  const Tensor x = randn({4000, 24}), g = randn({4000, 24});
  auto grads = [&] {
    const Tensor w = ones({24}).requires_grad_(true), b = zeros({24}).requires_grad_(true);
    layer_norm(x, {24}, w, b).backward(g);
    return std::make_pair(w.grad().to_vector<float>(), b.grad().to_vector<float>());
  };
  std::pair<std::vector<float>, std::vector<float>> one, four;
  {
    test::ThreadsGuard threads(1);
    one = grads();
  }
  {
    test::ThreadsGuard threads(4);
    four = grads();
  }
  EXPECT_EQ(one.first, four.first);
  EXPECT_EQ(one.second, four.second);
}

TEST(LayerNorm, InputGradientDoesNotDependOnWhereTheHeapPutsScratch) {
  // The backward's per-row scratch must be allocated aligned: Eigen starts a vectorised sum
  // at the first aligned element, so scratch at an address that is 16- but not 32-aligned
  // summed in another order, and the same step gave other gradients from run to run (and
  // after --resume). Between runs, blocks held on the heap move where new scratch lands.
  manual_seed(5);
  const Tensor x = randn({512, 100}), g = randn({512, 100});
  const Tensor w = randn({100}), b = randn({100});
  auto grad_input = [&] {
    const Tensor xi = x.detach().requires_grad_(true);
    layer_norm(xi, {100}, w, b).backward(g);
    return xi.grad().to_vector<float>();
  };
  test::ThreadsGuard threads(1);
  const std::vector<float> first = grad_input();
  std::vector<std::vector<char>> held;
  for (int shift = 1; shift <= 8; ++shift) {
    // Blocks of the scratch's own size take the ones freed by the last run; a small one
    // moves the next by 16 bytes.
    for (int k = 0; k < 4; ++k) held.emplace_back(100 * sizeof(float));
    held.emplace_back(16);
    EXPECT_EQ(grad_input(), first) << "after holding " << held.size() << " blocks";
  }
}

TEST(LayerNorm, EmptyInputs) {
  const Tensor w = ones({5}).requires_grad_(true), b = zeros({5}).requires_grad_(true);
  const Tensor x = zeros({0, 5}).requires_grad_(true);
  const Tensor out = layer_norm(x, {5}, w, b);
  EXPECT_EQ(out.shape(), (Shape{0, 5}));
  out.sum().backward();
  EXPECT_EQ(x.grad().shape(), (Shape{0, 5}));
  EXPECT_TRUE(values_near(w.grad(), {0, 0, 0, 0, 0}, {5}));
  EXPECT_TRUE(values_near(b.grad(), {0, 0, 0, 0, 0}, {5}));
  // Rows of no elements.
  EXPECT_EQ(layer_norm(zeros({3, 0}), {0}).shape(), (Shape{3, 0}));
}

TEST(LayerNorm, ShapeErrors) {
  const Tensor x = zeros({2, 4});
  EXPECT_THROW_LINE(
      layer_norm(x, {3}), ShapeError,
      "shape mismatch in layer_norm: given normalized_shape=[3], expected input with shape [*, 3], "
      "but got input of size [2, 4]");
  EXPECT_THROW_LINE(layer_norm(x, {2, 2}), ShapeError,
                    "shape mismatch in layer_norm: given normalized_shape=[2, 2], expected input with shape "
                    "[*, 2, 2], but got input of size [2, 4]");
  EXPECT_THROW_LINE(layer_norm(zeros({4}), {2, 4}), ShapeError,
                    "shape mismatch in layer_norm: given normalized_shape=[2, 4], expected input with shape "
                    "[*, 2, 4], but got input of size [4]");
  EXPECT_THROW_LINE(layer_norm(x, {4}, zeros({3})), ShapeError,
                    "shape mismatch in layer_norm: weight [3] does not match normalized_shape [4]");
  EXPECT_THROW_LINE(layer_norm(x, {4}, zeros({4}), zeros({1, 4})), ShapeError,
                    "shape mismatch in layer_norm: bias [1, 4] does not match normalized_shape [4]");
  EXPECT_THROW_LINE(layer_norm(x, {}), ValueError,
                    "layer_norm: normalized_shape must have at least one dim, got []");
  EXPECT_THROW_LINE(layer_norm(x, {4}, Tensor(), Tensor(), -1), ValueError,
                    "layer_norm: expected eps >= 0, got eps=-1");
}

TEST(LayerNorm, DTypeErrors) {
  EXPECT_THROW_LINE(layer_norm(zeros({2, 4}, kInt64), {4}), DTypeError,
                    "dtype mismatch in layer_norm: input must be float32 or float64, got int64");
  EXPECT_THROW_LINE(layer_norm(zeros({2, 4}), {4}, zeros({4}, kFloat64)), DTypeError,
                    "dtype mismatch in layer_norm: input is float32 but weight is float64");
  EXPECT_THROW_LINE(layer_norm(zeros({2, 4}), {4}, zeros({4}), zeros({4}, kFloat64)), DTypeError,
                    "dtype mismatch in layer_norm: input is float32 but bias is float64");
  // Dtypes are checked before shapes.
  EXPECT_THROW_LINE(layer_norm(zeros({2, 4}), {3}, zeros({3}, kFloat64)), DTypeError,
                    "dtype mismatch in layer_norm: input is float32 but weight is float64");
}

TEST(LayerNorm, DeviceErrorsComeFirst) {
  test::EmulatedCuda emu(1);
  const Tensor x = zeros({2, 4});
  EXPECT_THROW_LINE(layer_norm(x, {4}, zeros({4}, Device::cuda(0))), DeviceMismatchError,
                    "tensors on different devices: layer_norm got input on cpu and weight on cuda:0");
  EXPECT_THROW_LINE(layer_norm(x, {4}, zeros({4}), zeros({4}, Device::cuda(0))), DeviceMismatchError,
                    "tensors on different devices: layer_norm got input on cpu and bias on cuda:0");
  // Before dtypes and shapes: an int64 bias of the wrong shape on another device.
  EXPECT_THROW_LINE(layer_norm(x, {4}, Tensor(), zeros({3}, TensorOptions(kInt64).device(Device::cuda(0)))),
                    DeviceMismatchError,
                    "tensors on different devices: layer_norm got input on cpu and bias on cuda:0");
  EXPECT_THROW_LINE(layer_norm(Tensor(), {4}), ValueError, "layer_norm: input is an undefined tensor");
}
