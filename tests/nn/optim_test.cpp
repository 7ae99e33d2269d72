// Optimizers and schedulers against numbers computed by PyTorch 1.13 (torch.optim, float64,
// the same parameters and gradients), state round trips, and device moves.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;
using Rows = std::vector<std::vector<double>>;

namespace {

// The gradient of step t (0-based) used by the reference script.
Tensor grad_at(int t, Device device = Device::cpu()) {
  const double s = t + 1, q = t * t;
  return tensor({0.5 * s, -1.0 * s + 0.25 * q, 2.0 * s - 0.5 * q}, TensorOptions(kFloat64).device(device));
}

Tensor fresh_param(Device device = Device::cpu()) {
  Tensor p = tensor({1.0, -2.0, 3.0}, TensorOptions(kFloat64).device(device));
  return p.requires_grad_(true);
}

// Runs steps with the reference gradients; returns the parameter after each step.
Rows run(const std::function<std::unique_ptr<nn::Optimizer>(std::vector<Tensor>)>& make, int steps = 3) {
  Tensor p = fresh_param();
  auto opt = make({p});
  Rows out;
  for (int t = 0; t < steps; ++t) {
    p.set_grad(grad_at(t));
    opt->step();
    out.push_back(p.to_vector<double>());
  }
  return out;
}

void expect_rows(const Rows& got, const Rows& want, double tol = 1e-12) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    for (size_t j = 0; j < want[i].size(); ++j)
      EXPECT_NEAR(got[i][j], want[i][j], tol * (1 + std::abs(want[i][j])))
          << "step " << i << " element " << j;
}

template <class O, class Opts>
std::function<std::unique_ptr<nn::Optimizer>(std::vector<Tensor>)> maker(Opts o) {
  return [o](std::vector<Tensor> ps) { return std::make_unique<O>(std::move(ps), o); };
}

}  // namespace

TEST(SGD, PlainStep) {
  expect_rows(run(maker<nn::SGD>(nn::SGDOptions{0.1})),
              {{0.95, -1.9, 2.8}, {0.85, -1.725, 2.45}, {0.7, -1.525, 2.05}});
}

TEST(SGD, MomentumStartsAtTheFirstGradient) {
  expect_rows(run(maker<nn::SGD>(nn::SGDOptions{0.1, 0.9})),
              {{0.95, -1.9, 2.8}, {0.805, -1.635, 2.27}, {0.5245, -1.1965, 1.393}});
}

TEST(SGD, Dampening) {
  expect_rows(run(maker<nn::SGD>(nn::SGDOptions{0.1, 0.9, 0.5})),
              {{0.95, -1.9, 2.8}, {0.855, -1.7225, 2.445}, {0.6945, -1.46275, 1.9255}});
}

TEST(SGD, Nesterov) {
  nn::SGDOptions o{0.1, 0.9};
  o.nesterov = true;
  expect_rows(run(maker<nn::SGD>(o)),
              {{0.905, -1.81, 2.62}, {0.6745, -1.3965, 1.793}, {0.27205, -0.80185, 0.6037}});
}

TEST(SGD, WeightDecay) {
  nn::SGDOptions o{0.1, 0.9};
  o.weight_decay = 0.01;
  expect_rows(
      run(maker<nn::SGD>(o)),
      {{0.949, -1.898, 2.797}, {0.802151, -1.629302, 2.261503}, {0.519184749, -1.185844498, 1.377294197}});
}

TEST(SGD, InvalidOptions) {
  Tensor p = fresh_param();
  EXPECT_THROW_MSG(nn::SGD({p}, {-0.1}), ValueError, "SGD: invalid learning rate: -0.1");
  nn::SGDOptions o{0.1};
  o.nesterov = true;
  EXPECT_THROW_MSG(nn::SGD({p}, o), ValueError,
                   "SGD: Nesterov momentum requires a momentum and zero dampening");
  EXPECT_THROW_MSG(nn::SGD(std::vector<Tensor>{}, {0.1}), ValueError, "SGD: got an empty parameter list");
  EXPECT_THROW_MSG(nn::SGD({p, p}, {0.1}), ValueError, "SGD: a parameter appears in more than one place");
  EXPECT_THROW_MSG(nn::SGD({p * 2.0}, {0.1}), ValueError, "SGD: can't optimize a non-leaf tensor");
  EXPECT_THROW_MSG(nn::SGD({zeros({2}, kInt64)}, {0.1}), DTypeError,
                   "SGD: can only optimize float32 or float64");
  EXPECT_THROW_MSG(
      nn::SGD(std::vector<nn::ParamGroup>{nn::ParamGroup({p}, {{"lr", 1}, {"betas", 2}})}, {0.1}), ValueError,
      "SGD: unknown option \"betas\"");
}

