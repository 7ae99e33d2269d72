// softmax, log_softmax and the fused class losses (cross_entropy, nll_loss) on CUDA, on
// contiguous [N, C] rows: one block per row (CUB BlockReduce for the row's max and sums),
// the block's size picked from C. The formulas are the CPU's, term for term.
#include <cub/block/block_reduce.cuh>

#include <cmath>
#include <type_traits>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/class_loss_smoothing.h"
#include "ember/kernels/cuda/cuda_loops.cuh"
#include "ember/kernels/cuda/row_launch.cuh"
#include "ember/kernels/functors.h"

namespace ember {
namespace {

struct SumOp {
  template <class A>
  EMBER_HD A operator()(A a, A b) const {
    return a + b;
  }
};

// The row's maximum and log(sum(exp(x - max))) + max, every thread getting the result.
// A non-finite maximum is the log-sum-exp itself (as on the CPU), so it never overflows.
template <int B, class T>
struct RowStats {
  using Reduce = cub::BlockReduce<T, B>;
  typename Reduce::TempStorage temp;
  T broadcast;

  __device__ T max(const T* x, int64_t C) {
    T m = -INFINITY;
    for (int64_t j = threadIdx.x; j < C; j += B) m = fn::Maximum()(m, x[j]);
    return share(Reduce(temp).Reduce(m, fn::Maximum()));
  }
  __device__ T sum_exp(const T* x, int64_t C, T m) {
    T s = 0;
    for (int64_t j = threadIdx.x; j < C; j += B) s += fn::m_exp(x[j] - m);
    return share(Reduce(temp).Reduce(s, SumOp()));
  }
  __device__ T sum(const T* x, int64_t C) {
    T s = 0;
    for (int64_t j = threadIdx.x; j < C; j += B) s += x[j];
    return share(Reduce(temp).Reduce(s, SumOp()));
  }
  // sum_j (shift - x[j]): label smoothing's sum of -log_softmax, with shift the log-sum-exp.
  __device__ T sum_from(const T* x, int64_t C, T shift) {
    T s = 0;
    for (int64_t j = threadIdx.x; j < C; j += B) s += shift - x[j];
    return share(Reduce(temp).Reduce(s, SumOp()));
  }
  __device__ T sum_product(const T* x, const T* y, int64_t C) {
    T s = 0;
    for (int64_t j = threadIdx.x; j < C; j += B) s += x[j] * y[j];
    return share(Reduce(temp).Reduce(s, SumOp()));
  }
  __device__ T logsumexp(const T* x, int64_t C) {
    const T m = max(x, C);
    if (!isfinite(m)) return m;
    return m + fn::m_log(sum_exp(x, C, m));
  }
  // Thread 0 holds a block reduction's result: hand it to every thread.
  __device__ T share(T v) {
    if (threadIdx.x == 0) broadcast = v;
    __syncthreads();
    const T r = broadcast;
    __syncthreads();  // temp and broadcast may be reused right after
    return r;
  }
};

// ---------------------------------------------------------------------------------------
// kernels

template <int B, class T>
__global__ void softmax_kernel(T* y, const T* x, int64_t rows, int64_t C, bool log) {
  __shared__ RowStats<B, T> st;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * C;
    T* yr = y + r * C;
    if (log) {
      const T lse = st.logsumexp(xr, C);
      for (int64_t j = threadIdx.x; j < C; j += B) yr[j] = xr[j] - lse;
    } else {
      const T m = st.max(xr, C);
      T s = 0;
      for (int64_t j = threadIdx.x; j < C; j += B) {
        const T e = fn::m_exp(xr[j] - m);
        yr[j] = e;
        s += e;
      }
      // Each thread rescales the elements it wrote itself, so no barrier is needed first.
      const T total = st.share(typename RowStats<B, T>::Reduce(st.temp).Reduce(s, SumOp()));
      for (int64_t j = threadIdx.x; j < C; j += B) yr[j] /= total;
    }
  }
}

template <int B, class T>
__global__ void softmax_backward_kernel(T* gi, const T* g, const T* y, int64_t rows, int64_t C, bool log) {
  __shared__ RowStats<B, T> st;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* gr = g + r * C;
    const T* yr = y + r * C;
    T* o = gi + r * C;
    if (log) {
      const T gs = st.sum(gr, C);
      for (int64_t j = threadIdx.x; j < C; j += B) o[j] = gr[j] - fn::m_exp(yr[j]) * gs;
    } else {
      const T gy = st.sum_product(gr, yr, C);
      for (int64_t j = threadIdx.x; j < C; j += B) o[j] = yr[j] * (gr[j] - gy);
    }
  }
}

