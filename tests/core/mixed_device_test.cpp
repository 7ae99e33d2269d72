// Generated from the op catalog: every op taking two or more tensors, with one argument on
// another device, throws DeviceMismatchError naming the op, both arguments and devices.
#include <gtest/gtest.h>

#include "support/emulated_cuda.h"
#include "support/expect.h"
#include "support/op_catalog.h"

using namespace ember;
using ember::test::OpSpec;

namespace {
class MixedDevice : public ::testing::TestWithParam<OpSpec> {};

std::string label(const ::testing::TestParamInfo<OpSpec>& info) { return info.param.label; }

std::vector<OpSpec> multi_tensor_ops() {
  std::vector<OpSpec> out;
  for (const auto& s : ember::test::op_catalog())
    if (s.args.size() >= 2 && !s.crosses_devices) out.push_back(s);
  return out;
}
}  // namespace

TEST_P(MixedDevice, EveryArgumentPairIsChecked) {
  const OpSpec& spec = GetParam();
  ember::test::EmulatedCuda emu(2);
  const std::pair<Device, Device> pairs[] = {
      {Device::cpu(), Device::cuda(0)}, {Device::cuda(0), Device::cpu()}, {Device::cuda(0), Device::cuda(1)}};
  for (const auto& [ref, other] : pairs) {
    for (size_t moved = 1; moved < spec.args.size(); ++moved) {
      manual_seed(0);
      std::vector<Tensor> args = ember::test::make_args(spec, ref, kFloat32);
      args[moved] = args[moved].to(other);
      const std::string expected = "tensors on different devices: " + spec.op + " got " + spec.args[0].name +
                                   " on " + ref.str() + " and " + spec.args[moved].name + " on " +
                                   other.str();
      EXPECT_THROW_LINE(spec.fn(args), DeviceMismatchError, expected);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Catalog, MixedDevice, ::testing::ValuesIn(multi_tensor_ops()), label);

TEST(MixedDevice, SameOpsWorkOnOneEmulatedDevice) {
  ember::test::EmulatedCuda emu(2);
  for (const OpSpec& spec : ember::test::op_catalog()) {
    manual_seed(0);
    std::vector<Tensor> cpu_args = ember::test::make_args(spec, Device::cpu(), kFloat32);
    std::vector<Tensor> dev_args;
    for (const Tensor& t : cpu_args) dev_args.push_back(t.to(Device::cuda(1)));
    if (spec.random) manual_seed(11);  // both calls draw the same numbers
    Tensor a = spec.fn(cpu_args);
    if (spec.random) manual_seed(11);
    Tensor b = spec.fn(dev_args);
    EXPECT_EQ(b.device(), Device::cuda(1)) << spec.label;
    EXPECT_EQ(a.to_vector<double>(), b.to_vector<double>()) << spec.label;
  }
}

TEST(MixedDevice, NamedParametersGetTheHint) {
  ember::test::EmulatedCuda emu(1);
  Tensor w = ones({3, 4});
  w.set_name("fc.weight");
  Tensor x = ones({2, 4}, Device::cuda(0));
  EXPECT_THROW_LINE(linear(x, w), DeviceMismatchError,
                    "tensors on different devices: linear got input on cuda:0 and weight (fc.weight) on "
                    "cpu; move the model with model.to(device) or the input with input.to(device)");
}
