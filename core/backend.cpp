#include "ember/extend/backend.h"

#include "ember/core/error.h"

namespace ember {

void Backend::not_implemented(const char* op) const {
  raise<NotImplementedError>(op, " is not implemented on ", type() == DeviceType::CPU ? "cpu" : "cuda");
}

void Backend::check_device(Device device) const {
  if (device.is_cpu()) return;
  const int n = device_count();
  if (device.index < 0 || device.index >= n)
    raise<DeviceError>(device.str(), " requested, but only ", n, " CUDA device", n == 1 ? " is" : "s are",
                       " available");
}

void Backend::copy_from_host(void*, const void*, size_t, Device) { not_implemented("copy_from_host"); }
void Backend::copy_to_host(void*, const void*, size_t, Device) { not_implemented("copy_to_host"); }
void Backend::copy_between_devices(void*, Device, const void*, Device, size_t) {
  not_implemented("copy_between_devices");
}
void Backend::synchronize(Device) {}
cuda::MemoryStats Backend::memory_stats(int) { not_implemented("memory_stats"); }
void Backend::reset_peak_memory_stats(int) { not_implemented("reset_peak_memory_stats"); }
void Backend::empty_cache() {}
std::string Backend::versions() { return "not compiled"; }

Tensor Backend::contiguous(const Tensor& t) {
  if (!t.defined() || t.is_contiguous()) return t;
  Tensor c = detail::make_empty(t.shape(), t.dtype(), t.device());
  copy(c, t);
  return c;
}
Tensor Backend::pack_linear_weight(const Tensor&, PackFormat format) {
  if (format == PackFormat::BFloat16) not_implemented("pack_linear_weight with bfloat16 weights");
  return Tensor();
}
void Backend::linear_packed(const Tensor&, const Tensor&, const Tensor&, const Tensor&) {
  not_implemented("linear_packed");
}
void Backend::fill(const Tensor&, const Scalar&) { not_implemented("fill"); }
void Backend::arange(const Tensor&, double, double) { not_implemented("arange"); }
void Backend::random(const Tensor&, RandomKind, double, double, uint64_t, uint64_t) {
  not_implemented("random");
}
void Backend::copy(const Tensor&, const Tensor&) { not_implemented("copy"); }
void Backend::unary(UnaryOp, const Tensor&, const Tensor&, double, double) { not_implemented("unary"); }
void Backend::binary(BinaryOp, const Tensor&, const Tensor&, const Tensor&) { not_implemented("binary"); }
void Backend::binary_scalar(BinaryOp, const Tensor&, const Tensor&, const Scalar&, bool) {
  not_implemented("binary_scalar");
}
void Backend::where(const Tensor&, const Tensor&, const Tensor&, const Tensor&) { not_implemented("where"); }
void Backend::reduce(ReduceOp, const Tensor&, const Tensor&, const std::vector<int>&) {
  not_implemented("reduce");
}
void Backend::reduce_with_index(ReduceOp, const Tensor&, const Tensor&, const Tensor&, int) {
  not_implemented("reduce_with_index");
}
void Backend::matmul(const Tensor&, const Tensor&, const Tensor&, const Tensor&) {
  not_implemented("matmul");
}
void Backend::softmax(const Tensor&, const Tensor&, bool) { not_implemented("softmax"); }
void Backend::softmax_backward(const Tensor&, const Tensor&, const Tensor&, bool) {
  not_implemented("softmax_backward");
}
void Backend::class_loss(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const ClassLossParams&,
                         const char* op) {
  not_implemented(op);
}
void Backend::class_loss_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                  const ClassLossParams&, const char*) {
  not_implemented("class_loss_backward");
}
void Backend::attention(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                        const Tensor&, bool, double) {
  not_implemented("scaled_dot_product_attention");
}
void Backend::attention_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                 const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                 bool, double) {
  not_implemented("scaled_dot_product_attention_backward");
}
void Backend::conv2d(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Conv2dParams&) {
  not_implemented("conv2d");
}
void Backend::conv2d_backward_input(const Tensor&, const Tensor&, const Tensor&, const Conv2dParams&) {
  not_implemented("conv2d_backward_input");
}
void Backend::conv2d_backward_weight(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                     const Conv2dParams&) {
  not_implemented("conv2d_backward_weight");
}
void Backend::max_pool2d(const Tensor&, const Tensor&, const Tensor&, const Pool2dParams&) {
  not_implemented("max_pool2d");
}
void Backend::max_pool2d_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                  const Pool2dParams&) {
  not_implemented("max_pool2d_backward");
}
void Backend::avg_pool2d(const Tensor&, const Tensor&, const Pool2dParams&) { not_implemented("avg_pool2d"); }
void Backend::avg_pool2d_backward(const Tensor&, const Tensor&, const Pool2dParams&) {
  not_implemented("avg_pool2d_backward");
}
void Backend::batch_norm(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                         const Tensor&, const Tensor&, const Tensor&, bool, double, double) {
  not_implemented("batch_norm");
}
void Backend::batch_norm_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                  const Tensor&, const Tensor&, const Tensor&, bool, double) {
  not_implemented("batch_norm_backward");
}
void Backend::layer_norm(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                         const Tensor&, double) {
  not_implemented("layer_norm");
}
void Backend::add_layer_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_rstd,
                             const Tensor& input, const Tensor& residual, const Tensor& weight,
                             const Tensor& bias, double eps) {
  const Tensor sum = detail::make_empty(input.shape(), input.dtype(), input.device(), "add_layer_norm");
  // binary takes operands of out's shape: a residual short of input's leading ones, viewed so.
  binary(BinaryOp::Add, sum, input,
         residual.shape() == input.shape() ? residual : residual.reshape(input.shape()));
  layer_norm(out, save_mean, save_rstd, sum, weight, bias, eps);
}
void Backend::layer_norm_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                  const Tensor&, const Tensor&, const Tensor&) {
  not_implemented("layer_norm_backward");
}
void Backend::index_select(const Tensor&, const Tensor&, int, const Tensor&, const char* op) {
  not_implemented(op);
}
void Backend::index_add(const Tensor&, int, const Tensor&, const Tensor&) { not_implemented("index_add"); }
void Backend::gather(const Tensor&, const Tensor&, int, const Tensor&, const char* op) {
  not_implemented(op);
}
void Backend::scatter_add(const Tensor&, int, const Tensor&, const Tensor&) {
  not_implemented("scatter_add");
}
void Backend::sgd_step(const std::vector<Tensor>&, const std::vector<Tensor>&, const std::vector<Tensor>&,
                       const SgdParams&) {
  not_implemented("sgd_step");
}
void Backend::adam_step(const std::vector<Tensor>&, const std::vector<Tensor>&, const std::vector<Tensor>&,
                        const std::vector<Tensor>&, const AdamParams&) {
  not_implemented("adam_step");
}

}  // namespace ember
