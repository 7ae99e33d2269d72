#pragma once
// conv2d and its gradients as plain loops in double: the reference every CPU route is checked
// against (tests/core/conv_test.cpp, conv_routes_test.cpp).
#include <cstdint>
#include <ostream>
#include <vector>

namespace ember::test {

struct ConvGeometry {
  int64_t N, C, H, W, Co, kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t Ho() const { return (H + 2 * ph - (kh - 1) * dh - 1) / sh + 1; }
  int64_t Wo() const { return (W + 2 * pw - (kw - 1) * dw - 1) / sw + 1; }
};

inline std::ostream& operator<<(std::ostream& os, const ConvGeometry& g) {
  return os << "N" << g.N << " C" << g.C << " " << g.H << "x" << g.W << " Co" << g.Co << " k" << g.kh << "x"
            << g.kw << " s" << g.sh << "," << g.sw << " p" << g.ph << "," << g.pw << " d" << g.dh << ","
            << g.dw;
}

struct ConvReference {
  std::vector<double> out, gx, gw, gb;
};

// The direct definition: out[n, co, oh, ow] = b[co] + sum x[n, c, ih, iw] * w[co, c, i, j],
// and its adjoints for a given output gradient g.
inline ConvReference direct_conv(const ConvGeometry& s, const std::vector<double>& x,
                                 const std::vector<double>& w, const std::vector<double>& b,
                                 const std::vector<double>& g) {
  const int64_t Ho = s.Ho(), Wo = s.Wo();
  ConvReference r;
  r.out.assign(static_cast<size_t>(s.N * s.Co * Ho * Wo), 0.0);
  r.gx.assign(x.size(), 0.0);
  r.gw.assign(w.size(), 0.0);
  r.gb.assign(static_cast<size_t>(s.Co), 0.0);
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t co = 0; co < s.Co; ++co)
      for (int64_t oh = 0; oh < Ho; ++oh)
        for (int64_t ow = 0; ow < Wo; ++ow) {
          const size_t o = static_cast<size_t>(((n * s.Co + co) * Ho + oh) * Wo + ow);
          double acc = b.empty() ? 0.0 : b[static_cast<size_t>(co)];
          for (int64_t c = 0; c < s.C; ++c)
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t j = 0; j < s.kw; ++j) {
                const int64_t ih = oh * s.sh - s.ph + i * s.dh, iw = ow * s.sw - s.pw + j * s.dw;
                if (ih < 0 || ih >= s.H || iw < 0 || iw >= s.W) continue;
                const size_t xi = static_cast<size_t>(((n * s.C + c) * s.H + ih) * s.W + iw);
                const size_t wi = static_cast<size_t>(((co * s.C + c) * s.kh + i) * s.kw + j);
                acc += x[xi] * w[wi];
                r.gx[xi] += g[o] * w[wi];
                r.gw[wi] += g[o] * x[xi];
              }
          r.out[o] = acc;
          r.gb[static_cast<size_t>(co)] += g[o];
        }
  return r;
}

}  // namespace ember::test
