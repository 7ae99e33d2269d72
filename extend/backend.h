#pragma once
// The Backend interface: one virtual method per primitive. Front-ends (core/ops) validate
// and allocate; a backend only computes. Outputs are always contiguous and already allocated
// on the backend's device; inputs may be strided (views) unless a method says otherwise.
// Every method has a default that throws NotImplementedError naming the op and the device,
// so a backend without an op never falls back silently.
#include <cstdint>
#include <string>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/export.h"
#include "ember/core/memory_stats.h"
#include "ember/core/ops/linear_pack.h"
#include "ember/core/scalar.h"
#include "ember/core/tensor.h"
#include "ember/extend/allocator.h"
#include "ember/extend/op_kinds.h"

namespace ember {

/// The switches users set through ember::cuda (core/cuda.h) as backends read them: a
/// backend depends on this door, not on the user API.
struct BackendSettings {
  bool allow_tf32 = false;
  bool deterministic = false;
};
EMBER_API BackendSettings backend_settings();

class EMBER_API Backend {
 public:
  virtual ~Backend() = default;
  virtual DeviceType type() const = 0;
  /// Number of devices of this type.
  virtual int device_count() const = 0;
  /// Throws DeviceError when device is not one of this backend's devices.
  virtual void check_device(Device device) const;
  virtual Allocator& allocator() = 0;

  // ---- memory and transfers (byte counts; pointers already offset) ----
  virtual void copy_from_host(void* dst, const void* host_src, size_t nbytes, Device dst_device);
  virtual void copy_to_host(void* host_dst, const void* src, size_t nbytes, Device src_device);
  /// Copies between two devices of this backend (cuda:0 -> cuda:1 or within one device).
  virtual void copy_between_devices(void* dst, Device dst_device, const void* src, Device src_device,
                                    size_t nbytes);
  /// Waits until all queued work on device is done; surfaces asynchronous errors.
  virtual void synchronize(Device device);
  /// The device memory figures and cache behind ember::cuda's functions (core/cuda.cpp
  /// forwards); backends without a caching allocator keep the defaults (NotImplementedError
  /// for the figures, nothing to empty).
  virtual cuda::MemoryStats memory_stats(int device);
  virtual void reset_peak_memory_stats(int device);
  virtual void empty_cache();
  /// The runtime and library versions, for ember::cuda::versions().
  virtual std::string versions();
  /// t itself when undefined or contiguous, else a contiguous copy made with this backend's
  /// own copy(): how kernels densify an operand (never through op front-ends, which record
  /// autograd).
  Tensor contiguous(const Tensor& t);

  // ---- creation ----
  /// Every element = value, converted as kernels/cast.h converts (an int64 value exactly).
  virtual void fill(const Tensor& out, const Scalar& value);
  /// out[i] = start + i * step.
  virtual void arange(const Tensor& out, double start, double step);
  /// Philox 4x32-10 draws (kernels/philox.h): element i uses counter offset + i / 4.
  virtual void random(const Tensor& out, RandomKind kind, double a, double b, uint64_t seed, uint64_t offset);

  // ---- elementwise ----
  /// dst = src with conversion to dst's dtype; src has dst's shape. Both may be strided
  /// (the one method whose output may be a view: writes through narrow/select/transpose).
  virtual void copy(const Tensor& dst, const Tensor& src);
  virtual void unary(UnaryOp op, const Tensor& out, const Tensor& in, double p0, double p1);
  /// a and b are already broadcast to out's shape (zero strides where expanded).
  virtual void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
  /// out = op(a, s) or op(s, a) when scalar_first, s converted to a's dtype as kernels/cast.h
  /// converts (the front-end has already promoted a to the result's dtype, so an integer s
  /// meets an integer or floating a, and a floating s a floating a).
  virtual void binary_scalar(BinaryOp op, const Tensor& out, const Tensor& a, const Scalar& s,
                             bool scalar_first);
  /// out = cond ? a : b; all three broadcast to out's shape.
  virtual void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);

  // ---- reductions ----
  /// out has in's rank with 1 in every reduced dim (keepdim shape).
  virtual void reduce(ReduceOp op, const Tensor& out, const Tensor& in, const std::vector<int>& dims);
  /// Max or Min over one dim with int64 indices; values may be undefined (argmax).
  virtual void reduce_with_index(ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in,
                                 int dim);

