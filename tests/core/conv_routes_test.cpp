// conv2d's CPU routes besides im2col, against plain loops in double (support/naive_conv.h),
// for shapes that take them.
//
// The direct route for thin layers (kernels/cpu/conv_direct.h: stride 1, few input channels
// times taps, output rows of at least one vector register), forward and, for kernels 3 or 5
// wide, weight gradient: odd widths (the last register overlaps; rows that leave a remainder
// past whole registers in the gradient), output channel counts that split into blocks of at
// most 8 of unequal sizes (an odd count: a last block of 1 in the gradient), padding, no bias.
//
// Every case of both is checked in every direction, in float and double, on one thread and two.
//
// The shifted-copy route (kernels/cpu/conv_shifted.h: stride 1, at least 8 channels read,
// little width wasted) in all three directions: the forward output, the input gradient (the
// flipped, transposed kernel with padding k - 1 - p), the weight and bias gradients (on two
// threads summed from partials per run of samples). Shapes take the route in every direction
// unless noted: padding on both sides, none, unequal paddings and kernel sides, a kernel as
// large as the padding allows, 1 x 1.
#include <gtest/gtest.h>

#include "support/expect.h"
#include "support/naive_conv.h"

using namespace ember;

namespace {

struct Case {
  Shape x, w;
  int64_t ph, pw;
  bool bias;
};

// The forward output and the gradients of input, weight and bias of each case, on one thread
// and two, in float and double, against plain loops.
void expect_every_direction_matches(const std::vector<Case>& cases) {
  const int threads = get_num_threads();
  for (int t : {1, 2}) {
    set_num_threads(t);
    for (DType dtype : {DType::Float32, DType::Float64}) {
      const double tol = dtype == DType::Float32 ? 1e-4 : 1e-11;
      for (const Case& c : cases) {
        manual_seed(5);
        Tensor x = randn(c.x).to(dtype).requires_grad_(true);
        Tensor w = randn(c.w).to(dtype).requires_grad_(true);
        Tensor b = c.bias ? randn({c.w[0]}).to(dtype).requires_grad_(true) : Tensor();
        const Tensor y = conv2d(x, w, b, 1, IntPair(c.ph, c.pw));
        const Tensor g = randn(y.shape()).to(dtype);
        (y * g).sum().backward();

        const ember::test::ConvGeometry s{c.x[0], c.x[1], c.x[2], c.x[3], c.w[0], c.w[2], c.w[3],
                                          1,      1,      c.ph,   c.pw,   1,      1};
        const ember::test::ConvReference ref = ember::test::direct_conv(
            s, x.to_vector<double>(), w.to_vector<double>(),
            c.bias ? b.to_vector<double>() : std::vector<double>(), g.to_vector<double>());
        const std::string what = shape_str(c.x) + " * " + shape_str(c.w) + " " + dtype_name(dtype) + " on " +
                                 std::to_string(t) + " threads";
        EXPECT_TRUE(ember::test::values_near(y, ref.out, y.shape(), tol)) << what;
        EXPECT_TRUE(ember::test::values_near(x.grad(), ref.gx, x.shape(), tol)) << what;
        EXPECT_TRUE(ember::test::values_near(w.grad(), ref.gw, w.shape(), tol)) << what;
        if (c.bias) {
          EXPECT_TRUE(ember::test::values_near(b.grad(), ref.gb, b.shape(), tol)) << what;
        }
      }
    }
  }
  set_num_threads(threads);
}

TEST(ConvThinLayers, DirectRouteMatchesPlainLoops) {
  const std::vector<Case> cases = {
      {{2, 1, 28, 28}, {10, 1, 5, 5}, 0, 0, true},   // the tutorial's conv1
      {{1, 3, 32, 32}, {16, 3, 3, 3}, 1, 1, false},  // the small ResNet's stem: blocks of 8 + 8
      {{3, 2, 9, 37}, {7, 2, 3, 4}, 1, 2, true},     // one block of 7, odd width, padding
      {{1, 2, 8, 20}, {11, 2, 3, 3}, 0, 1, true},    // blocks of 5 + 6
      {{1, 1, 4, 17}, {5, 1, 1, 1}, 0, 0, true},     // one tap; 17 columns: overlapping tail
      {{2, 4, 6, 40}, {3, 4, 2, 4}, 2, 0, true},     // 32 taps, the most the direct route takes
  };
  expect_every_direction_matches(cases);
}

TEST(ConvShifted, EveryDirectionMatchesPlainLoops) {
  const std::vector<Case> cases = {
      {{2, 8, 14, 14}, {9, 8, 3, 3}, 1, 1, false},    // the small ResNet's layers, scaled down
      {{3, 10, 20, 21}, {8, 10, 2, 3}, 0, 0, true},   // no padding (the input gradient takes im2col)
      {{2, 12, 24, 24}, {16, 12, 5, 3}, 2, 1, true},  // unequal kernel sides and paddings
      {{1, 8, 18, 18}, {8, 8, 3, 3}, 2, 2, false},    // padding k - 1: the input gradient's is 0
      {{2, 8, 5, 7}, {4, 8, 1, 1}, 0, 0, true},       // 1 x 1 (input gradient: 4 channels, im2col)
  };
  expect_every_direction_matches(cases);
}

}  // namespace
