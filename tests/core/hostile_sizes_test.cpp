// Regression tests: sizes, strides, offsets and window extents that would overflow int64 (or
// read past a 0-d tensor's empty shape) are typed errors, not crashes.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "ember/core/checked_math.h"
#include "ember/ember.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

namespace {
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
}  // namespace

TEST(CheckedMath, ProductsSumsAndShapes) {
  EXPECT_EQ(checked_mul(int64_t{1} << 31, int64_t{1} << 31, "t"), int64_t{1} << 62);
  EXPECT_EQ(checked_add(kMax - 1, 1, "t"), kMax);
  EXPECT_EQ(checked_sub(-5, 3, "t"), -8);
  EXPECT_THROW_LINE(checked_mul(int64_t{1} << 32, int64_t{1} << 31, "op"), ValueError,
                    "op: size overflow: 4294967296 * 2147483648 does not fit in int64");
  EXPECT_THROW_MSG(checked_add(kMax, 1, "op"), ValueError, "op: size overflow: 9223372036854775807 + 1");
  EXPECT_THROW_MSG(checked_sub(kMin, 1, "op"), ValueError, "op: size overflow: -9223372036854775808 - 1");
  EXPECT_EQ(checked_numel({2, 3, 4}, "t"), 24);
  EXPECT_EQ(checked_numel({}, "t"), 1);
  EXPECT_EQ(checked_numel({0, kMax}, "t"), 0);
  EXPECT_EQ(checked_nbytes({2, 3}, 8, "t"), 48);
  EXPECT_THROW_MSG(checked_numel({3, -2}, "op"), ValueError, "op: negative size in shape [3, -2]");
  EXPECT_THROW_MSG(checked_nbytes({0, int64_t{1} << 62}, 4, "op"), ValueError,
                   "op: shape [0, 4611686018427387904] is too large");
  EXPECT_EQ(checked_nbytes({0, int64_t{1} << 62}, 1, "op"), 0);
}

TEST(CheckedMath, FactoriesRefuseSizesThatWrap) {
  // Was a 64-byte buffer filled with 2^62 + 4 floats (heap overflow).
  EXPECT_THROW_LINE(zeros({(int64_t{1} << 62) + 4}), ValueError,
                    "zeros: shape [4611686018427387908] is too large: its 4-byte elements cannot "
                    "be addressed with int64 byte offsets");
  EXPECT_THROW_MSG(empty({int64_t{1} << 32, int64_t{1} << 32}), ValueError,
                   "empty: shape [4294967296, 4294967296] is too large");
  EXPECT_THROW_MSG(ones({int64_t{1} << 61}, kFloat64), ValueError,
                   "ones: shape [2305843009213693952] is too large");
  EXPECT_THROW_MSG(rand({kMax, 2}), ValueError, "rand: shape [9223372036854775807, 2] is too large");
  EXPECT_THROW_MSG(from_vector(std::vector<float>{}, {int64_t{1} << 40, int64_t{1} << 40, 0}), ValueError,
                   "from_vector: shape");
  EXPECT_EQ(empty({0, int64_t{1} << 40}).numel(), 0);
  EXPECT_THROW_MSG(arange(0, 1e30), ValueError, "arange: [0, 1e+30) with step 1 has 1e+30 elements");
  EXPECT_THROW_MSG(arange(-1e300, 1e300, 1e-300), ValueError, "arange: ");
  EXPECT_TRUE(values_near(arange(0, 3), {0, 1, 2}, {3}));
}

TEST(CheckedMath, RandintRangeEdges) {
  // Was SIGFPE: the range wrapped, and bounds beyond 2^53 rounded to a range of 0.
  EXPECT_THROW_MSG(randint(kMin, kMax, {4}), ValueError,
                   "randint: low and high must lie in [-2^53, 2^53], got low=-9223372036854775808");
  EXPECT_THROW_MSG(randint(-(int64_t{1} << 62), -(int64_t{1} << 62) + 10, {4}), ValueError,
                   "randint: low and high must lie in [-2^53, 2^53]");
  EXPECT_THROW_MSG(randint(0, int64_t{1} << 33, {4}), ValueError,
                   "randint: the range high - low must be below 2^32");
  const Tensor big = randint(int64_t{1} << 52, (int64_t{1} << 52) + 3, {64}, kInt64);
  for (int64_t v : big.to_vector<int64_t>()) {
    EXPECT_GE(v, int64_t{1} << 52);
    EXPECT_LT(v, (int64_t{1} << 52) + 3);
  }
}

