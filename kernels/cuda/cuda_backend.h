#pragma once
// CudaBackend: hand-written kernels, cuBLAS and cuDNN. Each family lives in its own file.
// Every method runs on the device of its output, on that device's one stream.
// This header includes no CUDA header, so core code may include it.
#include <string>

#include "ember/extend/backend.h"

namespace ember {

class CudaBackend : public Backend {
 public:
  DeviceType type() const override { return DeviceType::CUDA; }
  /// The devices the runtime reports; 0 when there is no driver or no GPU.
  int device_count() const override;
  /// With no device at all, the DeviceError says why: no driver, or a driver without devices.
  void check_device(Device device) const override;
  Allocator& allocator() override;
  // cuda_allocator.cpp (figures, cache) and cuda_context.cpp (versions)
  cuda::MemoryStats memory_stats(int device) override;
  void reset_peak_memory_stats(int device) override;
  void empty_cache() override;
  std::string versions() override;

  // cuda_memory.cpp
  void copy_from_host(void* dst, const void* src, size_t nbytes, Device dst_device) override;
  void copy_to_host(void* dst, const void* src, size_t nbytes, Device src_device) override;
  void copy_between_devices(void* dst, Device dst_device, const void* src, Device src_device,
                            size_t nbytes) override;
  void synchronize(Device device) override;

  // cuda_fill_random.cu
  void fill(const Tensor& out, const Scalar& value) override;
  void arange(const Tensor& out, double start, double step) override;
  void random(const Tensor& out, RandomKind kind, double a, double b, uint64_t seed,
              uint64_t offset) override;

  // cuda_copy_where.cu, cuda_unary.cu, cuda_binary.cu, cuda_binary_scalar.cu
  void copy(const Tensor& dst, const Tensor& src) override;
  void unary(UnaryOp op, const Tensor& out, const Tensor& in, double p0, double p1) override;
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) override;
  void binary_scalar(BinaryOp op, const Tensor& out, const Tensor& a, const Scalar& s,
                     bool scalar_first) override;
  void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) override;

  // cuda_reduce.cu
  void reduce(ReduceOp op, const Tensor& out, const Tensor& in, const std::vector<int>& dims) override;
  void reduce_with_index(ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in,
                         int dim) override;

  // cuda_matmul.cpp (cuBLAS)
  void matmul(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias) override;

  // cuda_softmax_loss.cu
  void softmax(const Tensor& out, const Tensor& in, bool log) override;
  void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, bool log) override;
  void class_loss(const Tensor& losses, const Tensor& valid, const Tensor& input, const Tensor& target,
                  const ClassLossParams& p, const char* op) override;
  void class_loss_backward(const Tensor& grad_input, const Tensor& grad_losses, const Tensor& input,
                           const Tensor& target, const ClassLossParams& p, const char* op) override;

  // cuda_attention.cpp (cuBLAS) and cuda_attention.cu
  void attention(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                 const Tensor& mask, bool is_causal, double scale) override;
  void attention_backward(const Tensor& grad_q, const Tensor& grad_k, const Tensor& grad_v,
                          const Tensor& grad_out, const Tensor& q, const Tensor& k, const Tensor& v,
                          const Tensor& out, const Tensor& lse, const Tensor& mask, bool is_causal,
                          double scale) override;

  // cuda_conv.cpp (cuDNN)
  void conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
              const Conv2dParams& p) override;
  void conv2d_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                             const Conv2dParams& p) override;
  void conv2d_backward_weight(const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& grad_out,
                              const Tensor& input, const Conv2dParams& p) override;

  // cuda_pool.cpp (cuDNN) and cuda_pool_kernels.cu
  void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input,
                  const Pool2dParams& p) override;
  void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& input,
                           const Tensor& out, const Tensor& indices, const Pool2dParams& p) override;
  void avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& p) override;
  void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& p) override;

  // cuda_batch_norm.cpp (cuDNN) and cuda_norm_kernels.cu
  void batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& input,
                  const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps) override;
  void batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                           const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                           const Tensor& save_mean, const Tensor& save_invstd, bool training,
                           double eps) override;

  // cuda_layer_norm.cu
  void layer_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_rstd, const Tensor& input,
                  const Tensor& weight, const Tensor& bias, double eps) override;
  void layer_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                           const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                           const Tensor& save_mean, const Tensor& save_rstd) override;

  // cuda_index.cu
  void index_select(const Tensor& out, const Tensor& in, int dim, const Tensor& index,
                    const char* op) override;
  void index_add(const Tensor& out, int dim, const Tensor& index, const Tensor& src) override;
  void gather(const Tensor& out, const Tensor& in, int dim, const Tensor& index, const char* op) override;
  void scatter_add(const Tensor& out, int dim, const Tensor& index, const Tensor& src) override;

  // cuda_optim.cu
  void sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                const std::vector<Tensor>& momentum, const SgdParams& p) override;
  void adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                 const std::vector<Tensor>& exp_avg, const std::vector<Tensor>& exp_avg_sq,
                 const AdamParams& p) override;
};

/// The process-wide CUDA backend (what backend_for(cuda) serves unless one is registered).
Backend& builtin_cuda_backend();
/// The real CUDA devices, whatever backend is registered.
int builtin_cuda_device_count();

/// Makes device current for its scope and restores the previous one.
class CudaDeviceGuard {
 public:
  explicit CudaDeviceGuard(int device);
  ~CudaDeviceGuard();
  CudaDeviceGuard(const CudaDeviceGuard&) = delete;
  CudaDeviceGuard& operator=(const CudaDeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

namespace cuda_detail {
/// Test hook: every block the allocator hands out is first filled with this byte (0xFF
/// makes float32/float64 NaN, 0xA5 poisons integers); -1 turns it off.
EMBER_API void set_alloc_fill(int byte);
}  // namespace cuda_detail

}  // namespace ember
