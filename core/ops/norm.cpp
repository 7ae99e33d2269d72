// batch_norm: one backend call per direction over [N, C, S] (S the flattened spatial dims,
// passed as a 4-D [N, C, S, 1] view so backends only ever see NC or NCHW).
#include "ember/core/ops/norm.h"

#include <cmath>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/transfer.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

namespace ember {
namespace {

class BatchNormNode final : public Node {
 public:
  BatchNormNode(bool training, double eps) : Node("batch_norm"), training_(training), eps_(eps) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    const Tensor& x = saved(0);
    const Tensor& w = saved(1);
    const Tensor& mean = saved(2);
    const Tensor& invstd = saved(3);
    auto channels = [&] { return detail::make_empty({x.size(1)}, x.dtype(), x.device()); };
    std::vector<Tensor> grads(3);
    grads[0] = detail::make_empty(x.shape(), x.dtype(), x.device());
    if (needs_grad(1)) grads[1] = channels();
    if (needs_grad(2)) grads[2] = channels();
    backend_for(x.device())
        .batch_norm_backward(grads[0], grads[1], grads[2], g.contiguous(), x, w, mean, invstd, training_,
                             eps_);
    if (!needs_grad(0)) grads[0] = Tensor();
    return grads;
  }

 private:
  bool training_;
  double eps_;
};

void check_channels(const char* name, const Tensor& t, const Tensor& input) {
  if (t.defined() && (t.dim() != 1 || t.size(0) != input.size(1)))
    raise<ShapeError>("shape mismatch in batch_norm: ", name, " ", shape_str(t.shape()),
                      " does not match the ", input.size(1), " channels of input ", shape_str(input.shape()));
}

void check_running(const char* name, const Tensor& t) {
  if (t.defined() && !t.is_contiguous())
    raise<ValueError>("batch_norm: ", name, " must be contiguous (it is updated in place)");
}

// An empty input (N = 0, or a zero spatial size) has no statistics to take: as PyTorch, the
// result is the input times weight plus bias, and the running statistics are left alone.
// Written with ops, so autograd gives the weight and bias zero gradients of their shapes (sums
// over no elements) and the input an empty one.
Tensor empty_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  Shape per_channel(static_cast<size_t>(input.dim()), 1);
  per_channel[1] = input.size(1);
  Tensor out = input.clone();
  if (weight.defined()) out = out * weight.reshape(per_channel);
  if (bias.defined()) out = out + bias.reshape(per_channel);
  return out;
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum, double eps) {
  const char* op = "batch_norm";
  check_defined(op, {{"input", input}});
  check_same_device(op, {{"input", input},
                         {"running_mean", running_mean},
                         {"running_var", running_var},
                         {"weight", weight},
                         {"bias", bias}});
  check_same_dtype(op, {{"input", input},
                        {"running_mean", running_mean},
                        {"running_var", running_var},
                        {"weight", weight},
                        {"bias", bias}});
  check_floating(op, {"input", input});
  if (input.dim() < 2)
    raise<ShapeError>("batch_norm: input must be [N, C, ...], got shape ", shape_str(input.shape()));
  check_channels("running_mean", running_mean, input);
  check_channels("running_var", running_var, input);
  check_channels("weight", weight, input);
  check_channels("bias", bias, input);
  if (running_mean.defined() != running_var.defined())
    raise<ValueError>("batch_norm: running_mean and running_var must be given together");
  if (!training && !running_mean.defined())
    raise<ValueError>("batch_norm: running_mean and running_var are required in eval mode");
  if (!(eps >= 0) || !std::isfinite(momentum))
    raise<ValueError>("batch_norm: expected eps >= 0 and a finite momentum, got eps=", eps,
                      " momentum=", momentum);
  const int64_t N = input.size(0), C = input.size(1);
  int64_t S = 1;
  for (int64_t d = 2; d < input.dim(); ++d) S *= input.size(d);
  if (training && N * S == 1)
    raise<ValueError>("batch_norm: expected more than 1 value per channel when training, got input of shape ",
                      shape_str(input.shape()));
  if (training) {
    check_running("running_mean", running_mean);
    check_running("running_var", running_var);
  }
  if (input.numel() == 0) return empty_batch_norm(input, weight, bias);

  const Tensor x = input.dim() == 2 ? input.contiguous() : input.contiguous().reshape({N, C, S, 1});
  const Tensor w = weight.defined() ? weight.contiguous() : Tensor();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  Tensor out = detail::make_empty(x.shape(), x.dtype(), x.device());
  Tensor mean = detail::make_empty({C}, x.dtype(), x.device());
  Tensor invstd = detail::make_empty({C}, x.dtype(), x.device());
  backend_for(x.device())
      .batch_norm(out, mean, invstd, x, w, b, running_mean, running_var, training, momentum, eps);
  if (training && running_mean.defined()) {
    mark_modified(running_mean);
    mark_modified(running_var);
  }
  if (autograd::any_requires_grad({&x, &w, &b})) {
    if (!training) {
      // Eval: the statistics are the running ones, copied so a later in-place update of the
      // buffers cannot change this graph's gradient.
      NoGradGuard no_grad;
      mean = running_mean.clone();
      invstd = 1.0 / sqrt(running_var + eps);
    }
    auto node = autograd::make_node<BatchNormNode>(training, eps);
    node->save(x);
    node->save(w);
    node->save(mean);
    node->save(invstd);
    autograd::record(out, node, {&x, &w, &b});
  }
  return out.reshape(input.shape());
}

}  // namespace ember
