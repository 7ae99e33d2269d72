// conv2d's CPU routes (kernels/cpu/conv/conv_route.h: direct, shifted copies, im2col columns)
// against plain loops in double (support/naive_conv.h): the forward output and the gradients
// of input, weight and bias of every case, in float and double, on one thread and two.
//
// Each case names the route each of its three passes takes in float, and the test asks the
// dispatcher (cpu::conv2d_route) that it does, so a change of the routes' conditions cannot
// quietly leave one untested. The cases are chosen to take the same routes with and without
// AVX-512 (register widths of 16 or 8 floats); double is checked for values only, its routes
// depending on the register width.
//
// What the direct cases reach inside conv_direct.cpp: strides 1 and 2 (2: the even and odd
// column split, with even and odd paddings and widths), whole and half registers, an
// overlapping last register, output channel blocks of unequal sizes, the input gradient as
// the flipped kernel's forward (stride 1: padding k - 1 and less; stride 2: four phases, odd
// and even kernel sides and sizes, each phase its own sub-kernel); the thin weight gradient (output
// positions in lanes: a channel's taps as one group, kernel rows as groups, a remainder below
// one register) and the wide one (output channels in lanes: chunks of one to three registers,
// half registers where they pad less, channels padded to whole registers, inputs in groups
// with a remainder).
#include <gtest/gtest.h>

#include "ember/kernels/cpu/conv/conv_route.h"
#include "support/expect.h"
#include "support/naive_conv.h"

using namespace ember;
using cpu::ConvPass;
using cpu::ConvRoute;

namespace {

constexpr ConvRoute D = ConvRoute::direct, S = ConvRoute::shifted, C = ConvRoute::columns;

const char* name(ConvRoute r) { return r == D ? "direct" : r == S ? "shifted" : "columns"; }

struct Case {
  const char* what;
  Shape x, w;
  int64_t stride, ph, pw;
  bool bias;
  ConvRoute forward, input, weight;  // the routes in float

