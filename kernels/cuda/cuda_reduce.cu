// Reductions on CUDA over any set of dims of a strided input, into a contiguous keepdim
// output. Two OffsetCalculators split an input offset into the output's part (kept dims)
// and the reduced part. Short reductions run one thread per output; long ones one block per
// output (CUB BlockReduce), split over several blocks with a second pass when there are too
// few outputs to fill the device. Sums accumulate float32 in double.
#include <cub/block/block_reduce.cuh>

#include <cmath>
#include <limits>
#include <type_traits>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cuda/cuda_allocator.h"
#include "ember/kernels/cuda/cuda_loops.cuh"
#include "ember/kernels/functors.h"

namespace ember {
namespace {

using cuda_detail::global_thread;
using cuda_detail::grid_stride;
constexpr int kBlock = 256;

// Sums: float accumulates in double, integers and bools in int64.
template <class T>
struct SumAcc {
  using type = int64_t;
};
template <>
struct SumAcc<float> {
  using type = double;
};
template <>
struct SumAcc<double> {
  using type = double;
};

struct SumOp {
  template <class A>
  EMBER_HD A operator()(A a, A b) const {
    return a + b;
  }
};

template <class A>
EMBER_HD A lowest_value() {
  if constexpr (std::is_floating_point<A>::value)
    return -INFINITY;
  else
    return std::numeric_limits<A>::lowest();
}
template <class A>
EMBER_HD A highest_value() {
  if constexpr (std::is_floating_point<A>::value)
    return INFINITY;
  else
    return std::numeric_limits<A>::max();
}

// Offset of reduced element j from an output's base: the common single-dim case as a
// multiplication, the rest through the calculator.
__device__ __forceinline__ int64_t inner_offset(const OffsetCalculator<1>& inner, int64_t j) {
  if (inner.ndim == 0) return 0;
  if (inner.ndim == 1) return j * inner.strides[0][0];
  int64_t off[1];
  inner.get(j, off);
  return off[0];
}

template <class A, class To>
__device__ __forceinline__ To finish(A acc, double scale) {
  if constexpr (std::is_floating_point<A>::value)
    return static_cast<To>(scale == 1.0 ? acc : acc * scale);
  else
    return static_cast<To>(scale == 1.0 ? acc : static_cast<A>(acc * scale));
}

// ---------------------------------------------------------------------------------------
// kernels

// One thread per output.
template <class T, class A, class To, class Op>
__global__ void reduce_thread_kernel(To* out, const T* in, OffsetCalculator<1> outer,
                                     OffsetCalculator<1> inner, int64_t n_out, int64_t n_in, Op op, A init,
                                     double scale) {
  for (int64_t o = global_thread(); o < n_out; o += grid_stride()) {
    int64_t base[1];
    outer.get(o, base);
    A acc = init;
    for (int64_t j = 0; j < n_in; ++j) acc = op(acc, static_cast<A>(in[base[0] + inner_offset(inner, j)]));
    out[o] = finish<A, To>(acc, scale);
  }
}

// One block per (output, split); split s covers reduced elements [s * chunk, (s+1) * chunk).
// kFinal: write the finished output (one split), else the partial result.
template <bool kFinal, class T, class A, class To, class Op>
__global__ void reduce_block_kernel(To* out, A* partial, const T* in, OffsetCalculator<1> outer,
                                    OffsetCalculator<1> inner, int64_t n_out, int64_t n_in, int64_t splits,
                                    int64_t chunk, Op op, A init, double scale) {
  using BlockReduce = cub::BlockReduce<A, kBlock>;
  __shared__ typename BlockReduce::TempStorage temp;
  for (int64_t t = blockIdx.x; t < n_out * splits; t += gridDim.x) {
    const int64_t o = t / splits, s = t % splits;
    int64_t base[1];
    outer.get(o, base);
    const int64_t lo = s * chunk, hi = cuda_detail::min64(lo + chunk, n_in);
    A acc = init;
    for (int64_t j = lo + threadIdx.x; j < hi; j += blockDim.x)
      acc = op(acc, static_cast<A>(in[base[0] + inner_offset(inner, j)]));
    const A total = BlockReduce(temp).Reduce(acc, op);
    if (threadIdx.x == 0) {
      if constexpr (kFinal)
        out[o] = finish<A, To>(total, scale);
      else
        partial[t] = total;
    }
    __syncthreads();  // temp is reused by the next iteration
  }
}

template <class A, class To, class Op>
__global__ void reduce_finish_kernel(To* out, const A* partial, int64_t n_out, int64_t splits, Op op, A init,
                                     double scale) {
  for (int64_t o = global_thread(); o < n_out; o += grid_stride()) {
    A acc = init;
    for (int64_t s = 0; s < splits; ++s) acc = op(acc, partial[o * splits + s]);
    out[o] = finish<A, To>(acc, scale);
  }
}

// (value, index) of an extremum; index -1 marks "nothing yet". The first NaN wins, else the
// extremum with the smallest index: the CPU's sequential scan, made associative.
template <class T>
struct ArgPair {
  T v;
  int64_t i;
};
template <class T>
struct ArgCombine {
  bool is_max;
  EMBER_HD ArgPair<T> operator()(const ArgPair<T>& a, const ArgPair<T>& b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const bool an = a.v != a.v, bn = b.v != b.v;
    if (an || bn) {
      if (an && bn) return a.i < b.i ? a : b;
      return an ? a : b;
    }
    if (is_max ? a.v > b.v : a.v < b.v) return a;
    if (is_max ? b.v > a.v : b.v < a.v) return b;
    return a.i < b.i ? a : b;
  }
};

template <class T>
__global__ void arg_thread_kernel(T* values, int64_t* indices, const T* in, OffsetCalculator<1> outer,
                                  int64_t stride, int64_t n_out, int64_t n_in, ArgCombine<T> op) {
  for (int64_t o = global_thread(); o < n_out; o += grid_stride()) {
    int64_t base[1];
    outer.get(o, base);
    ArgPair<T> best{T(), -1};
    for (int64_t j = 0; j < n_in; ++j) best = op(best, ArgPair<T>{in[base[0] + j * stride], j});
    indices[o] = best.i;
    if (values) values[o] = best.v;
  }
}

template <class T>
__global__ void arg_block_kernel(T* values, int64_t* indices, const T* in, OffsetCalculator<1> outer,
                                 int64_t stride, int64_t n_out, int64_t n_in, ArgCombine<T> op) {
  using BlockReduce = cub::BlockReduce<ArgPair<T>, kBlock>;
  __shared__ typename BlockReduce::TempStorage temp;
  for (int64_t o = blockIdx.x; o < n_out; o += gridDim.x) {
    int64_t base[1];
    outer.get(o, base);
    ArgPair<T> best{T(), -1};
    for (int64_t j = threadIdx.x; j < n_in; j += blockDim.x)
      best = op(best, ArgPair<T>{in[base[0] + j * stride], j});
    const ArgPair<T> total = BlockReduce(temp).Reduce(best, op);
    if (threadIdx.x == 0) {
      indices[o] = total.i;
      if (values) values[o] = total.v;
    }
    __syncthreads();
  }
}

// ---------------------------------------------------------------------------------------
// launchers

struct Plan {
  OffsetCalculator<1> outer, inner;
  int64_t n_out = 1, n_in = 1;
};

// The output part (kept dims, in the output's row-major order) and the reduced part of
// the input's offsets.
Plan plan_reduce(const Tensor& in, const std::vector<bool>& reduced) {
  Plan p;
  Shape outer_shape = in.shape(), inner_shape = in.shape();
  for (int d = 0; d < in.dim(); ++d) {
    if (reduced[static_cast<size_t>(d)]) {
      outer_shape[d] = 1;
      p.n_in *= in.size(d);
    } else {
      inner_shape[d] = 1;
      p.n_out *= in.size(d);
    }
  }
  p.outer = plan_offsets<1>(outer_shape, {&in.strides()});
  p.inner = plan_offsets<1>(inner_shape, {&in.strides()});
  return p;
}

template <class T, class A, class To, class Op>
void run_reduce(const Tensor& out, const Tensor& in, const Plan& p, Op op, A init, double scale) {
  const int dev = out.device().index;
  cudaStream_t s = cuda_detail::stream(dev);
  To* o = static_cast<To*>(out.raw_data());
  const T* x = static_cast<const T*>(in.raw_data());
  if (p.n_in < kBlock) {
    EMBER_LAUNCH(reduce_thread_kernel, cuda_detail::grid_for(p.n_out, dev), kBlock, 0, s, o, x, p.outer,
                 p.inner, p.n_out, p.n_in, op, init, scale);
    EMBER_CUDA_LAUNCH_CHECK();
    return;
  }
  // Enough blocks to fill the device; each split keeps at least a few thousand elements.
  const int64_t target = static_cast<int64_t>(cuda_detail::sm_count(dev)) * 4;
  int64_t splits = 1;
  if (p.n_out < target)
    splits = std::max<int64_t>(1, std::min((target + p.n_out - 1) / p.n_out, (p.n_in + 4095) / 4096));
  const int64_t chunk = (p.n_in + splits - 1) / splits;
  const int64_t tasks = p.n_out * splits;
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>(tasks, target * 8));
  if (splits == 1) {
    EMBER_LAUNCH((reduce_block_kernel<true, T, A, To>), grid, kBlock, 0, s, o, nullptr, x, p.outer, p.inner,
                 p.n_out, p.n_in, 1, chunk, op, init, scale);
    EMBER_CUDA_LAUNCH_CHECK();
    return;
  }
  cuda_detail::DeviceBuffer partial(dev, static_cast<size_t>(tasks) * sizeof(A));
  EMBER_LAUNCH((reduce_block_kernel<false, T, A, To>), grid, kBlock, 0, s, o, partial.as<A>(), x, p.outer,
               p.inner, p.n_out, p.n_in, splits, chunk, op, init, scale);
  EMBER_CUDA_LAUNCH_CHECK();
  EMBER_LAUNCH(reduce_finish_kernel, cuda_detail::grid_for(p.n_out, dev), kBlock, 0, s, o, partial.as<A>(),
               p.n_out, splits, op, init, scale);
  EMBER_CUDA_LAUNCH_CHECK();
}

}  // namespace

void CudaBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& in, const std::vector<int>& dims) {
  if (out.numel() == 0) return;
  std::vector<bool> reduced(static_cast<size_t>(in.dim()), false);
  for (int d : dims) reduced[static_cast<size_t>(d)] = true;
  const Plan p = plan_reduce(in, reduced);
  CudaDeviceGuard guard(out.device().index);
  const double scale = op == ReduceOp::Mean ? 1.0 / static_cast<double>(p.n_in) : 1.0;
  EMBER_DISPATCH_ALL(in.dtype(), "reduce", [&] {
    using T = scalar_t;
    if (op == ReduceOp::Sum || op == ReduceOp::Mean) {
      using A = typename SumAcc<T>::type;
      if constexpr (std::is_floating_point<T>::value) {
        run_reduce<T, A, T>(out, in, p, SumOp{}, A(0), scale);
      } else if constexpr (std::is_same<T, int64_t>::value) {
        run_reduce<T, A, int64_t>(out, in, p, SumOp{}, A(0), scale);
      } else {
        // bool and uint8 sum into int64 (the front-end's choice); T when asked for T.
        if (out.dtype() == kInt64)
          run_reduce<T, A, int64_t>(out, in, p, SumOp{}, A(0), scale);
        else
          run_reduce<T, A, T>(out, in, p, SumOp{}, A(0), scale);
      }
    } else if constexpr (!std::is_same<T, bool>::value) {
      if (op == ReduceOp::Max)
        run_reduce<T, T, T>(out, in, p, fn::Maximum{}, lowest_value<T>(), 1.0);
      else
        run_reduce<T, T, T>(out, in, p, fn::Minimum{}, highest_value<T>(), 1.0);
    } else {
      raise<DTypeError>(op == ReduceOp::Max ? "amax" : "amin", " does not support dtype bool");
    }
  });
}

