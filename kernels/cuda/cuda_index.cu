// index_select, index_add, gather and scatter_add on CUDA, on strided operands. Every index
// is checked in the kernel: a bad one is skipped and reported through the device flag, and
// the op raises IndexError naming itself at the next synchronisation (docs/DESIGN.md). The
// accumulating ops use atomics, so repeated indices sum (in no fixed order).
#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cuda/cuda_loops.cuh"

namespace ember {
namespace {

using cuda_detail::global_thread;
using cuda_detail::grid_stride;
using cuda_detail::IndexFlag;

__device__ __forceinline__ void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(int32_t* p, int32_t v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(int64_t* p, int64_t v) {
  // Two's complement: an unsigned add gives the signed sum.
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
__device__ __forceinline__ void atomic_add(uint8_t* p, uint8_t v) {
  // No byte atomics: compare-and-swap the aligned word holding the byte (allocations are
  // whole multiples of 512 bytes, so the word lies inside the buffer).
  auto* word = reinterpret_cast<unsigned int*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(3));
  const unsigned shift = static_cast<unsigned>(reinterpret_cast<uintptr_t>(p) & 3) * 8;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const unsigned int byte = ((assumed >> shift) + v) & 0xFFu;
    old = atomicCAS(word, assumed, (assumed & ~(0xFFu << shift)) | (byte << shift));
  } while (old != assumed);
}

// ---------------------------------------------------------------------------------------
// kernels

// One kernel for the four ops. An "indexed" tensor is addressed along dim by the index
// values; a "plain" one by the iteration itself. calc (over the iteration's shape) gives
// the indexed tensor's offset without dim, the index's offset and the plain offset.
// Gathering (index_select, gather): plain = indexed[..v..]. Adding (index_add,
// scatter_add): indexed[..v..] += plain. index_select and index_add are the gather and
// scatter forms of a 1-D index broadcast along dim.
template <bool kAdd, class T>
__global__ void index_kernel(T* indexed, T* plain, const int64_t* index, OffsetCalculator<3> calc, int64_t n,
                             int64_t limit, int64_t dim_stride, IndexFlag* flag, int code) {
  for (int64_t i = global_thread(); i < n; i += grid_stride()) {
    int64_t off[3];
    calc.get(i, off);
    const int64_t v = index[off[1]];
    if (v < 0 || v >= limit) {
      cuda_detail::report_bad_index(flag, code, v, limit);
      if constexpr (!kAdd) plain[off[2]] = T(0);
      continue;
    }
    T* at = indexed + off[0] + v * dim_stride;
    if constexpr (kAdd)
      atomic_add(at, plain[off[2]]);
    else
      plain[off[2]] = *at;
  }
}

// Only checks the indices (nothing to move: the output is empty), as the CPU does.
__global__ void check_index_kernel(const int64_t* index, int64_t n, int64_t stride, int64_t limit,
                                   IndexFlag* flag, int code) {
  for (int64_t i = global_thread(); i < n; i += grid_stride()) {
    const int64_t v = index[i * stride];
    if (v < 0 || v >= limit) cuda_detail::report_bad_index(flag, code, v, limit);
  }
}

// ---------------------------------------------------------------------------------------
// launchers

// Runs index_kernel over shape; index_strides are the index's strides over that shape.
template <bool kAdd>
void launch_index(const char* op, const Tensor& indexed, const Tensor& plain, const Tensor& index,
                  const Shape& shape, const Shape& index_strides, const Shape& plain_strides, int dim) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  if (n == 0) return;
  const int dev = indexed.device().index;
  CudaDeviceGuard guard(dev);
  Shape indexed_strides = indexed.strides();
  indexed_strides[static_cast<size_t>(dim)] = 0;
  const auto calc = plan_offsets<3>(shape, {&indexed_strides, &index_strides, &plain_strides});
  IndexFlag* flag = nullptr;
  const int code = cuda_detail::register_index_check(dev, op, cuda_detail::IndexKind::Index, dim, &flag);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    EMBER_LAUNCH(index_kernel<kAdd>, cuda_detail::grid_for(n, dev), cuda_detail::kThreads, 0,
                 cuda_detail::stream(dev), static_cast<T*>(indexed.raw_data()),
                 static_cast<T*>(plain.raw_data()), static_cast<const int64_t*>(index.raw_data()), calc, n,
                 indexed.size(dim), indexed.stride(dim), flag, code);
    EMBER_CUDA_LAUNCH_CHECK();
  };
  if constexpr (kAdd)
    EMBER_DISPATCH_NUMERIC(indexed.dtype(), op, [&] { run(scalar_t()); });
  else
    EMBER_DISPATCH_ALL(indexed.dtype(), op, [&] { run(scalar_t()); });
}

// A 1-D index read along dim of shape: stride 0 everywhere else.
Shape along(const Tensor& index, size_t ndim, int dim) {
  Shape s(ndim, 0);
  s[static_cast<size_t>(dim)] = index.dim() ? index.stride(0) : 0;
  return s;
}

}  // namespace

void CudaBackend::index_select(const Tensor& out, const Tensor& in, int dim, const Tensor& index,
                               const char* op) {
  if (out.numel() == 0 && index.numel() > 0) {
    const int dev = out.device().index;
    CudaDeviceGuard guard(dev);
    IndexFlag* flag = nullptr;
    const int code = cuda_detail::register_index_check(dev, op, cuda_detail::IndexKind::Index, dim, &flag);
    EMBER_LAUNCH(check_index_kernel, cuda_detail::grid_for(index.numel(), dev), cuda_detail::kThreads, 0,
                 cuda_detail::stream(dev), static_cast<const int64_t*>(index.raw_data()), index.numel(),
                 index.dim() ? index.stride(0) : 0, in.size(dim), flag, code);
    EMBER_CUDA_LAUNCH_CHECK();
    return;
  }
  launch_index<false>(op, in, out, index, out.shape(), along(index, out.shape().size(), dim), out.strides(),
                      dim);
}

void CudaBackend::index_add(const Tensor& out, int dim, const Tensor& index, const Tensor& src) {
  launch_index<true>("index_add", out, src, index, src.shape(), along(index, src.shape().size(), dim),
                     src.strides(), dim);
}

void CudaBackend::gather(const Tensor& out, const Tensor& in, int dim, const Tensor& index, const char* op) {
  launch_index<false>(op, in, out, index, index.shape(), index.strides(), out.strides(), dim);
}

void CudaBackend::scatter_add(const Tensor& out, int dim, const Tensor& index, const Tensor& src) {
  launch_index<true>("scatter_add", out, src, index, index.shape(), index.strides(), src.strides(), dim);
}

}  // namespace ember
