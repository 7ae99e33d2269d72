// max_pool2d and avg_pool2d against direct loops (values, argmax, gradients) on many
// geometries, plus the error messages.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

namespace {

struct PoolGeo {
  int64_t N, C, H, W, kh, kw, sh, sw, ph, pw;
  int64_t Ho() const { return (H + 2 * ph - kh) / sh + 1; }
  int64_t Wo() const { return (W + 2 * pw - kw) / sw + 1; }
};

std::ostream& operator<<(std::ostream& os, const PoolGeo& g) {
  return os << "N" << g.N << " C" << g.C << " " << g.H << "x" << g.W << " k" << g.kh << "x" << g.kw << " s"
            << g.sh << "," << g.sw << " p" << g.ph << "," << g.pw;
}

struct PoolReference {
  std::vector<double> out, index, grad;
};

// Each window's maximum (first occurrence wins) or mean over kh * kw (padding counts), and
// the gradient of sum(out * g).
PoolReference direct_pool(const PoolGeo& s, const std::vector<double>& x, const std::vector<double>& g,
                          bool is_max) {
  const int64_t Ho = s.Ho(), Wo = s.Wo();
  PoolReference r;
  r.grad.assign(x.size(), 0.0);
  for (int64_t plane = 0; plane < s.N * s.C; ++plane)
    for (int64_t oh = 0; oh < Ho; ++oh)
      for (int64_t ow = 0; ow < Wo; ++ow) {
        const size_t o = static_cast<size_t>((plane * Ho + oh) * Wo + ow);
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        int64_t arg = -1;
        for (int64_t i = 0; i < s.kh; ++i)
          for (int64_t j = 0; j < s.kw; ++j) {
            const int64_t h = oh * s.sh - s.ph + i, w = ow * s.sw - s.pw + j;
            if (h < 0 || h >= s.H || w < 0 || w >= s.W) continue;
            const double v = x[static_cast<size_t>((plane * s.H + h) * s.W + w)];
            sum += v;
            if (v > best) best = v, arg = h * s.W + w;
          }
        if (is_max) {
          r.out.push_back(best);
          r.index.push_back(static_cast<double>(arg));
          r.grad[static_cast<size_t>(plane * s.H * s.W + arg)] += g[o];
        } else {
          const double scale = 1.0 / static_cast<double>(s.kh * s.kw);
          r.out.push_back(sum * scale);
          for (int64_t i = 0; i < s.kh; ++i)
            for (int64_t j = 0; j < s.kw; ++j) {
              const int64_t h = oh * s.sh - s.ph + i, w = ow * s.sw - s.pw + j;
              if (h < 0 || h >= s.H || w < 0 || w >= s.W) continue;
              r.grad[static_cast<size_t>((plane * s.H + h) * s.W + w)] += g[o] * scale;
            }
        }
      }
  return r;
}

const std::vector<PoolGeo> kPoolGeometries = {
    //  N  C   H   W kh kw sh sw ph pw
    {1, 1, 4, 4, 2, 2, 2, 2, 0, 0},      // the smallest 2x2 case
    {64, 10, 24, 24, 2, 2, 2, 2, 0, 0},  // the tutorial's first pool
    {64, 20, 8, 8, 2, 2, 2, 2, 0, 0},    // the tutorial's second pool
    {2, 3, 7, 5, 2, 2, 2, 2, 0, 0},      // odd sizes: the last row and column are dropped
    {2, 2, 4, 35, 2, 2, 2, 2, 0, 0},     // 17 outputs a row: float chunks of 8 at 0 and 8, of 4 at 13
    {1, 3, 6, 18, 2, 2, 2, 2, 0, 0},     // 9 outputs: a chunk of 8 at 0, of 4 at 5
    {1, 2, 4, 15, 2, 2, 2, 2, 0, 0},     // 7 outputs, odd width: chunks of 4 at 0 and 3
    {2, 1, 2, 6, 2, 2, 2, 2, 0, 0},      // 3 outputs: the one-at-a-time loop
    {2, 3, 9, 8, 3, 3, 2, 2, 1, 1},      // 3x3, stride 2, padding 1
    {1, 4, 6, 7, 2, 3, 1, 2, 1, 1},      // rectangular kernel, mixed strides
    {3, 2, 5, 5, 3, 3, 1, 1, 1, 1},      // overlapping windows
    {2, 1, 6, 6, 6, 6, 1, 1, 0, 0},      // one window over everything
    {1, 2, 10, 3, 4, 1, 3, 1, 2, 0},     // a column kernel with padding
};

Tensor uniform(const Shape& shape, DType dtype) { return rand(shape, dtype) * 2.0 - 1.0; }

void check_pool(const PoolGeo& s, DType dtype, bool is_max) {
  manual_seed(static_cast<uint64_t>(s.N * 100 + s.H * 10 + s.kh));
  Tensor x = uniform({s.N, s.C, s.H, s.W}, dtype).requires_grad_(true);
  const IntPair k(s.kh, s.kw), st(s.sh, s.sw), pad(s.ph, s.pw);
  Tensor out, index;
  if (is_max) {
    auto r = max_pool2d_with_indices(x, k, st, pad);
    out = r.values;
    index = r.indices;
  } else {
    out = avg_pool2d(x, k, st, pad);
  }
  Tensor g = uniform(out.shape(), dtype);
  (out * g).sum().backward();
  const PoolReference ref = direct_pool(s, x.to_vector<double>(), g.to_vector<double>(), is_max);
  const Shape shape{s.N, s.C, s.Ho(), s.Wo()};
  EXPECT_TRUE(values_near(out, ref.out, shape, 1e-6)) << s;
  EXPECT_TRUE(values_near(x.grad(), ref.grad, x.shape(), 1e-6)) << s;
  if (is_max) {
    EXPECT_EQ(index.dtype(), kInt64);
    EXPECT_TRUE(values_near(index, ref.index, shape, 0)) << s;
  }
}

}  // namespace

