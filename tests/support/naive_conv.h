#pragma once
// conv2d (stride 1, dilation 1) and its gradients as plain loops in double: the reference the
// CPU routes are checked against.
#include <cstdint>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

struct NaiveConv {
  const std::vector<double> x, w;
  int64_t N, C, H, W, Co, kh, kw, ph, pw, Ho, Wo;

  NaiveConv(const Tensor& xt, const Tensor& wt, int64_t pad_h, int64_t pad_w)
      : x(xt.to_vector<double>()),
        w(wt.to_vector<double>()),
        N(xt.size(0)),
        C(xt.size(1)),
        H(xt.size(2)),
        W(xt.size(3)),
        Co(wt.size(0)),
        kh(wt.size(2)),
        kw(wt.size(3)),
        ph(pad_h),
        pw(pad_w),
        Ho(H + 2 * ph - kh + 1),
        Wo(W + 2 * pw - kw + 1) {}

  // Calls f(x index, w index, out index) for every product that the convolution sums.
  template <class F>
  void each_product(const F& f) const {
    for (int64_t n = 0; n < N; ++n)
      for (int64_t co = 0; co < Co; ++co)
        for (int64_t oh = 0; oh < Ho; ++oh)
          for (int64_t ow = 0; ow < Wo; ++ow)
            for (int64_t c = 0; c < C; ++c)
              for (int64_t i = 0; i < kh; ++i)
                for (int64_t j = 0; j < kw; ++j) {
                  const int64_t h = oh + i - ph, v = ow + j - pw;
                  if (h >= 0 && h < H && v >= 0 && v < W)
                    f(((n * C + c) * H + h) * W + v, ((co * C + c) * kh + i) * kw + j,
                      ((n * Co + co) * Ho + oh) * Wo + ow);
                }
  }

  std::vector<double> forward(const Tensor& b) const {
    std::vector<double> out(static_cast<size_t>(N * Co * Ho * Wo), 0.0);
    if (b.defined()) {
      const auto bv = b.to_vector<double>();
      for (size_t o = 0; o < out.size(); ++o) out[o] = bv[(o / static_cast<size_t>(Ho * Wo)) % Co];
    }
    each_product([&](int64_t xi, int64_t wi, int64_t oi) { out[oi] += x[xi] * w[wi]; });
    return out;
  }

  // The gradients of sum(conv(x, w) * g) with respect to x and w.
  std::vector<double> grad_input(const std::vector<double>& g) const {
    std::vector<double> gx(x.size(), 0.0);
    each_product([&](int64_t xi, int64_t wi, int64_t oi) { gx[xi] += g[oi] * w[wi]; });
    return gx;
  }
  std::vector<double> grad_weight(const std::vector<double>& g) const {
    std::vector<double> gw(w.size(), 0.0);
    each_product([&](int64_t xi, int64_t wi, int64_t oi) { gw[wi] += g[oi] * x[xi]; });
    return gw;
  }
};

}  // namespace ember::test
