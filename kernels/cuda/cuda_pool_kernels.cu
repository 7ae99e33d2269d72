// The max positions of max_pool2d and the gradients of both poolings (see cuda_pool_kernels.h).
#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cuda/cuda_loops.cuh"
#include "ember/kernels/cuda/cuda_pool_kernels.h"

namespace ember::cuda_detail {
namespace {

// ---------------------------------------------------------------------------------------
// kernels

template <class T>
__global__ void max_pool_indices_kernel(int64_t* idx, const T* x, PoolGeometry g, int64_t n) {
  for (int64_t i = global_thread(); i < n; i += grid_stride()) {
    const int64_t ox = i % g.ow, oy = (i / g.ow) % g.oh, plane = i / (g.ow * g.oh);
    const T* xp = x + plane * g.h * g.w;
    const int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
    int64_t best = -1;
    T bv = T();
    for (int64_t y = y0 < 0 ? 0 : y0; y < y0 + g.kh && y < g.h; ++y)
      for (int64_t xx = x0 < 0 ? 0 : x0; xx < x0 + g.kw && xx < g.w; ++xx) {
        const T v = xp[y * g.w + xx];
        if (best >= 0 && bv != bv) continue;  // a NaN already won
        if (best < 0 || v != v || v > bv) {
          best = y * g.w + xx;
          bv = v;
        }
      }
    idx[i] = best;
  }
}

// The output windows that hold input cell (y, x): oy in [y0, y1), ox in [x0, x1), those
// with oy * sh - ph <= y < oy * sh - ph + kh (likewise for x).
struct Windows {
  int64_t y0, y1, x0, x1;
};
__host__ __device__ inline Windows windows_holding(int64_t y, int64_t x, const PoolGeometry& g) {
  return {y + g.ph < g.kh ? 0 : (y + g.ph - g.kh) / g.sh + 1, min64((y + g.ph) / g.sh + 1, g.oh),
          x + g.pw < g.kw ? 0 : (x + g.pw - g.kw) / g.sw + 1, min64((x + g.pw) / g.sw + 1, g.ow)};
}

template <class T>
__global__ void avg_pool_backward_kernel(T* gi, const T* go, PoolGeometry g, int64_t n) {
  const T inv = T(1) / static_cast<T>(g.kh * g.kw);
  for (int64_t i = global_thread(); i < n; i += grid_stride()) {
    const int64_t x = i % g.w, y = (i / g.w) % g.h, plane = i / (g.w * g.h);
    const T* gp = go + plane * g.oh * g.ow;
    const Windows win = windows_holding(y, x, g);
    T s = 0;
    for (int64_t oy = win.y0; oy < win.y1; ++oy)
      for (int64_t ox = win.x0; ox < win.x1; ++ox) s += gp[oy * g.ow + ox];
    gi[i] = s * inv;
  }
}

// Each input cell gathers the gradients of the windows whose recorded maximum it is, in
// window order: no atomics, the same sum in the same order as the CPU's scatter, and ties
// follow the index the forward returned.
template <class T>
__global__ void max_pool_backward_kernel(T* gi, const T* go, const int64_t* idx, PoolGeometry g, int64_t n) {
  for (int64_t i = global_thread(); i < n; i += grid_stride()) {
    const int64_t x = i % g.w, y = (i / g.w) % g.h, plane = i / (g.w * g.h);
    const T* gp = go + plane * g.oh * g.ow;
    const int64_t* ip = idx + plane * g.oh * g.ow;
    const int64_t here = y * g.w + x;
    const Windows win = windows_holding(y, x, g);
    T s = 0;
    for (int64_t oy = win.y0; oy < win.y1; ++oy)
      for (int64_t ox = win.x0; ox < win.x1; ++ox)
        if (ip[oy * g.ow + ox] == here) s += gp[oy * g.ow + ox];
    gi[i] = s;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// launchers

void max_pool2d_indices(const Tensor& indices, const Tensor& input, const PoolGeometry& g) {
  const int64_t n = indices.numel();
  const int dev = indices.device().index;
  EMBER_DISPATCH_FLOATING(input.dtype(), "max_pool2d", [&] {
    EMBER_LAUNCH(max_pool_indices_kernel, grid_for(n, dev), kThreads, 0, stream(dev),
                 static_cast<int64_t*>(indices.raw_data()), static_cast<const scalar_t*>(input.raw_data()), g,
                 n);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const PoolGeometry& g) {
  const int64_t n = grad_input.numel();
  const int dev = grad_input.device().index;
  EMBER_DISPATCH_FLOATING(grad_input.dtype(), "avg_pool2d_backward", [&] {
    EMBER_LAUNCH(avg_pool_backward_kernel, grid_for(n, dev), kThreads, 0, stream(dev),
                 static_cast<scalar_t*>(grad_input.raw_data()),
                 static_cast<const scalar_t*>(grad_out.raw_data()), g, n);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices,
                         const PoolGeometry& g) {
  const int64_t n = grad_input.numel();
  const int dev = grad_input.device().index;
  EMBER_DISPATCH_FLOATING(grad_input.dtype(), "max_pool2d_backward", [&] {
    EMBER_LAUNCH(max_pool_backward_kernel, grid_for(n, dev), kThreads, 0, stream(dev),
                 static_cast<scalar_t*>(grad_input.raw_data()),
                 static_cast<const scalar_t*>(grad_out.raw_data()),
                 static_cast<const int64_t*>(indices.raw_data()), g, n);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

}  // namespace ember::cuda_detail
