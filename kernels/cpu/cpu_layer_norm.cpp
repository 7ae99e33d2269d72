// Layer normalisation on the CPU over contiguous [rows, cols] data. Rows are independent, so
// threads take whole rows. A row's statistics come from one read of it from memory: it is cut
// into spans that stay in L1, each span centred on a rough float mean (as batch norm's,
// kernels/cpu/cpu_batch_norm.cpp), and the spans merged in double. The weight and bias
// gradients are column sums over the rows: each chunk of rows sums into its own partial
// row, and the chunks, cut from the row count alone, are added in order, so the result does
// not depend on the number of threads.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/optional_data.h"
#include "ember/kernels/cpu/parallel.h"
#include "ember/kernels/cpu/span_moments.h"

namespace ember {
namespace {

using cpu_detail::ConstSpan;
using cpu_detail::Span;

// 4096 floats (16 KiB) a span: it is read twice, the second time from L1.
constexpr int64_t kSpan = 4096;
// The weight and bias gradients' partial sums: at most this many chunks of rows.
constexpr int64_t kMaxChunks = 64;

using cpu_detail::mut;
using cpu_detail::ptr;

// The mean as a rounded head and its remainder: x - head is exact near the mean, so x_hat
// keeps a large offset's small deviations (x * scale + shift, or x minus a rounded mean,
// would not).
template <class T>
struct Centre {
  explicit Centre(double mean)
      : head(static_cast<T>(mean)), tail(static_cast<T>(mean - static_cast<double>(head))) {}
  T head, tail;
};

// Rows whose statistics are taken together (span_moments.h's add_spans).
constexpr int kRowGroup = 4;

struct RowStats {
  double mean, var;
};

RowStats row_stats(const cpu_detail::SpanMoments& m) { return {m.mean, m.squared_deviations() / m.count}; }

// Mean and biased variance of x[0, n), n > 0.
template <class T>
RowStats row_stats(const T* x, int64_t n) {
  cpu_detail::SpanMoments m;
  for (int64_t lo = 0; lo < n; lo += kSpan) m.add(x + lo, std::min(kSpan, n - lo));
  return row_stats(m);
}

}  // namespace

namespace {

// Layer norm of the rows of x (their sum with residual's rows where residual is not null):
// the body of both entry points below.
void layer_norm_rows(const Tensor& out, const Tensor& save_mean, const Tensor& save_rstd, const Tensor& input,
                     const Tensor* residual, const Tensor& weight, const Tensor& bias, double eps) {
  const int64_t rows = save_mean.numel(), cols = rows ? input.numel() / rows : 0;  // any rank
  if (rows == 0 || cols == 0) return;
  EMBER_DISPATCH_FLOATING(input.dtype(), "layer_norm", [&] {
    using T = scalar_t;
    const T *x = ptr<T>(input), *w = ptr<T>(weight), *b = ptr<T>(bias);
    const T* res = residual ? ptr<T>(*residual) : nullptr;
    T* o = mut<T>(out);
    double *sm = mut<double>(save_mean), *sr = mut<double>(save_rstd);
    parallel_for(rows, std::max<int64_t>(1, kParallelGrain / cols), [&](int64_t lo, int64_t hi) {
      // With a residual, each row's sum is made first into a row of scratch (in L1 for the
      // three reads below): the add's own pass and its tensor of the whole input saved.
      // Eigen's aligned allocation: Eigen's loops peel scalars off a destination up to its
      // first aligned element, which std::vector's storage left to malloc.
      const bool grouped = cols <= kSpan;  // rows of one span: statistics kRowGroup rows at a time
      Eigen::Array<T, Eigen::Dynamic, 1> sums(res ? (grouped ? kRowGroup : 1) * cols : 0);
      // Row r of the input, or its sum with the residual's in scratch row `slot`.
      const auto row = [&](int64_t r, int slot) {
        const T* xr = x + r * cols;
        if (!res) return xr;
        T* sum = sums.data() + slot * cols;
        Span<T>(sum, cols) = ConstSpan<T>(xr, cols) + ConstSpan<T>(res + r * cols, cols);
        return static_cast<const T*>(sum);
      };
      const auto normalize_row = [&](int64_t r, const T* xr, const RowStats& st) {
        const double rstd = 1.0 / std::sqrt(st.var + eps);
        sm[r] = st.mean;
        sr[r] = rstd;
        Span<T> yr(o + r * cols, cols);
        const Centre<T> c(st.mean);
        // One pass per case (each element's operations, and so its bits, as in three passes).
        const auto x_hat = (ConstSpan<T>(xr, cols) - c.head - c.tail) * static_cast<T>(rstd);
        if (w && b)
          yr = x_hat * ConstSpan<T>(w, cols) + ConstSpan<T>(b, cols);
        else if (w)
          yr = x_hat * ConstSpan<T>(w, cols);
        else if (b)
          yr = x_hat + ConstSpan<T>(b, cols);
        else
          yr = x_hat;
      };
      int64_t r = lo;
      if (grouped) {
        for (; r + kRowGroup <= hi; r += kRowGroup) {
          const T* xs[kRowGroup];
          for (int g = 0; g < kRowGroup; ++g) xs[g] = row(r + g, g);
          cpu_detail::SpanMoments m[kRowGroup];
          cpu_detail::add_spans(m, xs, cols);
          for (int g = 0; g < kRowGroup; ++g) normalize_row(r + g, xs[g], row_stats(m[g]));
        }
      }
      for (; r < hi; ++r) {
        const T* xr = row(r, 0);
        normalize_row(r, xr, row_stats(xr, cols));
      }
    });
  });
}

}  // namespace

void CpuBackend::layer_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_rstd,
                            const Tensor& input, const Tensor& weight, const Tensor& bias, double eps) {
  layer_norm_rows(out, save_mean, save_rstd, input, nullptr, weight, bias, eps);
}

