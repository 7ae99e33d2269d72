// The transformer toolkit's pointwise ops and moments against hand-checked values (Python's
// math module): erf, rsqrt, log1p, gelu, masked_fill / masked_fill_, var and std, with their
// gradients, strided and broadcast inputs, empty tensors, PyTorch's inf / NaN edges and the
// error messages. The op catalog (op_catalog_pointwise.cpp) adds gradchecks and device parity.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "ember/extend/autograd_node.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"
#include "support/gradcheck.h"

using namespace ember;
using ember::test::values_near;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor f64(const NestedList& v) { return tensor(v, kFloat64); }
}  // namespace

// ---- erf, rsqrt ----

TEST(Pointwise, ErfAndRsqrtValues) {
  for (DType dt : {kFloat32, kFloat64}) {
    Tensor x = tensor({0.5, -1, 0, 3}, dt);
    EXPECT_TRUE(values_near(erf(x), {0.5204998778130465, -0.8427007929497149, 0, 0.9999779095030014}, {4}));
    Tensor p = tensor({4, 0.25, 1, 0}, dt);
    EXPECT_EQ(rsqrt(p).to_vector<double>(), (std::vector<double>{0.5, 2, 1, kInf}));  // exact
    EXPECT_EQ(erf(x).dtype(), dt);
  }
  EXPECT_TRUE(std::isnan(rsqrt(f64({-1})).item<double>()));
  // A transposed input and an empty one.
  Tensor m = tensor({{4, 1}, {16, 0.25}}).t();
  EXPECT_TRUE(values_near(rsqrt(m), {0.5, 0.25, 1, 2}, {2, 2}));
  EXPECT_EQ(erf(zeros({0, 3})).shape(), (Shape{0, 3}));
}

TEST(Pointwise, ErfAndRsqrtGradients) {
  Tensor x = f64({0.5}).requires_grad_();
  erf(x).sum().backward();
  EXPECT_TRUE(values_near(x.grad(), {0.8787825789354448}, {1}));  // 2/sqrt(pi) exp(-1/4)
  Tensor p = f64({4}).requires_grad_();
  rsqrt(p).sum().backward();
  EXPECT_TRUE(values_near(p.grad(), {-0.0625}, {1}));  // -1/2 * 4^(-3/2)
  EXPECT_TRUE(
      test::gradcheck([](const std::vector<Tensor>& a) { return erf(a[0]); }, {test::leaf({3, 4}, -2, 2)}));
  EXPECT_TRUE(test::gradcheck([](const std::vector<Tensor>& a) { return rsqrt(a[0]); },
                              {test::leaf({3, 4}, 0.5, 2)}));
}

TEST(Pointwise, ErfAndRsqrtAreFloatingOnly) {
  EXPECT_THROW_LINE(erf(tensor({1, 2}, kInt64)), DTypeError, "erf does not support dtype int64");
  EXPECT_THROW_LINE(rsqrt(tensor({1, 2}, kInt64)), DTypeError, "rsqrt does not support dtype int64");
  EXPECT_THROW_LINE(erf(Tensor()), ValueError, "erf: input is an undefined tensor");
}

// ---- log1p ----

TEST(Pointwise, Log1pValuesGradientAndDtypes) {
  for (DType dt : {kFloat32, kFloat64}) {
    Tensor x = tensor({1, 0, -0.5}, dt);
    EXPECT_TRUE(values_near(log1p(x), {0.6931471805599453, 0, -0.6931471805599453}, {3}));
    EXPECT_EQ(log1p(x).dtype(), dt);
    EXPECT_EQ(log1p(tensor({-1}, dt)).item<double>(), -kInf);
    EXPECT_TRUE(std::isnan(log1p(tensor({-2}, dt)).item<double>()));
  }
  // Where 1 + x rounds x away: log(1 + 1e-7) in float32 is 1.1920929e-07, log1p keeps x.
  EXPECT_NEAR(log1p(tensor({1e-7}, kFloat32)).item<double>(), 9.999999406318238e-08, 1e-14);  // 1 ulp
  EXPECT_NEAR(log1p(f64({1e-12})).item<double>(), 9.999999999995e-13, 1e-26);
  Tensor p = f64({1}).requires_grad_();
  log1p(p).sum().backward();
  EXPECT_TRUE(values_near(p.grad(), {0.5}, {1}));  // 1 / (1 + x)
  EXPECT_TRUE(test::gradcheck([](const std::vector<Tensor>& a) { return log1p(a[0]); },
                              {test::leaf({3, 4}, -0.5, 2)}));
  EXPECT_THROW_LINE(log1p(tensor({1, 2}, kInt64)), DTypeError, "log1p does not support dtype int64");
}