TEST(Adam, BiasCorrectedSteps) {
  expect_rows(run(maker<nn::Adam>(nn::AdamOptions{0.1})),
              {{0.900000002, -1.900000001, 2.9000000005},
               {0.8034818006385094, -1.8021512158040391, 2.8021512149608063},
               {0.7076816791153657, -1.7034675557795906, 2.703467554635431}});
}

TEST(Adam, L2WeightDecayInTheGradient) {
  expect_rows(run(maker<nn::Adam>(nn::AdamOptions{0.1, 0.8, 0.99, 1e-6, 0.1})),
              {{0.9000001666663889, -1.900000083333264, 2.900000043478242},
               {0.8009946861964712, -1.8002297192062782, 2.8003400258753786},
               {0.7011574955768449, -1.6991611148440473, 2.6993260595734636}});
}

TEST(AdamW, DecoupledWeightDecay) {
  nn::AdamWOptions o;
  o.lr = 0.1;
  o.weight_decay = 0.1;
  expect_rows(run(maker<nn::AdamW>(o)), {{0.890000002, -1.880000001, 2.8700000004999997},
                                         {0.7845818006185094, -1.7633512157940392, 2.743451214955806},
                                         {0.6809358610891806, -1.6470340436116502, 2.6173330424808725}});
  EXPECT_EQ(nn::AdamWOptions{}.weight_decay, 1e-2);  // PyTorch's default
}

TEST(Adam, InvalidOptions) {
  Tensor p = fresh_param();
  EXPECT_THROW_MSG(nn::Adam({p}, nn::AdamOptions{0.1, 1.0}), ValueError,
                   "Adam: invalid beta parameter at index 0: 1");
  EXPECT_THROW_MSG(nn::AdamW({p}, nn::AdamWOptions{0.1, 0.9, 0.999, -1}), ValueError,
                   "AdamW: invalid epsilon value: -1");
}

TEST(Optimizer, Float32StepsTrackFloat64) {
  // The kernels compute in the parameter's dtype; float32 stays within float32 rounding.
  for (int kind = 0; kind < 2; ++kind) {
    Tensor p64 = fresh_param(), p32 = fresh_param().to(kFloat32).detach().requires_grad_(true);
    std::unique_ptr<nn::Optimizer> a, b;
    if (kind == 0) {
      a = std::make_unique<nn::SGD>(std::vector<Tensor>{p64}, nn::SGDOptions{0.1, 0.9});
      b = std::make_unique<nn::SGD>(std::vector<Tensor>{p32}, nn::SGDOptions{0.1, 0.9});
    } else {
      a = std::make_unique<nn::Adam>(std::vector<Tensor>{p64}, nn::AdamOptions{0.1});
      b = std::make_unique<nn::Adam>(std::vector<Tensor>{p32}, nn::AdamOptions{0.1});
    }
    for (int t = 0; t < 3; ++t) {
      p64.set_grad(grad_at(t));
      p32.set_grad(grad_at(t).to(kFloat32));
      a->step();
      b->step();
    }
    EXPECT_TRUE(ember::test::values_near(p32, p64.to_vector<double>(), {3}, 1e-6)) << kind;
  }
}

TEST(Optimizer, StepSkipsParamsWithoutGradAndBumpsVersions) {
  Tensor a = fresh_param(), b = fresh_param();
  nn::SGD opt({a, b}, {0.1, 0.9});
  a.set_grad(grad_at(0));
  const uint64_t va = a.version(), vb = b.version();
  opt.step();
  EXPECT_GT(a.version(), va);
  EXPECT_EQ(b.version(), vb);
  EXPECT_EQ(b.to_vector<double>(), (std::vector<double>{1, -2, 3}));
  // b's first gradient starts its momentum at that gradient while a continues.
  a.set_grad(grad_at(1));
  b.set_grad(grad_at(0));
  opt.step();
  EXPECT_TRUE(ember::test::values_near(b, {0.95, -1.9, 2.8}, {3}, 1e-12));
  EXPECT_TRUE(ember::test::values_near(a, {0.805, -1.635, 2.27}, {3}, 1e-12));
  opt.zero_grad();
  EXPECT_FALSE(a.grad().defined());
  EXPECT_EQ(opt.state_dict().keys(),
            (std::vector<std::string>{"param_groups.0.params", "param_groups.0.dampening",
                                      "param_groups.0.lr", "param_groups.0.momentum",
                                      "param_groups.0.nesterov", "param_groups.0.weight_decay",
                                      "state.0.momentum_buffer", "state.1.momentum_buffer"}));
}