TEST(CheckedMath, ViewsRefuseWrappingShapesAndOffsets) {
  const Tensor t = arange(0, 3);
  EXPECT_THROW_LINE(t.narrow(0, 1, kMax), IndexError,
                    "narrow: [1, 1 + 9223372036854775807) is out of range for dim 0 of size 3");
  EXPECT_THROW_MSG(t.narrow(0, 4, 0), IndexError, "narrow: [4, 4) is out of range for dim 0 of size 3");
  EXPECT_TRUE(values_near(t.narrow(0, 3, 0), {}, {0}));
  EXPECT_TRUE(values_near(t.narrow(0, -2, 2), {1, 2}, {2}));
  EXPECT_THROW_MSG(empty({0}).view({int64_t{1} << 32, int64_t{1} << 32, 0}), ValueError,
                   "view: size overflow: 4294967296 * 4294967296");
  EXPECT_THROW_MSG(empty({0}).reshape({kMax, 2, 0}), ValueError, "reshape: size overflow");
  EXPECT_THROW_LINE(tensor({1}, kFloat32).expand({-5}), ValueError, "expand: negative size in shape [-5]");
  EXPECT_THROW_MSG(tensor({1}, kFloat32).expand({3, -2}), ValueError,
                   "expand: negative size in shape [3, -2]");
  EXPECT_THROW_MSG(tensor({1}, kFloat32).expand({int64_t{1} << 40, int64_t{1} << 40}), ValueError,
                   "expand: shape [1099511627776, 1099511627776] is too large");
  EXPECT_TRUE(values_near(tensor({1}, kFloat32).expand({2, -1}), {1, 1}, {2, 1}));
  // Found by fuzz_ops: an empty tensor viewed as [2^63 - 1, 0], then select(0, -3), gave an
  // element offset whose byte offset overflowed.
  EXPECT_THROW_LINE(arange(0, 0).view({kMax, 0}), ValueError,
                    "view: shape [9223372036854775807, 0] is too large: its 4-byte elements cannot "
                    "be addressed with int64 byte offsets");
  EXPECT_THROW_MSG(arange(0, 0).reshape({0, kMax / 2}), ValueError,
                   "reshape: shape [0, 4611686018427387903] is too large");
  EXPECT_EQ(arange(0, 0, 1, kUInt8).view({0, kMax / 2}).select(1, -3).numel(), 0);
  EXPECT_THROW_MSG(arange(0, 0).view({0, 1}).expand({0, kMax}), ValueError,
                   "expand: shape [0, 9223372036854775807] is too large");
}

