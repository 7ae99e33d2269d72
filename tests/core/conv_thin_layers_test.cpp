// conv2d's direct route for thin layers (kernels/cpu/conv_direct.h: stride 1, few input
// channels times taps, output rows of at least one vector register) against a naive loop in
// double, for shapes that take it: odd widths (the last register overlaps), output channel
// counts that leave remainders of the 4-channel blocks, padding, no bias, float and double.
#include <gtest/gtest.h>

#include "support/expect.h"

using namespace ember;

namespace {

std::vector<double> naive_conv(const Tensor& x, const Tensor& w, const Tensor& b, int64_t ph, int64_t pw) {
  const auto xv = x.to_vector<double>(), wv = w.to_vector<double>();
  const auto bv = b.defined() ? b.to_vector<double>() : std::vector<double>();
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t Co = w.size(0), kh = w.size(2), kw = w.size(3);
  const int64_t Ho = H + 2 * ph - kh + 1, Wo = W + 2 * pw - kw + 1;
  std::vector<double> out;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t co = 0; co < Co; ++co)
      for (int64_t oh = 0; oh < Ho; ++oh)
        for (int64_t ow = 0; ow < Wo; ++ow) {
          double s = bv.empty() ? 0.0 : bv[co];
          for (int64_t c = 0; c < C; ++c)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t h = oh + i - ph, v = ow + j - pw;
                if (h >= 0 && h < H && v >= 0 && v < W)
                  s += xv[((n * C + c) * H + h) * W + v] * wv[((co * C + c) * kh + i) * kw + j];
              }
          out.push_back(s);
        }
  return out;
}

struct Case {
  Shape x, w;
  int64_t ph, pw;
  bool bias;
};

TEST(ConvThinLayers, DirectRouteMatchesANaiveLoop) {
  manual_seed(11);
  const std::vector<Case> cases = {
      {{2, 1, 28, 28}, {10, 1, 5, 5}, 0, 0, true},   // the tutorial's conv1
      {{1, 3, 32, 32}, {16, 3, 3, 3}, 1, 1, false},  // the small ResNet's stem
      {{3, 2, 9, 37}, {7, 2, 3, 4}, 1, 2, true},     // 7 = 4 + 2 + 1 channels, odd width, padding
      {{1, 1, 4, 17}, {5, 1, 1, 1}, 0, 0, true},     // one tap; 17 columns: overlapping tail
      {{2, 4, 6, 40}, {3, 4, 2, 4}, 2, 0, true},     // 32 taps, the most the direct route takes
  };
  for (DType dtype : {DType::Float32, DType::Float64}) {
    for (const Case& c : cases) {
      const Tensor x = randn(c.x).to(dtype), w = randn(c.w).to(dtype);
      const Tensor b = c.bias ? randn({c.w[0]}).to(dtype) : Tensor();
      const Tensor y = conv2d(x, w, b, 1, IntPair(c.ph, c.pw));
      const std::vector<double> expected = naive_conv(x, w, b, c.ph, c.pw);
      const double tol = dtype == DType::Float32 ? 2e-5 : 1e-12;
      EXPECT_TRUE(ember::test::values_near(y, expected, y.shape(), tol))
          << shape_str(c.x) << " * " << shape_str(c.w) << " " << dtype_name(dtype);
    }
  }
}

}  // namespace