TEST(Optimizer, ParamGroupsHaveTheirOwnOptions) {
  Tensor a = fresh_param(), b = fresh_param();
  nn::SGD opt(std::vector<nn::ParamGroup>{nn::ParamGroup({a}), nn::ParamGroup({b}, {{"lr", 0.2}})}, {0.1});
  a.set_grad(grad_at(0));
  b.set_grad(grad_at(0));
  opt.step();
  EXPECT_TRUE(ember::test::values_near(a, {0.95, -1.9, 2.8}, {3}, 1e-12));
  EXPECT_TRUE(ember::test::values_near(b, {0.9, -1.8, 2.6}, {3}, 1e-12));
  EXPECT_EQ(opt.param_groups()[1].lr(), 0.2);
  EXPECT_THROW_MSG(opt.add_param_group(nn::ParamGroup({a})), ValueError, "SGD: a parameter appears");
}

namespace {
// Two optimizers, one continued and one rebuilt from the first's state after two steps,
// take the same next steps.
template <class Make>
void expect_resume_exactly(Make make) {
  Tensor p = fresh_param();
  auto opt = make(p);
  for (int t = 0; t < 2; ++t) {
    p.set_grad(grad_at(t));
    opt->step();
  }
  const nn::StateDict saved = opt->state_dict();
  std::vector<std::vector<double>> snapshot;
  for (const auto& kv : saved) snapshot.push_back(kv.second.to_vector<double>());
  Tensor q = p.detach().clone().requires_grad_(true);
  auto resumed = make(q);
  resumed->load_state_dict(saved);
  for (int t = 2; t < 5; ++t) {
    p.set_grad(grad_at(t));
    q.set_grad(grad_at(t));
    opt->step();
    resumed->step();
    EXPECT_EQ(q.to_vector<double>(), p.to_vector<double>()) << "step " << t;
  }
  // The saved state is a copy: stepping either optimizer did not change it.
  size_t i = 0;
  for (const auto& kv : saved) EXPECT_EQ(kv.second.to_vector<double>(), snapshot[i++]) << kv.first;
}
}  // namespace

TEST(Optimizer, StateDictRoundTripResumesExactly) {
  expect_resume_exactly([](Tensor p) {
    nn::SGDOptions o{0.1, 0.9, 0.1, 0.01};
    return std::make_unique<nn::SGD>(std::vector<Tensor>{p}, o);
  });
  expect_resume_exactly(
      [](Tensor p) { return std::make_unique<nn::Adam>(std::vector<Tensor>{p}, nn::AdamOptions{0.1}); });
  expect_resume_exactly(
      [](Tensor p) { return std::make_unique<nn::AdamW>(std::vector<Tensor>{p}, nn::AdamWOptions{0.1}); });
}

TEST(Optimizer, StateDictFormatAndRoundTripThroughSafetensors) {
  Tensor p = fresh_param();
  nn::Adam opt({p}, nn::AdamOptions{0.1});
  p.set_grad(grad_at(0));
  opt.step();
  const nn::StateDict sd = opt.state_dict();
  EXPECT_EQ(sd.at("state.0.step").dtype(), kFloat64);
  EXPECT_EQ(sd.at("state.0.step").dim(), 0);
  EXPECT_EQ(sd.at("state.0.step").item<double>(), 1);
  EXPECT_EQ(sd.at("param_groups.0.lr").item<double>(), 0.1);
  EXPECT_EQ(sd.at("param_groups.0.params").to_vector<int64_t>(), std::vector<int64_t>{0});
  EXPECT_EQ(sd.at("state.0.exp_avg").shape(), (Shape{3}));
  const nn::StateDict back = nn::decode_safetensors(nn::encode_safetensors(sd)).tensors;
  Tensor q = p.detach().clone().requires_grad_(true);
  nn::Adam other({q}, nn::AdamOptions{0.5});
  other.load_state_dict(back);
  EXPECT_EQ(other.param_groups()[0].lr(), 0.1);
  p.set_grad(grad_at(1));
  q.set_grad(grad_at(1));
  opt.step();
  other.step();
  EXPECT_EQ(q.to_vector<double>(), p.to_vector<double>());
}