void CpuBackend::add_layer_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_rstd,
                                const Tensor& input, const Tensor& residual, const Tensor& weight,
                                const Tensor& bias, double eps) {
  layer_norm_rows(out, save_mean, save_rstd, input, &residual, weight, bias, eps);
}

void CpuBackend::layer_norm_backward(const Tensor& grad_input, const Tensor& grad_weight,
                                     const Tensor& grad_bias, const Tensor& grad_out, const Tensor& input,
                                     const Tensor& weight, const Tensor& save_mean, const Tensor& save_rstd) {
  const int64_t rows = input.size(0), cols = input.size(1);
  EMBER_DISPATCH_FLOATING(input.dtype(), "layer_norm_backward", [&] {
    using T = scalar_t;
    const T *x = ptr<T>(input), *g = ptr<T>(grad_out), *w = ptr<T>(weight);
    const double *sm = ptr<double>(save_mean), *sr = ptr<double>(save_rstd);
    T *gi = mut<T>(grad_input), *gw = mut<T>(grad_weight), *gb = mut<T>(grad_bias);
    const bool columns = gw || gb;
    // Chunks of at least a grain's work, at most kMaxChunks of them, from the shape alone.
    const int64_t min_rows = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(cols, 1));
    const int64_t chunks = std::max<int64_t>(1, std::min(kMaxChunks, rows / min_rows));
    // Per chunk: sum(g * x_hat) then sum(g) for every column.
    std::vector<double> partial(columns ? static_cast<size_t>(chunks * 2 * cols) : 0, 0.0);
    parallel_for(chunks, 1, [&](int64_t c_lo, int64_t c_hi) {
      // Eigen's aligned allocation, not std::vector's: Eigen starts a vectorised sum at the
      // first aligned element, so scratch where malloc happens to put it would sum each row
      // in an order that changes from run to run (cpu_attention.cpp's buffers, likewise).
      Eigen::Array<T, Eigen::Dynamic, 1> xhat(cols), gx(cols);
      for (int64_t c = c_lo; c < c_hi; ++c) {
        double* pw = columns ? partial.data() + c * 2 * cols : nullptr;
        double* pb = pw ? pw + cols : nullptr;
        for (int64_t r = rows * c / chunks; r < rows * (c + 1) / chunks; ++r) {
          const ConstSpan<T> xr(x + r * cols, cols), gr(g + r * cols, cols);
          Span<T> xh(xhat.data(), cols), gxr(gx.data(), cols);
          const T rstd = static_cast<T>(sr[r]);
          const Centre<T> centre(sm[r]);
          xh = (xr - centre.head - centre.tail) * rstd;
          if (pw) {
            for (int64_t j = 0; j < cols; ++j) {
              pw[j] += static_cast<double>(gr[j] * xh[j]);
              pb[j] += static_cast<double>(gr[j]);
            }
          }
          if (!gi) continue;
          // y = x_hat * w + b with x_hat's statistics depending on the row: the gradient of
          // x_hat (g * w) loses its mean and its projection on x_hat, then scales by rstd.
          if (w)
            gxr = gr * ConstSpan<T>(w, cols);
          else
            gxr = gr;
          const double n = static_cast<double>(cols);
          const T mean_gx = static_cast<T>(static_cast<double>(gxr.sum()) / n);
          const T mean_gx_xhat = static_cast<T>(static_cast<double>((gxr * xh).sum()) / n);
          Span<T>(gi + r * cols, cols) = (gxr - mean_gx - xh * mean_gx_xhat) * rstd;
        }
      }
    });
    if (!columns) return;
    parallel_for(cols, std::max<int64_t>(1, kParallelGrain / chunks), [&](int64_t lo, int64_t hi) {
      for (int64_t j = lo; j < hi; ++j) {
        double sw = 0, sb = 0;
        for (int64_t c = 0; c < chunks; ++c) {
          sw += partial[static_cast<size_t>(c * 2 * cols + j)];
          sb += partial[static_cast<size_t>(c * 2 * cols + cols + j)];
        }
        if (gw) gw[j] = static_cast<T>(sw);
        if (gb) gb[j] = static_cast<T>(sb);
      }
    });
  });
}

}  // namespace ember