// ---- gelu ----

TEST(Pointwise, GeluValues) {
  for (DType dt : {kFloat32, kFloat64}) {
    Tensor x = tensor({1, -1, 0.5, -2, 0}, dt);
    EXPECT_TRUE(values_near(
        gelu(x), {0.8413447460685429, -0.15865525393145707, 0.34573123063700656, -0.04550026389635842, 0},
        {5}));
    EXPECT_TRUE(values_near(gelu(x, "none"), gelu(x).to_vector<double>(), {5}, 0));
    EXPECT_TRUE(values_near(
        gelu(x, "tanh"),
        {0.8411919906082768, -0.15880800939172324, 0.34571400982514394, -0.04540230591222494, 0}, {5}));
  }
  // Far tails: x itself and 0, never NaN.
  EXPECT_TRUE(values_near(gelu(f64({30, -30})), {30, 0}, {2}));
  EXPECT_TRUE(values_near(gelu(f64({30, -30}), "tanh"), {30, 0}, {2}));
  Tensor m = tensor({{1, 0.5}, {-1, -2}}).t();  // strided
  EXPECT_TRUE(values_near(
      gelu(m), {0.8413447460685429, -0.15865525393145707, 0.34573123063700656, -0.04550026389635842},
      {2, 2}));
  EXPECT_EQ(gelu(zeros({2, 0}), "tanh").shape(), (Shape{2, 0}));
}

TEST(Pointwise, GeluGradients) {
  Tensor x = f64({1, -1, 0.5, -2}).requires_grad_();
  gelu(x).sum().backward();
  EXPECT_TRUE(values_near(
      x.grad(), {1.0833154705876864, -0.08331547058768629, 0.8674951246561629, -0.08523180107819692}, {4}));
  Tensor y = f64({1, -1, 0.5, -2}).requires_grad_();
  gelu(y, "tanh").sum().backward();
  EXPECT_TRUE(values_near(
      y.grad(), {1.0829640838457826, -0.08296408384578255, 0.8673699035346424, -0.08609925662361825}, {4}));
  EXPECT_EQ(std::string(gelu(x).grad_fn()->name()), "gelu");
  for (const char* approximate : {"none", "tanh"})
    EXPECT_TRUE(
        test::gradcheck([approximate](const std::vector<Tensor>& a) { return gelu(a[0], approximate); },
                        {test::leaf({3, 4}, -3, 3)}))
        << approximate;
}

TEST(Pointwise, GeluErrors) {
  EXPECT_THROW_LINE(gelu(ones({2}), "exact"), ValueError,
                    "gelu: approximate must be 'none' or 'tanh', got 'exact'");
  EXPECT_THROW_LINE(gelu(ones({2}), ""), ValueError, "gelu: approximate must be 'none' or 'tanh', got ''");
  EXPECT_THROW_LINE(gelu(tensor({1}, kInt64)), DTypeError, "gelu does not support dtype int64");
  EXPECT_THROW_LINE(gelu(tensor({1}, kInt64), "tanh"), DTypeError, "gelu does not support dtype int64");
  EXPECT_THROW_LINE(gelu(Tensor()), ValueError, "gelu: input is an undefined tensor");
}

