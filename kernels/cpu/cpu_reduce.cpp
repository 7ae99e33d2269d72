// Reductions on the CPU. The reduced dims are moved last; when that view is contiguous each
// output is one Eigen reduction over a row, otherwise the input is first copied into that
// order (or, for a contiguous input reduced over leading dims, summed row by row into the
// output, which avoids the copy for the common bias-gradient case).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/parallel.h"

namespace ember {
namespace {

template <class T>
using ConstRow = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// The input viewed as [outer, inner] rows with the reduced dims last, made contiguous.
Tensor rows_last(CpuBackend& be, const Tensor& in, const std::vector<int>& dims, int64_t& outer,
                 int64_t& inner) {
  std::vector<int64_t> perm;
  for (int d = 0; d < in.dim(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) perm.push_back(d);
  inner = 1;
  for (int d : dims) {
    perm.push_back(d);
    inner *= in.size(d);
  }
  outer = inner ? in.numel() / inner : 0;
  Shape shape, strides;
  for (int64_t d : perm) {
    shape.push_back(in.size(d));
    strides.push_back(in.stride(d));
  }
  return be.contiguous(detail::make_view(in, shape, strides, in.offset()));
}

// The sum of n floating-point values accumulated in double. Sixteen independent partial
// sums keep the loop vectorised (float -> double conversions, packed adds) and free of the
// add-latency chain a single accumulator would serialise on, so it runs at memory speed.
template <class T>
double sum_in_double(const T* x, int64_t n) {
  constexpr int64_t kLanes = 16;
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) lanes[j] += static_cast<double>(x[i + j]);
  double s = 0;
  for (; i < n; ++i) s += static_cast<double>(x[i]);
  for (double lane : lanes) s += lane;
  return s;
}

template <class T, class Acc>
void sum_rows(const T* x, Acc* out, int64_t outer, int64_t inner, double scale) {
  parallel_for(outer, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t r = lo; r < hi; ++r) {
                   Acc s;
                   if constexpr (std::is_floating_point<T>::value) {
                     // Accumulated in double: float32 sums of millions of elements, even
                     // identical ones whose rounding errors never cancel, stay accurate to
                     // float32 precision.
                     s = static_cast<Acc>(sum_in_double(x + r * inner, inner));
                   } else {
                     s = 0;
                     for (int64_t j = 0; j < inner; ++j) s += static_cast<Acc>(x[r * inner + j]);
                   }
                   out[r] = scale == 1.0 ? s : static_cast<Acc>(s * scale);
                 }
               });
}

template <class T>
void extreme_rows(const T* x, T* out, int64_t outer, int64_t inner, bool is_max) {
  parallel_for(outer, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t r = lo; r < hi; ++r) {
                   if constexpr (std::is_floating_point<T>::value) {
                     ConstRow<T> row(x + r * inner, inner);
                     out[r] = is_max ? row.template maxCoeff<Eigen::PropagateNaN>()
                                     : row.template minCoeff<Eigen::PropagateNaN>();
                   } else {
                     const T* p = x + r * inner;
                     out[r] = is_max ? *std::max_element(p, p + inner) : *std::min_element(p, p + inner);
                   }
                 }
               });
}

// Contiguous input reduced over its leading dims: out[j] = sum_i x[i, j].
template <class T, class Acc>
void sum_leading(const T* x, Acc* out, int64_t rows, int64_t cols, double scale) {
  std::vector<double> acc(static_cast<size_t>(cols), 0.0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) acc[static_cast<size_t>(j)] += static_cast<double>(x[i * cols + j]);
  for (int64_t j = 0; j < cols; ++j) out[j] = static_cast<Acc>(acc[static_cast<size_t>(j)] * scale);
}

}  // namespace

void CpuBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& in, const std::vector<int>& dims) {
  bool leading = in.is_contiguous() && !dims.empty() && op != ReduceOp::Max && op != ReduceOp::Min;
  for (size_t i = 0; i < dims.size() && leading; ++i) leading = dims[i] == static_cast<int>(i);
  int64_t outer = 0, inner = 0;
  Tensor x;
  if (leading && static_cast<int64_t>(dims.size()) < in.dim()) {
    inner = 1;
    for (int d : dims) inner *= in.size(d);
    outer = in.numel() / std::max<int64_t>(inner, 1);
  } else {
    leading = false;
    x = rows_last(*this, in, dims, outer, inner);
  }
  const double scale = op == ReduceOp::Mean ? 1.0 / static_cast<double>(inner) : 1.0;
  EMBER_DISPATCH_ALL(in.dtype(), "reduce", [&] {
    using T = scalar_t;
    if (op == ReduceOp::Sum || op == ReduceOp::Mean) {
      auto run = [&](auto* o) {
        if (leading)
          sum_leading(static_cast<const T*>(in.raw_data()), o, inner, outer, scale);
        else
          sum_rows(static_cast<const T*>(x.raw_data()), o, outer, inner, scale);
      };
      if (out.dtype() == kInt64 && in.dtype() != kInt64)
        run(static_cast<int64_t*>(out.raw_data()));
      else
        run(static_cast<T*>(out.raw_data()));
    } else if constexpr (!std::is_same<T, bool>::value) {
      extreme_rows(static_cast<const T*>(x.raw_data()), static_cast<T*>(out.raw_data()), outer, inner,
                   op == ReduceOp::Max);
    }
  });
}

void CpuBackend::reduce_with_index(ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in,
                                   int dim) {
  int64_t outer = 0, inner = 0;
  const Tensor x = in.dim() ? rows_last(*this, in, {dim}, outer, inner) : in;
  if (in.dim() == 0) outer = inner = 1;
  const bool is_max = op == ReduceOp::Max;
  EMBER_DISPATCH_NUMERIC(in.dtype(), "reduce_with_index", [&] {
    using T = scalar_t;
    const T* px = static_cast<const T*>(x.raw_data());
    T* pv = values.defined() ? static_cast<T*>(values.raw_data()) : nullptr;
    int64_t* pi = static_cast<int64_t*>(indices.raw_data());
    parallel_for(outer, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner, 1)),
                 [&](int64_t lo, int64_t hi) {
                   for (int64_t r = lo; r < hi; ++r) {
                     const T* row = px + r * inner;
                     int64_t best = 0;
                     for (int64_t j = 1; j < inner; ++j) {
                       const T v = row[j], b = row[best];
                       if (b != b) break;  // NaN is the extremum; keep the first
                       if (v != v || (is_max ? v > b : v < b)) best = j;
                     }
                     pi[r] = best;
                     if (pv) pv[r] = row[best];
                   }
                 });
  });
}

}  // namespace ember
