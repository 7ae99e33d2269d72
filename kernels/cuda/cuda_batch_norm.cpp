// batch_norm forward and backward, per channel over [N, C] or [N, C, rest, 1] input. Training
// goes to cuDNN (legacy API, see cudnn_util.h; CUDNN_BATCHNORM_SPATIAL) where PyTorch sends
// it there: 4-D input (the front-end's view of 3-D and higher), N <= 880801 and fewer than
// 2^31 elements; the rest, inference mode and its gradient run Ember's kernels
// (cuda_norm_kernels.cu). Both keep the running variance unbiased and save 1/sqrt(var + eps).
#include "ember/kernels/cuda/cuda_backend.h"
#include "ember/kernels/cuda/cuda_norm_kernels.h"
#include "ember/kernels/cuda/cudnn_util.h"

namespace ember {
namespace {

struct Layout {
  int64_t n, c, rest;
};
Layout layout_of(const Tensor& x) {
  if (x.dim() < 2)
    raise<ShapeError>("batch_norm: expected [N, C] or [N, C, ...] input, got shape ", shape_str(x.shape()));
  const int64_t n = x.size(0), c = x.size(1);
  return {n, c, n > 0 && c > 0 ? x.numel() / (n * c) : 0};
}

// A [C] tensor of value on t's device, for an absent weight, bias or gradient.
Tensor filled(CudaBackend& be, int64_t c, DType dtype, Device device, double value) {
  Tensor t = detail::make_empty({c}, dtype, device);
  be.fill(t, value);
  return t;
}

// PyTorch's rule for cuDNN training batch norm (its batch_norm dispatch): larger batches and
// tensors, and 2-D input, take the native kernels.
bool cudnn_trains(const Tensor& input) {
  return input.dim() == 4 && input.size(0) <= 880801 && input.numel() < (int64_t(1) << 31);
}

}  // namespace

void CudaBackend::batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd,
                             const Tensor& input, const Tensor& weight_in, const Tensor& bias_in,
                             const Tensor& running_mean, const Tensor& running_var, bool training,
                             double momentum, double eps) {
  if (out.numel() == 0) return;
  const Layout l = layout_of(input);
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  const DType dt = input.dtype();
  // The running statistics are updated in place, so they are passed as they are (the
  // front-end's buffers are contiguous [C]).
  if ((running_mean.defined() && !running_mean.is_contiguous()) ||
      (running_var.defined() && !running_var.is_contiguous()))
    raise<ValueError>("batch_norm: running statistics must be contiguous on cuda");
  const Tensor weight = weight_in.defined() ? contiguous(weight_in) : Tensor();
  const Tensor bias = bias_in.defined() ? contiguous(bias_in) : Tensor();
  auto channels = [&] { return detail::make_empty({l.c}, dt, out.device()); };
  if (!training) {
    if (!running_mean.defined() || !running_var.defined())
      raise<ValueError>("batch_norm: running_mean and running_var are required in inference mode");
    // The backward of inference mode reads the statistics it normalised with.
    const Tensor mean = save_mean.defined() ? save_mean : channels();
    const Tensor invstd = save_invstd.defined() ? save_invstd : channels();
    cuda_detail::batch_norm_inference_stats(mean, invstd, running_mean, running_var, eps);
    cuda_detail::batch_norm_normalize(out, input, weight, bias, mean, invstd, l.c, l.rest);
    return;
  }
  if (!cudnn_trains(input)) {
    const Tensor mean = save_mean.defined() ? save_mean : channels();
    const Tensor invstd = save_invstd.defined() ? save_invstd : channels();
    cuda_detail::batch_norm_train_stats(mean, invstd, running_mean, running_var, input, l.n, l.c, l.rest,
                                        momentum, eps);
    cuda_detail::batch_norm_normalize(out, input, weight, bias, mean, invstd, l.c, l.rest);
    return;
  }
  cuda_detail::TensorDesc xd(dt, l.n, l.c, l.rest, 1, "batch_norm");
  cuda_detail::TensorDesc pd;
  EMBER_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(pd.d, xd.d, CUDNN_BATCHNORM_SPATIAL));
  const Tensor scale = weight.defined() ? weight : filled(*this, l.c, dt, out.device(), 1.0);
  const Tensor shift = bias.defined() ? bias : filled(*this, l.c, dt, out.device(), 0.0);
  // cuDNN takes both running statistics or neither.
  Tensor rm = running_mean, rv = running_var;
  if (rm.defined() != rv.defined()) {
    if (!rm.defined()) rm = filled(*this, l.c, dt, out.device(), 0.0);
    if (!rv.defined()) rv = filled(*this, l.c, dt, out.device(), 1.0);
  }
  const cuda_detail::Scaling one(1.0), zero(0.0);
  EMBER_CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
      cuda_detail::cudnn(dev), CUDNN_BATCHNORM_SPATIAL, one.get(dt), zero.get(dt), xd.d, input.raw_data(),
      xd.d, out.raw_data(), pd.d, scale.raw_data(), shift.raw_data(), momentum,
      rm.defined() ? rm.raw_data() : nullptr, rv.defined() ? rv.raw_data() : nullptr, eps,
      save_mean.defined() ? save_mean.raw_data() : nullptr,
      save_invstd.defined() ? save_invstd.raw_data() : nullptr));
}

void CudaBackend::batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight,
                                      const Tensor& grad_bias, const Tensor& grad_out_in, const Tensor& input,
                                      const Tensor& weight_in, const Tensor& save_mean,
                                      const Tensor& save_invstd, bool training, double eps) {
  const Layout l = layout_of(input);
  const int dev = input.device().index;
  CudaDeviceGuard guard(dev);
  const DType dt = input.dtype();
  const Tensor weight = weight_in.defined() ? contiguous(weight_in) : Tensor();
  const Tensor mean = contiguous(save_mean), invstd = contiguous(save_invstd);
  const Tensor grad_out = contiguous(grad_out_in);
  if (!training || !cudnn_trains(input)) {
    cuda_detail::batch_norm_backward(grad_input, grad_weight, grad_bias, grad_out, input, weight, mean,
                                     invstd, l.n, l.c, l.rest, training);
    return;
  }
  if (input.numel() == 0) return;
  cuda_detail::TensorDesc xd(dt, l.n, l.c, l.rest, 1, "batch_norm");
  cuda_detail::TensorDesc pd;
  EMBER_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(pd.d, xd.d, CUDNN_BATCHNORM_SPATIAL));
  const Tensor scale = weight.defined() ? weight : filled(*this, l.c, dt, input.device(), 1.0);
  // cuDNN always writes both parameter gradients.
  const Tensor gw = grad_weight.defined() ? grad_weight : detail::make_empty({l.c}, dt, input.device());
  const Tensor gb = grad_bias.defined() ? grad_bias : detail::make_empty({l.c}, dt, input.device());
  const Tensor gi = grad_input.defined() ? grad_input : detail::make_empty(input.shape(), dt, input.device());
  const cuda_detail::Scaling one(1.0), zero(0.0);
  EMBER_CUDNN_CHECK(cudnnBatchNormalizationBackward(
      cuda_detail::cudnn(dev), CUDNN_BATCHNORM_SPATIAL, one.get(dt), zero.get(dt), one.get(dt), zero.get(dt),
      xd.d, input.raw_data(), xd.d, grad_out.raw_data(), xd.d, gi.raw_data(), pd.d, scale.raw_data(),
      gw.raw_data(), gb.raw_data(), eps, mean.raw_data(), invstd.raw_data()));
}

}  // namespace ember