TEST(Pointwise, GeluModule) {
  nn::GELU exact;
  EXPECT_EQ(exact.repr(), "GELU(approximate='none')");
  nn::GELU approx("tanh");
  EXPECT_EQ(approx.repr(), "GELU(approximate='tanh')");
  Tensor x = tensor({1, -1}, kFloat32);
  EXPECT_TRUE(values_near(exact(x), {0.8413447460685429, -0.15865525393145707}, {2}));
  EXPECT_TRUE(values_near(approx(x), {0.8411919906082768, -0.15880800939172324}, {2}));
  nn::GELU bad("erf");  // PyTorch checks the string when the module runs
  EXPECT_THROW_LINE(bad(x), ValueError, "gelu: approximate must be 'none' or 'tanh', got 'erf'");
}

// ---- masked_fill ----

TEST(Pointwise, MaskedFillValues) {
  Tensor x = tensor({{1, 2, 3}, {4, 5, 6}}, kFloat32);
  Tensor row = tensor({1, 0, 1}, kFloat32) > 0.5;  // broadcast over rows
  EXPECT_TRUE(values_near(masked_fill(x, row, -9), {-9, 2, -9, -9, 5, -9}, {2, 3}));
  Tensor col = (tensor({0, 1}, kFloat32) > 0.5).unsqueeze(1);  // [2, 1]: broadcast over columns
  EXPECT_TRUE(values_near(x.masked_fill(col, 0.5), {1, 2, 3, 0.5, 0.5, 0.5}, {2, 3}));
  Tensor full_mask = x > 3.5;
  EXPECT_EQ(masked_fill(x, full_mask, -kInf).to_vector<double>(),
            (std::vector<double>{1, 2, 3, -kInf, -kInf, -kInf}));
  // A 0-d mask fills everything or nothing.
  EXPECT_TRUE(values_near(masked_fill(x, full({}, 1.0) > 0, 7), {7, 7, 7, 7, 7, 7}, {2, 3}));
  // A strided input.
  Tensor xt = tensor({{1, 4}, {2, 5}, {3, 6}}, kFloat32).t();
  EXPECT_TRUE(values_near(masked_fill(xt, row, 0), {0, 2, 0, 0, 5, 0}, {2, 3}));
  // The value takes the input's dtype as a fill does: int64 truncates, bool is value != 0.
  Tensor i = masked_fill(tensor({1, 2, 3}, kInt64), row, 7.9);
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{7, 2, 7}));
  Tensor b = masked_fill(tensor({0, 0, 0}, kFloat32) > 1, row, 1.0);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false, true}));
  // Empty.
  EXPECT_EQ(masked_fill(zeros({0, 3}), row, 1).shape(), (Shape{0, 3}));
  EXPECT_EQ(masked_fill(zeros({2, 0}), zeros({0}) > 0, 1).shape(), (Shape{2, 0}));
}

TEST(Pointwise, MaskedFillGradientSkipsTheFilledPositions) {
  Tensor x = f64({1, 2, 3, 4, 5, 6}).reshape({2, 3}).detach().requires_grad_();
  Tensor row = tensor({1, 0, 1}, kFloat32) > 0.5;
  Tensor y = masked_fill(x, row, 3);
  EXPECT_EQ(std::string(y.grad_fn()->name()), "masked_fill");
  (y * f64({1, 2, 3})).sum().backward();
  EXPECT_TRUE(values_near(x.grad(), {0, 2, 0, 0, 2, 0}, {2, 3}));
  EXPECT_TRUE(test::gradcheck([row](const std::vector<Tensor>& a) { return masked_fill(a[0], row, -1); },
                              {test::leaf({4, 3})}));
}