TEST(CheckedMath, ZeroDimTensorsHaveNoDims) {
  const Tensor s = scalar_tensor(1);
  EXPECT_THROW_LINE(s.size(0), IndexError, "size: dim 0 is out of range for a 0-d tensor (it has no dims)");
  EXPECT_THROW_MSG(s.stride(-1), IndexError, "stride: dim -1 is out of range for a 0-d tensor");
  EXPECT_THROW_MSG(s.select(0, 0), IndexError, "select: dim 0 is out of range for a 0-d tensor");
  EXPECT_THROW_MSG(s.narrow(0, 0, 1), IndexError, "narrow: dim 0 is out of range for a 0-d tensor");
  EXPECT_THROW_MSG(s.sum({0}), IndexError, "sum: dim 0 is out of range for a 0-d tensor");
  EXPECT_THROW_MSG(s.mean({-1}), IndexError, "mean: dim -1 is out of range for a 0-d tensor");
  EXPECT_THROW_MSG(s.permute({0}), ShapeError, "permute: 1 dims given for a tensor of 0 dims");
  EXPECT_THROW_MSG(s.flatten(0, 0).size(1), IndexError, "size: dim 1 is out of range");
  EXPECT_THROW_MSG(s.flatten(0, 1), IndexError, "flatten: dim 1 is out of range for a tensor of 1 dimension");
  EXPECT_EQ(s.flatten(-1, 0).shape(), (Shape{1}));
  // What PyTorch allows on a 0-d tensor still works.
  EXPECT_EQ(s.argmax(0).item<int64_t>(), 0);
  EXPECT_EQ(s.squeeze(0).dim(), 0);
  EXPECT_EQ(s.unsqueeze(0).shape(), (Shape{1}));
  EXPECT_EQ(s.softmax(-1).item<float>(), 1.0f);
  EXPECT_EQ(s.sum().item<float>(), 1.0f);
  EXPECT_THROW_MSG(s.argmax(1), IndexError, "argmax: dim 1 is out of range for a tensor of 1 dimension");
}

TEST(CheckedMath, ConvWindowArithmetic) {
  const Tensor x = ones({1, 1, 6, 6});
  const Tensor w = ones({1, 1, 3, 3});
  EXPECT_THROW_MSG(conv2d(x, w, Tensor(), 1, kMax / 2 + 1), ValueError, "conv2d: size overflow");
  EXPECT_THROW_MSG(conv2d(x, w, Tensor(), 1, 0, kMax), ValueError, "conv2d: size overflow");
  EXPECT_THROW_MSG(conv2d(x, w, Tensor(), 1, int64_t{1} << 40), ValueError,
                   "conv2d: size overflow: 2199023255556 * 2199023255556");
  // A huge stride leaves one output; the span arithmetic must not overflow on it.
  EXPECT_TRUE(values_near(conv2d(x, w, Tensor(), kMax, 1), {4}, {1, 1, 1, 1}));
  // Was a bias-filled [1, 1, 6, 6]; PyTorch rejects an empty kernel.
  EXPECT_THROW_LINE(conv2d(x, ones({1, 1, 0, 0}), ones({1})), ShapeError,
                    "conv2d: the kernel of weight [1, 1, 0, 0] is empty; kernel sizes must be >= 1");
  EXPECT_THROW_MSG(conv2d(x, ones({1, 1, 3, 0})), ShapeError, "conv2d: the kernel of weight [1, 1, 3, 0]");
}

TEST(CheckedMath, TheCpuBackendCountsItsColumnBuffer) {
  // The front-end checks H_out * W_out; C_in * kH * kW times that, one sample's im2col
  // columns, is the CPU backend's to check, in every pass and before any route. Stride-0
  // views keep these shapes (2^32 taps, 2^32 output positions) one element each: nothing
  // is read before the check.
  const int64_t C = int64_t{1} << 30, side = int64_t{1} << 16;
  const Tensor x = zeros({1}).expand({1, C, 1, 1});
  const Tensor w = zeros({1}).expand({1, C, 2, 2});
  const Tensor out = zeros({1}).expand({1, 1, side, side});
  Conv2dParams p;
  p.pad_h = p.pad_w = side / 2;
  const char* message = "conv2d: size overflow: 4294967296 * 4294967296 does not fit in int64";
  EXPECT_THROW_LINE(cpu_backend().conv2d(out, x, w, Tensor(), p), ValueError, message);
  EXPECT_THROW_LINE(cpu_backend().conv2d_backward_input(x, out, w, p), ValueError, message);
  EXPECT_THROW_LINE(cpu_backend().conv2d_backward_weight(w, Tensor(), out, x, p), ValueError, message);
}

