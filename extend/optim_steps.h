#pragma once
// Fused optimizer steps over lists of parameters, as the optimizers in nn call them: one
// backend call per device, updating parameters (and their state) in place.
#include <vector>

#include "ember/core/tensor.h"
#include "ember/extend/op_kinds.h"

namespace ember {

/// SGD with momentum (torch.optim.SGD's rule) on params[i] from grads[i]; momentum_buffers
/// is empty without momentum, else one buffer per parameter (p.first_step: buffers start as
/// the gradient). Every tensor on one device (DeviceMismatchError naming params[i],
/// grads[i] or momentum_buffers[i]); each parameter's version is bumped.
EMBER_API void sgd_step_(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                         const std::vector<Tensor>& momentum_buffers, const SgdParams& p);
/// Adam / AdamW (p.decoupled_weight_decay) with bias correction for step p.step.
EMBER_API void adam_step_(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                          const std::vector<Tensor>& exp_avg, const std::vector<Tensor>& exp_avg_sq,
                          const AdamParams& p);

}  // namespace ember
