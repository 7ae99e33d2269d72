#pragma once
// Finite-difference gradient checks (docs/DESIGN.md, Test tolerances): float64 inputs, central
// differences with eps 1e-6, pass when |analytic - numeric| <= 1e-5 + 1e-3 * |numeric|.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

using TensorFn = std::function<Tensor(const std::vector<Tensor>&)>;

/// Checks d(sum(f(inputs) * w))/d(inputs) for a fixed random weight w. Inputs must be
/// contiguous float64 CPU leaves; those with requires_grad are checked.
::testing::AssertionResult gradcheck(const TensorFn& f, const std::vector<Tensor>& inputs, double eps = 1e-6,
                                     double atol = 1e-5, double rtol = 1e-3);

/// A float64 CPU leaf of shape with values uniform in [lo, hi), requiring grad.
Tensor leaf(const Shape& shape, double lo = -1.0, double hi = 1.0);

}  // namespace ember::test
