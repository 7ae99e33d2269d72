// conv2d against a direct loop (values and all three gradients) on many geometries, in
// float32 and float64, plus the error messages.
#include <gtest/gtest.h>

#include <vector>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/naive_conv.h"

using namespace ember;
using ember::test::values_near;

namespace {

using Geo = ember::test::ConvGeometry;
using Reference = ember::test::ConvReference;
using ember::test::direct_conv;

Tensor uniform(const Shape& shape, DType dtype) { return rand(shape, dtype) * 2.0 - 1.0; }

void check_geometry(const Geo& s, DType dtype, bool with_bias, double tol) {
  manual_seed(static_cast<uint64_t>(s.N * 1000 + s.C * 100 + s.kh * 10 + s.sh));
  Tensor x = uniform({s.N, s.C, s.H, s.W}, dtype).requires_grad_(true);
  Tensor w = uniform({s.Co, s.C, s.kh, s.kw}, dtype).requires_grad_(true);
  Tensor b = with_bias ? uniform({s.Co}, dtype).requires_grad_(true) : Tensor();
  Tensor out = conv2d(x, w, b, {s.sh, s.sw}, {s.ph, s.pw}, {s.dh, s.dw});
  Tensor g = uniform(out.shape(), dtype);
  (out * g).sum().backward();
  const Reference ref =
      direct_conv(s, x.to_vector<double>(), w.to_vector<double>(),
                  with_bias ? b.to_vector<double>() : std::vector<double>(), g.to_vector<double>());
  EXPECT_TRUE(values_near(out, ref.out, {s.N, s.Co, s.Ho(), s.Wo()}, tol)) << s << " output";
  EXPECT_TRUE(values_near(x.grad(), ref.gx, x.shape(), tol)) << s << " grad input";
  EXPECT_TRUE(values_near(w.grad(), ref.gw, w.shape(), tol)) << s << " grad weight";
  if (with_bias) {
    EXPECT_TRUE(values_near(b.grad(), ref.gb, {s.Co}, tol)) << s << " grad bias";
  }
}

const std::vector<Geo> kGeometries = {
    //  N  C   H   W  Co kh kw sh sw ph pw dh dw
    {1, 1, 5, 5, 1, 3, 3, 1, 1, 0, 0, 1, 1},      // the smallest case
    {2, 3, 7, 6, 4, 3, 2, 1, 1, 0, 0, 1, 1},      // odd sizes, rectangular kernel
    {3, 2, 9, 8, 5, 3, 3, 2, 2, 1, 1, 1, 1},      // stride 2, padding 1
    {2, 4, 10, 11, 3, 3, 3, 1, 2, 2, 1, 2, 1},    // dilation, mixed strides and padding
    {1, 5, 6, 6, 2, 1, 1, 1, 1, 0, 0, 1, 1},      // 1x1 kernel
    {4, 1, 28, 28, 10, 5, 5, 1, 1, 0, 0, 1, 1},   // the tutorial's first conv
    {3, 10, 12, 12, 20, 5, 5, 1, 1, 0, 0, 1, 1},  // the tutorial's second conv
    {2, 3, 5, 5, 2, 5, 5, 1, 1, 0, 0, 1, 1},      // kernel as large as the input
    {2, 2, 4, 4, 3, 3, 3, 3, 3, 2, 2, 1, 1},      // stride 3 with padding 2
    {1, 2, 8, 5, 2, 2, 3, 2, 1, 0, 1, 3, 1},      // asymmetric everything
    {2, 3, 7, 7, 2, 3, 3, 1, 1, 4, 4, 1, 1},      // padding wider than the kernel
    {5, 2, 3, 9, 3, 1, 4, 1, 3, 0, 2, 1, 2},      // one-row kernel, wide dilation
    {2, 3, 20, 37, 4, 3, 3, 2, 2, 1, 1, 1, 1},    // stride 2, 19 outputs a row: register-wide copies
    {2, 4, 16, 18, 3, 1, 1, 2, 2, 0, 0, 1, 1},    // 1x1, stride 2 (a downsampling shortcut), 9 a row
};

}  // namespace

TEST(Conv2d, MatchesDirectLoopFloat64) {
  for (const Geo& s : kGeometries) {
    check_geometry(s, kFloat64, true, 1e-10);
    check_geometry(s, kFloat64, false, 1e-10);
  }
}

TEST(Conv2d, MatchesDirectLoopFloat32) {
  for (const Geo& s : kGeometries) check_geometry(s, kFloat32, true, 1e-4);
}

TEST(Conv2d, MatchesDirectLoopWithTwoThreads) {
  set_num_threads(2);
  for (const Geo& s : kGeometries) check_geometry(s, kFloat32, true, 1e-4);
  set_num_threads(1);
}

