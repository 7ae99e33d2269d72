// Generated from the op catalog: every differentiable op passes a float64 finite-difference
// check (docs/DESIGN.md, Test tolerances) on contiguous, strided and broadcast inputs.
#include <gtest/gtest.h>

#include "support/gradcheck.h"
#include "support/op_catalog.h"

using namespace ember;
using ember::test::OpSpec;

namespace {
class Gradcheck : public ::testing::TestWithParam<OpSpec> {};
std::string label(const ::testing::TestParamInfo<OpSpec>& info) { return info.param.label; }
std::vector<OpSpec> differentiable_ops() {
  std::vector<OpSpec> out;
  for (const auto& s : ember::test::op_catalog())
    if (s.differentiable && s.finite_differences) out.push_back(s);
  return out;
}
}  // namespace

TEST_P(Gradcheck, MatchesFiniteDifferences) {
  const OpSpec& spec = GetParam();
  manual_seed(7);
  std::vector<Tensor> args = ember::test::make_args(spec, Device::cpu(), kFloat64);
  for (size_t i = 0; i < args.size(); ++i)
    if (spec.args[i].grad && is_floating(args[i].dtype())) args[i].requires_grad_(true);
  auto fn = spec.fn;
  const bool random = spec.random;
  EXPECT_TRUE(ember::test::gradcheck(
      [&](const std::vector<Tensor>& a) {
        if (random) manual_seed(11);
        return fn(a);
      },
      args));
}

INSTANTIATE_TEST_SUITE_P(Catalog, Gradcheck, ::testing::ValuesIn(differentiable_ops()), label);
