// The optimizer base: parameter groups, per-parameter state that follows its parameter's
// device, and the state format documented in nn/optim.h.
#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_set>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/transfer.h"
#include "ember/extend/check.h"
#include "ember/nn/module.h"
#include "ember/nn/optim.h"

namespace ember::nn {
namespace {

// "12" -> 12; anything else (sign, spaces, overflow) -> -1.
int64_t parse_index(const std::string& s) {
  if (s.empty() || s.size() > 9) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

// Splits "<head>.<index>.<rest>" after head; false when the key has another form.
bool split_key(const std::string& key, const std::string& head, int64_t& index, std::string& rest) {
  if (key.compare(0, head.size(), head) != 0) return false;
  const size_t dot = key.find('.', head.size());
  if (dot == std::string::npos) return false;
  index = parse_index(key.substr(head.size(), dot - head.size()));
  rest = key.substr(dot + 1);
  return index >= 0 && !rest.empty();
}

Tensor scalar64(double v) { return scalar_tensor(v, kFloat64); }

double read_scalar(const std::string& key, const Tensor& t) {
  if (!t.defined() || t.numel() != 1)
    raise<ValueError>("optimizer load_state_dict: \"", key, "\" must hold one number");
  return t.item<double>();
}

// A step count: a whole number in [0, 2^53] (beyond, a double no longer counts by one). NaN,
// 1e300 or -1 would load and then fail, or silently corrupt bias correction, at step().
double read_step(const std::string& where, const std::string& key, const Tensor& t) {
  const double v = read_scalar(key, t);
  if (!(v >= 0 && v <= 9007199254740992.0) || v != std::floor(v))
    raise<ValueError>(where, ": \"", key, "\" must be a whole number in [0, 2^53], got ", v);
  return v;
}

}  // namespace

double ParamGroup::lr() const {
  auto it = options.find("lr");
  if (it == options.end()) raise<ValueError>("parameter group has no \"lr\" option");
  return it->second;
}

Optimizer::Optimizer(std::string name, std::map<std::string, double> defaults)
    : name_(std::move(name)), defaults_(std::move(defaults)) {}
Optimizer::~Optimizer() = default;

void Optimizer::init_groups(std::vector<ParamGroup> groups) {
  if (groups.empty()) raise<ValueError>(name_, ": got an empty parameter list");
  for (auto& g : groups) add_param_group(std::move(g));
}

void Optimizer::add_param_group(ParamGroup group) {
  if (group.params.empty()) raise<ValueError>(name_, ": got an empty parameter list");
  for (const auto& o : group.options)
    if (!defaults_.count(o.first)) raise<ValueError>(name_, ": unknown option \"", o.first, "\"");
  for (const auto& d : defaults_) group.options.emplace(d.first, d.second);
  check_options(group.options);
  std::unordered_set<const void*> seen;
  for (const auto& g : groups_)
    for (const Tensor& p : g.params) seen.insert(p.identity());
  for (const Tensor& p : group.params) {
    check_defined(name_.c_str(), {{"a parameter", p}});
    if (!p.is_leaf()) raise<ValueError>(name_, ": can't optimize a non-leaf tensor");
    if (!is_floating(p.dtype()))
      raise<DTypeError>(name_, ": can only optimize float32 or float64 tensors, got ", dtype_name(p.dtype()));
    if (!seen.insert(p.identity()).second)
      raise<ValueError>(name_, ": a parameter appears in more than one place",
                        p.name().empty() ? "" : " (" + p.name() + ")");
  }
  groups_.push_back(std::move(group));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (const auto& g : groups_) detail::clear_grads(g.params, set_to_none);
}

void Optimizer::step() {
  NoGradGuard no_grad;
  for (auto& group : groups_) {
    std::vector<Slot> slots;
    for (const Tensor& p : group.params) {
      Tensor grad = p.grad();
      if (!grad.defined()) continue;  // frozen or unused this step
      if (grad.shape() != p.shape() || grad.device() != p.device() || grad.dtype() != p.dtype())
        raise<ValueError>(name_, ": the gradient of ", p.name().empty() ? "a parameter" : p.name(),
                          " does not match it in shape, dtype or device");
      if (!p.is_contiguous())
        raise<ValueError>(name_, ": parameters must be contiguous",
                          p.name().empty() ? "" : " (" + p.name() + " is not)");
      ParamState& st = state_[p.identity()];
      // The state follows its parameter (Module::to moved it in place since the last step).
      for (auto& b : st.buffers)
        if (b.second.device() != p.device() || b.second.dtype() != p.dtype())
          b.second = b.second.to(p.dtype()).to(p.device());
      slots.push_back(Slot{p, grad.contiguous(), &st});
    }
    if (slots.empty()) continue;
    update(group, slots);
  }
}

StateDict Optimizer::state_dict() const {
  StateDict out;
  int64_t index = 0;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    std::vector<int64_t> numbers;
    for (size_t k = 0; k < groups_[g].params.size(); ++k) numbers.push_back(index++);
    out.insert(prefix + "params", from_vector(numbers));
    for (const auto& o : groups_[g].options) out.insert(prefix + o.first, scalar64(o.second));
  }
  index = 0;
  for (const auto& g : groups_)
    for (const Tensor& p : g.params) {
      const std::string prefix = "state." + std::to_string(index++) + ".";
      auto it = state_.find(p.identity());
      if (it == state_.end()) continue;
      for (const auto& b : it->second.buffers) out.insert(prefix + b.first, b.second.clone());
      if (has_step()) out.insert(prefix + "step", scalar64(it->second.step));
    }
  return out;
}

void Optimizer::load_state_dict(const StateDict& sd) {
  const std::string where = name_ + " load_state_dict";
  std::vector<const Tensor*> params;
  for (const auto& g : groups_)
    for (const Tensor& p : g.params) params.push_back(&p);
  const std::vector<std::string> names = buffer_names();

  // Everything is read and checked before anything changes.
  std::vector<std::map<std::string, double>> options(groups_.size());
  std::vector<bool> has_params(groups_.size(), false);
  std::map<int64_t, ParamState> loaded;
  for (const auto& [key, value] : sd) {
    int64_t i = -1;
    std::string rest;
    if (split_key(key, "param_groups.", i, rest)) {
      if (i >= static_cast<int64_t>(groups_.size()))
        raise<ValueError>(where, ": \"", key, "\" refers to parameter group ", i, " but the optimizer has ",
                          groups_.size());
      const auto& group = groups_[static_cast<size_t>(i)];
      if (rest == "params") {
        if (!value.defined() || value.dim() != 1 ||
            value.numel() != static_cast<int64_t>(group.params.size()))
          raise<ValueError>(where, ": parameter group ", i, " has ", group.params.size(),
                            " parameters but the state dict's \"", key, "\" does not list as many");
        has_params[static_cast<size_t>(i)] = true;
      } else if (group.options.count(rest)) {
        options[static_cast<size_t>(i)][rest] = read_scalar(key, value);
      } else {
        raise<ValueError>(where, ": unexpected key \"", key, "\"");
      }
    } else if (split_key(key, "state.", i, rest)) {
      if (i >= static_cast<int64_t>(params.size()))
        raise<ValueError>(where, ": \"", key, "\" refers to parameter ", i, " but the optimizer has ",
                          params.size());
      const Tensor& p = *params[static_cast<size_t>(i)];
      if (rest == "step" && has_step()) {
        loaded[i].step = read_step(where, key, value);
      } else if (std::find(names.begin(), names.end(), rest) != names.end()) {
        if (!value.defined() || value.shape() != p.shape())
          raise<ShapeError>(where, ": \"", key, "\" has shape ",
                            value.defined() ? shape_str(value.shape()) : "undefined",
                            " but its parameter has shape ", shape_str(p.shape()));
        loaded[i].buffers[rest] = value;
      } else {
        raise<ValueError>(where, ": unexpected key \"", key, "\"");
      }
    } else {
      raise<ValueError>(where, ": unexpected key \"", key, "\"");
    }
  }
  std::vector<std::string> missing;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    if (!has_params[g]) missing.push_back(prefix + "params");
    for (const auto& o : groups_[g].options)
      if (!options[g].count(o.first)) missing.push_back(prefix + o.first);
  }
  std::set<int64_t> with_step;
  for (const auto& [key, value] : sd) {
    int64_t i = -1;
    std::string rest;
    if (split_key(key, "state.", i, rest) && rest == "step") with_step.insert(i);
  }
  // A parameter with state has all of it (a parameter without any has not stepped yet).
  for (const auto& [i, st] : loaded) {
    for (const auto& n : names)
      if (!st.buffers.count(n)) missing.push_back("state." + std::to_string(i) + "." + n);
    if (has_step() && !with_step.count(i)) missing.push_back("state." + std::to_string(i) + ".step");
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    raise<ValueError>(where, ": missing keys: ", list);
  }
  for (const auto& o : options) check_options(o);

  for (size_t g = 0; g < groups_.size(); ++g) groups_[g].options = options[g];
  state_.clear();
  NoGradGuard no_grad;
  for (auto& [i, st] : loaded) {
    const Tensor& p = *params[static_cast<size_t>(i)];
    for (auto& b : st.buffers) b.second = b.second.to(p.dtype()).to(p.device()).clone();
    state_[p.identity()] = std::move(st);
  }
}

}  // namespace ember::nn
