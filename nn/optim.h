#pragma once
// Optimizers, as torch.optim: SGD (momentum, dampening, weight decay, Nesterov), Adam and
// AdamW. Updates run in the backend's fused multi-tensor steps (Backend::sgd_step /
// adam_step), one call per device, under NoGradGuard; each updated parameter's version is
// bumped. Parameters without a gradient (frozen ones) are skipped. State tensors live with
// their parameter: after Module::to moves the parameters, the next step() moves the state.
//
// State format (state_dict / load_state_dict; a StateDict, so it round-trips through a
// safetensors checkpoint). Parameters are numbered across groups in order, as in PyTorch:
//   "param_groups.<g>.params"    int64 [n]   the numbers of group g's parameters
//   "param_groups.<g>.<option>"  float64 []  lr, momentum, betas as beta1/beta2, ...
//                                            (booleans as 0 or 1)
//   "state.<i>.<buffer>"         parameter i's buffers: momentum_buffer (SGD),
//                                exp_avg and exp_avg_sq (Adam, AdamW)
//   "state.<i>.step"             float64 []  Adam's step count for parameter i
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/state_dict.h"

namespace ember::nn {

/// Parameters that share hyperparameters. Options not given take the optimizer's defaults.
struct EMBER_API ParamGroup {
  ParamGroup(std::vector<Tensor> params, std::map<std::string, double> options = {})
      : params(std::move(params)), options(std::move(options)) {}
  std::vector<Tensor> params;
  std::map<std::string, double> options;
  /// options["lr"] (ValueError when absent).
  double lr() const;
  void set_lr(double lr) { options["lr"] = lr; }
};

class EMBER_API Optimizer {
 public:
  virtual ~Optimizer();
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// One update of every parameter that has a gradient.
  void step();
  /// Clears the gradients of every parameter (undefined when set_to_none, zeros otherwise).
  void zero_grad(bool set_to_none = true);
  /// Adds parameters with their own options; ValueError for a parameter already present,
  /// a non-leaf or non-floating tensor, an unknown option or an invalid value.
  void add_param_group(ParamGroup group);
  std::vector<ParamGroup>& param_groups() { return groups_; }
  const std::vector<ParamGroup>& param_groups() const { return groups_; }
  /// "SGD", "Adam", "AdamW".
  const std::string& name() const { return name_; }

  /// The format above; tensors are copies, independent of the optimizer.
  StateDict state_dict() const;
  /// Restores options and state (copied onto each parameter's device and dtype) so that
  /// training resumes exactly. ValueError for another layout (group or parameter counts,
  /// unknown or missing keys), ShapeError for a buffer that does not fit its parameter.
  void load_state_dict(const StateDict& state);

 protected:
  struct ParamState {
    std::map<std::string, Tensor> buffers;
    double step = 0;
  };
  /// A parameter with a gradient, ready to update: contiguous tensors on one device.
  struct Slot {
    Tensor param, grad;
    ParamState* state;
  };

  Optimizer(std::string name, std::map<std::string, double> defaults);
  /// Adds the groups (for constructors: after the derived object is complete).
  void init_groups(std::vector<ParamGroup> groups);
  /// Updates the slots of one group (grouped per device by the implementation).
  virtual void update(const ParamGroup& group, std::vector<Slot>& slots) = 0;
  /// ValueError for invalid option values.
  virtual void check_options(const std::map<std::string, double>& options) const = 0;
  /// The buffer names of the state format.
  virtual std::vector<std::string> buffer_names() const = 0;
  /// Whether the state records a step count.
  virtual bool has_step() const { return false; }

 private:
  std::string name_;
  std::map<std::string, double> defaults_;
  std::vector<ParamGroup> groups_;
  std::map<const void*, ParamState> state_;
};

struct SGDOptions {
  double lr = 0.01;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
};

/// torch.optim.SGD: d = g + wd * p; buf = d on the first step, then
/// buf = momentum * buf + (1 - dampening) * d; d = nesterov ? d + momentum * buf : buf;
/// p -= lr * d.
class EMBER_API SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, SGDOptions options);
  SGD(std::vector<ParamGroup> groups, SGDOptions defaults);

 protected:
  void update(const ParamGroup& group, std::vector<Slot>& slots) override;
  void check_options(const std::map<std::string, double>& options) const override;
  std::vector<std::string> buffer_names() const override { return {"momentum_buffer"}; }
};

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;  // added to the gradient (L2)
};

/// As AdamOptions, with PyTorch's AdamW default weight decay (decoupled).
struct AdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 1e-2;
};

/// torch.optim.Adam (amsgrad off): bias-corrected moments, L2 weight decay in the gradient.
class EMBER_API Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> params, AdamOptions options);
  Adam(std::vector<ParamGroup> groups, AdamOptions defaults);

 protected:
  Adam(std::string name, std::vector<ParamGroup> groups, std::map<std::string, double> defaults);
  void update(const ParamGroup& group, std::vector<Slot>& slots) override;
  void check_options(const std::map<std::string, double>& options) const override;
  std::vector<std::string> buffer_names() const override { return {"exp_avg", "exp_avg_sq"}; }
  bool has_step() const override { return true; }
  virtual bool decoupled() const { return false; }
};

/// torch.optim.AdamW: Adam with decoupled weight decay p *= 1 - lr * weight_decay.
class EMBER_API AdamW : public Adam {
 public:
  AdamW(std::vector<Tensor> params, AdamWOptions options);
  AdamW(std::vector<ParamGroup> groups, AdamWOptions defaults);

 protected:
  bool decoupled() const override { return true; }
};

}  // namespace ember::nn
