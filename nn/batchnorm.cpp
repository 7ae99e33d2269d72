#include "ember/nn/batchnorm.h"

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/norm.h"

namespace ember::nn {

BatchNorm2d::BatchNorm2d(int64_t n, double eps_, double momentum_, bool affine, bool track)
    : Module("BatchNorm2d"), num_features(n), eps(eps_), momentum(momentum_) {
  if (n < 1) raise<ValueError>("BatchNorm2d: num_features must be >= 1, got ", n);
  if (!(eps_ >= 0)) raise<ValueError>("BatchNorm2d: eps must be >= 0, got ", eps_);
  if (!(momentum_ >= 0 && momentum_ <= 1))
    raise<ValueError>("BatchNorm2d: momentum must be in [0, 1], got ", momentum_);
  if (affine) {
    weight = register_parameter("weight", ones({n}));
    bias = register_parameter("bias", zeros({n}));
  }
  if (track) {
    running_mean = register_buffer("running_mean", zeros({n}));
    running_var = register_buffer("running_var", ones({n}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, kInt64));
  }
}

void BatchNorm2d::reset_running_stats() {
  if (!running_mean.defined()) return;
  NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

Tensor BatchNorm2d::forward(const Tensor& input) {
  if (input.defined() && input.dim() != 4)
    raise<ShapeError>("BatchNorm2d: expected 4-D input [N, C, H, W], got shape ", shape_str(input.shape()));
  // Without running statistics the batch statistics serve in eval mode too (PyTorch).
  const bool use_batch_stats = is_training() || !running_mean.defined();
  Tensor out = batch_norm(input, running_mean, running_var, weight, bias, use_batch_stats, momentum, eps);
  if (is_training() && num_batches_tracked.defined()) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);  // an integer scalar: a floating one would not fit int64
  }
  return out;
}

std::string BatchNorm2d::extra_repr() const {
  return ember::detail::concat(num_features, ", eps=", detail::py_float(eps),
                               ", momentum=", detail::py_float(momentum),
                               ", affine=", weight.defined() ? "True" : "False",
                               ", track_running_stats=", running_mean.defined() ? "True" : "False");
}

}  // namespace ember::nn
