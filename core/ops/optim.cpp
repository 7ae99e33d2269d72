// The optimizer front-ends: the usual device and size checks, then one fused backend call.
#include "ember/extend/optim_steps.h"

#include "ember/core/error.h"
#include "ember/core/ops/transfer.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

namespace ember {
namespace {

// Each list holds one tensor per parameter (or, for optional state, none), all on params[0]'s
// device.
void check_lists(const char* op, const std::vector<Tensor>& params,
                 std::initializer_list<std::pair<const char*, const std::vector<Tensor>*>> lists) {
  check_same_device(op, "params", params);
  for (const auto& [name, list] : lists) {
    if (list->empty()) continue;
    if (list->size() != params.size())
      raise<ValueError>(op, ": ", name, " has ", list->size(), " tensors for ", params.size(), " parameters");
    for (size_t i = 0; i < list->size(); ++i)
      if ((*list)[i].device() != params[0].device())
        check_same_device(
            op, {{"params[0]", params[0]}, {detail::concat(name, "[", i, "]").c_str(), (*list)[i]}});
  }
}

void bump_versions(const std::vector<Tensor>& params) {
  for (const Tensor& p : params) mark_modified(p);
}

}  // namespace

void sgd_step_(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               const std::vector<Tensor>& momentum_buffers, const SgdParams& p) {
  if (params.empty()) return;
  check_lists("sgd_step_", params, {{"grads", &grads}, {"momentum_buffers", &momentum_buffers}});
  backend_for(params[0].device()).sgd_step(params, grads, momentum_buffers, p);
  bump_versions(params);
}

void adam_step_(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                const std::vector<Tensor>& exp_avg, const std::vector<Tensor>& exp_avg_sq,
                const AdamParams& p) {
  if (params.empty()) return;
  check_lists("adam_step_", params, {{"grads", &grads}, {"exp_avg", &exp_avg}, {"exp_avg_sq", &exp_avg_sq}});
  backend_for(params[0].device()).adam_step(params, grads, exp_avg, exp_avg_sq, p);
  bump_versions(params);
}

}  // namespace ember