  // ---- linear algebra ----
  /// out[b] = a[b] @ b[b] (+ bias broadcast over rows). a [B, M, K], b [B, K, N], out [B, M, N]
  /// contiguous; a and b may be transposed views or have batch stride 0; bias [N] or undefined.
  virtual void matmul(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias);
  /// A linear's weight [out, in] copied once into the form this backend's GEMM reads fastest,
  /// for many products x W^T (inference). Float32: undefined where that gains nothing (the
  /// default: cuBLAS reads W in place; on the CPU, dtypes and builds without Ember's sgemm).
  /// BFloat16 (a float32 weight, checked by the caller): words of two bfloat16s, int32 (the
  /// default: NotImplementedError).
  virtual Tensor pack_linear_weight(const Tensor& weight, PackFormat format);
  /// out [R, out] = x [R, in] W^T (+ bias [out]) from packed = pack_linear_weight(W, format),
  /// the format told by packed's dtype (float32 or int32 words of bfloat16s); a float32 pack
  /// gives the bits of matmul(out, x, W^T, bias). out contiguous; x any 2-D strides, or x and
  /// out both contiguous with more dims, read as [numel / last dim, last dim] (no views to make).
  virtual void linear_packed(const Tensor& out, const Tensor& x, const Tensor& packed, const Tensor& bias);