TEST(Optimizer, LoadStateDictRejectsAnotherLayout) {
  Tensor p = fresh_param(), r = fresh_param();
  nn::SGD opt({p}, {0.1, 0.9});
  p.set_grad(grad_at(0));
  opt.step();
  nn::StateDict sd = opt.state_dict();
  nn::SGD two({p, r}, {0.1, 0.9});
  EXPECT_THROW_MSG(two.load_state_dict(sd), ValueError,
                   "SGD load_state_dict: parameter group 0 has 2 parameters but the state dict's");
  nn::StateDict extra = sd;
  extra.insert("state.0.exp_avg", zeros({3}, kFloat64));
  EXPECT_THROW_MSG(opt.load_state_dict(extra), ValueError,
                   "SGD load_state_dict: unexpected key \"state.0.exp_avg\"");
  nn::StateDict bad_shape = sd;
  bad_shape.insert("state.0.momentum_buffer", zeros({4}, kFloat64));
  EXPECT_THROW_MSG(
      opt.load_state_dict(bad_shape), ShapeError,
      "SGD load_state_dict: \"state.0.momentum_buffer\" has shape [4] but its parameter has shape [3]");
  nn::StateDict missing;
  for (const auto& [k, v] : sd)
    if (k != "param_groups.0.momentum") missing.insert(k, v);
  EXPECT_THROW_MSG(opt.load_state_dict(missing), ValueError,
                   "SGD load_state_dict: missing keys: param_groups.0.momentum");
  nn::StateDict junk = sd;
  junk.insert("state.x.momentum_buffer", zeros({3}));
  EXPECT_THROW_MSG(opt.load_state_dict(junk), ValueError, "SGD load_state_dict: unexpected key");
  nn::StateDict far = sd;
  far.insert("state.7.momentum_buffer", zeros({3}));
  EXPECT_THROW_MSG(opt.load_state_dict(far), ValueError,
                   "SGD load_state_dict: \"state.7.momentum_buffer\" refers to parameter 7");
}

TEST(Optimizer, StateFollowsParametersMovedByModuleTo) {
  ember::test::EmulatedCuda emu(1);
  manual_seed(5);
  nn::Linear cpu_model(3, 2);
  manual_seed(5);
  nn::Linear moved_model(3, 2);
  nn::SGD cpu_opt(cpu_model.parameters(), {0.1, 0.9});
  nn::SGD moved_opt(moved_model.parameters(), {0.1, 0.9});  // created before the move
  const Tensor x = tensor({{1, 2, 3}, {-1, 0.5, 2}});
  auto train_step = [&](nn::Module& m, nn::Optimizer& opt, const Tensor& input) {
    opt.zero_grad();
    Tensor loss = ember::square(m.forward(input)).mean();
    loss.backward();
    opt.step();
    return loss.item<double>();
  };
  EXPECT_EQ(train_step(moved_model, moved_opt, x), train_step(cpu_model, cpu_opt, x));
  moved_model.to("cuda:0");
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(train_step(moved_model, moved_opt, x.to("cuda:0")), train_step(cpu_model, cpu_opt, x)) << i;
  const nn::StateDict state = moved_opt.state_dict();
  EXPECT_EQ(state.at("state.0.momentum_buffer").device(), Device::cuda(0));
  EXPECT_EQ(moved_model.weight.to_vector<float>(), cpu_model.weight.to_vector<float>());
}

TEST(StepLR, DecaysEveryStepSizeEpochs) {
  Tensor p = fresh_param();
  nn::SGD opt({p}, {1.0});
  nn::StepLR sched(opt, 2, 0.5);
  std::vector<double> lrs;
  for (int e = 0; e < 6; ++e) {
    lrs.push_back(sched.get_last_lr()[0]);
    EXPECT_EQ(opt.param_groups()[0].lr(), lrs.back());
    opt.step();
    sched.step();
  }
  EXPECT_EQ(lrs, (std::vector<double>{1.0, 1.0, 0.5, 0.5, 0.25, 0.25}));  // PyTorch 1.13
  EXPECT_THROW_MSG(nn::StepLR(opt, 0), ValueError, "StepLR: step_size must be >= 1, got 0");
}