TEST(Pointwise, MaskedFillInPlace) {
  Tensor row = tensor({1, 0, 1}, kFloat32) > 0.5;
  Tensor x = tensor({{1, 2, 3}, {4, 5, 6}}, kFloat32);
  const int64_t v0 = x.version();
  Tensor& r = x.masked_fill_(row, 0);
  EXPECT_TRUE(r.is_same(x));
  EXPECT_GT(x.version(), v0);
  EXPECT_TRUE(values_near(x, {0, 2, 0, 0, 5, 0}, {2, 3}));
  // Through a strided view: the base sees the change.
  Tensor base = tensor({{1, 2, 3}, {4, 5, 6}}, kFloat32);
  Tensor view = base.t();  // [3, 2]
  masked_fill_(view, (tensor({1, 0}, kFloat32) > 0.5), -1);
  EXPECT_TRUE(values_near(base, {-1, -1, -1, 4, 5, 6}, {2, 3}));
  // Autograd: the in-place result's gradient skips the filled positions; a view's fill
  // rewrites its base's history.
  Tensor leaf = f64({1, 2, 3, 4, 5, 6}).reshape({2, 3}).detach().requires_grad_();
  Tensor y = leaf * 1.0;
  y.masked_fill_(row, 5);
  y.sum().backward();
  EXPECT_TRUE(values_near(leaf.grad(), {0, 1, 0, 0, 1, 0}, {2, 3}));
  Tensor leaf2 = f64({1, 2, 3, 4, 5, 6}).reshape({2, 3}).detach().requires_grad_();
  Tensor z = leaf2 * 2.0;
  z.narrow(1, 1, 2).masked_fill_(tensor({1, 0}, kFloat32) > 0.5, 0);  // fills z[:, 1]
  (z * f64({1, 2, 3})).sum().backward();
  EXPECT_TRUE(values_near(leaf2.grad(), {2, 0, 6, 2, 0, 6}, {2, 3}));
  EXPECT_THROW_MSG(leaf2.masked_fill_(row, 0), AutogradError,
                   "a leaf tensor that requires grad is used in an in-place operation (masked_fill_");
  EXPECT_TRUE(test::gradcheck(
      [row](const std::vector<Tensor>& a) {
        Tensor s = a[0] * 1.0;
        return s.masked_fill_(row, 2);
      },
      {test::leaf({2, 3})}));
}

TEST(Pointwise, MaskedFillErrors) {
  Tensor x = ones({2, 3});
  EXPECT_THROW_LINE(masked_fill(x, ones({3}), 0), DTypeError,
                    "dtype mismatch in masked_fill: mask must be bool, got float32");
  EXPECT_THROW_LINE(masked_fill(x, tensor({1, 0, 1}, kInt64), 0), DTypeError,
                    "dtype mismatch in masked_fill: mask must be bool, got int64");
  EXPECT_THROW_LINE(x.masked_fill_(ones({3}), 0), DTypeError,
                    "dtype mismatch in masked_fill_: mask must be bool, got float32");
  // The input's shape never changes: a mask that would enlarge it is a ShapeError.
  EXPECT_THROW_LINE(masked_fill(ones({3}), ones({2, 3}) > 0, 0), ShapeError,
                    "masked_fill: mask of shape [2, 3] cannot be broadcast to input's shape [3]");
  EXPECT_THROW_LINE(masked_fill(x, ones({2}) > 0, 0), ShapeError,
                    "masked_fill: mask of shape [2] cannot be broadcast to input's shape [2, 3]");
  EXPECT_THROW_LINE(masked_fill(x, ones({2, 2, 3}) > 0, 0), ShapeError,
                    "masked_fill: mask of shape [2, 2, 3] cannot be broadcast to input's shape [2, 3]");
  EXPECT_THROW_LINE(x.masked_fill_(ones({4, 1}) > 0, 0), ShapeError,
                    "masked_fill_: mask of shape [4, 1] cannot be broadcast to self's shape [2, 3]");
  EXPECT_THROW_LINE(masked_fill(x, Tensor(), 0), ValueError, "masked_fill: mask is an undefined tensor");
  EXPECT_THROW_LINE(masked_fill(Tensor(), ones({1}) > 0, 0), ValueError,
                    "masked_fill: input is an undefined tensor");
  // An expanded destination (internal overlap) is refused in place.
  Tensor e = ones({3}).expand({2, 3});
  EXPECT_THROW(e.masked_fill_(ones({3}) > 0, 0), ValueError);
}