  // ---- softmax and losses (contiguous [N, C] inputs, class dim last) ----
  virtual void softmax(const Tensor& out, const Tensor& in, bool log);
  /// grad_in from grad_out and the forward's output.
  virtual void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, bool log);
  /// losses[n] = -log_softmax(input)[n, target[n]] (or -input[n, target[n]] when
  /// p.input_is_log_prob: nll_loss); with label smoothing eps, (1 - eps) times that plus
  /// eps / C * sum_c -log_softmax(input)[n, c]. A target equal to p.ignore_index gives 0.
  /// valid (undefined, or [N] of the input's dtype) gets 1 where the target counts, else 0.
  /// Other targets outside [0, C) raise IndexError naming op.
  virtual void class_loss(const Tensor& losses, const Tensor& valid, const Tensor& input,
                          const Tensor& target, const ClassLossParams& p, const char* op);
  /// grad_input[n, c] = grad_losses[n] * (softmax(input)[n, c] - (1 - eps) [c == target[n]] - eps / C)
  /// (or -grad_losses[n] * [c == target[n]] when p.input_is_log_prob); 0 in rows whose
  /// target is p.ignore_index. Other targets outside [0, C) raise IndexError naming op, as
  /// the forward's.
  virtual void class_loss_backward(const Tensor& grad_input, const Tensor& grad_losses, const Tensor& input,
                                   const Tensor& target, const ClassLossParams& p, const char* op);

  // ---- attention (q [B, L, E], k [B, S, E], v [B, S, Ev], out [B, L, Ev]: unit stride in
  // the last dim, any strides in the other two: heads split by a transpose, a batch dim
  // broadcast with stride 0, an output written in the query's head-interleaved layout) ----
  /// out = softmax(scale * q k^T + mask) v row by row, lse [B, L] each row's log-sum-exp
  /// (the backward's; undefined when no backward will run, and then not computed). mask: undefined, bool
  /// (true attends) or q's dtype (added), [B, L, S] with any strides (0 where broadcast). is_causal: key j >
  /// query i is masked. A row whose keys are all masked gives zeros and lse -inf.
  virtual void attention(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                         const Tensor& v, const Tensor& mask, bool is_causal, double scale);
  /// The three gradients (contiguous) from grad_out and out (contiguous) and the forward's
  /// q, k and v (strided as there); a row with lse -inf gets and gives zero gradients.
  virtual void attention_backward(const Tensor& grad_q, const Tensor& grad_k, const Tensor& grad_v,
                                  const Tensor& grad_out, const Tensor& q, const Tensor& k, const Tensor& v,
                                  const Tensor& out, const Tensor& lse, const Tensor& mask, bool is_causal,
                                  double scale);

  // ---- convolution and pooling (NCHW, contiguous inputs) ----
  virtual void conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const Conv2dParams& p);
  virtual void conv2d_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                                     const Conv2dParams& p);
  /// grad_bias may be undefined.
  virtual void conv2d_backward_weight(const Tensor& grad_weight, const Tensor& grad_bias,
                                      const Tensor& grad_out, const Tensor& input, const Conv2dParams& p);
  /// indices: int64 flat position (h * W + w) of each max inside its input plane.
  virtual void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input,
                          const Pool2dParams& p);
  virtual void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& input,
                                   const Tensor& out, const Tensor& indices, const Pool2dParams& p);
  /// Padding counts in the divisor (PyTorch's count_include_pad=True).
  virtual void avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& p);
  virtual void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& p);

  // ---- normalisation (NCHW or NC, contiguous) ----
  /// Training: batch statistics into save_mean / save_invstd and a momentum update of the
  /// running stats (unbiased variance). Eval: normalises with the running stats. weight,
  /// bias, running_mean, running_var may be undefined.
  virtual void batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd,
                          const Tensor& input, const Tensor& weight, const Tensor& bias,
                          const Tensor& running_mean, const Tensor& running_var, bool training,
                          double momentum, double eps);
  /// grad_weight / grad_bias may be undefined. training=false: save_* are the running
  /// mean and 1/sqrt(var + eps). eps is the forward's (cuDNN asks for the same in both).
  virtual void batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight,
                                   const Tensor& grad_bias, const Tensor& grad_out, const Tensor& input,
                                   const Tensor& weight, const Tensor& save_mean, const Tensor& save_invstd,
                                   bool training, double eps);
  /// Layer norm over contiguous [rows, cols] input: each row normalised by its own mean and
  /// biased variance; save_mean / save_rstd ([rows], float64 whatever input's dtype, so that
  /// the backward's x - mean keeps a large offset's small deviations) get the mean and
  /// 1 / sqrt(var + eps). weight, bias ([cols]) may be undefined. input and out (contiguous,
  /// the same shape) may have any rank: rows is save_mean's numel, cols the rest.
  virtual void layer_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_rstd,
                          const Tensor& input, const Tensor& weight, const Tensor& bias, double eps);
  /// layer_norm of input + residual (contiguous, input's dtype and numel), as a transformer's
  /// residual connection feeds its norm. The default adds into a new tensor and calls
  /// layer_norm; a backend may read both once instead (the CPU's does), with the same bits.
  virtual void add_layer_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_rstd,
                              const Tensor& input, const Tensor& residual, const Tensor& weight,
                              const Tensor& bias, double eps);
  /// All three gradients of layer_norm from the forward's saved statistics, everything
  /// contiguous; any of grad_input, grad_weight, grad_bias, weight may be undefined.
  virtual void layer_norm_backward(const Tensor& grad_input, const Tensor& grad_weight,
                                   const Tensor& grad_bias, const Tensor& grad_out, const Tensor& input,
                                   const Tensor& weight, const Tensor& save_mean, const Tensor& save_rstd);

  // ---- indexing (indices int64; out of range -> IndexError naming op) ----
  virtual void index_select(const Tensor& out, const Tensor& in, int dim, const Tensor& index,
                            const char* op);
  /// out.index_select(dim, index) += src, summing repeated indices.
  virtual void index_add(const Tensor& out, int dim, const Tensor& index, const Tensor& src);
  virtual void gather(const Tensor& out, const Tensor& in, int dim, const Tensor& index, const char* op);
  /// out[... index[i] ...] += src[i] along dim.
  virtual void scatter_add(const Tensor& out, int dim, const Tensor& index, const Tensor& src);

  // ---- optimizers (lists of parameters updated in one call; momentum may be empty) ----
  virtual void sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                        const std::vector<Tensor>& momentum, const SgdParams& p);
  virtual void adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                         const std::vector<Tensor>& exp_avg, const std::vector<Tensor>& exp_avg_sq,
                         const AdamParams& p);

 protected:
  /// Throws NotImplementedError "<op> is not implemented on <device type>".
  [[noreturn]] void not_implemented(const char* op) const;
};

/// The backend serving device (the registered one; the built-in CPU or CUDA backend
/// otherwise). CUDA in a build without CUDA and nothing registered -> NotCompiledError.
EMBER_API Backend& backend_for(Device device);
/// Like backend_for, and validates the device index (DeviceError).
EMBER_API Backend& checked_backend_for(Device device);

}  // namespace ember
