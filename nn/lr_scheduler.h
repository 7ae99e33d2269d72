#pragma once
// Learning-rate schedules, as torch.optim.lr_scheduler. Call step() once per epoch after
// the optimizer's steps.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "ember/nn/optim.h"

namespace ember::nn {

class EMBER_API LRScheduler {
 public:
  virtual ~LRScheduler();
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  /// Advances one epoch and writes the new learning rates into the optimizer's groups.
  void step();
  /// The learning rates the last step() set, one per parameter group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }

  /// "last_epoch", "base_lrs.<g>", "last_lr.<g>" and the schedule's own settings, each a
  /// float64 [] tensor.
  StateDict state_dict() const;
  /// Restores the schedule's position (the optimizer's lr comes from its own state).
  void load_state_dict(const StateDict& state);

 protected:
  /// Records the groups' current lr as base_lrs and takes the initial step (epoch 0).
  explicit LRScheduler(Optimizer& optimizer);
  /// The learning rates for last_epoch(), from the current ones (PyTorch's chainable form).
  virtual std::vector<double> compute_lr() const = 0;
  /// The schedule's own settings, by name (saved in the state).
  virtual std::vector<std::pair<std::string, double>> settings() const = 0;
  /// Restores settings() from values in the same order (ValueError when invalid).
  virtual void load_settings(const std::vector<double>& values) = 0;
  /// Call at the end of a derived constructor.
  void initial_step() { step(); }

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;

 private:
  int64_t last_epoch_ = -1;
  std::vector<double> last_lr_;
};

/// Multiplies every group's lr by gamma each step_size epochs.
class EMBER_API StepLR : public LRScheduler {
 public:
  /// ValueError for step_size < 1.
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);
  int64_t step_size() const { return step_size_; }
  double gamma() const { return gamma_; }

 protected:
  std::vector<double> compute_lr() const override;
  std::vector<std::pair<std::string, double>> settings() const override;
  void load_settings(const std::vector<double>& values) override;

 private:
  int64_t step_size_;
  double gamma_;
};

/// Sets every group's lr to its initial lr times lr_lambda(epoch). The function is not part
/// of state_dict() (as in PyTorch): a restored schedule keeps the one it was built with.
class EMBER_API LambdaLR : public LRScheduler {
 public:
  /// ValueError for an empty function.
  LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda);

 protected:
  std::vector<double> compute_lr() const override;
  std::vector<std::pair<std::string, double>> settings() const override { return {}; }
  void load_settings(const std::vector<double>&) override {}

 private:
  std::function<double(int64_t)> lr_lambda_;
};

/// Multiplies the initial lr by a factor that moves linearly from start_factor to
/// end_factor over total_iters epochs, then stays.
class EMBER_API LinearLR : public LRScheduler {
 public:
  /// ValueError unless 0 < start_factor <= 1 and 0 <= end_factor <= 1, and for
  /// total_iters < 0.
  explicit LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
                    int64_t total_iters = 5);
  double start_factor() const { return start_factor_; }
  double end_factor() const { return end_factor_; }
  int64_t total_iters() const { return total_iters_; }

 protected:
  std::vector<double> compute_lr() const override;
  std::vector<std::pair<std::string, double>> settings() const override;
  void load_settings(const std::vector<double>& values) override;

 private:
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

/// Cosine annealing from the initial lr down to eta_min over T_max epochs, in PyTorch's
/// recursive form: past T_max the lr climbs back up and the cosine repeats every 2 * T_max.
class EMBER_API CosineAnnealingLR : public LRScheduler {
 public:
  /// ValueError for T_max < 1.
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0.0);
  int64_t T_max() const { return T_max_; }
  double eta_min() const { return eta_min_; }

 protected:
  std::vector<double> compute_lr() const override;
  std::vector<std::pair<std::string, double>> settings() const override;
  void load_settings(const std::vector<double>& values) override;

 private:
  int64_t T_max_;
  double eta_min_;
};

/// Hugging Face's linear warmup then linear decay, a LambdaLR: the factor is
/// step / max(1, num_warmup_steps) while step < num_warmup_steps, then
/// max(0, (num_training_steps - step) / max(1, num_training_steps - num_warmup_steps)).
/// ValueError for negative step counts.
EMBER_API std::unique_ptr<LambdaLR> get_linear_schedule_with_warmup(Optimizer& optimizer,
                                                                    int64_t num_warmup_steps,
                                                                    int64_t num_training_steps);

}  // namespace ember::nn
