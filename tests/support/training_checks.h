#pragma once
// Hand-checked values for the class losses' ignore_index / label_smoothing and for
// clip_grad_norm_, run on any device: the CPU suite and the emulated CUDA suite call the same
// checks. The expected numbers come from PyTorch's formulas, evaluated in float64 by hand
// (a short Python script: log_softmax, then (1 - eps) * nll + eps / C * sum of -log_softmax).
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

namespace ember::test {

inline Tensor on(Device d, const NestedList& rows, DType dtype = kFloat64) {
  return tensor(rows, dtype).to(d);
}
inline Tensor targets_on(Device d, const NestedList& values) { return tensor(values, kInt64).to(d); }

/// cross_entropy and nll_loss with ignore_index and label_smoothing, values and gradients.
inline void check_loss_options(Device d) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Label smoothing 0.1 on a 2x3 input.
  {
    Tensor x = on(d, {{1, 2, 3}, {1, -1, 0.5}}).requires_grad_();
    const Tensor t = targets_on(d, {2, 0});
    Tensor loss = cross_entropy(x, t, Reduction::Mean, -100, 0.1);
    EXPECT_EQ(loss.device(), d);
    EXPECT_TRUE(values_near(loss, {0.5729481087098525}, {}, 1e-12));
    EXPECT_TRUE(values_near(cross_entropy(x, t, Reduction::Sum, -100, 0.1), {1.145896217419705}, {}, 1e-12));
    EXPECT_TRUE(values_near(cross_entropy(x, t, Reduction::None, -100, 0.1),
                            {0.5076059644443807, 0.6382902529753242}, {2}, 1e-12));
    loss.backward();
    EXPECT_TRUE(values_near(x.grad(),
                            {0.02834861991852355, 0.10569756886073213, -0.13404618877925584,
                             -0.17961817018281945, 0.02218112290761862, 0.15743704727520075},
                            {2, 3}, 1e-12));
    // eps = 0 is the plain loss; eps = 1 keeps only the uniform term.
    EXPECT_TRUE(
        values_near(cross_entropy(x, t, Reduction::Mean, -100, 0.0), {0.4812814420431857}, {}, 1e-12));
  }
  // ignore_index: the default -100, out of the mean's divisor, 0 loss and 0 gradient.
  {
    Tensor x = on(d, {{1, 2, 3}, {0.5, 0.5, -2}, {-1, 0, 2}}).requires_grad_();
    const Tensor t = targets_on(d, {2, -100, 0});
    Tensor loss = cross_entropy(x, t);
    EXPECT_TRUE(values_near(loss, {1.788725992000333}, {}, 1e-12));
    EXPECT_TRUE(values_near(cross_entropy(x, t, Reduction::Sum), {3.577451984000666}, {}, 1e-12));
    EXPECT_TRUE(values_near(cross_entropy(x, t, Reduction::None), {0.4076059644443806, 0, 3.1698460195562856},
                            {3}, 1e-12));
    loss.backward();
    EXPECT_TRUE(values_near(x.grad(),
                            {0.04501528658519022, 0.12236423552739879, -0.16737952211258916, 0, 0, 0,
                             -0.47899496693296695, 0.05709759969229724, 0.42189736724066973},
                            {3, 3}, 1e-12));
    EXPECT_TRUE(
        values_near(cross_entropy(x, t, Reduction::Mean, -100, 0.2), {1.7553926586670001}, {}, 1e-12));
    // A class index as ignore_index.
    const Tensor t1 = targets_on(d, {1, 1, 2});
    EXPECT_TRUE(values_near(cross_entropy(x, t1, Reduction::Mean, 1), {0.16984601955628564}, {}, 1e-12));
    EXPECT_TRUE(
        values_near(cross_entropy(x, t1, Reduction::None, 1), {0, 0, 0.16984601955628564}, {3}, 1e-12));
    // Every target ignored: the mean is 0 / 0 (nan, as PyTorch), the sum 0, the gradient 0.
    Tensor all = targets_on(d, {-100, -100, -100});
    EXPECT_TRUE(values_near(cross_entropy(x, all), {nan}, {}));
    EXPECT_TRUE(values_near(cross_entropy(x, all, Reduction::Mean, -100, 0.3), {nan}, {}));
    Tensor x2 = on(d, {{1, 2}, {3, 4}}).requires_grad_();
    Tensor none_counted = cross_entropy(x2, targets_on(d, {-100, -100}), Reduction::Sum, -100, 0.5);
    EXPECT_TRUE(values_near(none_counted, {0}, {}));
    none_counted.backward();
    EXPECT_TRUE(values_near(x2.grad(), {0, 0, 0, 0}, {2, 2}));
  }
  // nll_loss: -input[n, target[n]] over the targets that count.
  {
    Tensor lp = on(d, {{-0.5, -1.0, -2.0}, {-0.1, -3.0, -2.5}, {-1.5, -0.7, -1.2}}).requires_grad_();
    const Tensor t = targets_on(d, {0, -100, 1});
    Tensor loss = nll_loss(lp, t);
    EXPECT_TRUE(values_near(loss, {0.6}, {}, 1e-12));
    EXPECT_TRUE(values_near(nll_loss(lp, t, Reduction::Sum), {1.2}, {}, 1e-12));
    EXPECT_TRUE(
        values_near(nll_loss(lp, targets_on(d, {0, 2, 1}), Reduction::None, 2), {0.5, 0, 0.7}, {3}, 1e-12));
    loss.backward();
    EXPECT_TRUE(values_near(lp.grad(), {-0.5, 0, 0, 0, 0, 0, 0, -0.5, 0}, {3, 3}, 1e-12));
  }
  // Float32 keeps to float32 and the same numbers.
  EXPECT_TRUE(values_near(cross_entropy(on(d, {{1, 2, 3}, {1, -1, 0.5}}, kFloat32), targets_on(d, {2, 0}),
                                        Reduction::Mean, -100, 0.1),
                          {0.5729481087098525}, {}, 1e-6));
  // Other out-of-range targets stay IndexError (an ignore_index of -1 does not cover -100).
  const Tensor x = on(d, {{1, 2, 3}, {1, -1, 0.5}});
  // (A device reports a bad target at the next read: item().)
  EXPECT_THROW_MSG(cross_entropy(x, targets_on(d, {2, -100}), Reduction::Mean, -1).item<double>(), IndexError,
                   "cross_entropy: target -100 is out of range for 3 classes");
  EXPECT_THROW_MSG(nll_loss(x, targets_on(d, {3, -100})).item<double>(), IndexError,
                   "nll_loss: target 3 is out of range for 3 classes");
  for (double bad : {-0.1, 1.5, nan})
    EXPECT_THROW_MSG(cross_entropy(x, targets_on(d, {2, 0}), Reduction::Mean, -100, bad), ValueError,
                     "cross_entropy: label_smoothing must be between 0.0 and 1.0, got ");
}

