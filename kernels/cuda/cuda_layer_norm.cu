// layer_norm on CUDA over contiguous [rows, cols] data. The forward and the input gradient
// take one block per row, its size picked from cols (as softmax's): the forward reads the row
// once for its statistics (each thread's sums about its own first element, the threads'
// moments merged in double by CUB BlockReduce, Chan, Golub and LeVeque's update), then
// normalises. The weight and bias gradients are column sums over the rows: tiles of 32
// columns by a chunk of rows, the chunks (cut from the row count alone) added in order by a
// finishing pass. No atomics, so every result is the same from run to run.
#include <cub/block/block_reduce.cuh>

#include <type_traits>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cuda/cuda_loops.cuh"
#include "ember/kernels/cuda/row_launch.cuh"
#include "ember/kernels/functors.h"

namespace ember {
namespace {

// Count, mean and sum of squared deviations of some of a row's elements.
struct Moments {
  double n, mean, m2;
};
struct MergeMoments {
  __device__ Moments operator()(const Moments& a, const Moments& b) const {
    const double n = a.n + b.n;
    if (n == 0) return a;
    const double delta = b.mean - a.mean;
    return {n, a.mean + delta * (b.n / n), a.m2 + b.m2 + delta * delta * (a.n * b.n / n)};
  }
};

// The sums of the gradient's terms (the input gradient: g * w and g * w * x_hat; the weight
// and bias gradients: g * x_hat and g).
struct Sums {
  double g, gx;
};
struct AddSums {
  __device__ Sums operator()(const Sums& a, const Sums& b) const { return {a.g + b.g, a.gx + b.gx}; }
};

// The column reduction's tile: 32 columns (a warp's coalesced read of a row) by 8 lanes of rows.
constexpr int kTileCols = 32;
constexpr int kTileRows = 8;
// At most this many chunks of rows, each at least kMinChunkRows rows.
constexpr int64_t kMaxChunks = 64;
constexpr int64_t kMinChunkRows = 128;

// The mean as a rounded head and its remainder, as on the CPU: x - head is exact near the
// mean, so x_hat keeps a large offset's small deviations.
template <class T>
struct Centre {
  __device__ explicit Centre(double mean)
      : head(static_cast<T>(mean)), tail(static_cast<T>(mean - static_cast<double>(head))) {}
  __device__ T operator()(T x) const { return x - head - tail; }
  T head, tail;
};

// ---------------------------------------------------------------------------------------
// kernels

template <int B, class T>
__global__ void layer_norm_kernel(T* y, double* save_mean, double* save_rstd, const T* x, const T* w,
                                  const T* b, int64_t rows, int64_t cols, double eps) {
  using Reduce = cub::BlockReduce<Moments, B>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ double row_mean, row_rstd;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * cols;
    // Sums about the thread's first element lose nothing to a large common offset.
    const double shift =
        static_cast<int64_t>(threadIdx.x) < cols ? static_cast<double>(xr[threadIdx.x]) : 0.0;
    double s1 = 0, s2 = 0, count = 0;
    for (int64_t j = threadIdx.x; j < cols; j += B) {
      const double d = static_cast<double>(xr[j]) - shift;
      s1 += d;
      s2 += d * d;
      count += 1;
    }
    Moments m{0, 0, 0};
    if (count > 0) {
      const double m2 = s2 - s1 * s1 / count;
      m = {count, shift + s1 / count, m2 > 0 ? m2 : 0.0};
    }
    const Moments total = Reduce(temp).Reduce(m, MergeMoments());
    if (threadIdx.x == 0) {
      const double rstd = 1.0 / fn::m_sqrt(total.m2 / static_cast<double>(cols) + eps);
      save_mean[r] = total.mean;
      save_rstd[r] = rstd;
      row_mean = total.mean;
      row_rstd = rstd;
    }
    __syncthreads();
    const Centre<T> centre(row_mean);
    const T rstd = static_cast<T>(row_rstd);
    T* yr = y + r * cols;
    for (int64_t j = threadIdx.x; j < cols; j += B) {
      T v = centre(xr[j]) * rstd;
      if (w) v *= w[j];
      if (b) v += b[j];
      yr[j] = v;
    }
    __syncthreads();  // temp and the row's statistics are reused by the next row
  }
}

// grad_input = rstd * (gx - mean(gx) - x_hat * mean(gx * x_hat)), gx = g * w.
template <int B, class T>
__global__ void layer_norm_input_grad_kernel(T* gi, const T* g, const T* x, const T* w, const double* mean,
                                             const double* rstd, int64_t rows, int64_t cols) {
  using Reduce = cub::BlockReduce<Sums, B>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ Sums row_sums;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *xr = x + r * cols, *gr = g + r * cols;
    const Centre<T> centre(mean[r]);
    const T rs = static_cast<T>(rstd[r]);
    Sums s{0, 0};
    for (int64_t j = threadIdx.x; j < cols; j += B) {
      const T gx = w ? gr[j] * w[j] : gr[j];
      s.g += static_cast<double>(gx);
      s.gx += static_cast<double>(gx * (centre(xr[j]) * rs));
    }
    const Sums total = Reduce(temp).Reduce(s, AddSums());
    if (threadIdx.x == 0) row_sums = total;
    __syncthreads();
    const T mean_gx = static_cast<T>(row_sums.g / static_cast<double>(cols));
    const T mean_gx_xhat = static_cast<T>(row_sums.gx / static_cast<double>(cols));
    T* o = gi + r * cols;
    for (int64_t j = threadIdx.x; j < cols; j += B) {
      const T gx = w ? gr[j] * w[j] : gr[j];
      const T xhat = centre(xr[j]) * rs;
      o[j] = (gx - mean_gx - xhat * mean_gx_xhat) * rs;
    }
    __syncthreads();
  }
}

