// Indexing on the CPU. Every index is checked before anything is read or written, so a bad
// index raises IndexError and leaves the output untouched. index_select and index_add see
// their operands as [outer, size of dim, inner] rows; gather and scatter_add walk the
// index's elements with an odometer over its shape.
#include <cstring>

#include "ember/core/dtype_dispatch.h"
#include "ember/core/error.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/parallel.h"

namespace ember {
namespace {

void check_indices(const Tensor& index, int64_t size, int dim, const char* op) {
  const int64_t* idx = static_cast<const int64_t*>(index.raw_data());
  const int64_t n = index.numel();
  for (int64_t i = 0; i < n; ++i)
    if (idx[i] < 0 || idx[i] >= size)
      raise<IndexError>(op, ": index ", idx[i], " is out of range for dim ", dim, " of size ", size);
}

struct Rows {
  int64_t outer, size, inner;
};

Rows rows_of(const Shape& s, int dim) {
  Rows r{1, s[static_cast<size_t>(dim)], 1};
  for (int k = 0; k < dim; ++k) r.outer *= s[static_cast<size_t>(k)];
  for (size_t k = static_cast<size_t>(dim) + 1; k < s.size(); ++k) r.inner *= s[k];
  return r;
}

// Calls f(e, offset) for the elements [lo, hi) of shape in row-major order, where offset is
// sum over k != dim of coordinate_k * strides[k] (the caller adds index * strides[dim]).
template <class F>
void walk(const Shape& shape, const Shape& strides, int dim, int64_t lo, int64_t hi, const F& f) {
  if (lo >= hi) return;
  const int nd = static_cast<int>(shape.size());
  std::vector<int64_t> coord(static_cast<size_t>(nd), 0);
  int64_t rest = lo, offset = 0;
  for (int k = nd - 1; k >= 0; --k) {
    const int64_t size = shape[static_cast<size_t>(k)];
    coord[static_cast<size_t>(k)] = rest % size;
    rest /= size;
    if (k != dim) offset += coord[static_cast<size_t>(k)] * strides[static_cast<size_t>(k)];
  }
  for (int64_t e = lo; e < hi; ++e) {
    f(e, offset);
    for (int k = nd - 1; k >= 0; --k) {
      const auto uk = static_cast<size_t>(k);
      const int64_t step = k == dim ? 0 : strides[uk];
      if (++coord[uk] < shape[uk]) {
        offset += step;
        break;
      }
      offset -= step * (shape[uk] - 1);
      coord[uk] = 0;
    }
  }
}

}  // namespace

void CpuBackend::index_select(const Tensor& out, const Tensor& in, int dim, const Tensor& index,
                              const char* op) {
  const Tensor x = contiguous(in), idx = contiguous(index);
  check_indices(idx, x.size(dim), dim, op);
  // Nothing to copy. Checked before the rows are counted: an empty tensor's other dims may
  // be huge (2^53 x 0), and looping over them, or their product, would hang or overflow.
  if (out.numel() == 0 || x.numel() == 0) return;
  const Rows r = rows_of(x.shape(), dim);
  const int64_t n = idx.numel();
  const size_t row = static_cast<size_t>(r.inner) * itemsize(x.dtype());
  const int64_t* ip = static_cast<const int64_t*>(idx.raw_data());
  const char* src = static_cast<const char*>(x.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  if (row == 0) return;
  parallel_for(r.outer * n, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(r.inner, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t e = lo; e < hi; ++e) {
                   const int64_t o = e / n, i = e % n;
                   std::memcpy(dst + e * row, src + (o * r.size + ip[i]) * row, row);
                 }
               });
}

void CpuBackend::index_add(const Tensor& out, int dim, const Tensor& index, const Tensor& src) {
  const Tensor idx = contiguous(index), s = contiguous(src);
  check_indices(idx, out.size(dim), dim, "index_add");
  if (out.numel() == 0 || s.numel() == 0) return;  // nothing to add (see index_select)
  const Rows r = rows_of(out.shape(), dim);
  const int64_t n = idx.numel();
  const int64_t* ip = static_cast<const int64_t*>(idx.raw_data());
  EMBER_DISPATCH_NUMERIC(out.dtype(), "index_add", [&] {
    using T = scalar_t;
    T* o = static_cast<T*>(out.raw_data());
    const T* v = static_cast<const T*>(s.raw_data());
    // Each outer row is written by one thread; repeated indices then add up without races.
    parallel_for(r.outer, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n * r.inner, 1)),
                 [&](int64_t lo, int64_t hi) {
                   for (int64_t a = lo; a < hi; ++a)
                     for (int64_t i = 0; i < n; ++i) {
                       T* d = o + (a * r.size + ip[i]) * r.inner;
                       const T* x = v + (a * n + i) * r.inner;
                       for (int64_t j = 0; j < r.inner; ++j) d[j] += x[j];
                     }
                 });
  });
}

void CpuBackend::gather(const Tensor& out, const Tensor& in, int dim, const Tensor& index, const char* op) {
  const Tensor idx = contiguous(index);
  check_indices(idx, in.size(dim), dim, op);
  const int64_t* ip = static_cast<const int64_t*>(idx.raw_data());
  const int64_t dim_stride = in.stride(dim);
  EMBER_DISPATCH_ALL(out.dtype(), op, [&] {
    using T = scalar_t;
    const T* x = static_cast<const T*>(in.raw_data());
    T* o = static_cast<T*>(out.raw_data());
    parallel_for(idx.numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
      walk(idx.shape(), in.strides(), dim, lo, hi,
           [&](int64_t e, int64_t off) { o[e] = x[off + ip[e] * dim_stride]; });
    });
  });
}

void CpuBackend::scatter_add(const Tensor& out, int dim, const Tensor& index, const Tensor& src) {
  const Tensor idx = contiguous(index), s = contiguous(src);
  check_indices(idx, out.size(dim), dim, "scatter_add");
  const int64_t* ip = static_cast<const int64_t*>(idx.raw_data());
  const Shape ostrides = contiguous_strides(out.shape());
  EMBER_DISPATCH_NUMERIC(out.dtype(), "scatter_add", [&] {
    using T = scalar_t;
    T* o = static_cast<T*>(out.raw_data());
    const T* v = static_cast<const T*>(s.raw_data());
    // Serial: two elements may add into one place.
    walk(idx.shape(), ostrides, dim, 0, idx.numel(),
         [&](int64_t e, int64_t off) { o[off + ip[e] * ostrides[static_cast<size_t>(dim)]] += v[e]; });
  });
}

}  // namespace ember
