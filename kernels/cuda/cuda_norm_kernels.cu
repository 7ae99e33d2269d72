// Inference-mode batch-norm statistics and gradient (see cuda_norm_kernels.h): one block
// per channel sums grad_out and grad_out * x_hat over the batch and positions (CUB
// BlockReduce, in double for float32) while writing grad_input.
#include <cub/block/block_reduce.cuh>

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
__global__ void inference_backward_kernel(T* gi, T* gw, T* gb, const T* go, const T* x, const T* w,
                                          const T* mean, const T* invstd, int64_t n, int64_t c, int64_t rest) {
  using Reduce = cub::BlockReduce<Sums, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  for (int64_t ch = blockIdx.x; ch < c; ch += gridDim.x) {
    const T m = mean[ch], is = invstd[ch], scale = (w ? w[ch] : T(1)) * is;
    Sums s{0, 0};
    for (int64_t e = threadIdx.x; e < n * rest; e += blockDim.x) {
      const int64_t i = (e / rest) * c * rest + ch * rest + e % rest;
      const T g = go[i];
      if (gi) gi[i] = g * scale;
      s.g += static_cast<double>(g);
      s.gx += static_cast<double>(g) * static_cast<double>((x[i] - m) * is);
    }
    const Sums total = Reduce(temp).Reduce(s, AddSums());
    if (threadIdx.x == 0) {
      if (gw) gw[ch] = static_cast<T>(total.gx);
      if (gb) gb[ch] = static_cast<T>(total.g);
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

void batch_norm_inference_stats(const Tensor& save_mean, const Tensor& save_invstd, const Tensor& running_mean,
                                const Tensor& running_var, double eps) {
  const int64_t c = running_mean.numel();
  if (c == 0) return;
  const int dev = running_mean.device().index;
  EMBER_DISPATCH_FLOATING(running_mean.dtype(), "batch_norm", [&] {
    EMBER_LAUNCH(inference_stats_kernel, grid_for(c, dev), kThreads, 0, stream(dev), ptr_or_null<scalar_t>(save_mean),
                 ptr_or_null<scalar_t>(save_invstd), static_cast<const scalar_t*>(running_mean.raw_data()),
                 static_cast<const scalar_t*>(running_var.raw_data()), c, eps);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

void batch_norm_inference_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                   const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                   const Tensor& mean, const Tensor& invstd, int64_t n, int64_t c,
                                   int64_t rest) {
  if (c == 0) return;
  const int dev = input.device().index;
  const unsigned grid = static_cast<unsigned>(min64(c, int64_t(sm_count(dev)) * 8));
  EMBER_DISPATCH_FLOATING(input.dtype(), "batch_norm_backward", [&] {
    EMBER_LAUNCH(inference_backward_kernel, grid, kThreads, 0, stream(dev), ptr_or_null<scalar_t>(grad_input),
                 ptr_or_null<scalar_t>(grad_weight), ptr_or_null<scalar_t>(grad_bias),
                 static_cast<const scalar_t*>(grad_out.raw_data()), static_cast<const scalar_t*>(input.raw_data()),
                 ptr_or_null<scalar_t>(weight), static_cast<const scalar_t*>(mean.raw_data()),
                 static_cast<const scalar_t*>(invstd.raw_data()), n, c, rest);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

}  // namespace ember::cuda_detail
