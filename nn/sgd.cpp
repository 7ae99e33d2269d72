#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/extend/optim_steps.h"
#include "ember/nn/optim.h"

namespace ember::nn {
namespace {
std::map<std::string, double> to_map(const SGDOptions& o) {
  return {{"lr", o.lr},
          {"momentum", o.momentum},
          {"dampening", o.dampening},
          {"weight_decay", o.weight_decay},
          {"nesterov", o.nesterov ? 1.0 : 0.0}};
}
}  // namespace

SGD::SGD(std::vector<Tensor> params, SGDOptions o) : SGD({ParamGroup(std::move(params))}, o) {}

SGD::SGD(std::vector<ParamGroup> groups, SGDOptions defaults) : Optimizer("SGD", to_map(defaults)) {
  init_groups(std::move(groups));
}

void SGD::check_options(const std::map<std::string, double>& o) const {
  const double lr = o.at("lr"), momentum = o.at("momentum"), wd = o.at("weight_decay");
  if (!(lr >= 0)) raise<ValueError>("SGD: invalid learning rate: ", lr);
  if (!(momentum >= 0)) raise<ValueError>("SGD: invalid momentum value: ", momentum);
  if (!(wd >= 0)) raise<ValueError>("SGD: invalid weight_decay value: ", wd);
  if (o.at("nesterov") != 0 && (momentum <= 0 || o.at("dampening") != 0))
    raise<ValueError>("SGD: Nesterov momentum requires a momentum and zero dampening");
}

void SGD::update(const ParamGroup& group, std::vector<Slot>& slots) {
  SgdParams p;
  p.lr = group.options.at("lr");
  p.momentum = group.options.at("momentum");
  p.dampening = group.options.at("dampening");
  p.weight_decay = group.options.at("weight_decay");
  p.nesterov = group.options.at("nesterov") != 0;
  // One fused call per device and per kind of step: a parameter whose momentum buffer is
  // new starts it at its gradient.
  // New buffers join the state only once every call succeeded.
  std::map<std::pair<std::string, bool>, std::vector<std::pair<const Slot*, Tensor>>> calls;
  for (const Slot& s : slots) {
    Tensor buf;
    bool first = false;
    if (p.momentum != 0) {
      auto it = s.state->buffers.find("momentum_buffer");
      first = it == s.state->buffers.end();
      buf = first ? empty_like(s.param) : it->second;  // a new buffer is written, not read
    }
    calls[{s.param.device().str(), first}].emplace_back(&s, buf);
  }
  for (const auto& [key, list] : calls) {
    std::vector<Tensor> params, grads, bufs;
    for (const auto& [s, buf] : list) {
      params.push_back(s->param);
      grads.push_back(s->grad);
      if (buf.defined()) bufs.push_back(buf);
    }
    SgdParams call = p;
    call.first_step = key.second;
    sgd_step_(params, grads, bufs, call);
  }
  for (const auto& [key, list] : calls)
    if (key.second)
      for (const auto& [s, buf] : list) s->state->buffers["momentum_buffer"] = buf;
}

}  // namespace ember::nn
