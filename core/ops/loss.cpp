// Losses: class losses run one fused backend kernel per direction; the reduction on top
// is ordinary differentiable ops.
#include "ember/core/ops/loss.h"

#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/transfer.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

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
  ClassLossNode(const char* name, const ClassLossParams& p) : Node(name), params_(p) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    const Tensor& input = saved(0);
    const Tensor& target = saved(1);
    Tensor grad = detail::make_empty(input.shape(), input.dtype(), input.device());
    backend_for(input.device()).class_loss_backward(grad, g.contiguous(), input, target, params_, name());
    return {grad, Tensor()};
  }

 private:
  ClassLossParams params_;
};

Tensor class_loss(const char* name, const Tensor& input_in, const Tensor& target_in, Reduction reduction,
                  const ClassLossParams& params) {
  check_defined(name, {{"input", input_in}, {"target", target_in}});
  check_same_device(name, {{"input", input_in}, {"target", target_in}});
  check_floating(name, {"input", input_in});
  // Labels from a std::vector<int> are int32: say how to get int64, which PyTorch also requires.
  if (target_in.dtype() == kInt32)
    raise<DTypeError>("dtype mismatch in ", name,
                      ": target must be int64, got int32 (class labels are int64: "
                      "target.to(kInt64), or from_vector of int64_t values)");
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
  const int64_t N = input.size(0);
  Tensor losses = detail::make_empty({N}, input.dtype(), input.device());
  // The mean divides by the targets that count: valid holds 1 for each, 0 for ignored ones.
  Tensor valid;
  if (reduction == Reduction::Mean) valid = detail::make_empty({N}, input.dtype(), input.device());
  if (N) backend_for(input.device()).class_loss(losses, valid, input, target, params, name);
  if (autograd::any_requires_grad({&input})) {
    auto node = autograd::make_node<ClassLossNode>(name, params);
    node->save(input);
    node->save(target);
    autograd::record(losses, node, {&input, &target});
  }
  if (single && reduction == Reduction::None) losses = losses.reshape({});
  if (reduction != Reduction::Mean) return reduce_loss(losses, reduction);
  // mean(losses) * (N / count) rather than sum / count: with nothing ignored the factor is
  // exactly 1, so the plain mean's value is kept bit for bit; with every target ignored it
  // is 0 * inf = nan, as PyTorch gives. No value is read back to the host.
  return mean(losses) * rdiv(sum(valid), static_cast<double>(N));
}

}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction, int64_t ignore_index,
                     double label_smoothing) {
  if (!(label_smoothing >= 0.0 && label_smoothing <= 1.0))
    raise<ValueError>("cross_entropy: label_smoothing must be between 0.0 and 1.0, got ", label_smoothing);
  return class_loss("cross_entropy", input, target, reduction, {false, ignore_index, label_smoothing});
}

Tensor nll_loss(const Tensor& input, const Tensor& target, Reduction reduction, int64_t ignore_index) {
  return class_loss("nll_loss", input, target, reduction, {true, ignore_index, 0.0});
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
