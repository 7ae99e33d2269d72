// Losses: class losses run one fused backend kernel per direction; the reduction on top
// is ordinary differentiable ops.
#include "ember/core/ops/loss.h"

#include "ember/core/autograd/node.h"
#include "ember/core/backend.h"
#include "ember/core/error.h"
#include "ember/core/ops/check.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/transfer.h"

namespace ember {
namespace {

Tensor reduce_loss(const Tensor& losses, Reduction r) {
  switch (r) {
    case Reduction::Mean:
      return mean(losses);
    case Reduction::Sum:
      return sum(losses);
    case Reduction::None:
      return losses;
  }
  return losses;
}

class ClassLossNode final : public Node {
 public:
  ClassLossNode(const char* name, bool log_prob) : Node(name), log_prob_(log_prob) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    const Tensor& input = saved(0);
    const Tensor& target = saved(1);
    Tensor grad = detail::make_empty(input.shape(), input.dtype(), input.device());
    backend_for(input.device()).class_loss_backward(grad, g.contiguous(), input, target, log_prob_, name());
    return {grad, Tensor()};
  }

 private:
  bool log_prob_;
};

Tensor class_loss(const char* name, const Tensor& input_in, const Tensor& target_in, Reduction reduction,
                  bool log_prob) {
  check_defined(name, {{"input", input_in}, {"target", target_in}});
  check_same_device(name, {{"input", input_in}, {"target", target_in}});
  check_floating(name, {"input", input_in});
  check_dtype(name, {"target", target_in}, kInt64);
  const bool single = input_in.dim() == 1;
  if (input_in.dim() != 2 && !single)
    raise<ShapeError>(name, ": input must be [N, C] or [C], got shape ", shape_str(input_in.shape()));
  Tensor input = single ? input_in.unsqueeze(0) : input_in;
  Tensor target = single ? target_in.reshape({1}) : target_in;
  if ((single && target_in.numel() != 1) || (!single && target.dim() != 1) || target.size(0) != input.size(0))
    raise<ShapeError>(name, ": target of shape ", shape_str(target_in.shape()),
                      " does not match input of shape ", shape_str(input_in.shape()));
  input = input.contiguous();
  target = target.contiguous();
  Tensor losses = detail::make_empty({input.size(0)}, input.dtype(), input.device());
  if (losses.numel()) backend_for(input.device()).class_loss(losses, input, target, log_prob, name);
  if (autograd::any_requires_grad({&input})) {
    auto node = autograd::make_node<ClassLossNode>(name, log_prob);
    node->save(input);
    node->save(target);
    autograd::record(losses, node, {&input, &target});
  }
  if (single && reduction == Reduction::None) losses = losses.reshape({});
  return reduce_loss(losses, reduction);
}

}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction) {
  return class_loss("cross_entropy", input, target, reduction, false);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  return class_loss("nll_loss", input, target, reduction, true);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  check_defined("mse_loss", {{"input", input}, {"target", target}});
  check_same_device("mse_loss", {{"input", input}, {"target", target}});
  check_same_dtype("mse_loss", {{"input", input}, {"target", target}});
  check_floating("mse_loss", {"input", input});
  if (input.shape() != target.shape())
    raise<ShapeError>("mse_loss: input of shape ", shape_str(input.shape()), " and target of shape ",
                      shape_str(target.shape()), " differ");
  return reduce_loss(square(input - target), reduction);
}

}  // namespace ember
