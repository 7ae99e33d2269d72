#include "ember/nn/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <utility>

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

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda)
    : LRScheduler(optimizer), lr_lambda_(std::move(lr_lambda)) {
  if (!lr_lambda_) raise<ValueError>("LambdaLR: lr_lambda must be a function, got an empty one");
  initial_step();
}

std::vector<double> LambdaLR::compute_lr() const {
  const double factor = lr_lambda_(last_epoch());
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

namespace {
void check_linear_factors(const char* where, double start_factor, double end_factor, double total_iters) {
  if (!(start_factor > 0 && start_factor <= 1))
    raise<ValueError>(
        where, ": starting multiplicative factor expected to be greater than 0 and less or equal to 1, got ",
        start_factor);
  if (!(end_factor >= 0 && end_factor <= 1))
    raise<ValueError>(where, ": ending multiplicative factor expected to be between 0 and 1, got ",
                      end_factor);
  if (!(total_iters >= 0 && total_iters <= 1e15))
    raise<ValueError>(where, ": total_iters must be >= 0, got ", total_iters);
}
}  // namespace

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters)
    : LRScheduler(optimizer),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  check_linear_factors("LinearLR", start_factor, end_factor, static_cast<double>(total_iters));
  initial_step();
}

std::vector<double> LinearLR::compute_lr() const {
  const int64_t e = last_epoch();
  std::vector<double> lrs;
  for (const auto& g : optimizer_.param_groups()) {
    if (e == 0) {
      lrs.push_back(g.lr() * start_factor_);
    } else if (e > total_iters_) {
      lrs.push_back(g.lr());
    } else {
      // The ratio of this epoch's factor to the last one's (PyTorch's chainable form).
      const double delta = end_factor_ - start_factor_;
      lrs.push_back(g.lr() * (1.0 + delta / (static_cast<double>(total_iters_) * start_factor_ +
                                             static_cast<double>(e - 1) * delta)));
    }
  }
  return lrs;
}

std::vector<std::pair<std::string, double>> LinearLR::settings() const {
  return {{"start_factor", start_factor_},
          {"end_factor", end_factor_},
          {"total_iters", static_cast<double>(total_iters_)}};
}

void LinearLR::load_settings(const std::vector<double>& values) {
  check_linear_factors("LinearLR load_state_dict", values[0], values[1], values[2]);
  start_factor_ = values[0];
  end_factor_ = values[1];
  total_iters_ = static_cast<int64_t>(values[2]);
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  if (T_max < 1) raise<ValueError>("CosineAnnealingLR: T_max must be >= 1, got ", T_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::compute_lr() const {
  const int64_t e = last_epoch();
  const double pi = std::acos(-1.0), T = static_cast<double>(T_max_);
  std::vector<double> lrs;
  const auto& groups = optimizer_.param_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    const double lr = groups[g].lr();
    if (e == 0) {
      lrs.push_back(lr);
    } else if ((e - 1 - T_max_) % (2 * T_max_) == 0) {
      // The step out of a trough, where the ratio below would divide by zero.
      lrs.push_back(lr + (base_lrs_[g] - eta_min_) * (1 - std::cos(pi / T)) / 2);
    } else {
      lrs.push_back((1 + std::cos(pi * static_cast<double>(e) / T)) /
                        (1 + std::cos(pi * static_cast<double>(e - 1) / T)) * (lr - eta_min_) +
                    eta_min_);
    }
  }
  return lrs;
}

std::vector<std::pair<std::string, double>> CosineAnnealingLR::settings() const {
  return {{"T_max", static_cast<double>(T_max_)}, {"eta_min", eta_min_}};
}

void CosineAnnealingLR::load_settings(const std::vector<double>& values) {
  if (!(values[0] >= 1 && values[0] <= 1e15))
    raise<ValueError>("CosineAnnealingLR load_state_dict: T_max must be >= 1, got ", values[0]);
  T_max_ = static_cast<int64_t>(values[0]);
  eta_min_ = values[1];
}

std::unique_ptr<LambdaLR> get_linear_schedule_with_warmup(Optimizer& optimizer, int64_t num_warmup_steps,
                                                          int64_t num_training_steps) {
  if (num_warmup_steps < 0)
    raise<ValueError>("get_linear_schedule_with_warmup: num_warmup_steps must be >= 0, got ",
                      num_warmup_steps);
  if (num_training_steps < 0)
    raise<ValueError>("get_linear_schedule_with_warmup: num_training_steps must be >= 0, got ",
                      num_training_steps);
  auto lr_lambda = [num_warmup_steps, num_training_steps](int64_t step) {
    if (step < num_warmup_steps)
      return static_cast<double>(step) / static_cast<double>(std::max<int64_t>(1, num_warmup_steps));
    return std::max(0.0,
                    static_cast<double>(num_training_steps - step) /
                        static_cast<double>(std::max<int64_t>(1, num_training_steps - num_warmup_steps)));
  };
  return std::make_unique<LambdaLR>(optimizer, lr_lambda);
}

}  // namespace ember::nn
