// Batch normalisation on the CPU over contiguous [N, C, S] data: channels are independent,
// so each thread takes whole channels. Statistics are accumulated in double, each sample's
// span centred on its own mean, so float32 inputs with a large mean stay accurate.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/optional_data.h"
#include "ember/kernels/cpu/parallel.h"
#include "ember/kernels/cpu/span_moments.h"

namespace ember {
namespace {

using cpu_detail::ConstSpan;
using cpu_detail::Span;

struct Layout {
  int64_t N, C, S;
};

Layout layout_of(const Tensor& x) {
  const int64_t N = x.size(0), C = x.size(1);
  return Layout{N, C, N * C > 0 ? x.numel() / (N * C) : 0};
}

template <class F>
void for_channels(const Layout& l, const F& f) {
  parallel_for(l.C, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(l.N * l.S, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t c = lo; c < hi; ++c) f(c);
               });
}

using cpu_detail::mut;
using cpu_detail::ptr;

}  // namespace

void CpuBackend::batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd,
                            const Tensor& input, const Tensor& weight, const Tensor& bias,
                            const Tensor& running_mean, const Tensor& running_var, bool training,
                            double momentum, double eps) {
  const Layout l = layout_of(input);
  EMBER_DISPATCH_FLOATING(input.dtype(), "batch_norm", [&] {
    using T = scalar_t;
    const T* x = ptr<T>(input);
    const T *w = ptr<T>(weight), *b = ptr<T>(bias);
    T *rm = mut<T>(running_mean), *rv = mut<T>(running_var);
    T *sm = mut<T>(save_mean), *si = mut<T>(save_invstd), *o = mut<T>(out);
    const int64_t M = l.N * l.S;
    for_channels(l, [&](int64_t c) {
      double mean, invstd;
      if (training) {
        // Each sample's span of the channel (kernels/cpu/span_moments.h: one read).
        cpu_detail::SpanMoments m;
        for (int64_t n = 0; n < l.N; ++n) m.add(x + (n * l.C + c) * l.S, l.S);
        mean = m.mean;
        const double var = m.squared_deviations() / static_cast<double>(M);
        invstd = 1.0 / std::sqrt(var + eps);
        if (rm) {
          rm[c] = static_cast<T>((1 - momentum) * rm[c] + momentum * mean);
          rv[c] = static_cast<T>((1 - momentum) * rv[c] +
                                 momentum * var * static_cast<double>(M) / static_cast<double>(M - 1));
        }
      } else {
        mean = static_cast<double>(rm[c]);
        invstd = 1.0 / std::sqrt(static_cast<double>(rv[c]) + eps);
      }
      sm[c] = static_cast<T>(mean);
      si[c] = static_cast<T>(invstd);
      const double scale = w ? static_cast<double>(w[c]) * invstd : invstd;
      const double shift = (b ? static_cast<double>(b[c]) : 0.0) - mean * scale;
      for (int64_t n = 0; n < l.N; ++n) {
        const int64_t at = (n * l.C + c) * l.S;
        Span<T>(o + at, l.S) = ConstSpan<T>(x + at, l.S) * static_cast<T>(scale) + static_cast<T>(shift);
      }
    });
  });
}

void CpuBackend::batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight,
                                     const Tensor& grad_bias, const Tensor& grad_out, const Tensor& input,
                                     const Tensor& weight, const Tensor& save_mean, const Tensor& save_invstd,
                                     bool training, double) {
  const Layout l = layout_of(input);
  EMBER_DISPATCH_FLOATING(input.dtype(), "batch_norm_backward", [&] {
    using T = scalar_t;
    const T *x = ptr<T>(input), *g = ptr<T>(grad_out), *w = ptr<T>(weight);
    const T *sm = ptr<T>(save_mean), *si = ptr<T>(save_invstd);
    T *gi = mut<T>(grad_input), *gw = mut<T>(grad_weight), *gb = mut<T>(grad_bias);
    const double M = static_cast<double>(l.N * l.S);
    for_channels(l, [&](int64_t c) {
      const T mean = sm[c];
      const double invstd = static_cast<double>(si[c]);
      // sum(g) and sum(g * (x - mean)) over the channel.
      double sum_g = 0, sum_gx = 0;
      for (int64_t n = 0; n < l.N; ++n) {
        const int64_t at = (n * l.C + c) * l.S;
        ConstSpan<T> gs(g + at, l.S);
        sum_g += static_cast<double>(gs.sum());
        sum_gx += static_cast<double>((gs * (ConstSpan<T>(x + at, l.S) - mean)).sum());
      }
      if (gw) gw[c] = static_cast<T>(sum_gx * invstd);
      if (gb) gb[c] = static_cast<T>(sum_g);
      if (!gi) return;
      const double k = (w ? static_cast<double>(w[c]) : 1.0) * invstd;
      // Training: the statistics depend on x too, which removes the mean of g and its
      // projection on x_hat: gi = k * (g - mean(g) - x_hat * mean(g * x_hat)).
      const double g_mean = training ? sum_g / M : 0.0;
      const double proj = training ? sum_gx * invstd * invstd / M : 0.0;
      for (int64_t n = 0; n < l.N; ++n) {
        const int64_t at = (n * l.C + c) * l.S;
        Span<T>(gi + at, l.S) = (ConstSpan<T>(g + at, l.S) - static_cast<T>(g_mean) -
                                 (ConstSpan<T>(x + at, l.S) - mean) * static_cast<T>(proj)) *
                                static_cast<T>(k);
      }
    });
  });
}

}  // namespace ember
