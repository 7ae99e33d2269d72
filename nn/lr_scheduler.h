#pragma once
// Learning-rate schedules, as torch.optim.lr_scheduler. Call step() once per epoch after
// the optimizer's steps.
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

}  // namespace ember::nn
