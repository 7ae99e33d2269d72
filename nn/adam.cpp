#include <cmath>

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/extend/optim_steps.h"
#include "ember/nn/optim.h"

namespace ember::nn {
namespace {
template <class O>
std::map<std::string, double> to_map(const O& o) {
  return {
      {"lr", o.lr}, {"beta1", o.beta1}, {"beta2", o.beta2}, {"eps", o.eps}, {"weight_decay", o.weight_decay}};
}
}  // namespace

Adam::Adam(std::vector<Tensor> params, AdamOptions o) : Adam({ParamGroup(std::move(params))}, o) {}
Adam::Adam(std::vector<ParamGroup> groups, AdamOptions defaults)
    : Adam("Adam", std::move(groups), to_map(defaults)) {}
Adam::Adam(std::string name, std::vector<ParamGroup> groups, std::map<std::string, double> defaults)
    : Optimizer(std::move(name), std::move(defaults)) {
  init_groups(std::move(groups));
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions o) : AdamW({ParamGroup(std::move(params))}, o) {}
AdamW::AdamW(std::vector<ParamGroup> groups, AdamWOptions defaults)
    : Adam("AdamW", std::move(groups), to_map(defaults)) {}

void Adam::check_options(const std::map<std::string, double>& o) const {
  const double lr = o.at("lr"), eps = o.at("eps"), b1 = o.at("beta1"), b2 = o.at("beta2"),
               wd = o.at("weight_decay");
  if (!(lr >= 0)) raise<ValueError>(name(), ": invalid learning rate: ", lr);
  if (!(eps >= 0)) raise<ValueError>(name(), ": invalid epsilon value: ", eps);
  if (!(b1 >= 0 && b1 < 1)) raise<ValueError>(name(), ": invalid beta parameter at index 0: ", b1);
  if (!(b2 >= 0 && b2 < 1)) raise<ValueError>(name(), ": invalid beta parameter at index 1: ", b2);
  if (!(wd >= 0)) raise<ValueError>(name(), ": invalid weight_decay value: ", wd);
}

void Adam::update(const ParamGroup& group, std::vector<Slot>& slots) {
  AdamParams p;
  p.lr = group.options.at("lr");
  p.beta1 = group.options.at("beta1");
  p.beta2 = group.options.at("beta2");
  p.eps = group.options.at("eps");
  p.weight_decay = group.options.at("weight_decay");
  p.decoupled_weight_decay = decoupled();
  // Bias correction depends on each parameter's own step count: one call per device and step.
  std::map<std::pair<std::string, int64_t>, std::vector<const Slot*>> calls;
  for (Slot& s : slots) {
    auto& b = s.state->buffers;
    if (!b.count("exp_avg")) {
      b["exp_avg"] = zeros_like(s.param);
      b["exp_avg_sq"] = zeros_like(s.param);
    }
    calls[{s.param.device().str(), static_cast<int64_t>(std::llround(s.state->step)) + 1}].push_back(&s);
  }
  for (const auto& [key, list] : calls) {
    std::vector<Tensor> params, grads, m, v;
    for (const Slot* s : list) {
      params.push_back(s->param);
      grads.push_back(s->grad);
      m.push_back(s->state->buffers.at("exp_avg"));
      v.push_back(s->state->buffers.at("exp_avg_sq"));
    }
    AdamParams call = p;
    call.step = key.second;
    adam_step_(params, grads, m, v, call);
  }
  for (Slot& s : slots) s.state->step += 1;
}

}  // namespace ember::nn