TEST(MaxPool2d, MatchesDirectLoop) {
  for (const PoolGeo& s : kPoolGeometries) {
    check_pool(s, kFloat32, true);
    check_pool(s, kFloat64, true);
  }
}

TEST(MaxPool2d, MatchesDirectLoopWithTwoThreads) {
  set_num_threads(2);
  for (const PoolGeo& s : kPoolGeometries) check_pool(s, kFloat32, true);
  set_num_threads(1);
}

TEST(AvgPool2d, MatchesDirectLoop) {
  for (const PoolGeo& s : kPoolGeometries) {
    check_pool(s, kFloat32, false);
    check_pool(s, kFloat64, false);
  }
}

TEST(MaxPool2d, HandComputedValuesAndDefaults) {
  Tensor x =
      tensor({{1, 5, 2, 0}, {3, 4, 8, 8}, {-1, -2, 0, 7}, {-3, -4, 6, 1}}, kFloat32).reshape({1, 1, 4, 4});
  auto r = max_pool2d_with_indices(x, 2);  // stride defaults to the kernel
  EXPECT_TRUE(values_near(r.values, {5, 8, -1, 7}, {1, 1, 2, 2}));
  EXPECT_TRUE(values_near(r.indices, {1, 6, 8, 11}, {1, 1, 2, 2}, 0));  // ties: first wins
  // CHW input keeps its rank.
  EXPECT_TRUE(values_near(max_pool2d(x.squeeze(0), 2), {5, 8, -1, 7}, {1, 2, 2}));
  EXPECT_TRUE(values_near(avg_pool2d(x, 2), {3.25, 4.5, -2.5, 3.5}, {1, 1, 2, 2}));
  // Padding counts in the average's divisor.
  EXPECT_TRUE(values_near(avg_pool2d(x, 2, 2, 1).narrow(2, 0, 1).narrow(3, 0, 1), {0.25}, {1, 1, 1, 1}));
}

TEST(MaxPool2d, NaNIsTheMaximum) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = tensor({{1, nan}, {3, 4}}).reshape({1, 1, 2, 2});
  auto r = max_pool2d_with_indices(x, 2);
  EXPECT_TRUE(std::isnan(r.values.item<double>()));
  EXPECT_EQ(r.indices.item<int64_t>(), 1);
  x = tensor({{1, 2, 9}, {3, nan, 4}, {0, 0, 0}}).reshape({1, 1, 3, 3});
  EXPECT_TRUE(std::isnan(max_pool2d(x, 3).item<double>()));
  // Rows wide enough for the vector chunks (8 and 4 windows), in float and double: NaN in
  // each of a window's four places, two NaNs (the first wins), after a larger value.
  for (DType dtype : {kFloat32, kFloat64})
    for (int64_t windows : {8, 4}) {
      std::vector<double> top(static_cast<size_t>(2 * windows), 0.0), bottom = top;
      top[0] = nan;                 // window 0: a
      top[3] = nan;                 // window 1: b
      bottom[4] = nan;              // window 2: c
      bottom[7] = nan, top[7] = 5;  // window 3: d, after 5 in b
      std::vector<double> values = top;
      values.insert(values.end(), bottom.begin(), bottom.end());
      if (windows == 8) values[1] = nan;  // window 0 again: a wins over b
      const auto r = max_pool2d_with_indices(from_vector(values, {1, 1, 2, 2 * windows}).to(dtype), 2);
      const auto v = r.values.to_vector<double>();
      const auto i = r.indices.to_vector<int64_t>();
      const int64_t W = 2 * windows;
      for (int k = 0; k < 4; ++k) EXPECT_TRUE(std::isnan(v[k])) << k << " " << dtype_name(dtype);
      EXPECT_EQ(i[0], 0);
      EXPECT_EQ(i[1], 3);
      EXPECT_EQ(i[2], W + 4);
      EXPECT_EQ(i[3], W + 7);
      for (int64_t k = 4; k < windows; ++k) EXPECT_EQ(v[k], 0.0) << k;
    }
}

