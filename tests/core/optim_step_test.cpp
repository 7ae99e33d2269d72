// The core optimizer steps nn's optimizers call, set_data (Module::to's in-place move) and
// check_device_usable: the public doors that keep nn off the Backend interface.
#include <gtest/gtest.h>

#include "ember/extend/optim_steps.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;

TEST(OptimStep, SgdUpdatesInPlaceBumpsVersionsAndChecksDevices) {
  Tensor p = tensor({1, 2}, kFloat32), g = tensor({0.5, -1});
  const uint64_t v0 = p.version();
  SgdParams sp;
  sp.lr = 0.1;
  sgd_step_({p}, {g}, {}, sp);
  EXPECT_TRUE(test::values_near(p, {0.95, 2.1}, {2}));
  EXPECT_GT(p.version(), v0);
  EXPECT_THROW_LINE(sgd_step_({p, p}, {g}, {}, sp), ValueError,
                    "sgd_step_: grads has 1 tensors for 2 parameters");
  test::EmulatedCuda emu(1);
  const Tensor g_cuda = g.to("cuda:0");
  EXPECT_THROW_LINE(sgd_step_({p}, {g_cuda}, {}, sp), DeviceMismatchError,
                    "tensors on different devices: sgd_step_ got params[0] on cpu and grads[0] on cuda:0");
  AdamParams ap;
  Tensor m = zeros({2}), v = zeros({2});
  EXPECT_THROW_LINE(
      adam_step_({p}, {g}, {m}, {v.to("cuda:0")}, ap), DeviceMismatchError,
      "tensors on different devices: adam_step_ got params[0] on cpu and exp_avg_sq[0] on cuda:0");
  adam_step_({p}, {g}, {m}, {v}, ap);  // first Adam step moves each weight by lr against the gradient's sign
  EXPECT_TRUE(test::values_near(p, {0.95 - 1e-3, 2.1 + 1e-3}, {2}));
}

TEST(SetData, PointsEveryHandleAtNewValuesAndKeepsIdentity) {
  Tensor w = zeros({2, 2}).requires_grad_(true);
  w.set_name("fc.weight");
  const Tensor alias = w;
  set_data(w, ones({2, 2}, kFloat64));
  EXPECT_EQ(alias.dtype(), kFloat64);
  EXPECT_EQ(alias.to_vector<double>(), (std::vector<double>{1, 1, 1, 1}));
  EXPECT_EQ(alias.name(), "fc.weight");
  EXPECT_TRUE(alias.requires_grad());
  EXPECT_EQ(alias.identity(), w.identity());
  EXPECT_THROW_LINE(set_data(w, ones({4})), ShapeError,
                    "set_data: shape [4] does not match the tensor's [2, 2]");
}

TEST(CheckDeviceUsable, SaysWhatUsingTheDeviceWould) {
  check_device_usable(Device::cpu());
  test::EmulatedCuda emu(1);
  check_device_usable(Device::cuda(0));
  EXPECT_THROW_LINE(check_device_usable(Device::cuda(2)), DeviceError,
                    "cuda:2 requested, but only 1 CUDA device is available");
}
