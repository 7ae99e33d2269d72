// batch_norm forward (training and inference) and backward through cuDNN (legacy API, see
// cudnn_util.h), per channel (CUDNN_BATCHNORM_SPATIAL) over [N, C] or [N, C, ...] input seen
// as [N, C, rest, 1]. cuDNN keeps the running variance unbiased, as PyTorch does, and saves
// 1/sqrt(var + eps) as its "inverse variance". The inference-mode gradient, which cuDNN does
// not provide, is a kernel (cuda_norm_kernels.cu).
#include "ember/kernels/cuda/cuda_backend.h"
#include "ember/kernels/cuda/cuda_norm_kernels.h"
#include "ember/kernels/cuda/cudnn_util.h"

namespace ember {
namespace {

struct Layout {
  int64_t n, c, rest;
};
Layout layout_of(const Tensor& x) {
  if (x.dim() < 2) raise<ShapeError>("batch_norm: expected [N, C] or [N, C, ...] input, got shape ", shape_str(x.shape()));
  const int64_t n = x.size(0), c = x.size(1);
  return {n, c, n > 0 && c > 0 ? x.numel() / (n * c) : 0};
}

// A [C] tensor of value on t's device, for an absent weight, bias or gradient.
Tensor filled(CudaBackend& be, int64_t c, DType dtype, Device device, double value) {
  Tensor t = detail::make_empty({c}, dtype, device);
  be.fill(t, value);
  return t;
}

// Arbitrary but valid: with the saved statistics passed in, cuDNN's backward uses the saved
// 1/sqrt(var + eps) and not epsilon (the backend contract does not carry eps backwards).
constexpr double kBackwardEpsilon = 1e-5;

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
  cuda_detail::TensorDesc xd(dt, l.n, l.c, l.rest, 1, "batch_norm");
  cuda_detail::TensorDesc pd;
  EMBER_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(pd.d, xd.d, CUDNN_BATCHNORM_SPATIAL));
  const Tensor weight = weight_in.defined() ? contiguous(weight_in) : filled(*this, l.c, dt, out.device(), 1.0);
  const Tensor bias = bias_in.defined() ? contiguous(bias_in) : filled(*this, l.c, dt, out.device(), 0.0);
  const cuda_detail::Scaling one(1.0), zero(0.0);
  cudnnHandle_t h = cuda_detail::cudnn(dev);
  if (training) {
    // The running statistics are updated in place, so they are passed as they are (the
    // front-end's buffers are contiguous [C]); both or neither.
    Tensor rm = running_mean, rv = running_var;
    if (rm.defined() != rv.defined()) {
      if (!rm.defined()) rm = filled(*this, l.c, dt, out.device(), 0.0);
      if (!rv.defined()) rv = filled(*this, l.c, dt, out.device(), 1.0);
    }
    if ((rm.defined() && !rm.is_contiguous()) || (rv.defined() && !rv.is_contiguous()))
      raise<ValueError>("batch_norm: running statistics must be contiguous on cuda");
    EMBER_CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
        h, CUDNN_BATCHNORM_SPATIAL, one.get(dt), zero.get(dt), xd.d, input.raw_data(), xd.d, out.raw_data(), pd.d,
        weight.raw_data(), bias.raw_data(), momentum, rm.defined() ? rm.raw_data() : nullptr,
        rv.defined() ? rv.raw_data() : nullptr, eps, save_mean.defined() ? save_mean.raw_data() : nullptr,
        save_invstd.defined() ? save_invstd.raw_data() : nullptr));
  } else {
    if (!running_mean.defined() || !running_var.defined())
      raise<ValueError>("batch_norm: running_mean and running_var are required in inference mode");
    const Tensor rm = contiguous(running_mean), rv = contiguous(running_var);
    EMBER_CUDNN_CHECK(cudnnBatchNormalizationForwardInference(
        h, CUDNN_BATCHNORM_SPATIAL, one.get(dt), zero.get(dt), xd.d, input.raw_data(), xd.d, out.raw_data(), pd.d,
        weight.raw_data(), bias.raw_data(), rm.raw_data(), rv.raw_data(), eps));
    // The backward of inference mode reads the statistics it normalised with.
    if (save_mean.defined() || save_invstd.defined())
      cuda_detail::batch_norm_inference_stats(save_mean, save_invstd, rm, rv, eps);
  }
}

void CudaBackend::batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                      const Tensor& grad_out_in, const Tensor& input, const Tensor& weight_in,
                                      const Tensor& save_mean, const Tensor& save_invstd, bool training) {
  const Layout l = layout_of(input);
  const int dev = input.device().index;
  CudaDeviceGuard guard(dev);
  const DType dt = input.dtype();
  const Tensor weight = weight_in.defined() ? contiguous(weight_in) : Tensor();
  const Tensor mean = contiguous(save_mean), invstd = contiguous(save_invstd);
  const Tensor grad_out = contiguous(grad_out_in);
  if (!training) {
    cuda_detail::batch_norm_inference_backward(grad_input, grad_weight, grad_bias, grad_out, input, weight, mean,
                                               invstd, l.n, l.c, l.rest);
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
      cuda_detail::cudnn(dev), CUDNN_BATCHNORM_SPATIAL, one.get(dt), zero.get(dt), one.get(dt), zero.get(dt), xd.d,
      input.raw_data(), xd.d, grad_out.raw_data(), xd.d, gi.raw_data(), pd.d, scale.raw_data(), gw.raw_data(),
      gb.raw_data(), kBackwardEpsilon, mean.raw_data(), invstd.raw_data()));
}

}  // namespace ember
