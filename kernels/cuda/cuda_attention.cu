// The row kernels of scaled dot-product attention (cuda_attention.cpp multiplies around
// them): the masked softmax with each row's log-sum-exp, the probabilities recomputed from
// it, and the softmax's gradient. One block per row (CUB BlockReduce for the row's maximum
// and sums); a row with every key masked gives zeros, never NaN, as on the CPU.
#include <cub/block/block_reduce.cuh>

#include <cmath>
#include <type_traits>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cuda/cuda_attention_kernels.h"
#include "ember/kernels/cuda/cuda_loops.cuh"
#include "ember/kernels/cuda/row_launch.cuh"
#include "ember/kernels/functors.h"

namespace ember::cuda_detail {
namespace {

// What masks a score, as the kernels read it: the mask's [B, L, S] strides and is_causal.
struct MaskArgs {
  const bool* keep = nullptr;  // bool mask: false masks out
  const void* add = nullptr;   // additive mask, of the scores' dtype
  int64_t sb = 0, sl = 0, ss = 0;
  bool causal = false;
};

MaskArgs mask_args(const Tensor& mask, bool is_causal) {
  MaskArgs m;
  m.causal = is_causal;
  if (!mask.defined()) return m;
  if (mask.dtype() == kBool)
    m.keep = static_cast<const bool*>(mask.raw_data());
  else
    m.add = mask.raw_data();
  m.sb = mask.stride(0);
  m.sl = mask.stride(1);
  m.ss = mask.stride(2);
  return m;
}

// scale * x for query i and key j of batch b, masked: -inf where the key is masked out.
template <class T>
__device__ T masked_score(T x, T scale, const MaskArgs& m, int64_t b, int64_t i, int64_t j) {
  x *= scale;
  if (m.causal && j > i) return T(-INFINITY);
  const int64_t off = b * m.sb + i * m.sl + j * m.ss;
  if (m.keep) return m.keep[off] ? x : T(-INFINITY);
  if (m.add) return x + static_cast<const T*>(m.add)[off];
  return x;
}

struct SumOp {
  template <class A>
  __device__ A operator()(A a, A b) const {
    return a + b;
  }
};
struct MaxOp {
  template <class A>
  __device__ A operator()(A a, A b) const {
    return a > b ? a : b;
  }
};

// A block reduction whose result every thread gets.
template <int B, class T>
struct RowReduce {
  using Reduce = cub::BlockReduce<T, B>;
  typename Reduce::TempStorage temp;
  T broadcast;

  template <class Op>
  __device__ T all(T v, Op op) {
    const T r = Reduce(temp).Reduce(v, op);
    if (threadIdx.x == 0) broadcast = r;
    __syncthreads();
    const T out = broadcast;
    __syncthreads();  // temp and broadcast may be reused right after
    return out;
  }
};

// ---------------------------------------------------------------------------------------
// kernels

template <int B, class T>
__global__ void attention_softmax_kernel(T* s, T* lse, int64_t rows, int64_t L, int64_t S, T scale,
                                         MaskArgs m) {
  __shared__ RowReduce<B, T> red;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const int64_t b = r / L, i = r % L;
    T* row = s + r * S;
    // Each thread rewrites only the elements it reads, so no barrier is needed between passes.
    T mx = T(-INFINITY);
    for (int64_t j = threadIdx.x; j < S; j += B) {
      const T x = masked_score(row[j], scale, m, b, i, j);
      row[j] = x;
      mx = MaxOp()(mx, x);
    }
    mx = red.all(mx, MaxOp());
    if (mx == T(-INFINITY)) {  // every key masked (the whole block agrees): zeros
      for (int64_t j = threadIdx.x; j < S; j += B) row[j] = T(0);
      if (lse && threadIdx.x == 0) lse[r] = T(-INFINITY);
      continue;
    }
    T sum = 0;
    for (int64_t j = threadIdx.x; j < S; j += B) {
      const T e = fn::m_exp(row[j] - mx);
      row[j] = e;
      sum += e;
    }
    sum = red.all(sum, SumOp());
    for (int64_t j = threadIdx.x; j < S; j += B) row[j] /= sum;
    if (lse && threadIdx.x == 0) lse[r] = mx + fn::m_log(sum);
  }
}

template <class T>
__global__ void attention_probs_kernel(T* s, const T* lse, int64_t n, int64_t L, int64_t S, T scale,
                                       MaskArgs m) {
  for (int64_t idx = global_thread(); idx < n; idx += grid_stride()) {
    const int64_t r = idx / S, j = idx % S;
    const T l = lse[r];
    s[idx] = l == T(-INFINITY) ? T(0) : fn::m_exp(masked_score(s[idx], scale, m, r / L, r % L, j) - l);
  }
}

template <int B, class T>
__global__ void attention_softmax_backward_kernel(T* dp, const T* p, int64_t rows, int64_t S, T scale) {
  __shared__ RowReduce<B, T> red;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    T* g = dp + r * S;
    const T* pr = p + r * S;
    T d = 0;
    for (int64_t j = threadIdx.x; j < S; j += B) d += pr[j] * g[j];
    d = red.all(d, SumOp());
    for (int64_t j = threadIdx.x; j < S; j += B) g[j] = scale * pr[j] * (g[j] - d);
  }
}

}  // namespace

