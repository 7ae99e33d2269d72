#include "ember/nn/lr_scheduler.h"

#include <cmath>

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"

namespace ember::nn {
namespace {
double read_number(const StateDict& sd, const std::string& key) {
  const Tensor* t = sd.find(key);
  if (!t) raise<ValueError>("lr scheduler load_state_dict: missing key \"", key, "\"");
  if (!t->defined() || t->numel() != 1)
    raise<ValueError>("lr scheduler load_state_dict: \"", key, "\" must hold one number");
  return t->item<double>();
}
}  // namespace

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  for (const auto& g : optimizer.param_groups()) base_lrs_.push_back(g.lr());
}
LRScheduler::~LRScheduler() = default;

void LRScheduler::step() {
  ++last_epoch_;
  const std::vector<double> lrs = compute_lr();
  auto& groups = optimizer_.param_groups();
  for (size_t g = 0; g < groups.size() && g < lrs.size(); ++g) groups[g].set_lr(lrs[g]);
  last_lr_ = lrs;
}

StateDict LRScheduler::state_dict() const {
  StateDict out;
  auto num = [](double v) { return scalar_tensor(v, kFloat64); };
  out.insert("last_epoch", num(static_cast<double>(last_epoch_)));
  for (size_t g = 0; g < base_lrs_.size(); ++g)
    out.insert("base_lrs." + std::to_string(g), num(base_lrs_[g]));
  for (size_t g = 0; g < last_lr_.size(); ++g) out.insert("last_lr." + std::to_string(g), num(last_lr_[g]));
  for (const auto& s : settings()) out.insert(s.first, num(s.second));
  return out;
}

void LRScheduler::load_state_dict(const StateDict& sd) {
  const size_t groups = base_lrs_.size();
  const size_t expected = 1 + 2 * groups + settings().size();
  if (sd.size() != expected)
    raise<ValueError>("lr scheduler load_state_dict: expected ", expected, " entries for ", groups,
                      " parameter groups, got ", sd.size());
  const double epoch = read_number(sd, "last_epoch");
  std::vector<double> base(groups), last(groups);
  for (size_t g = 0; g < groups; ++g) {
    base[g] = read_number(sd, "base_lrs." + std::to_string(g));
    last[g] = read_number(sd, "last_lr." + std::to_string(g));
  }
  std::vector<double> values;
  for (const auto& s : settings()) values.push_back(read_number(sd, s.first));
  load_settings(values);
  last_epoch_ = static_cast<int64_t>(std::llround(epoch));
  base_lrs_ = base;
  last_lr_ = last;
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  if (step_size < 1) raise<ValueError>("StepLR: step_size must be >= 1, got ", step_size);
  initial_step();
}

std::vector<double> StepLR::compute_lr() const {
  std::vector<double> lrs;
  const bool decay = last_epoch() != 0 && last_epoch() % step_size_ == 0;
  for (const auto& g : optimizer_.param_groups()) lrs.push_back(decay ? g.lr() * gamma_ : g.lr());
  return lrs;
}

std::vector<std::pair<std::string, double>> StepLR::settings() const {
  return {{"step_size", static_cast<double>(step_size_)}, {"gamma", gamma_}};
}

void StepLR::load_settings(const std::vector<double>& values) {
  if (!(values[0] >= 1 && values[0] <= 1e15))
    raise<ValueError>("StepLR load_state_dict: step_size must be >= 1, got ", values[0]);
  step_size_ = static_cast<int64_t>(values[0]);
  gamma_ = values[1];
}

}  // namespace ember::nn