TEST(Conv2d, BatchesAreCutIntoChunks) {
  // The batch is folded into GEMMs a few samples at a time (columns sized for L2): several
  // samples per chunk with a shorter last chunk, and one sample per chunk for large images.
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    check_geometry({7, 8, 16, 16, 3, 3, 3, 1, 1, 0, 0, 1, 1}, kFloat64, true, 1e-10);
    check_geometry({3, 16, 64, 64, 2, 3, 3, 1, 1, 1, 1, 1, 1}, kFloat32, true, 1e-4);
  }
  set_num_threads(1);
}

TEST(Conv2d, HandComputedValues) {
  // 1x1x3x3 input 1..9, 2x2 kernel of ones: each output is the sum of a 2x2 window.
  Tensor x = arange(1, 10, 1, kFloat32).reshape({1, 1, 3, 3});
  Tensor out = conv2d(x, ones({1, 1, 2, 2}), tensor({0.5}));
  EXPECT_TRUE(values_near(out, {12.5, 16.5, 24.5, 28.5}, {1, 1, 2, 2}));
  // Padding 1, stride 2: the corners see one, two or four input values.
  Tensor padded = conv2d(x, ones({1, 1, 2, 2}), Tensor(), 2, 1);
  EXPECT_TRUE(values_near(padded, {1, 5, 11, 28}, {1, 1, 2, 2}));
}

TEST(Conv2d, UnbatchedInputAndEmptyBatch) {
  Tensor x = rand({2, 5, 5});
  Tensor w = rand({3, 2, 3, 3});
  Tensor out = conv2d(x, w);
  EXPECT_EQ(out.shape(), (Shape{3, 3, 3}));
  EXPECT_EQ(out.to_vector<float>(), conv2d(x.unsqueeze(0), w).squeeze(0).to_vector<float>());
  EXPECT_EQ(conv2d(zeros({0, 2, 5, 5}), w).shape(), (Shape{0, 3, 3, 3}));
}

TEST(Conv2d, OnlyTheNeededGradientsAreComputed) {
  Tensor x = rand({2, 2, 5, 5});
  Tensor w = rand({3, 2, 3, 3});
  Tensor b = rand({3}).requires_grad_(true);
  conv2d(x, w, b).sum().backward();
  EXPECT_TRUE(values_near(b.grad(), {18, 18, 18}, {3}));
  EXPECT_FALSE(w.grad().defined());
}

TEST(Conv2d, Errors) {
  Tensor x = zeros({2, 3, 8, 8});
  Tensor w = zeros({4, 3, 3, 3});
  EXPECT_THROW_LINE(
      conv2d(x, zeros({4, 2, 3, 3})), ShapeError,
      "shape mismatch in conv2d: input [2, 3, 8, 8] has 3 channels but weight [4, 2, 3, 3] expects 2");
  EXPECT_THROW_LINE(conv2d(x, w, zeros({5})), ShapeError,
                    "shape mismatch in conv2d: bias [5] does not match weight [4, 3, 3, 3]");
  EXPECT_THROW_LINE(
      conv2d(zeros({1, 3, 4, 4}), zeros({4, 3, 5, 5})), ShapeError,
      "conv2d: the dilated kernel [5, 5] is larger than the padded input [4, 4] (input [1, 3, 4, 4], "
      "weight [4, 3, 5, 5])");
  EXPECT_THROW_LINE(
      conv2d(zeros({1, 3, 6, 6}), w, Tensor(), 1, 0, 3), ShapeError,
      "conv2d: the dilated kernel [7, 7] is larger than the padded input [6, 6] (input [1, 3, 6, 6], "
      "weight [4, 3, 3, 3])");
  EXPECT_THROW_LINE(conv2d(x, w, Tensor(), 0), ValueError, "conv2d: stride must be >= 1, got [0, 0]");
  EXPECT_THROW_LINE(conv2d(x, w, Tensor(), {1, -2}), ValueError, "conv2d: stride must be >= 1, got [1, -2]");
  EXPECT_THROW_LINE(conv2d(x, w, Tensor(), 1, -1), ValueError, "conv2d: padding must be >= 0, got [-1, -1]");
  EXPECT_THROW_LINE(conv2d(x, w, Tensor(), 1, 0, {1, 0}), ValueError,
                    "conv2d: dilation must be >= 1, got [1, 0]");
  EXPECT_THROW_LINE(conv2d(zeros({8, 8}), w), ShapeError,
                    "conv2d: input must be 3-D (CHW) or 4-D (NCHW), got shape [8, 8]");
  EXPECT_THROW_LINE(conv2d(x, zeros({4, 3, 3})), ShapeError,
                    "conv2d: weight must be 4-D, got shape [4, 3, 3]");
  EXPECT_THROW_LINE(conv2d(x, w.to(kFloat64)), DTypeError,
                    "dtype mismatch in conv2d: input is float32 but weight is float64");
  EXPECT_THROW_LINE(conv2d(x.to(kInt64), w.to(kInt64)), DTypeError,
                    "dtype mismatch in conv2d: input must be float32 or float64, got int64");
  EXPECT_THROW_LINE(conv2d(x, Tensor()), ValueError, "conv2d: weight is an undefined tensor");
}