  ember::test::ConvGeometry geometry() const {
    return {x[0], x[1], x[2], x[3], w[0], w[2], w[3], stride, stride, ph, pw, 1, 1};
  }
};

const std::vector<Case>& cases() {
  // clang-format off
  static const std::vector<Case> all = {
      // what                                                        x                 w              stride pad_h pad_w bias  routes: forward, input, weight
      {"the tutorial's conv1: thin weight gradient by kernel rows",   {2, 1, 28, 28},   {10, 1, 5, 5},   1, 0, 0, true,  D, C, D},
      {"the small ResNet's stem: blocks of 8 + 8, 9 taps one group", {1, 3, 32, 32},   {16, 3, 3, 3},   1, 1, 1, false, D, D, D},
      {"one block of 7, odd width, unequal kernel sides, paddings",  {3, 2, 9, 37},    {7, 2, 3, 4},    1, 1, 2, true,  D, D, D},
      {"one tap, 17 columns: overlapping register, a remainder",     {1, 1, 4, 17},    {5, 1, 1, 1},    1, 0, 0, true,  D, D, D},
      {"32 taps, the thin weight gradient's most; padding past k-1", {2, 4, 6, 40},    {3, 4, 2, 4},    1, 2, 0, true,  D, C, D},
      {"the tutorial's conv2: 8-wide rows, 20 channels padded to 32",{2, 10, 12, 12},  {20, 10, 5, 5},  1, 0, 0, true,  D, C, D},
      {"8 output channels of 16 x 16: the weight gradient's GEMM",   {2, 16, 16, 16},  {8, 16, 3, 3},   1, 1, 1, false, D, D, S},
      {"padding k - 1: the input gradient's is 0",                   {1, 8, 18, 18},   {8, 8, 3, 3},    1, 2, 2, false, D, D, S},
      {"no padding: the input gradient would be 16% more work",      {3, 10, 20, 21},  {8, 10, 2, 3},   1, 0, 0, true,  D, C, S},
      {"unequal kernel sides and paddings, 17 output channels",      {2, 12, 24, 24},  {17, 12, 5, 3},  1, 2, 1, true,  D, D, D},
      {"64 output channels: wide gradient in whole registers, 2 + 2",  {1, 4, 10, 12},  {64, 4, 3, 3},   1, 1, 1, false, D, D, D},
      {"16 output channels: wide gradient in two registers of 8 or 16",{2, 16, 16, 16}, {16, 16, 3, 3},  1, 1, 1, false, D, D, D},
      {"stride 2 (the small ResNet's downsampling), wide gradient",  {2, 8, 16, 16},   {20, 8, 3, 3},   2, 1, 1, false, D, D, D},
      {"stride 2, odd height and width, paddings 0 and 2",           {2, 5, 15, 17},   {8, 5, 3, 3},    2, 0, 2, true,  D, D, C},
      {"stride 2, thin gradient with a remainder (11 columns)",      {2, 3, 20, 21},   {6, 3, 3, 3},    2, 1, 1, true,  D, D, D},
      {"stride 2, 33 channels: registers of 2 and 1, inputs 12 x 3+9",{1, 5, 18, 18},  {33, 5, 3, 3},   2, 1, 1, true,  D, D, D},
      {"stride 2, a 4 x 2 kernel: phases of 2 x 1 taps, padding 1 and 0",{2, 4, 17, 20}, {9, 4, 4, 2},  2, 1, 0, true,  D, D, D},
      {"stride 2, 5 x 5, padding 2: phases of 3 x 3, 3 x 2, 2 x 3, 2 x 2",{2, 3, 19, 18}, {7, 3, 5, 5},  2, 2, 2, false, D, D, C},
      {"1080 taps: past the direct route, shifted in every pass",    {1, 120, 8, 20},  {116, 120, 3, 3},1, 1, 1, false, S, S, S},
      {"a strided 1 x 1 kernel (the small ResNet's shortcuts)",      {2, 16, 16, 16},  {32, 16, 1, 1},  2, 0, 0, false, C, C, C},
      {"3 output columns: narrower than a register",                 {2, 8, 5, 5},     {4, 8, 3, 3},    1, 0, 0, true,  C, C, C},
  };
  // clang-format on
  return all;
}

ConvRoute route_of(ConvPass pass, const Case& c) {
  const ember::test::ConvGeometry g = c.geometry();
  Conv2dParams p;
  p.stride_h = p.stride_w = c.stride;
  p.pad_h = c.ph;
  p.pad_w = c.pw;
  return cpu::conv2d_route(pass, DType::Float32, g.C, g.H, g.W, g.Co, g.kh, g.kw, g.Ho(), g.Wo(), p);
}

TEST(ConvRoutes, EachCaseTakesItsRoutes) {
  for (const Case& c : cases()) {
    EXPECT_STREQ(name(route_of(ConvPass::forward, c)), name(c.forward)) << c.what;
    EXPECT_STREQ(name(route_of(ConvPass::backward_input, c)), name(c.input)) << c.what;
    EXPECT_STREQ(name(route_of(ConvPass::backward_weight, c)), name(c.weight)) << c.what;
  }
}

TEST(ConvRoutes, EveryRouteOfEveryPassIsChecked) {
  for (ConvPass pass : {ConvPass::forward, ConvPass::backward_input, ConvPass::backward_weight})
    for (ConvRoute route : {D, S, C}) {
      bool seen = false;
      for (const Case& c : cases())
        seen = seen || (pass == ConvPass::forward          ? c.forward
                        : pass == ConvPass::backward_input ? c.input
                                                           : c.weight) == route;
      EXPECT_TRUE(seen) << "pass " << static_cast<int>(pass) << " route " << static_cast<int>(route);
    }
}

TEST(ConvRoutes, EveryPassMatchesPlainLoops) {
  const int threads = get_num_threads();
  for (int t : {1, 2}) {
    set_num_threads(t);
    for (DType dtype : {DType::Float32, DType::Float64}) {
      const double tol = dtype == DType::Float32 ? 1e-4 : 1e-11;
      for (const Case& c : cases()) {
        manual_seed(5);
        Tensor x = randn(c.x).to(dtype).requires_grad_(true);
        Tensor w = randn(c.w).to(dtype).requires_grad_(true);
        Tensor b = c.bias ? randn({c.w[0]}).to(dtype).requires_grad_(true) : Tensor();
        const Tensor y = conv2d(x, w, b, c.stride, IntPair(c.ph, c.pw));
        const Tensor g = randn(y.shape()).to(dtype);
        (y * g).sum().backward();

        const ember::test::ConvReference ref = ember::test::direct_conv(
            c.geometry(), x.to_vector<double>(), w.to_vector<double>(),
            c.bias ? b.to_vector<double>() : std::vector<double>(), g.to_vector<double>());
        const std::string what =
            std::string(c.what) + ", " + dtype_name(dtype) + " on " + std::to_string(t) + " threads";
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

}  // namespace
