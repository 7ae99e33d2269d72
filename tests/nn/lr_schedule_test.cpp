// LambdaLR, LinearLR, CosineAnnealingLR and the linear warmup schedule: their lr sequences
// against values worked out by hand from PyTorch's (and Hugging Face's) formulas, their
// argument checks and state_dict round trips through safetensors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;

namespace {

Tensor fresh_param() { return zeros({2}).requires_grad_(); }

// The lr after construction and after each of steps - 1 further step() calls.
std::vector<double> lr_sequence(nn::LRScheduler& sched, nn::Optimizer& opt, int steps) {
  std::vector<double> lrs;
  for (int e = 0; e < steps; ++e) {
    if (e) sched.step();
    lrs.push_back(sched.get_last_lr()[0]);
    EXPECT_EQ(opt.param_groups()[0].lr(), lrs.back()) << "epoch " << e;
  }
  return lrs;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-12) << "epoch " << i;
}

// Steps sched a few times, restores its state into `fresh` (built with other settings on a
// second optimizer that took the first one's state) and checks that both then agree.
void expect_round_trip(nn::LRScheduler& sched, nn::Optimizer& opt, nn::LRScheduler& fresh,
                       nn::Optimizer& opt2, int before, int after) {
  for (int e = 0; e < before; ++e) sched.step();
  opt2.load_state_dict(opt.state_dict());
  fresh.load_state_dict(nn::decode_safetensors(nn::encode_safetensors(sched.state_dict())).tensors);
  EXPECT_EQ(fresh.last_epoch(), sched.last_epoch());
  EXPECT_EQ(fresh.get_last_lr(), sched.get_last_lr());
  for (int e = 0; e < after; ++e) {
    sched.step();
    fresh.step();
    EXPECT_EQ(fresh.get_last_lr(), sched.get_last_lr()) << "step " << e;
    EXPECT_EQ(opt2.param_groups()[0].lr(), opt.param_groups()[0].lr()) << "step " << e;
  }
}

}  // namespace

TEST(LambdaLR, MultipliesTheInitialLrOfEveryGroup) {
  Tensor p = fresh_param(), q = fresh_param();
  nn::SGD opt({nn::ParamGroup({p}, {{"lr", 0.1}}), nn::ParamGroup({q}, {{"lr", 1.0}})}, {0.5});
  nn::LambdaLR sched(opt, [](int64_t e) { return std::pow(0.5, static_cast<double>(e)); });
  EXPECT_EQ(sched.get_last_lr(), (std::vector<double>{0.1, 1.0}));
  sched.step();
  sched.step();
  EXPECT_EQ(sched.get_last_lr(), (std::vector<double>{0.025, 0.25}));
  EXPECT_EQ(opt.param_groups()[1].lr(), 0.25);
  EXPECT_THROW_MSG(nn::LambdaLR(opt, nullptr), ValueError, "LambdaLR: lr_lambda must be a function");
}

TEST(LambdaLR, StateDictLeavesTheFunctionOut) {
  Tensor p = fresh_param(), q = fresh_param();
  nn::SGD opt({p}, {1.0}), opt2({q}, {1.0});
  auto lambda = [](int64_t e) { return 1.0 / static_cast<double>(e + 1); };
  nn::LambdaLR sched(opt, lambda), fresh(opt2, lambda);
  EXPECT_EQ(sched.state_dict().size(), 3u);  // last_epoch, base_lrs.0, last_lr.0
  expect_round_trip(sched, opt, fresh, opt2, 3, 4);
  EXPECT_DOUBLE_EQ(sched.get_last_lr()[0], 1.0 / 8);
}

TEST(LinearLR, RampsFromAThirdOverFiveSteps) {
  Tensor p = fresh_param();
  nn::SGD opt({p}, {1.0});
  nn::LinearLR sched(opt);  // start_factor 1/3, end_factor 1, total_iters 5
  // 1/3, 7/15, 9/15, 11/15, 13/15, 1, then it stays.
  expect_near_all(lr_sequence(sched, opt, 7), {1.0 / 3, 7.0 / 15, 9.0 / 15, 11.0 / 15, 13.0 / 15, 1.0, 1.0});
}

TEST(LinearLR, DecaysToTheEndFactor) {
  Tensor p = fresh_param();
  nn::SGD opt({p}, {0.5});
  nn::LinearLR sched(opt, 0.5, 0.0, 4);
  expect_near_all(lr_sequence(sched, opt, 6), {0.25, 0.1875, 0.125, 0.0625, 0.0, 0.0});
  EXPECT_EQ(sched.start_factor(), 0.5);
  EXPECT_EQ(sched.end_factor(), 0.0);
  EXPECT_EQ(sched.total_iters(), 4);
}

