#pragma once
// CpuBackend: the Eigen backend, always built; the fallback and the numerical reference.
// Each family of methods lives in its own file in this folder.
#include "ember/extend/backend.h"

namespace ember {

class EMBER_API CpuBackend : public Backend {
 public:
  DeviceType type() const override { return DeviceType::CPU; }
  int device_count() const override { return 1; }
  Allocator& allocator() override;
  /// Gives the cached large blocks of freed CPU tensors, and the convolutions' scratch buffers
  /// (kernels/cpu/conv/conv_scratch.h), back to the system.
  void empty_cache() override;

  // cpu_backend.cpp
  void copy_from_host(void* dst, const void* src, size_t nbytes, Device) override;
  void copy_to_host(void* dst, const void* src, size_t nbytes, Device) override;
  void copy_between_devices(void* dst, Device, const void* src, Device, size_t nbytes) override;

  // cpu_fill_random.cpp
  void fill(const Tensor& out, const Scalar& value) override;
  void arange(const Tensor& out, double start, double step) override;
  void random(const Tensor& out, RandomKind kind, double a, double b, uint64_t seed,
              uint64_t offset) override;

  // cpu_elementwise.cpp
  void copy(const Tensor& dst, const Tensor& src) override;
  void unary(UnaryOp op, const Tensor& out, const Tensor& in, double p0, double p1) override;
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) override;
  void binary_scalar(BinaryOp op, const Tensor& out, const Tensor& a, const Scalar& s,
                     bool scalar_first) override;
  void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) override;

  // cpu_reduce.cpp
  void reduce(ReduceOp op, const Tensor& out, const Tensor& in, const std::vector<int>& dims) override;
  void reduce_with_index(ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in,
                         int dim) override;

  // cpu_matmul.cpp
  void matmul(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias) override;
  // cpu_linear_packed.cpp
  Tensor pack_linear_weight(const Tensor& weight, PackFormat format) override;
  void linear_packed(const Tensor& out, const Tensor& x, const Tensor& packed, const Tensor& bias) override;

  // cpu_softmax_loss.cpp
  void softmax(const Tensor& out, const Tensor& in, bool log) override;
  void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, bool log) override;
  void class_loss(const Tensor& losses, const Tensor& valid, const Tensor& input, const Tensor& target,
                  const ClassLossParams& p, const char* op) override;
  void class_loss_backward(const Tensor& grad_input, const Tensor& grad_losses, const Tensor& input,
                           const Tensor& target, const ClassLossParams& p, const char* op) override;

  // cpu_attention.cpp
  void attention(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                 const Tensor& mask, bool is_causal, double scale) override;
  void attention_backward(const Tensor& grad_q, const Tensor& grad_k, const Tensor& grad_v,
                          const Tensor& grad_out, const Tensor& q, const Tensor& k, const Tensor& v,
                          const Tensor& out, const Tensor& lse, const Tensor& mask, bool is_causal,
                          double scale) override;

  // conv/cpu_conv.cpp
  void conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
              const Conv2dParams& p) override;
  void conv2d_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                             const Conv2dParams& p) override;
  void conv2d_backward_weight(const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& grad_out,
                              const Tensor& input, const Conv2dParams& p) override;

  // cpu_pool.cpp
  void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input,
                  const Pool2dParams& p) override;
  void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& input,
                           const Tensor& out, const Tensor& indices, const Pool2dParams& p) override;
  void avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& p) override;
  void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& p) override;

  // cpu_batch_norm.cpp
  void batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& input,
                  const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps) override;
  void batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                           const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                           const Tensor& save_mean, const Tensor& save_invstd, bool training,
                           double eps) override;

  // cpu_layer_norm.cpp
  void layer_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_rstd, const Tensor& input,
                  const Tensor& weight, const Tensor& bias, double eps) override;
  void add_layer_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_rstd,
                      const Tensor& input, const Tensor& residual, const Tensor& weight, const Tensor& bias,
                      double eps) override;
  void layer_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                           const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                           const Tensor& save_mean, const Tensor& save_rstd) override;

  // cpu_index.cpp
  void index_select(const Tensor& out, const Tensor& in, int dim, const Tensor& index,
                    const char* op) override;
  void index_add(const Tensor& out, int dim, const Tensor& index, const Tensor& src) override;
  void gather(const Tensor& out, const Tensor& in, int dim, const Tensor& index, const char* op) override;
  void scatter_add(const Tensor& out, int dim, const Tensor& index, const Tensor& src) override;

  // cpu_optim.cpp
  void sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                const std::vector<Tensor>& momentum, const SgdParams& p) override;
  void adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                 const std::vector<Tensor>& exp_avg, const std::vector<Tensor>& exp_avg_sq,
                 const AdamParams& p) override;
};

/// The process-wide CPU backend.
EMBER_API CpuBackend& cpu_backend();

}  // namespace ember