// Every thread of a block takes the same branches (the row's target is shared), so the
// block reductions inside them are reached by all.
template <int B, class T>
__global__ void class_loss_kernel(T* losses, T* valid, const T* x, const int64_t* target, int64_t N,
                                  int64_t C, bool log_prob, int64_t ignore_index, SmoothingFactors<T> sm,
                                  cuda_detail::IndexFlag* flag, int code) {
  __shared__ RowStats<B, T> st;
  for (int64_t n = blockIdx.x; n < N; n += gridDim.x) {
    const T* xr = x + n * C;
    const int64_t t = target[n];
    const bool ignored = t == ignore_index;
    const bool in_range = t >= 0 && t < C;
    T loss = 0;
    if (!ignored && in_range) {
      if (log_prob) {
        loss = -xr[t];
      } else {
        const T lse = st.logsumexp(xr, C);
        loss = sm.on ? sm.keep * (lse - xr[t]) + sm.spread * st.sum_from(xr, C, lse) : lse - xr[t];
      }
    }
    if (threadIdx.x == 0) {
      if (valid) valid[n] = ignored ? T(0) : T(1);
      if (!ignored && !in_range) {
        cuda_detail::report_bad_index(flag, code, t, C);
        loss = NAN;
      }
      losses[n] = loss;
    }
  }
}

template <int B, class T>
__global__ void class_loss_backward_kernel(T* gi, const T* g, const T* x, const int64_t* target, int64_t N,
                                           int64_t C, bool log_prob, int64_t ignore_index,
                                           SmoothingFactors<T> sm, cuda_detail::IndexFlag* flag, int code) {
  __shared__ RowStats<B, T> st;
  for (int64_t n = blockIdx.x; n < N; n += gridDim.x) {
    const T* xr = x + n * C;
    T* o = gi + n * C;
    const int64_t t = target[n];
    const T gn = g[n];
    if (t == ignore_index) {
      for (int64_t j = threadIdx.x; j < C; j += B) o[j] = T(0);
      continue;
    }
    if (log_prob) {
      for (int64_t j = threadIdx.x; j < C; j += B) o[j] = j == t ? -gn : T(0);
    } else {
      const T lse = st.logsumexp(xr, C);
      for (int64_t j = threadIdx.x; j < C; j += B) {
        T v = fn::m_exp(xr[j] - lse) * gn;
        if (sm.on) {
          v -= gn * sm.spread;
          if (j == t) v -= gn * sm.keep;
        } else if (j == t) {
          v -= gn;
        }
        o[j] = v;
      }
    }
    if (threadIdx.x == 0 && !(t >= 0 && t < C)) cuda_detail::report_bad_index(flag, code, t, C);
  }
}

}  // namespace

void CudaBackend::softmax(const Tensor& out, const Tensor& in, bool log) {
  const int64_t C = in.size(-1), R = C ? in.numel() / C : 0;
  if (R == 0) return;
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  EMBER_DISPATCH_FLOATING(in.dtype(), "softmax", [&] {
    cuda_detail::with_row_block(C, [&](auto b) {
      EMBER_LAUNCH(softmax_kernel<decltype(b)::value>, cuda_detail::row_grid(R, dev), decltype(b)::value, 0,
                   cuda_detail::stream(dev), static_cast<scalar_t*>(out.raw_data()),
                   static_cast<const scalar_t*>(in.raw_data()), R, C, log);
      EMBER_CUDA_LAUNCH_CHECK();
    });
  });
}