TEST(Pointwise, MaskedFillChecksDevicesFirst) {
  ember::test::EmulatedCuda emu(1);
  Tensor x = ones({2, 3});
  // A float mask on another device: the device is reported, not the dtype.
  EXPECT_THROW_LINE(masked_fill(x, ones({3}, TensorOptions().device(Device::cuda(0))), 0),
                    DeviceMismatchError,
                    "tensors on different devices: masked_fill got input on cpu and mask on cuda:0");
  Tensor mask = (tensor({1, 0, 1}, kFloat32) > 0.5).to(Device::cuda(0));
  EXPECT_THROW_LINE(x.masked_fill_(mask, 0), DeviceMismatchError,
                    "tensors on different devices: masked_fill_ got self on cpu and mask on cuda:0");
  Tensor xd = x.to(Device::cuda(0));
  EXPECT_TRUE(values_near(masked_fill(xd, mask, 4), {4, 1, 4, 4, 1, 4}, {2, 3}));
  xd.masked_fill_(mask, -4);
  EXPECT_TRUE(values_near(xd, {-4, 1, -4, -4, 1, -4}, {2, 3}));
}

// ---- var, std ----

TEST(Pointwise, VarAndStdValues) {
  for (DType dt : {kFloat32, kFloat64}) {
    Tensor x = tensor({1, 2, 3, 4}, dt);
    EXPECT_TRUE(values_near(var(x), {1.6666666666666667}, {}));
    EXPECT_TRUE(values_near(var(x, {}, 0), {1.25}, {}));
    EXPECT_TRUE(values_near(ember::std(x), {std::sqrt(5.0 / 3.0)}, {}));
    EXPECT_TRUE(values_near(ember::std(x, {0}, 0), {1.118033988749895}, {}));
    EXPECT_TRUE(values_near(x.var({0}, 2), {2.5}, {}));
    EXPECT_EQ(var(x).dtype(), dt);
  }
  Tensor m = tensor({{1, 2, 3, 4}, {2, 4, 6, 8}}, kFloat32);
  EXPECT_TRUE(values_near(var(m, {1}), {1.6666666666666667, 6.666666666666667}, {2}));
  EXPECT_TRUE(values_near(var(m, {-1}, 1, true), {1.6666666666666667, 6.666666666666667}, {2, 1}));
  EXPECT_TRUE(values_near(var(m, {0}), {0.5, 2, 4.5, 8}, {4}));
  EXPECT_TRUE(values_near(m.std({0}, 0), {0.5, 1, 1.5, 2}, {4}));
  EXPECT_TRUE(values_near(var(m, {0, 1}), {var(m).item<double>()}, {}));
  EXPECT_TRUE(values_near(var(m), {37.5 / 7}, {}));
  // Strided: the transpose's columns are m's rows.
  EXPECT_TRUE(values_near(m.t().var({0}), {1.6666666666666667, 6.666666666666667}, {2}));
  EXPECT_TRUE(values_near(m.t().std({0}, 1, true), {std::sqrt(5.0 / 3.0), std::sqrt(20.0 / 3.0)}, {1, 2}));
}

TEST(Pointwise, VarSubtractsTheMeanFirst) {
  // E[x^2] - E[x]^2 loses every digit here (float32 holds 1e8 to within 8).
  Tensor x = tensor({10001, 10002, 10003, 10004}, kFloat32);
  EXPECT_TRUE(values_near(var(x), {1.6666666666666667}, {}));
  Tensor y = f64({1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4});
  EXPECT_TRUE(values_near(var(y, {0}, 0), {1.25}, {}, 1e-12));
}

