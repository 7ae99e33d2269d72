// fill, arange and the Philox draws on CUDA. Draws use kernels/philox.h like the CPU, so
// the same seed gives the same numbers on both devices: each thread draws one counter's
// four words and writes the (up to) four elements they make.
#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cast.h"
#include "ember/kernels/cuda/cuda_loops.cuh"
#include "ember/kernels/philox.h"
#include "ember/kernels/scalar_cast.h"

namespace ember {
namespace {

// ---------------------------------------------------------------------------------------
// kernels

template <class T>
__global__ void fill_kernel(T* o, int64_t n, T v) {
  constexpr int V = 4;
  const int64_t nvec = n / V;
  cuda_detail::Vec<T, V> vv;
#pragma unroll
  for (int k = 0; k < V; ++k) vv.v[k] = v;
  for (int64_t i = cuda_detail::global_thread(); i < nvec; i += cuda_detail::grid_stride())
    reinterpret_cast<cuda_detail::Vec<T, V>*>(o)[i] = vv;
  for (int64_t i = nvec * V + cuda_detail::global_thread(); i < n; i += cuda_detail::grid_stride()) o[i] = v;
}

template <class T>
__global__ void fill_unaligned_kernel(T* o, int64_t n, T v) {
  for (int64_t i = cuda_detail::global_thread(); i < n; i += cuda_detail::grid_stride()) o[i] = v;
}

template <class T>
__global__ void arange_kernel(T* o, int64_t n, double start, double step) {
  for (int64_t i = cuda_detail::global_thread(); i < n; i += cuda_detail::grid_stride())
    o[i] = static_cast<T>(philox::add_mul_unfused(start, step, static_cast<double>(i)));
}

template <class T>
__global__ void random_kernel(T* o, int64_t n, RandomKind kind, double a, double b, uint64_t range,
                              uint64_t seed, uint64_t offset) {
  const int64_t groups = (n + 3) / 4;
  for (int64_t g = cuda_detail::global_thread(); g < groups; g += cuda_detail::grid_stride()) {
    const philox::Words r = philox::draw(offset + static_cast<uint64_t>(g), seed);
    for (unsigned j = 0; j < 4; ++j) {
      const int64_t i = g * 4 + j;
      if (i < n) o[i] = static_cast<T>(philox::value_from(kind, a, b, range, r, j));
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// launchers

void CudaBackend::fill(const Tensor& out, const Scalar& value) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  cudaStream_t s = cuda_detail::stream(dev);
  EMBER_DISPATCH_ALL(out.dtype(), "fill", [&] {
    scalar_t* o = static_cast<scalar_t*>(out.raw_data());
    const auto v = scalar_value<scalar_t>(value);
    if (cuda_detail::aligned_for<4>(o, sizeof(scalar_t)))
      EMBER_LAUNCH(fill_kernel, cuda_detail::grid_for((n + 3) / 4, dev), cuda_detail::kThreads, 0, s, o, n,
                   v);
    else
      EMBER_LAUNCH(fill_unaligned_kernel, cuda_detail::grid_for(n, dev), cuda_detail::kThreads, 0, s, o, n,
                   v);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

void CudaBackend::arange(const Tensor& out, double start, double step) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  EMBER_DISPATCH_NUMERIC(out.dtype(), "arange", [&] {
    EMBER_LAUNCH(arange_kernel, cuda_detail::grid_for(n, dev), cuda_detail::kThreads, 0,
                 cuda_detail::stream(dev), static_cast<scalar_t*>(out.raw_data()), n, start, step);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

void CudaBackend::random(const Tensor& out, RandomKind kind, double a, double b, uint64_t seed,
                         uint64_t offset) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  const uint64_t range = kind == RandomKind::Integer ? static_cast<uint64_t>(b - a) : 0;
  EMBER_DISPATCH_NUMERIC(out.dtype(), "random", [&] {
    EMBER_LAUNCH(random_kernel, cuda_detail::grid_for((n + 3) / 4, dev), cuda_detail::kThreads, 0,
                 cuda_detail::stream(dev), static_cast<scalar_t*>(out.raw_data()), n, kind,
                 philox::bernoulli_threshold<scalar_t>(kind, a), b, range, seed, offset);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

}  // namespace ember