// Block (kTileCols, kTileRows) over columns [32 * blockIdx.x, +32) of chunk blockIdx.y's rows:
// the sums of g * x_hat and g, into the chunk's partials, or into gw / gb when there is one
// chunk (then the partials are null).
template <class T>
__global__ void layer_norm_column_kernel(double* pw, double* pb, T* gw, T* gb, const T* g, const T* x,
                                         const double* mean, const double* rstd, int64_t rows, int64_t cols,
                                         int64_t chunks) {
  __shared__ Sums tile[kTileRows][kTileCols];
  const int64_t j = static_cast<int64_t>(blockIdx.x) * kTileCols + threadIdx.x;
  const int64_t chunk = blockIdx.y;
  const int64_t lo = rows * chunk / chunks, hi = rows * (chunk + 1) / chunks;
  Sums s{0, 0};
  if (j < cols) {
    for (int64_t r = lo + threadIdx.y; r < hi; r += kTileRows) {
      const T gv = g[r * cols + j];
      s.g += static_cast<double>(gv);
      s.gx += static_cast<double>(gv * (Centre<T>(mean[r])(x[r * cols + j]) * static_cast<T>(rstd[r])));
    }
  }
  tile[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && j < cols) {
    Sums total = tile[0][threadIdx.x];
    for (int k = 1; k < kTileRows; ++k) total = AddSums()(total, tile[k][threadIdx.x]);
    if (pw) {
      pw[chunk * cols + j] = total.gx;
      pb[chunk * cols + j] = total.g;
    } else {
      if (gw) gw[j] = static_cast<T>(total.gx);
      if (gb) gb[j] = static_cast<T>(total.g);
    }
  }
}

// Adds the chunks' partial sums of each column in chunk order.
template <class T>
__global__ void layer_norm_column_finish_kernel(T* gw, T* gb, const double* pw, const double* pb,
                                                int64_t cols, int64_t chunks) {
  for (int64_t j = cuda_detail::global_thread(); j < cols; j += cuda_detail::grid_stride()) {
    double sw = 0, sb = 0;
    for (int64_t c = 0; c < chunks; ++c) {
      sw += pw[c * cols + j];
      sb += pb[c * cols + j];
    }
    if (gw) gw[j] = static_cast<T>(sw);
    if (gb) gb[j] = static_cast<T>(sb);
  }
}

template <class T>
T* ptr_or_null(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.raw_data()) : nullptr;
}

}  // namespace

