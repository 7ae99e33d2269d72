// Ember's batch-norm kernels (see cuda_norm_kernels.h): one block per channel reduces over
// the batch and positions (CUB BlockReduce, in double for float32): the training
// statistics (two passes: mean, then squared deviations), and the gradient's sums of
// grad_out and grad_out * x_hat, grad_input written in the same pass (inference) or in a
// second one once the sums are known (training). Normalising is elementwise.
#include <cub/block/block_reduce.cuh>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cuda/cuda_loops.cuh"
#include "ember/kernels/cuda/cuda_norm_kernels.h"
#include "ember/kernels/functors.h"

namespace ember::cuda_detail {
namespace {

struct Sums {
  double g, gx;
};
struct AddSums {
  __device__ Sums operator()(const Sums& a, const Sums& b) const { return {a.g + b.g, a.gx + b.gx}; }
};
struct AddDouble {
  __device__ double operator()(double a, double b) const { return a + b; }
};

// Element e of a channel's n * rest elements, in a contiguous [n, c, rest] tensor.
__device__ inline int64_t channel_element(int64_t e, int64_t ch, int64_t c, int64_t rest) {
  return (e / rest) * c * rest + ch * rest + e % rest;
}

// ---------------------------------------------------------------------------------------
// kernels

template <class T>
__global__ void inference_stats_kernel(T* save_mean, T* save_invstd, const T* rm, const T* rv, int64_t c,
                                       double eps) {
  for (int64_t i = global_thread(); i < c; i += grid_stride()) {
    if (save_mean) save_mean[i] = rm[i];
    if (save_invstd) save_invstd[i] = static_cast<T>(1.0 / fn::m_sqrt(static_cast<double>(rv[i]) + eps));
  }
}

template <class T>
__global__ void train_stats_kernel(T* save_mean, T* save_invstd, T* rm, T* rv, const T* x, int64_t n,
                                   int64_t c, int64_t rest, double momentum, double eps) {
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ double mean_of_block;
  const int64_t m = n * rest;
  for (int64_t ch = blockIdx.x; ch < c; ch += gridDim.x) {
    double s = 0;
    for (int64_t e = threadIdx.x; e < m; e += blockDim.x)
      s += static_cast<double>(x[channel_element(e, ch, c, rest)]);
    const double sum = Reduce(temp).Reduce(s, AddDouble());
    if (threadIdx.x == 0) mean_of_block = sum / static_cast<double>(m);
    __syncthreads();
    const double mean = mean_of_block;
    double sq = 0;
    for (int64_t e = threadIdx.x; e < m; e += blockDim.x) {
      const double d = static_cast<double>(x[channel_element(e, ch, c, rest)]) - mean;
      sq += d * d;
    }
    const double squares = Reduce(temp).Reduce(sq, AddDouble());
    if (threadIdx.x == 0) {
      save_mean[ch] = static_cast<T>(mean);
      save_invstd[ch] = static_cast<T>(1.0 / fn::m_sqrt(squares / static_cast<double>(m) + eps));
      if (rm) {  // the running variance is the unbiased one, as PyTorch's and cuDNN's
        rm[ch] = static_cast<T>((1 - momentum) * static_cast<double>(rm[ch]) + momentum * mean);
        rv[ch] = static_cast<T>((1 - momentum) * static_cast<double>(rv[ch]) +
                                momentum * squares / static_cast<double>(m - 1));
      }
    }
    __syncthreads();
  }
}

template <class T>
__global__ void normalize_kernel(T* out, const T* x, const T* w, const T* b, const T* mean, const T* invstd,
                                 int64_t c, int64_t rest, int64_t total) {
  for (int64_t i = global_thread(); i < total; i += grid_stride()) {
    const int64_t ch = (i / rest) % c;
    out[i] = (x[i] - mean[ch]) * invstd[ch] * (w ? w[ch] : T(1)) + (b ? b[ch] : T(0));
  }
}

// training: mean and invstd are the batch's, so they depend on x and grad_input needs the
// sums first: dx = w * invstd * (g - sum(g) / m - x_hat * sum(g x_hat) / m).
template <class T>
__global__ void backward_kernel(T* gi, T* gw, T* gb, const T* go, const T* x, const T* w, const T* mean,
                                const T* invstd, int64_t n, int64_t c, int64_t rest, bool training) {
  using Reduce = cub::BlockReduce<Sums, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ Sums sums_of_block;
  const int64_t m = n * rest;
  for (int64_t ch = blockIdx.x; ch < c; ch += gridDim.x) {
    const T mu = mean[ch], is = invstd[ch], scale = (w ? w[ch] : T(1)) * is;
    Sums s{0, 0};
    for (int64_t e = threadIdx.x; e < m; e += blockDim.x) {
      const int64_t i = channel_element(e, ch, c, rest);
      const T g = go[i];
      if (gi && !training) gi[i] = g * scale;
      s.g += static_cast<double>(g);
      s.gx += static_cast<double>(g) * static_cast<double>((x[i] - mu) * is);
    }
    const Sums total = Reduce(temp).Reduce(s, AddSums());
    if (threadIdx.x == 0) {
      if (gw) gw[ch] = static_cast<T>(total.gx);
      if (gb) gb[ch] = static_cast<T>(total.g);
      sums_of_block = total;
    }
    __syncthreads();
    if (gi && training) {
      const double mean_g = sums_of_block.g / static_cast<double>(m),
                   mean_gx = sums_of_block.gx / static_cast<double>(m);
      for (int64_t e = threadIdx.x; e < m; e += blockDim.x) {
        const int64_t i = channel_element(e, ch, c, rest);
        const double xhat = static_cast<double>((x[i] - mu) * is);
        gi[i] = static_cast<T>(static_cast<double>(scale) *
                               (static_cast<double>(go[i]) - mean_g - xhat * mean_gx));
      }
    }
    __syncthreads();
  }
}

template <class T>
T* ptr_or_null(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.raw_data()) : nullptr;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// launchers

void batch_norm_inference_stats(const Tensor& save_mean, const Tensor& save_invstd,
                                const Tensor& running_mean, const Tensor& running_var, double eps) {
  const int64_t c = running_mean.numel();
  if (c == 0) return;
  const int dev = running_mean.device().index;
  EMBER_DISPATCH_FLOATING(running_mean.dtype(), "batch_norm", [&] {
    EMBER_LAUNCH(inference_stats_kernel, grid_for(c, dev), kThreads, 0, stream(dev),
                 ptr_or_null<scalar_t>(save_mean), ptr_or_null<scalar_t>(save_invstd),
                 static_cast<const scalar_t*>(running_mean.raw_data()),
                 static_cast<const scalar_t*>(running_var.raw_data()), c, eps);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

namespace {
// One block per channel, at most 8 per multiprocessor.
unsigned channel_grid(int64_t c, int dev) {
  return static_cast<unsigned>(min64(c, int64_t(sm_count(dev)) * 8));
}
}  // namespace

void batch_norm_train_stats(const Tensor& save_mean, const Tensor& save_invstd, const Tensor& running_mean,
                            const Tensor& running_var, const Tensor& input, int64_t n, int64_t c,
                            int64_t rest, double momentum, double eps) {
  if (c == 0) return;
  const int dev = input.device().index;
  EMBER_DISPATCH_FLOATING(input.dtype(), "batch_norm", [&] {
    EMBER_LAUNCH(train_stats_kernel, channel_grid(c, dev), kThreads, 0, stream(dev),
                 static_cast<scalar_t*>(save_mean.raw_data()), static_cast<scalar_t*>(save_invstd.raw_data()),
                 ptr_or_null<scalar_t>(running_mean), ptr_or_null<scalar_t>(running_var),
                 static_cast<const scalar_t*>(input.raw_data()), n, c, rest, momentum, eps);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

void batch_norm_normalize(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                          const Tensor& mean, const Tensor& invstd, int64_t c, int64_t rest) {
  const int64_t total = out.numel();
  if (total == 0) return;
  const int dev = out.device().index;
  EMBER_DISPATCH_FLOATING(input.dtype(), "batch_norm", [&] {
    EMBER_LAUNCH(normalize_kernel, grid_for(total, dev), kThreads, 0, stream(dev),
                 static_cast<scalar_t*>(out.raw_data()), static_cast<const scalar_t*>(input.raw_data()),
                 ptr_or_null<scalar_t>(weight), ptr_or_null<scalar_t>(bias),
                 static_cast<const scalar_t*>(mean.raw_data()),
                 static_cast<const scalar_t*>(invstd.raw_data()), c, rest, total);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

void batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                         const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                         const Tensor& mean, const Tensor& invstd, int64_t n, int64_t c, int64_t rest,
                         bool training) {
  if (c == 0) return;
  const int dev = input.device().index;
  EMBER_DISPATCH_FLOATING(input.dtype(), "batch_norm_backward", [&] {
    EMBER_LAUNCH(backward_kernel, channel_grid(c, dev), kThreads, 0, stream(dev),
                 ptr_or_null<scalar_t>(grad_input), ptr_or_null<scalar_t>(grad_weight),
                 ptr_or_null<scalar_t>(grad_bias), static_cast<const scalar_t*>(grad_out.raw_data()),
                 static_cast<const scalar_t*>(input.raw_data()), ptr_or_null<scalar_t>(weight),
                 static_cast<const scalar_t*>(mean.raw_data()),
                 static_cast<const scalar_t*>(invstd.raw_data()), n, c, rest, training);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

}  // namespace ember::cuda_detail
