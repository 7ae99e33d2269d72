// copy (with dtype conversion, strided source and destination) and where on CUDA.
#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cast.h"
#include "ember/kernels/cuda/cuda_loops.cuh"

namespace ember {
namespace {

template <class To>
struct CastTo {
  template <class T>
  EMBER_HD To operator()(T x) const {
    return cast_value<To>(x);
  }
};

// ---------------------------------------------------------------------------------------
// kernels

template <class T>
__global__ void where_kernel(T* o, const bool* c, const T* a, const T* b, OffsetCalculator<4> calc,
                             int64_t n) {
  for (int64_t i = cuda_detail::global_thread(); i < n; i += cuda_detail::grid_stride()) {
    int64_t off[4];
    calc.get(i, off);
    o[off[0]] = c[off[1]] ? a[off[2]] : b[off[3]];
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// launchers

void CudaBackend::copy(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() &&
      dst.shape() == src.shape()) {
    const int dev = dst.device().index;
    CudaDeviceGuard guard(dev);
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst.raw_data(), src.raw_data(),
                                     static_cast<size_t>(dst.numel()) * itemsize(dst.dtype()),
                                     cudaMemcpyDeviceToDevice, cuda_detail::stream(dev)));
    return;
  }
  EMBER_DISPATCH_ALL(dst.dtype(), "copy", [&] {
    using To = scalar_t;
    EMBER_DISPATCH_ALL(src.dtype(), "copy",
                       [&] { cuda_detail::launch_map1<To, scalar_t>(dst, src, CastTo<To>{}); });
  });
}

void CudaBackend::where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  const auto calc =
      plan_offsets<4>(out.shape(), {&out.strides(), &cond.strides(), &a.strides(), &b.strides()});
  EMBER_DISPATCH_ALL(out.dtype(), "where", [&] {
    EMBER_LAUNCH(where_kernel, cuda_detail::grid_for(n, dev), cuda_detail::kThreads, 0,
                 cuda_detail::stream(dev), static_cast<scalar_t*>(out.raw_data()),
                 static_cast<const bool*>(cond.raw_data()), static_cast<const scalar_t*>(a.raw_data()),
                 static_cast<const scalar_t*>(b.raw_data()), calc, n);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

}  // namespace ember