TEST(CheckedMath, ConvWithNoOutputElementsHasZeroGradients) {
  // C_out = 0 and a huge padding: no output element, but a huge output plane.
  const Tensor x = ones({1, 1, 2, 2}, TensorOptions().requires_grad(true));
  const Tensor w = ones({0, 1, 1, 1}, TensorOptions().requires_grad(true));
  const Tensor y = conv2d(x, w, Tensor(), 1, int64_t{1} << 20);
  EXPECT_EQ(y.shape(), (Shape{1, 0, (int64_t{1} << 21) + 2, (int64_t{1} << 21) + 2}));
  y.sum().backward();
  EXPECT_TRUE(values_near(x.grad(), {0, 0, 0, 0}, {1, 1, 2, 2}));
  EXPECT_EQ(w.grad().shape(), (Shape{0, 1, 1, 1}));
}

TEST(CheckedMath, PoolWindowArithmetic) {
  const Tensor x = ones({1, 1, 4, 4});
  EXPECT_THROW_MSG(max_pool2d(x, kMax, 1, kMax / 2), ValueError, "max_pool2d: size overflow");
  EXPECT_THROW_MSG(avg_pool2d(x, kMax, 1, kMax / 2), ValueError, "avg_pool2d: size overflow");
  EXPECT_TRUE(values_near(max_pool2d(x, 2, kMax), {1}, {1, 1, 1, 1}));
  // An empty plane has no cell for a padded window to take: was an index into nothing.
  EXPECT_THROW_LINE(max_pool2d(ones({1, 1, 0, 0}), 2, 1, 1), ShapeError,
                    "max_pool2d: input must have non-empty height and width, got shape [1, 1, 0, 0]");
  EXPECT_THROW_MSG(avg_pool2d(ones({1, 0, 3}), 2, 1, 1), ShapeError, "avg_pool2d: input must have non-empty");
}

TEST(CheckedMath, ConvColumnBuffersObeyTheAllocationLimit) {
  // A large padding keeps the output small (16 MB here) but makes the im2col buffer huge
  // (C_in * kH * kW * H_out * W_out = 72 * 2000 * 2000 floats): found by fuzz_ops.
  const Tensor x = ones({4, 8, 2, 2}), w = ones({1, 8, 3, 3});
  set_allocation_limit(size_t{64} << 20);
  EXPECT_THROW_MSG(conv2d(x.narrow(0, 0, 1), w, Tensor(), 1, 1000), OutOfMemoryError,
                   "conv2d: a scratch buffer of 1152000000 bytes exceeds the limit of 67108864 bytes");
  // On two threads the error crosses from a worker thread of the pool to the caller.
  const int threads = get_num_threads();
  set_num_threads(2);
  EXPECT_THROW_MSG(conv2d(x, w, Tensor(), 1, 1000), OutOfMemoryError, "conv2d: a scratch buffer of ");
  set_num_threads(threads);
  set_allocation_limit(0);
  EXPECT_TRUE(values_near(conv2d(ones({1, 1, 2, 2}), ones({1, 1, 1, 1}), Tensor(), 1, 1),
                          {0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0}, {1, 1, 4, 4}));
}

TEST(CheckedMath, ConvWithAStrideLargerThanTheInput) {
  // Found by fuzz_ops: stride_h = 2^62 leaves one output row; the kernels computed
  // stride * W for the step to a second row (a signed overflow). Any stride past the padded
  // input gives the same result.
  auto run = [](int64_t stride_h) {
    manual_seed(3);
    const Tensor x = randn({2, 2, 6, 4}, kFloat64).requires_grad_(true);
    const Tensor w = randn({3, 2, 2, 3}, kFloat64).requires_grad_(true);
    const Tensor y = conv2d(x, w, Tensor(), IntPair(stride_h, 2), 1, 2);
    (y * y).sum().backward();
    return std::vector<Tensor>{y, x.grad(), w.grad()};
  };
  const auto huge = run(int64_t{1} << 62), small = run(100);
  EXPECT_EQ(huge[0].shape(), (Shape{2, 3, 1, 1}));
  for (size_t i = 0; i < 3; ++i)
    EXPECT_TRUE(values_near(huge[i], small[i].to_vector<double>(), small[i].shape(), 0)) << i;
}