void CudaBackend::softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out,
                                   bool log) {
  const int64_t C = out.size(-1), R = C ? out.numel() / C : 0;
  if (R == 0) return;
  const int dev = grad_in.device().index;
  CudaDeviceGuard guard(dev);
  EMBER_DISPATCH_FLOATING(out.dtype(), "softmax_backward", [&] {
    cuda_detail::with_row_block(C, [&](auto b) {
      EMBER_LAUNCH(softmax_backward_kernel<decltype(b)::value>, cuda_detail::row_grid(R, dev),
                   decltype(b)::value, 0, cuda_detail::stream(dev),
                   static_cast<scalar_t*>(grad_in.raw_data()),
                   static_cast<const scalar_t*>(grad_out.raw_data()),
                   static_cast<const scalar_t*>(out.raw_data()), R, C, log);
      EMBER_CUDA_LAUNCH_CHECK();
    });
  });
}

void CudaBackend::class_loss(const Tensor& losses, const Tensor& valid, const Tensor& input,
                             const Tensor& target, const ClassLossParams& p, const char* op) {
  const int64_t N = input.size(0), C = input.size(1);
  if (N == 0) return;
  const int dev = losses.device().index;
  CudaDeviceGuard guard(dev);
  cuda_detail::IndexFlag* flag = nullptr;
  const int code = cuda_detail::register_index_check(dev, op, cuda_detail::IndexKind::Target, 1, &flag);
  EMBER_DISPATCH_FLOATING(input.dtype(), op, [&] {
    cuda_detail::with_row_block(C, [&](auto b) {
      EMBER_LAUNCH(class_loss_kernel<decltype(b)::value>, cuda_detail::row_grid(N, dev), decltype(b)::value,
                   0, cuda_detail::stream(dev), static_cast<scalar_t*>(losses.raw_data()),
                   valid.defined() ? static_cast<scalar_t*>(valid.raw_data()) : nullptr,
                   static_cast<const scalar_t*>(input.raw_data()),
                   static_cast<const int64_t*>(target.raw_data()), N, C, p.input_is_log_prob, p.ignore_index,
                   SmoothingFactors<scalar_t>(p, C), flag, code);
      EMBER_CUDA_LAUNCH_CHECK();
    });
  });
}

void CudaBackend::class_loss_backward(const Tensor& grad_input, const Tensor& grad_losses,
                                      const Tensor& input, const Tensor& target, const ClassLossParams& p,
                                      const char* op) {
  const int64_t N = input.size(0), C = input.size(1);
  if (N == 0 || C == 0) return;
  const int dev = grad_input.device().index;
  CudaDeviceGuard guard(dev);
  cuda_detail::IndexFlag* flag = nullptr;
  const int code = cuda_detail::register_index_check(dev, op, cuda_detail::IndexKind::Target, 1, &flag);
  EMBER_DISPATCH_FLOATING(input.dtype(), op, [&] {
    cuda_detail::with_row_block(C, [&](auto b) {
      EMBER_LAUNCH(
          class_loss_backward_kernel<decltype(b)::value>, cuda_detail::row_grid(N, dev), decltype(b)::value,
          0, cuda_detail::stream(dev), static_cast<scalar_t*>(grad_input.raw_data()),
          static_cast<const scalar_t*>(grad_losses.raw_data()),
          static_cast<const scalar_t*>(input.raw_data()), static_cast<const int64_t*>(target.raw_data()), N,
          C, p.input_is_log_prob, p.ignore_index, SmoothingFactors<scalar_t>(p, C), flag, code);
      EMBER_CUDA_LAUNCH_CHECK();
    });
  });
}

}  // namespace ember