void CudaBackend::reduce_with_index(ReduceOp op, const Tensor& values, const Tensor& indices,
                                    const Tensor& in, int dim) {
  if (indices.numel() == 0) return;
  std::vector<bool> reduced(static_cast<size_t>(in.dim()), false);
  if (in.dim() > 0) reduced[static_cast<size_t>(dim)] = true;
  const Plan p = plan_reduce(in, reduced);
  const int64_t stride = in.dim() > 0 ? in.stride(dim) : 0;
  const int dev = indices.device().index;
  CudaDeviceGuard guard(dev);
  cudaStream_t s = cuda_detail::stream(dev);
  EMBER_DISPATCH_NUMERIC(in.dtype(), "reduce_with_index", [&] {
    using T = scalar_t;
    T* pv = values.defined() ? static_cast<T*>(values.raw_data()) : nullptr;
    int64_t* pi = static_cast<int64_t*>(indices.raw_data());
    const T* x = static_cast<const T*>(in.raw_data());
    const ArgCombine<T> comb{op == ReduceOp::Max};
    if (p.n_in < kBlock)
      EMBER_LAUNCH(arg_thread_kernel, cuda_detail::grid_for(p.n_out, dev), kBlock, 0, s, pv, pi, x, p.outer,
                   stride, p.n_out, p.n_in, comb);
    else
      EMBER_LAUNCH(arg_block_kernel, static_cast<unsigned>(std::min<int64_t>(p.n_out, 65535)), kBlock, 0, s,
                   pv, pi, x, p.outer, stride, p.n_out, p.n_in, comb);
    EMBER_CUDA_LAUNCH_CHECK();
  });
}

}  // namespace ember