namespace {

// The 2x2, stride 2 rule one window at a time: a, b, c, d in row order, NaN wins (the first
// NaN), and a tie keeps the earlier element. Returns the winner's flat index in the plane.
int64_t max_window_2x2(const std::vector<double>& plane, int64_t W, int64_t oh, int64_t ow) {
  const int64_t a = 2 * oh * W + 2 * ow;
  int64_t at = a;
  for (int64_t cell : {a + 1, a + W, a + W + 1}) {
    const double v = plane[static_cast<size_t>(cell)], best = plane[static_cast<size_t>(at)];
    if (!std::isnan(best) && (std::isnan(v) || v > best)) at = cell;
  }
  return at;
}

}  // namespace

TEST(MaxPool2d, RowsOfEveryWidthKeepTheScalarRuleForNaNAndTies) {
  // Few distinct values, so that windows hold ties (-0 and +0 among them) and NaNs often, in
  // every lane of the 8- and 4-wide chunks and of the last chunk moved back to end at the row's
  // end: outputs 1 to 20 a row, the input's width even and odd.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double pick[] = {nan, -1.0, -0.0, 0.0, 1.0, 1.0, 2.0, -1.0};
  uint32_t state = 12345;
  for (DType dtype : {kFloat32, kFloat64})
    for (int64_t Wo = 1; Wo <= 20; ++Wo)
      for (int64_t W : {2 * Wo, 2 * Wo + 1}) {
        const int64_t C = 2, H = 4;
        std::vector<double> values(static_cast<size_t>(C * H * W));
        for (double& v : values) {
          state = state * 1664525u + 1013904223u;
          v = pick[state >> 29];
        }
        const auto r = max_pool2d_with_indices(from_vector(values, {1, C, H, W}).to(dtype), 2);
        ASSERT_EQ(r.values.shape(), (Shape{1, C, H / 2, Wo}));
        const auto got = r.values.to_vector<double>();
        const auto index = r.indices.to_vector<int64_t>();
        for (int64_t c = 0; c < C; ++c) {
          const std::vector<double> plane(values.begin() + c * H * W, values.begin() + (c + 1) * H * W);
          for (int64_t oh = 0; oh < H / 2; ++oh)
            for (int64_t ow = 0; ow < Wo; ++ow) {
              const size_t o = static_cast<size_t>((c * H / 2 + oh) * Wo + ow);
              const int64_t at = max_window_2x2(plane, W, oh, ow);
              const double want = plane[static_cast<size_t>(at)];
              EXPECT_EQ(index[o], at)
                  << dtype_name(dtype) << " W " << W << " c " << c << " (" << oh << ", " << ow << ")";
              if (std::isnan(want)) {
                EXPECT_TRUE(std::isnan(got[o])) << dtype_name(dtype) << " W " << W << " output " << o;
              } else {
                EXPECT_EQ(got[o], want) << dtype_name(dtype) << " W " << W << " output " << o;
                EXPECT_EQ(std::signbit(got[o]), std::signbit(want)) << dtype_name(dtype) << " W " << W;
              }
            }
        }
      }
}

TEST(MaxPool2d, Errors) {
  Tensor x = zeros({1, 2, 4, 4});
  EXPECT_THROW_LINE(max_pool2d(x, 0), ValueError, "max_pool2d: kernel size must be >= 1, got [0, 0]");
  EXPECT_THROW_LINE(max_pool2d(x, 2, {-1, 1}), ValueError, "max_pool2d: stride must be >= 1, got [-1, 1]");
  EXPECT_THROW_LINE(max_pool2d(x, 2, 2, -1), ValueError, "max_pool2d: padding must be >= 0, got [-1, -1]");
  EXPECT_THROW_LINE(
      max_pool2d(x, 2, 2, 2), ValueError,
      "max_pool2d: padding must be at most half the kernel size, got padding [2, 2] for kernel [2, 2]");
  EXPECT_THROW_LINE(
      max_pool2d(x, 5), ShapeError,
      "max_pool2d: the kernel [5, 5] is larger than the padded input [4, 4] (input [1, 2, 4, 4])");
  EXPECT_THROW_LINE(
      avg_pool2d(x, {2, 7}, 1, {0, 1}), ShapeError,
      "avg_pool2d: the kernel [2, 7] is larger than the padded input [4, 6] (input [1, 2, 4, 4])");
  EXPECT_THROW_LINE(max_pool2d(zeros({4, 4}), 2), ShapeError,
                    "max_pool2d: input must be 3-D (CHW) or 4-D (NCHW), got shape [4, 4]");
  EXPECT_THROW_LINE(max_pool2d(x.to(kInt64), 2), DTypeError,
                    "dtype mismatch in max_pool2d: input must be float32 or float64, got int64");
  EXPECT_THROW_LINE(max_pool2d_with_indices(x, 0), ValueError,
                    "max_pool2d_with_indices: kernel size must be >= 1, got [0, 0]");
}