TEST(Pointwise, VarPastTheCountAndEmptyAsPyTorch) {
  // The divisor is max(0, N - correction): inf where the values differ, NaN where they don't.
  EXPECT_EQ(var(f64({1, 2}), {}, 2).item<double>(), kInf);
  EXPECT_EQ(var(f64({1, 2}), {0}, 3).item<double>(), kInf);
  EXPECT_EQ(ember::std(f64({1, 2}), {0}, 5).item<double>(), kInf);
  EXPECT_TRUE(values_near(var(f64({5, 5}), {}, 2), {kNaN}, {}));
  EXPECT_TRUE(values_near(var(f64({3})), {kNaN}, {}));                     // one element, correction 1
  EXPECT_TRUE(values_near(var(full({}, 3.0, kFloat64)), {kNaN}, {}));      // 0-d
  EXPECT_TRUE(values_near(var(full({}, 3.0, kFloat64), {}, 0), {0}, {}));  // 0-d, correction 0
  EXPECT_TRUE(values_near(var(f64({1, 2, 3}), {}, -1), {0.5}, {}));        // 2 / 4
  // Empty reductions are NaN; an empty output is empty.
  EXPECT_TRUE(values_near(var(zeros({0})), {kNaN}, {}));
  EXPECT_TRUE(values_near(ember::std(zeros({0})), {kNaN}, {}));
  EXPECT_TRUE(values_near(var(zeros({0, 3}), {0}), {kNaN, kNaN, kNaN}, {3}));
  EXPECT_TRUE(values_near(var(zeros({0, 3}), {0}, 0, true), {kNaN, kNaN, kNaN}, {1, 3}));
  EXPECT_EQ(var(zeros({2, 0}), {0}).shape(), (Shape{0}));
  EXPECT_EQ(ember::std(zeros({0, 3}), {1}).shape(), (Shape{0}));
  // The same on the emulated device.
  ember::test::EmulatedCuda emu(1);
  const Device d = Device::cuda(0);
  EXPECT_EQ(var(f64({1, 2}).to(d), {}, 2).item<double>(), kInf);
  EXPECT_TRUE(values_near(var(f64({5, 5}).to(d), {}, 2), {kNaN}, {}));
  EXPECT_TRUE(values_near(var(zeros({0, 3}).to(d), {0}), {kNaN, kNaN, kNaN}, {3}));
  EXPECT_TRUE(values_near(ember::std(tensor({1, 2, 3, 4}, kFloat32).to(d), {0}, 0), {1.118033988749895}, {}));
}

TEST(Pointwise, VarAndStdGradients) {
  Tensor x = f64({1, 2, 3, 4}).requires_grad_();
  var(x).backward();
  EXPECT_TRUE(values_near(x.grad(), {-1, -1.0 / 3, 1.0 / 3, 1}, {4}));  // 2 (x - mean) / (N - 1)
  Tensor y = f64({1, 2, 3, 4}).requires_grad_();
  ember::std(y, {0}, 0).backward();
  EXPECT_TRUE(values_near(
      y.grad(), {-0.33541019662496846, -0.11180339887498948, 0.11180339887498948, 0.33541019662496846}, {4}));
  using Args = const std::vector<Tensor>&;
  EXPECT_TRUE(test::gradcheck([](Args a) { return var(a[0], {1}, 1, true); }, {test::leaf({3, 4})}));
  EXPECT_TRUE(test::gradcheck([](Args a) { return var(a[0], {0, 2}, 0); }, {test::leaf({2, 3, 4})}));
  EXPECT_TRUE(test::gradcheck([](Args a) { return ember::std(a[0]); }, {test::leaf({3, 4})}));
  EXPECT_TRUE(test::gradcheck([](Args a) { return a[0].t().std({1}, 2); }, {test::leaf({5, 3})}));
  // No gradient path through an empty reduction's input.
  Tensor e = zeros({0, 3}, kFloat64).requires_grad_();
  var(e, {1}).sum().backward();
  EXPECT_EQ(e.grad().shape(), (Shape{0, 3}));
}

TEST(Pointwise, VarAndStdErrors) {
  EXPECT_THROW_LINE(var(tensor({1, 2}, kInt64)), DTypeError,
                    "dtype mismatch in var: input must be float32 or float64, got int64");
  EXPECT_THROW_LINE(ember::std(tensor({1, 2}, kInt64), {0}), DTypeError,
                    "dtype mismatch in std: input must be float32 or float64, got int64");
  EXPECT_THROW_LINE(var(ones({2}) > 0), DTypeError,
                    "dtype mismatch in var: input must be float32 or float64, got bool");
  EXPECT_THROW_LINE(var(ones({2, 3}), {0, -2}), ValueError, "var: dim 0 is repeated");
  EXPECT_THROW_MSG(ember::std(ones({2, 3}), {2}), IndexError, "std: dim 2 is out of range");
  EXPECT_THROW_LINE(var(Tensor()), ValueError, "var: input is an undefined tensor");
}
