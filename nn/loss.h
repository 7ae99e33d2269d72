#pragma once
// Loss modules, as torch.nn.CrossEntropyLoss / NLLLoss / MSELoss. Call them with
// (input, target).
#include "ember/core/ops/loss.h"
#include "ember/nn/module.h"

namespace ember::nn {

/// The common shape of the losses: a reduction and a two-argument forward.
class EMBER_API Loss : public Module {
 public:
  using Module::forward;
  using Module::operator();
  virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
  Tensor operator()(const Tensor& input, const Tensor& target) { return forward(input, target); }
  const Reduction reduction;

 protected:
  Loss(const char* type_name, Reduction reduction) : Module(type_name), reduction(reduction) {}
};

/// Logits [N, C] against int64 class targets [N]; targets equal to ignore_index count for
/// nothing; label_smoothing in [0, 1] (checked here, ValueError).
class EMBER_API CrossEntropyLoss : public Loss {
 public:
  explicit CrossEntropyLoss(Reduction reduction = Reduction::Mean, int64_t ignore_index = -100,
                            double label_smoothing = 0.0);
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  const int64_t ignore_index;
  const double label_smoothing;
};

/// Log-probabilities [N, C] against int64 class targets [N]; targets equal to ignore_index
/// count for nothing.
class EMBER_API NLLLoss : public Loss {
 public:
  explicit NLLLoss(Reduction reduction = Reduction::Mean, int64_t ignore_index = -100)
      : Loss("NLLLoss", reduction), ignore_index(ignore_index) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  const int64_t ignore_index;
};

/// Mean squared error between equally shaped input and target.
class EMBER_API MSELoss : public Loss {
 public:
  explicit MSELoss(Reduction reduction = Reduction::Mean) : Loss("MSELoss", reduction) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

}  // namespace ember::nn