TEST(LinearLR, RejectsFactorsOutsideTheirRanges) {
  Tensor p = fresh_param();
  nn::SGD opt({p}, {1.0});
  EXPECT_THROW_MSG(
      nn::LinearLR(opt, 0.0), ValueError,
      "LinearLR: starting multiplicative factor expected to be greater than 0 and less or equal to 1, "
      "got 0");
  EXPECT_THROW_MSG(nn::LinearLR(opt, 1.5), ValueError, "LinearLR: starting multiplicative factor expected");
  EXPECT_THROW_MSG(nn::LinearLR(opt, 0.5, 1.5), ValueError,
                   "LinearLR: ending multiplicative factor expected to be between 0 and 1, got 1.5");
  EXPECT_THROW_MSG(nn::LinearLR(opt, 0.5, -0.1), ValueError, "LinearLR: ending multiplicative factor");
  EXPECT_THROW_MSG(nn::LinearLR(opt, 0.5, 1.0, -1), ValueError, "LinearLR: total_iters must be >= 0, got -1");
  EXPECT_EQ(opt.param_groups()[0].lr(), 1.0);  // a rejected schedule leaves the lr alone
}

TEST(LinearLR, StateDictResumesTheSchedule) {
  Tensor p = fresh_param(), q = fresh_param();
  nn::SGD opt({p}, {1.0}), opt2({q}, {1.0});
  nn::LinearLR sched(opt, 0.25, 1.0, 6), fresh(opt2, 1.0, 0.5, 2);
  expect_round_trip(sched, opt, fresh, opt2, 3, 5);
  EXPECT_EQ(fresh.start_factor(), 0.25);
  EXPECT_EQ(fresh.total_iters(), 6);
  nn::StateDict bad = sched.state_dict();
  bad.insert("start_factor", scalar_tensor(2.0, kFloat64));
  EXPECT_THROW_MSG(fresh.load_state_dict(bad), ValueError,
                   "LinearLR load_state_dict: starting multiplicative factor expected");
}

TEST(CosineAnnealingLR, FollowsPyTorchsRecursionPastTMax) {
  Tensor p = fresh_param();
  nn::SGD opt({p}, {1.0});
  nn::CosineAnnealingLR sched(opt, 4);
  // (1 + cos(pi e / 4)) / 2 down to 0 at T_max, then back up: the step out of the trough
  // adds (1 - cos(pi / 4)) / 2, and the cosine repeats with period 2 T_max.
  const double pi = std::acos(-1.0);
  const double a = (1 + std::cos(pi / 4)) / 2, b = (1 - std::cos(pi / 4)) / 2;  // 0.8536, 0.1464
  expect_near_all(lr_sequence(sched, opt, 11), {1.0, a, 0.5, b, 0.0, b, 0.5, a, 1.0, a, 0.5});
  EXPECT_NEAR(a, 0.8535533905932737, 1e-15);
}

TEST(CosineAnnealingLR, AnnealsDownToEtaMin) {
  Tensor p = fresh_param();
  nn::SGD opt({p}, {1.0});
  nn::CosineAnnealingLR sched(opt, 4, 0.1);
  expect_near_all(lr_sequence(sched, opt, 9), {1.0, 0.8681980515339464, 0.55, 0.23180194846605368, 0.1,
                                               0.2318019484660536, 0.55, 0.8681980515339467, 1.0});
  EXPECT_THROW_MSG(nn::CosineAnnealingLR(opt, 0), ValueError, "CosineAnnealingLR: T_max must be >= 1, got 0");
}

TEST(CosineAnnealingLR, StateDictResumesTheSchedule) {
  Tensor p = fresh_param(), q = fresh_param();
  nn::SGD opt({p}, {1.0}), opt2({q}, {1.0});
  nn::CosineAnnealingLR sched(opt, 3, 0.05), fresh(opt2, 10);
  expect_round_trip(sched, opt, fresh, opt2, 4, 6);
  EXPECT_EQ(fresh.T_max(), 3);
  EXPECT_EQ(fresh.eta_min(), 0.05);
}

TEST(LinearScheduleWithWarmup, WarmsUpThenDecaysToZero) {
  Tensor p = fresh_param();
  nn::SGD opt({p}, {1.0});
  std::unique_ptr<nn::LambdaLR> sched = nn::get_linear_schedule_with_warmup(opt, 2, 5);
  // 0/2, 1/2, then (5 - s) / 3 for s = 2..4, then 0 and it stays 0.
  expect_near_all(lr_sequence(*sched, opt, 7), {0.0, 0.5, 1.0, 2.0 / 3, 1.0 / 3, 0.0, 0.0});
  EXPECT_THROW_MSG(nn::get_linear_schedule_with_warmup(opt, -1, 5), ValueError,
                   "get_linear_schedule_with_warmup: num_warmup_steps must be >= 0, got -1");
}

TEST(LinearScheduleWithWarmup, NoWarmupAndStateDictRoundTrip) {
  Tensor p = fresh_param(), q = fresh_param();
  nn::SGD opt({p}, {0.3}), opt2({q}, {0.3});
  auto no_warmup = nn::get_linear_schedule_with_warmup(opt, 0, 4);
  expect_near_all(lr_sequence(*no_warmup, opt, 5), {0.3, 0.225, 0.15, 0.075, 0.0});
  Tensor r = fresh_param(), s = fresh_param();
  nn::SGD opt3({r}, {1.0}), opt4({s}, {1.0});
  auto sched = nn::get_linear_schedule_with_warmup(opt3, 3, 10);
  auto fresh = nn::get_linear_schedule_with_warmup(opt4, 3, 10);
  expect_round_trip(*sched, opt3, *fresh, opt4, 2, 6);
}
