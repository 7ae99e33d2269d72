#pragma once
// Elementwise loops for the CUDA kernels: grid-stride loops over a contiguous output with a
// vector-load fast path when every operand is contiguous and aligned, and an
// OffsetCalculator path (kernels/indexing.h, shared with the CPU) for strided or broadcast
// operands. The functors come from kernels/functors.h. Included by .cu files only.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/kernels/cuda/cuda_backend.h"
#include "ember/kernels/cuda/cuda_context.h"
#include "ember/kernels/cuda/launch.cuh"
#include "ember/kernels/indexing.h"

namespace ember::cuda_detail {

constexpr int kThreads = 256;

/// Blocks for a grid-stride loop over n items: enough to fill the device, no more.
inline unsigned grid_for(int64_t n, int device, int threads = kThreads) {
  const int64_t want = (n + threads - 1) / threads;
  const int64_t cap = static_cast<int64_t>(sm_count(device)) * 32;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(want, cap)));
}

__device__ __forceinline__ int64_t global_thread() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t grid_stride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

__host__ __device__ __forceinline__ int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

template <class T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

template <int V>
inline bool aligned_for(const void* p, size_t itemsize) {
  return reinterpret_cast<uintptr_t>(p) % (itemsize * V) == 0;
}

/// Reports a bad index or target: the first reporter wins and records what it saw.
__device__ __forceinline__ void report_bad_index(IndexFlag* flag, int code, int64_t value, int64_t limit) {
  if (atomicCAS(&flag->code, 0, code) == 0) {
    flag->value = static_cast<long long>(value);
    flag->limit = static_cast<long long>(limit);
  }
}

// ---------------------------------------------------------------------------------------
// kernels

// out[i] = f(x[i]), everything contiguous; V > 1 reads and writes V elements at a time.
template <int V, class To, class Ti, class F>
__global__ void map1_contiguous_kernel(To* o, const Ti* x, int64_t n, F f) {
  const int64_t nvec = n / V;
  for (int64_t i = global_thread(); i < nvec; i += grid_stride()) {
    const Vec<Ti, V> xv = reinterpret_cast<const Vec<Ti, V>*>(x)[i];
    Vec<To, V> ov;
#pragma unroll
    for (int k = 0; k < V; ++k) ov.v[k] = static_cast<To>(f(xv.v[k]));
    reinterpret_cast<Vec<To, V>*>(o)[i] = ov;
  }
  for (int64_t i = nvec * V + global_thread(); i < n; i += grid_stride()) o[i] = static_cast<To>(f(x[i]));
}

// out at calc offset 0, x at calc offset 1 (the output may be strided too: copy).
template <class To, class Ti, class F>
__global__ void map1_strided_kernel(To* o, const Ti* x, OffsetCalculator<2> calc, int64_t n, F f) {
  for (int64_t i = global_thread(); i < n; i += grid_stride()) {
    int64_t off[2];
    calc.get(i, off);
    o[off[0]] = static_cast<To>(f(x[off[1]]));
  }
}

template <int V, class To, class Ta, class Tb, class F>
__global__ void map2_contiguous_kernel(To* o, const Ta* a, const Tb* b, int64_t n, F f) {
  const int64_t nvec = n / V;
  for (int64_t i = global_thread(); i < nvec; i += grid_stride()) {
    const Vec<Ta, V> av = reinterpret_cast<const Vec<Ta, V>*>(a)[i];
    const Vec<Tb, V> bv = reinterpret_cast<const Vec<Tb, V>*>(b)[i];
    Vec<To, V> ov;
#pragma unroll
    for (int k = 0; k < V; ++k) ov.v[k] = static_cast<To>(f(av.v[k], bv.v[k]));
    reinterpret_cast<Vec<To, V>*>(o)[i] = ov;
  }
  for (int64_t i = nvec * V + global_thread(); i < n; i += grid_stride())
    o[i] = static_cast<To>(f(a[i], b[i]));
}

template <class To, class Ta, class Tb, class F>
__global__ void map2_strided_kernel(To* o, const Ta* a, const Tb* b, OffsetCalculator<3> calc, int64_t n,
                                    F f) {
  for (int64_t i = global_thread(); i < n; i += grid_stride()) {
    int64_t off[3];
    calc.get(i, off);
    o[off[0]] = static_cast<To>(f(a[off[1]], b[off[2]]));
  }
}

// ---------------------------------------------------------------------------------------
// launchers

/// out = f(in) elementwise; in has out's shape with any strides; out may be strided.
template <class To, class Ti, class F>
void launch_map1(const Tensor& out, const Tensor& in, F f) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  cudaStream_t s = stream(dev);
  To* o = static_cast<To*>(out.raw_data());
  const Ti* x = static_cast<const Ti*>(in.raw_data());
  if (out.is_contiguous() && in.is_contiguous() && in.shape() == out.shape()) {
    if (aligned_for<4>(o, sizeof(To)) && aligned_for<4>(x, sizeof(Ti)))
      EMBER_LAUNCH(map1_contiguous_kernel<4>, grid_for((n + 3) / 4, dev), kThreads, 0, s, o, x, n, f);
    else
      EMBER_LAUNCH(map1_contiguous_kernel<1>, grid_for(n, dev), kThreads, 0, s, o, x, n, f);
  } else {
    const auto calc = plan_offsets<2>(out.shape(), {&out.strides(), &in.strides()});
    EMBER_LAUNCH(map1_strided_kernel, grid_for(n, dev), kThreads, 0, s, o, x, calc, n, f);
  }
  EMBER_CUDA_LAUNCH_CHECK();
}

/// out = f(a, b) elementwise; a and b are broadcast to out's shape (zero strides).
template <class To, class Ta, class Tb, class F>
void launch_map2(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  cudaStream_t s = stream(dev);
  To* o = static_cast<To*>(out.raw_data());
  const Ta* pa = static_cast<const Ta*>(a.raw_data());
  const Tb* pb = static_cast<const Tb*>(b.raw_data());
  if (out.is_contiguous() && a.is_contiguous() && b.is_contiguous() && a.shape() == out.shape() &&
      b.shape() == out.shape()) {
    if (aligned_for<4>(o, sizeof(To)) && aligned_for<4>(pa, sizeof(Ta)) && aligned_for<4>(pb, sizeof(Tb)))
      EMBER_LAUNCH(map2_contiguous_kernel<4>, grid_for((n + 3) / 4, dev), kThreads, 0, s, o, pa, pb, n, f);
    else
      EMBER_LAUNCH(map2_contiguous_kernel<1>, grid_for(n, dev), kThreads, 0, s, o, pa, pb, n, f);
  } else {
    const auto calc = plan_offsets<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()});
    EMBER_LAUNCH(map2_strided_kernel, grid_for(n, dev), kThreads, 0, s, o, pa, pb, calc, n, f);
  }
  EMBER_CUDA_LAUNCH_CHECK();
}

}  // namespace ember::cuda_detail