void attention_softmax(const Tensor& scores, const Tensor& lse, const Tensor& mask, bool is_causal,
                       double scale) {
  const int64_t L = scores.size(1), S = scores.size(2), rows = scores.size(0) * L;
  if (rows == 0) return;
  const int dev = scores.device().index;
  CudaDeviceGuard guard(dev);
  const MaskArgs m = mask_args(mask, is_causal);
  EMBER_DISPATCH_FLOATING(scores.dtype(), "scaled_dot_product_attention", [&] {
    cuda_detail::with_row_block(S, [&](auto b) {
      EMBER_LAUNCH((attention_softmax_kernel<decltype(b)::value, scalar_t>), cuda_detail::row_grid(rows, dev),
                   decltype(b)::value, 0, stream(dev), static_cast<scalar_t*>(scores.raw_data()),
                   lse.defined() ? static_cast<scalar_t*>(lse.raw_data()) : nullptr, rows, L, S,
                   static_cast<scalar_t>(scale), m);
      EMBER_CUDA_LAUNCH_CHECK();
    });
  });
}

void attention_probs(const Tensor& scores, const Tensor& lse, const Tensor& mask, bool is_causal,
                     double scale) {
  const int64_t n = scores.numel();
  if (n == 0) return;
  const int dev = scores.device().index;
  CudaDeviceGuard guard(dev);
  const MaskArgs m = mask_args(mask, is_causal);
  EMBER_DISPATCH_FLOATING(scores.dtype(), "scaled_dot_product_attention", [&] {
    EMBER_LAUNCH(attention_probs_kernel<scalar_t>, grid_for(n, dev), kThreads, 0, stream(dev),
                 static_cast<scalar_t*>(scores.raw_data()), static_cast<const scalar_t*>(lse.raw_data()), n,
                 scores.size(1), scores.size(2), static_cast<scalar_t>(scale), m);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

void attention_softmax_backward(const Tensor& grad_probs, const Tensor& probs, double scale) {
  const int64_t S = probs.size(2), rows = probs.size(0) * probs.size(1);
  if (rows == 0 || S == 0) return;
  const int dev = probs.device().index;
  CudaDeviceGuard guard(dev);
  EMBER_DISPATCH_FLOATING(probs.dtype(), "scaled_dot_product_attention", [&] {
    cuda_detail::with_row_block(S, [&](auto b) {
      EMBER_LAUNCH((attention_softmax_backward_kernel<decltype(b)::value, scalar_t>),
                   cuda_detail::row_grid(rows, dev), decltype(b)::value, 0, stream(dev),
                   static_cast<scalar_t*>(grad_probs.raw_data()),
                   static_cast<const scalar_t*>(probs.raw_data()), rows, S, static_cast<scalar_t>(scale));
      EMBER_CUDA_LAUNCH_CHECK();
    });
  });
}

}  // namespace ember::cuda_detail
