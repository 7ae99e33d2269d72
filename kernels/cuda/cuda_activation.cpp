// relu and its gradient through cuDNN's activation routines (contiguous float32 only; the
// elementwise kernels serve every other case with the same functors as the CPU).
#include <climits>

#include "ember/kernels/cuda/cuda_backend.h"
#include "ember/kernels/cuda/cuda_dnn.h"
#include "ember/kernels/cuda/cudnn_util.h"

namespace ember::cuda_detail {
namespace {

// A flat view of n elements as cuDNN's [1, 1, 1, n].
TensorDesc flat_desc(const Tensor& t) { return TensorDesc(t.dtype(), 1, 1, 1, t.numel(), "relu"); }

void set_relu(ActivationDesc& act) {
  EMBER_CUDNN_CHECK(cudnnSetActivationDescriptor(act.d, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
}

}  // namespace

bool cudnn_relu_applies(const Tensor& out, const Tensor& a, const Tensor& b) {
#if defined(EMBER_CUDA_EMULATED)
  // cuDNN is not modelled yet (part 2, which replaces this path by the elementwise kernel
  // everywhere): the elementwise kernel, with fn::Relu's NaN handling, serves every relu.
  (void)out, (void)a, (void)b;
  return false;
#else
  for (const Tensor* t : {&out, &a, &b})
    if (t->dtype() != kFloat32 || !t->is_contiguous() || t->shape() != out.shape()) return false;
  return out.numel() > 0 && out.numel() <= INT_MAX;
#endif
}

void cudnn_relu_forward(const Tensor& out, const Tensor& in) {
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  ActivationDesc act;
  set_relu(act);
  TensorDesc desc = flat_desc(out);
  const Scaling one(1.0), zero(0.0);
  EMBER_CUDNN_CHECK(cudnnActivationForward(cudnn(dev), act.d, one.get(kFloat32), desc.d, in.raw_data(),
                                           zero.get(kFloat32), desc.d, out.raw_data()));
}

void cudnn_relu_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& input) {
  const int dev = grad_in.device().index;
  CudaDeviceGuard guard(dev);
  ActivationDesc act;
  set_relu(act);
  TensorDesc desc = flat_desc(grad_in);
  const Scaling one(1.0), zero(0.0);
  // cuDNN takes the forward output y and input x; relu(x) > 0 exactly where x > 0, so the
  // input serves as both and the mask is fn::ReluBackward's.
  EMBER_CUDNN_CHECK(cudnnActivationBackward(cudnn(dev), act.d, one.get(kFloat32), desc.d, input.raw_data(),
                                            desc.d, grad_out.raw_data(), desc.d, input.raw_data(),
                                            zero.get(kFloat32), desc.d, grad_in.raw_data()));
}

}  // namespace ember::cuda_detail
