// max_pool2d and avg_pool2d through cuDNN pooling (legacy API, see cudnn_util.h), on NCHW
// (or CHW) contiguous input. cuDNN's max pooling ignores padded positions (implicit -inf,
// as PyTorch) and its average counts them (count_include_pad=True); the output size is
// floor((H + 2p - k) / s) + 1 in both libraries. The max positions the front-end may need
// come from a small kernel (cuda_pool_kernels.cu), and both gradients are kernels: the max's
// gathers from those positions (deterministic, ties as the forward returned them), instead
// of cudnnPoolingBackward finding each window's maximum again.
#include "ember/kernels/cuda/cuda_backend.h"
#include "ember/kernels/cuda/cuda_pool_kernels.h"
#include "ember/kernels/cuda/cudnn_util.h"

namespace ember {
namespace {

struct Planes {
  int64_t n, c, h, w;
};
Planes planes_of(const Tensor& t, const char* op) {
  if (t.dim() == 4) return {t.size(0), t.size(1), t.size(2), t.size(3)};
  if (t.dim() == 3) return {1, t.size(0), t.size(1), t.size(2)};
  raise<ShapeError>(op, ": expected a 3-D or 4-D tensor on cuda, got shape ", shape_str(t.shape()));
}

cuda_detail::TensorDesc desc_of(const Tensor& t, const char* op) {
  const Planes p = planes_of(t, op);
  return cuda_detail::TensorDesc(t.dtype(), p.n, p.c, p.h, p.w, op);
}

void set_pooling(cuda_detail::PoolDesc& pd, cudnnPoolingMode_t mode, const Pool2dParams& p, const char* op) {
  using cuda_detail::to_int;
  EMBER_CUDNN_CHECK(cudnnSetPooling2dDescriptor(
      pd.d, mode, CUDNN_PROPAGATE_NAN, to_int(p.kernel_h, op), to_int(p.kernel_w, op), to_int(p.pad_h, op),
      to_int(p.pad_w, op), to_int(p.stride_h, op), to_int(p.stride_w, op)));
}

cudnnPoolingMode_t max_mode() {
  return backend_settings().deterministic ? CUDNN_POOLING_MAX_DETERMINISTIC : CUDNN_POOLING_MAX;
}

cuda_detail::PoolGeometry geometry(const Tensor& input, const Tensor& out, const Pool2dParams& p,
                                   const char* op) {
  const Planes in = planes_of(input, op), o = planes_of(out, op);
  return {in.n * in.c, in.h,       in.w,       o.h,     o.w,    p.kernel_h,
          p.kernel_w,  p.stride_h, p.stride_w, p.pad_h, p.pad_w};
}

}  // namespace

void CudaBackend::max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input,
                             const Pool2dParams& p) {
  if (out.numel() == 0) return;
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  cuda_detail::PoolDesc pd;
  set_pooling(pd, max_mode(), p, "max_pool2d");
  cuda_detail::TensorDesc xd = desc_of(input, "max_pool2d"), yd = desc_of(out, "max_pool2d");
  const cuda_detail::Scaling one(1.0), zero(0.0);
  EMBER_CUDNN_CHECK(cudnnPoolingForward(cuda_detail::cudnn(dev), pd.d, one.get(input.dtype()), xd.d,
                                        input.raw_data(), zero.get(input.dtype()), yd.d, out.raw_data()));
  if (indices.defined() && indices.numel())
    cuda_detail::max_pool2d_indices(indices, input, geometry(input, out, p, "max_pool2d"));
}

void CudaBackend::max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& input,
                                      const Tensor& out, const Tensor& indices, const Pool2dParams& p) {
  if (grad_input.numel() == 0) return;
  CudaDeviceGuard guard(grad_input.device().index);
  if (grad_out.numel() == 0) {
    fill(grad_input, 0.0);
    return;
  }
  cuda_detail::max_pool2d_backward(grad_input, grad_out, indices, geometry(input, out, p, "max_pool2d"));
}

void CudaBackend::avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& p) {
  if (out.numel() == 0) return;
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  cuda_detail::PoolDesc pd;
  set_pooling(pd, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, p, "avg_pool2d");
  cuda_detail::TensorDesc xd = desc_of(input, "avg_pool2d"), yd = desc_of(out, "avg_pool2d");
  const cuda_detail::Scaling one(1.0), zero(0.0);
  EMBER_CUDNN_CHECK(cudnnPoolingForward(cuda_detail::cudnn(dev), pd.d, one.get(input.dtype()), xd.d,
                                        input.raw_data(), zero.get(input.dtype()), yd.d, out.raw_data()));
}

void CudaBackend::avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out,
                                      const Pool2dParams& p) {
  if (grad_input.numel() == 0) return;
  CudaDeviceGuard guard(grad_input.device().index);
  cuda_detail::avg_pool2d_backward(grad_input, grad_out, geometry(grad_input, grad_out, p, "avg_pool2d"));
}

}  // namespace ember