TEST(StepLR, StateDictResumesTheSchedule) {
  Tensor p = fresh_param(), q = fresh_param();
  nn::SGD opt({p}, {1.0});
  nn::StepLR sched(opt, 3, 0.1);
  for (int e = 0; e < 4; ++e) sched.step();
  nn::SGD opt2({q}, {1.0});
  opt2.load_state_dict(opt.state_dict());
  nn::StepLR sched2(opt2, 10, 0.9);
  sched2.load_state_dict(nn::decode_safetensors(nn::encode_safetensors(sched.state_dict())).tensors);
  EXPECT_EQ(sched2.last_epoch(), 4);
  EXPECT_EQ(sched2.step_size(), 3);
  for (int e = 0; e < 5; ++e) {
    sched.step();
    sched2.step();
    EXPECT_EQ(sched2.get_last_lr(), sched.get_last_lr());
    EXPECT_EQ(opt2.param_groups()[0].lr(), opt.param_groups()[0].lr());
  }
  EXPECT_THROW_MSG(sched2.load_state_dict(nn::StateDict{}), ValueError,
                   "lr scheduler load_state_dict: expected 5 entries");
}

TEST(Optimizer, StateFollowsADTypeChange) {
  manual_seed(6);
  nn::Linear model(3, 2);
  nn::SGD opt(model.parameters(), {0.1, 0.9});
  const Tensor x = tensor({{1, 2, 3}}, kFloat32);
  auto step = [&](const Tensor& input) {
    opt.zero_grad();
    model(input).sum().backward();
    opt.step();
  };
  step(x);
  const std::vector<double> buf32 = opt.state_dict().at("state.0.momentum_buffer").to_vector<double>();
  model.to(kFloat64);
  const std::vector<double> w = model.weight.to_vector<double>();
  step(x.to(kFloat64));
  const Tensor buf = opt.state_dict().at("state.0.momentum_buffer");
  EXPECT_EQ(buf.dtype(), kFloat64);
  // The gradient of sum(W x + b) with respect to W is x in every row: buf = 0.9 buf + x.
  const std::vector<double> g{1, 2, 3, 1, 2, 3};
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_NEAR(buf.to_vector<double>()[i], 0.9 * buf32[i] + g[i], 1e-6);
    EXPECT_NEAR(model.weight.to_vector<double>()[i], w[i] - 0.1 * (0.9 * buf32[i] + g[i]), 1e-6);
  }
}

// A step count that is not a whole number in [0, 2^53] used to load and then fail (or corrupt
// the bias correction) at the next step(); it is refused on load, with nothing changed.
TEST(Optimizer, LoadStateDictValidatesAdamStep) {
  Tensor p = fresh_param();
  nn::Adam opt({p}, nn::AdamOptions{0.1});
  p.set_grad(grad_at(0));
  opt.step();
  const nn::StateDict sd = opt.state_dict();
  const std::vector<std::pair<double, std::string>> bad = {{std::nan(""), "nan"},
                                                           {1e300, "1e+300"},
                                                           {-1, "-1"},
                                                           {2.5, "2.5"},
                                                           {std::numeric_limits<double>::infinity(), "inf"},
                                                           {9007199254740994.0, "9.0072e+15"}};
  for (const auto& [value, text] : bad) {
    nn::StateDict corrupt = sd;
    corrupt.insert("state.0.step", scalar_tensor(value, kFloat64));
    EXPECT_THROW_MSG(
        opt.load_state_dict(corrupt), ValueError,
        "Adam load_state_dict: \"state.0.step\" must be a whole number in [0, 2^53], got " + text);
  }
  EXPECT_EQ(opt.state_dict().at("state.0.step").item<double>(), 1);  // unchanged
  nn::StateDict fine = sd;
  fine.insert("state.0.step", scalar_tensor(7, kFloat64));
  opt.load_state_dict(fine);
  EXPECT_EQ(opt.state_dict().at("state.0.step").item<double>(), 7);
}