/// Gradients [3, -4] and [12] (norm 13, largest 12) and a parameter without one.
struct ClipSetup {
  Tensor a, b, no_grad;
  ClipSetup(Device d, DType dtype = kFloat32) {
    a = zeros({2}, TensorOptions().dtype(dtype).device(d)).requires_grad_();
    b = zeros({1}, TensorOptions().dtype(dtype).device(d)).requires_grad_();
    no_grad = zeros({4}, TensorOptions().dtype(dtype).device(d)).requires_grad_();
    a.set_grad(tensor({3, -4}, dtype).to(d));
    b.set_grad(tensor({12}, dtype).to(d));
  }
  std::vector<Tensor> params() const { return {a, no_grad, b}; }
};

/// clip_grad_norm_ (norm 2 and inf, max_norm below and above the norm, a NaN gradient with
/// error_if_nonfinite on and off) and clip_grad_value_.
inline void check_clip_grad(Device d) {
  using nn::utils::clip_grad_norm_;
  {  // max_norm below the norm: every gradient scaled by 6.5 / (13 + 1e-6)
    ClipSetup s(d);
    const Tensor total = clip_grad_norm_(s.params(), 6.5);
    EXPECT_EQ(total.device(), d);
    EXPECT_EQ(total.dtype(), kFloat32);
    EXPECT_TRUE(values_near(total, {13}, {}));
    const double c = 6.5 / (13 + 1e-6);
    EXPECT_TRUE(values_near(s.a.grad(), {3 * c, -4 * c}, {2}, 1e-7));
    EXPECT_TRUE(values_near(s.b.grad(), {12 * c}, {1}, 1e-7));
    EXPECT_FALSE(s.no_grad.grad().defined());
  }
  {  // max_norm above: the factor clamps to 1, the gradients stay as they were
    ClipSetup s(d);
    EXPECT_TRUE(values_near(clip_grad_norm_(s.params(), 20.0), {13}, {}));
    EXPECT_EQ(s.a.grad().to_vector<float>(), (std::vector<float>{3, -4}));
    EXPECT_EQ(s.b.grad().to_vector<float>(), (std::vector<float>{12}));
  }
  {  // the inf norm is the largest magnitude
    ClipSetup s(d);
    EXPECT_TRUE(values_near(clip_grad_norm_(s.params(), 6.0, INFINITY), {12}, {}));
    const double c = 6.0 / (12 + 1e-6);
    EXPECT_TRUE(values_near(s.a.grad(), {3 * c, -4 * c}, {2}, 1e-7));
    EXPECT_TRUE(values_near(s.b.grad(), {12 * c}, {1}, 1e-7));
    ClipSetup above(d);
    EXPECT_TRUE(values_near(clip_grad_norm_(above.params(), 100.0, INFINITY), {12}, {}));
    EXPECT_EQ(above.a.grad().to_vector<float>(), (std::vector<float>{3, -4}));
  }
  {  // norm 1 and a fractional order
    ClipSetup s(d);
    EXPECT_TRUE(values_near(clip_grad_norm_(s.params(), 100.0, 1.0), {19}, {}));
    ClipSetup h(d, kFloat64);
    const double total = std::pow(std::pow(3.0, 1.5) + std::pow(4.0, 1.5) + std::pow(12.0, 1.5), 1 / 1.5);
    const Tensor t = clip_grad_norm_(h.params(), 100.0, 1.5);
    EXPECT_EQ(t.dtype(), kFloat64);
    EXPECT_TRUE(values_near(t, {total}, {}, 1e-12));
  }
  {  // a NaN gradient: error_if_nonfinite throws and leaves the gradients alone...
    ClipSetup s(d);
    s.a.set_grad(tensor({std::nan(""), 1.0}).to(d));
    EXPECT_THROW_MSG(
        clip_grad_norm_(s.params(), 1.0, 2.0, true), ValueError,
        "The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot "
        "be clipped. To disable this error and scale the gradients by the non-finite norm anyway, "
        "set `error_if_nonfinite=False`");
    EXPECT_THROW_MSG(clip_grad_norm_(s.params(), 1.0, INFINITY, true), ValueError,
                     "The total norm of order inf for gradients");
    EXPECT_EQ(s.b.grad().to_vector<float>(), (std::vector<float>{12}));
    // ...and without it the NaN total scales every gradient to NaN, as PyTorch's does.
    const Tensor total = clip_grad_norm_(s.params(), 1.0);
    EXPECT_TRUE(std::isnan(total.item<double>()));
    EXPECT_TRUE(std::isnan(s.b.grad().to_vector<float>()[0]));
    EXPECT_TRUE(std::isnan(s.a.grad().to_vector<float>()[1]));
  }
  {  // an infinite gradient is non-finite too
    ClipSetup s(d);
    s.b.set_grad(tensor({INFINITY}).to(d));
    EXPECT_THROW_MSG(clip_grad_norm_(s.params(), 1.0, 2.0, true), ValueError, "The total norm of order 2.0");
  }
  {  // clip_grad_value_
    ClipSetup s(d);
    nn::utils::clip_grad_value_(s.params(), 3.5);
    EXPECT_EQ(s.a.grad().to_vector<float>(), (std::vector<float>{3, -3.5}));
    EXPECT_EQ(s.b.grad().to_vector<float>(), (std::vector<float>{3.5}));
    EXPECT_FALSE(s.no_grad.grad().defined());
  }
}

}  // namespace ember::test
