#include "support/gradcheck.h"

#include <cmath>
#include <sstream>

namespace ember::test {
namespace {
double weighted_sum(const Tensor& out, const Tensor& w) {
  const auto o = out.to_vector<double>();
  const auto wv = w.to_vector<double>();
  double s = 0;
  for (size_t i = 0; i < o.size(); ++i) s += o[i] * wv[i];
  return s;
}
}  // namespace

Tensor leaf(const Shape& shape, double lo, double hi) {
  Tensor t = rand(shape, kFloat64) * (hi - lo) + lo;
  return t.detach().requires_grad_(true);
}

::testing::AssertionResult gradcheck(const TensorFn& f, const std::vector<Tensor>& inputs, double eps,
                                     double atol, double rtol) {
  for (const Tensor& x : inputs) {
    if (!x.requires_grad()) continue;
    if (x.dtype() != kFloat64 || !x.device().is_cpu() || !x.is_contiguous() || !x.is_leaf())
      return ::testing::AssertionFailure() << "gradcheck needs contiguous float64 CPU leaves";
    x.set_grad(Tensor());
  }
  Tensor out = f(inputs);
  // A fixed weight in [0.5, 1.5) so that every output element matters and none cancels.
  Tensor w = rand(out.shape(), TensorOptions(out.dtype())) + 0.5;
  if (!out.requires_grad()) return ::testing::AssertionFailure() << "output does not require grad";
  (out * w).sum().backward();

  for (size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& x = inputs[k];
    if (!x.requires_grad()) continue;
    Tensor g = x.grad();
    const std::vector<double> analytic =
        g.defined() ? g.to_vector<double>() : std::vector<double>(static_cast<size_t>(x.numel()), 0.0);
    double* p = x.data_ptr<double>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double orig = p[i];
      double plus, minus;
      {
        NoGradGuard ng;
        p[i] = orig + eps;
        plus = weighted_sum(f(inputs), w);
        p[i] = orig - eps;
        minus = weighted_sum(f(inputs), w);
        p[i] = orig;
      }
      const double numeric = (plus - minus) / (2 * eps);
      const double a = analytic[static_cast<size_t>(i)];
      if (!(std::abs(a - numeric) <= atol + rtol * std::abs(numeric)))
        return ::testing::AssertionFailure()
               << "input " << k << " element " << i << ": analytic " << a << " vs numeric " << numeric
               << " (shape " << shape_str(x.shape()) << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace ember::test