void CudaBackend::layer_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_rstd,
                             const Tensor& input, const Tensor& weight, const Tensor& bias, double eps) {
  const int64_t rows = save_mean.numel(), cols = rows ? input.numel() / rows : 0;  // any rank
  if (rows == 0 || cols == 0) return;
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  EMBER_DISPATCH_FLOATING(input.dtype(), "layer_norm", [&] {
    cuda_detail::with_row_block(cols, [&](auto b) {
      constexpr int B = decltype(b)::value;
      EMBER_LAUNCH((layer_norm_kernel<B, scalar_t>), cuda_detail::row_grid(rows, dev), B, 0,
                   cuda_detail::stream(dev), static_cast<scalar_t*>(out.raw_data()),
                   static_cast<double*>(save_mean.raw_data()), static_cast<double*>(save_rstd.raw_data()),
                   static_cast<const scalar_t*>(input.raw_data()), ptr_or_null<const scalar_t>(weight),
                   ptr_or_null<const scalar_t>(bias), rows, cols, eps);
      EMBER_CUDA_LAUNCH_CHECK();
    });
  });
}

void CudaBackend::layer_norm_backward(const Tensor& grad_input, const Tensor& grad_weight,
                                      const Tensor& grad_bias, const Tensor& grad_out, const Tensor& input,
                                      const Tensor& weight, const Tensor& save_mean,
                                      const Tensor& save_rstd) {
  const int64_t rows = input.size(0), cols = input.size(1);
  if (cols == 0) return;
  const int dev = input.device().index;
  CudaDeviceGuard guard(dev);
  cudaStream_t s = cuda_detail::stream(dev);
  EMBER_DISPATCH_FLOATING(input.dtype(), "layer_norm_backward", [&] {
    using T = scalar_t;
    const T *g = static_cast<const T*>(grad_out.raw_data()), *x = static_cast<const T*>(input.raw_data());
    const double* mean = static_cast<const double*>(save_mean.raw_data());
    const double* rstd = static_cast<const double*>(save_rstd.raw_data());
    if (grad_input.defined() && rows > 0) {
      cuda_detail::with_row_block(cols, [&](auto b) {
        constexpr int B = decltype(b)::value;
        EMBER_LAUNCH((layer_norm_input_grad_kernel<B, T>), cuda_detail::row_grid(rows, dev), B, 0, s,
                     static_cast<T*>(grad_input.raw_data()), g, x, ptr_or_null<const T>(weight), mean, rstd,
                     rows, cols);
        EMBER_CUDA_LAUNCH_CHECK();
      });
    }
    if (!grad_weight.defined() && !grad_bias.defined()) return;
    T *gw = ptr_or_null<T>(grad_weight), *gb = ptr_or_null<T>(grad_bias);
    const int64_t chunks = std::max<int64_t>(1, std::min(kMaxChunks, rows / kMinChunkRows));
    const dim3 grid(static_cast<unsigned>((cols + kTileCols - 1) / kTileCols), static_cast<unsigned>(chunks));
    const dim3 block(kTileCols, kTileRows);
    if (chunks == 1) {
      EMBER_LAUNCH(layer_norm_column_kernel<T>, grid, block, 0, s, static_cast<double*>(nullptr),
                   static_cast<double*>(nullptr), gw, gb, g, x, mean, rstd, rows, cols, chunks);
      EMBER_CUDA_LAUNCH_CHECK();
      return;
    }
    // The partials live in the caching allocator's memory, freed in stream order.
    const Tensor partial = detail::make_empty({2, chunks, cols}, kFloat64, input.device());
    double* pw = static_cast<double*>(partial.raw_data());
    double* pb = pw + chunks * cols;
    EMBER_LAUNCH(layer_norm_column_kernel<T>, grid, block, 0, s, pw, pb, gw, gb, g, x, mean, rstd, rows, cols,
                 chunks);
    EMBER_CUDA_LAUNCH_CHECK();
    EMBER_LAUNCH(layer_norm_column_finish_kernel<T>, cuda_detail::grid_for(cols, dev), cuda_detail::kThreads,
                 0, s, gw, gb, static_cast<const double*>(pw), static_cast<const double*>(pb), cols, chunks);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

}  // namespace ember
