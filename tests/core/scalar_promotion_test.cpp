// C++ scalars with tensors follow PyTorch's rule for Python numbers (docs/DESIGN.md,
// "Scalars"): the expected dtypes below are what PyTorch 2.x gives for
// torch.tensor(..., dtype=D) OP scalar, written out as a table.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;

namespace {

enum class Kind { Bool, Int, Double };
enum class Op { Add, Sub, Mul, Div, Lt, Where };
// What PyTorch gives: a dtype, or an error (sub with a bool operand).
constexpr DType kRefused = DType::UInt8;  // a marker: no row below expects uint8

const char* kind_name(Kind k) { return k == Kind::Bool ? "bool" : k == Kind::Int ? "int" : "double"; }

// The scalar of each kind: True, 2, 0.5.
Scalar scalar_of(Kind k) {
  switch (k) {
    case Kind::Bool:
      return true;
    case Kind::Int:
      return 2;
    case Kind::Double:
      break;
  }
  return 0.5;
}

Tensor apply(Op op, const Tensor& t, const Scalar& s) {
  switch (op) {
    case Op::Add:
      return t + s;
    case Op::Sub:
      return t - s;
    case Op::Mul:
      return t * s;
    case Op::Div:
      return t / s;
    case Op::Lt:
      return t < s;
    case Op::Where:
      break;
  }
  return where(tensor({1, 0, 1}, kBool), t, s);
}

struct Row {
  DType tensor;
  Kind scalar;
  DType add, sub, mul, div, lt, where;
};

// PyTorch: torch.tensor([True]) + True is bool (or), * True is bool (and), - True raises
// ("Subtraction ... with a bool tensor is not supported"); bool * 2 is int64; int64 * 0.5 is
// float32; int32 + 2 stays int32; every true division of integers or bools is float32;
// float64 * 2 stays float64; comparisons are bool; where follows the same rule as add.
const Row kTable[] = {
    {kBool, Kind::Bool, kBool, kRefused, kBool, kFloat32, kBool, kBool},
    {kBool, Kind::Int, kInt64, kRefused, kInt64, kFloat32, kBool, kInt64},
    {kBool, Kind::Double, kFloat32, kRefused, kFloat32, kFloat32, kBool, kFloat32},
    {kInt32, Kind::Bool, kInt32, kRefused, kInt32, kFloat32, kBool, kInt32},
    {kInt32, Kind::Int, kInt32, kInt32, kInt32, kFloat32, kBool, kInt32},
    {kInt32, Kind::Double, kFloat32, kFloat32, kFloat32, kFloat32, kBool, kFloat32},
    {kInt64, Kind::Bool, kInt64, kRefused, kInt64, kFloat32, kBool, kInt64},
    {kInt64, Kind::Int, kInt64, kInt64, kInt64, kFloat32, kBool, kInt64},
    {kInt64, Kind::Double, kFloat32, kFloat32, kFloat32, kFloat32, kBool, kFloat32},
    {kFloat32, Kind::Bool, kFloat32, kRefused, kFloat32, kFloat32, kBool, kFloat32},
    {kFloat32, Kind::Int, kFloat32, kFloat32, kFloat32, kFloat32, kBool, kFloat32},
    {kFloat32, Kind::Double, kFloat32, kFloat32, kFloat32, kFloat32, kBool, kFloat32},
    {kFloat64, Kind::Bool, kFloat64, kRefused, kFloat64, kFloat64, kBool, kFloat64},
    {kFloat64, Kind::Int, kFloat64, kFloat64, kFloat64, kFloat64, kBool, kFloat64},
    {kFloat64, Kind::Double, kFloat64, kFloat64, kFloat64, kFloat64, kBool, kFloat64},
};

// The values [1, 0, 3] in dtype (bool: [true, false, true]).
Tensor sample(DType dtype) { return tensor({1, 0, 3}, kFloat64).to(dtype); }

// The value PyTorch computes for element x of the sample with scalar s (s as a double).
double expected_value(Op op, double x, double s, DType result, bool cond) {
  switch (op) {
    case Op::Add:
      return result == kBool ? double(x + s != 0) : x + s;
    case Op::Sub:
      return x - s;
    case Op::Mul:
      return result == kBool ? double(x * s != 0) : x * s;
    case Op::Div:
      return x / s;
    case Op::Lt:
      return x < s;
    case Op::Where:
      break;
  }
  return cond ? x : s;
}

}  // namespace

TEST(ScalarPromotion, ResultDtypesAndValuesFollowPyTorchsTable) {
  const std::pair<Op, const char*> ops[] = {{Op::Add, "add"}, {Op::Sub, "sub"}, {Op::Mul, "mul"},
                                            {Op::Div, "div"}, {Op::Lt, "lt"},   {Op::Where, "where"}};
  for (const Row& row : kTable) {
    const DType want[] = {row.add, row.sub, row.mul, row.div, row.lt, row.where};
    const Scalar s = scalar_of(row.scalar);
    for (size_t k = 0; k < 6; ++k) {
      const auto [op, name] = ops[k];
      SCOPED_TRACE(std::string(dtype_name(row.tensor)) + " " + name + " " + kind_name(row.scalar));
      const Tensor t = sample(row.tensor);
      if (want[k] == kRefused) {
        EXPECT_THROW_MSG(apply(op, t, s), DTypeError, "sub: subtraction with a bool");
        continue;
      }
      const Tensor r = apply(op, t, s);
      EXPECT_EQ(r.dtype(), want[k]);
      // Values: the sample in float64, the scalar as a double, PyTorch's formula; then rounded
      // to the result dtype as the kernel's is.
      const std::vector<double> x = sample(kFloat64).to_vector<double>();
      const std::vector<bool> cond{true, false, true};
      const std::vector<double> got = r.to_vector<double>();
      for (size_t i = 0; i < x.size(); ++i) {
        const double xi = row.tensor == kBool ? double(x[i] != 0) : x[i];
        double e = expected_value(op, xi, s.to_double(), want[k], cond[i]);
        if (want[k] == kFloat32) e = double(float(e));
        EXPECT_EQ(got[i], e) << "element " << i;
      }
    }
  }
}

TEST(ScalarPromotion, ScalarOnTheLeftAndTheOtherOps) {
  const Tensor i = tensor({1, 2, 4}, kInt64);
  EXPECT_EQ((i * 0.5).to_vector<float>(), (std::vector<float>{0.5f, 1.0f, 2.0f}));
  EXPECT_EQ((0.5 * i).dtype(), kFloat32);
  EXPECT_EQ((i + 0.7).to_vector<float>(), (std::vector<float>{1.7f, 2.7f, 4.7f}));
  EXPECT_EQ((1 - i).to_vector<int64_t>(), (std::vector<int64_t>{0, -1, -3}));
  EXPECT_EQ((1.5 - i).to_vector<float>(), (std::vector<float>{0.5f, -0.5f, -2.5f}));
  EXPECT_EQ((2 / i).to_vector<float>(), (std::vector<float>{2.0f, 1.0f, 0.5f}));
  EXPECT_EQ((i / 2).to_vector<float>(), (std::vector<float>{0.5f, 1.0f, 2.0f}));
  EXPECT_EQ(maximum(i, 2.5).to_vector<float>(), (std::vector<float>{2.5f, 2.5f, 4.0f}));
  EXPECT_EQ(minimum(i, 2).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 2}));
  EXPECT_EQ(pow(i, 2).to_vector<int64_t>(), (std::vector<int64_t>{1, 4, 16}));
  EXPECT_EQ(pow(i, 0.5).dtype(), kFloat32);
  EXPECT_EQ(pow(2.0, i).to_vector<float>(), (std::vector<float>{2.0f, 4.0f, 16.0f}));
  EXPECT_THROW_MSG(pow(i, -1), ValueError, "pow: integers to negative integer powers are not allowed");
  EXPECT_EQ(clamp(i, 0.5, 3).to_vector<float>(), (std::vector<float>{1.0f, 2.0f, 3.0f}));
  EXPECT_EQ(clamp(i, 2, 3).to_vector<int64_t>(), (std::vector<int64_t>{2, 2, 3}));
  // Comparisons in the promoted dtype: int64 < 1.5 compares with 1.5, not with 1.
  EXPECT_EQ((i < 1.5).to_vector<bool>(), (std::vector<bool>{true, false, false}));
  EXPECT_EQ((i == 2.0).to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ((tensor({1, 0}, kBool) == 2).to_vector<bool>(), (std::vector<bool>{false, false}));
  // where with the scalar first.
  const Tensor w = where(tensor({1, 0, 1}, kBool), 0.5, i);
  EXPECT_EQ(w.dtype(), kFloat32);
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{0.5f, 2.0f, 0.5f}));
  // Methods take scalars too.
  EXPECT_EQ(i.mul(0.5).dtype(), kFloat32);
  EXPECT_EQ(i.add(1).dtype(), kInt64);
}

TEST(ScalarPromotion, IntegerScalarsWithInt64TensorsAreExactBeyondTwoToThe53) {
  const int64_t big = (int64_t{1} << 53) + 1;  // not a double
  const Tensor t = from_vector(std::vector<int64_t>{big, 1});
  EXPECT_EQ((t + 1).to_vector<int64_t>(), (std::vector<int64_t>{big + 1, 2}));
  EXPECT_EQ((from_vector(std::vector<int64_t>{1}) + big).item<int64_t>(), big + 1);
  EXPECT_EQ((t - big).to_vector<int64_t>(), (std::vector<int64_t>{0, 1 - big}));
  EXPECT_EQ((t * 1).to_vector<int64_t>()[0], big);
  EXPECT_EQ((t == big).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ((t == big - 1).to_vector<bool>(), (std::vector<bool>{false, false}));
  EXPECT_EQ(maximum(t, big + 2).to_vector<int64_t>()[0], big + 2);
  EXPECT_EQ(clamp(t, 0, big - 1).to_vector<int64_t>()[0], big - 1);
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(full({2}, max, kInt64).to_vector<int64_t>(), (std::vector<int64_t>{max, max}));
  Tensor f = zeros({2}, kInt64);
  f.fill_(big);
  EXPECT_EQ(f.to_vector<int64_t>(), (std::vector<int64_t>{big, big}));
  EXPECT_EQ(where(tensor({1, 0}, kBool), t, big + 1).to_vector<int64_t>(),
            (std::vector<int64_t>{big, big + 1}));
  EXPECT_THROW_MSG((void)Scalar(uint64_t{1} << 63), ValueError,
                   "scalar: 9223372036854775808 does not fit int64");
}

TEST(ScalarPromotion, InPlaceOpsThatWouldPromoteAreDTypeErrors) {
  Tensor i = tensor({1, 2}, kInt64);
  EXPECT_THROW_MSG(i.mul_(0.5), DTypeError,
                   "mul_: result type float32 can't be cast to the desired output type int64");
  EXPECT_THROW_MSG(i.div_(2), DTypeError,
                   "div_: result type float32 can't be cast to the desired output type int64");
  EXPECT_THROW_MSG(i += 0.5, DTypeError,
                   "add_: result type float32 can't be cast to the desired output type int64");
  EXPECT_THROW_MSG(i -= 0.5, DTypeError,
                   "sub_: result type float32 can't be cast to the desired output type int64");
  EXPECT_THROW_MSG(i *= 0.5, DTypeError,
                   "mul_: result type float32 can't be cast to the desired output type int64");
  EXPECT_THROW_MSG(i /= 2, DTypeError,
                   "div_: result type float32 can't be cast to the desired output type int64");
  EXPECT_THROW_MSG(div_(i, tensor({1, 2}, kInt64)), DTypeError,
                   "div_: result type float32 can't be cast to the desired output type int64");
  EXPECT_THROW_MSG(clamp_(i, 0, 1.5), DTypeError,
                   "clamp_: result type float32 can't be cast to the desired output type int64");
  Tensor i32 = tensor({1, 2}, kInt32);
  EXPECT_THROW_MSG(i32.mul_(0.5), DTypeError,
                   "mul_: result type float32 can't be cast to the desired output type int32");
  Tensor b = tensor({1, 0}, kBool);
  EXPECT_THROW_MSG(b.add_(1), DTypeError,
                   "add_: result type int64 can't be cast to the desired output type bool");
  EXPECT_THROW_MSG(i.add_(tensor({1, 1}, kInt64), 0.5), DTypeError, "add_: a floating alpha (0.5)");
  // Nothing was written by the refused ops; the allowed ones still work.
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  i *= 3;
  i += 1;
  i -= 2;
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{2, 5}));
  b.mul_(true);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false}));
  Tensor f = tensor({1, 2}, kFloat32);
  f /= 2;
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{0.5f, 1.0f}));
}

TEST(ScalarPromotion, FloatingTensorsKeepTheirGradientsWithScalars) {
  Tensor x = tensor({1, -2, 3}, kFloat64);
  x.requires_grad_();
  // Integer and bool scalars leave a floating tensor's dtype alone, and its gradient too.
  Tensor y = ((x * 2 + 1) / 4 - 1) * 0.5 + where(tensor({1, 0, 1}, kBool), x, 7);
  EXPECT_EQ(y.dtype(), kFloat64);
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{1.25, 0.25, 1.25}));
  Tensor z = tensor({2, 4}, kFloat32);
  z.requires_grad_();
  (3 / z).sum().backward();  // d(3/z) = -3 / z^2
  EXPECT_EQ(z.grad().to_vector<float>(), (std::vector<float>{-0.75f, -0.1875f}));
}

TEST(ScalarPromotion, DivisionOfIntegerTensorsIsTrueDivision) {
  const Tensor a = tensor({7, -7, 1}, kInt64), b = tensor({2, 2, 4}, kInt64);
  EXPECT_EQ((a / b).dtype(), kFloat32);
  EXPECT_EQ((a / b).to_vector<float>(), (std::vector<float>{3.5f, -3.5f, 0.25f}));
  EXPECT_EQ((tensor({1, 0}, kBool) / tensor({1, 1}, kBool)).to_vector<float>(),
            (std::vector<float>{1.0f, 0.0f}));
  // Mixed dtypes between tensors stay errors.
  EXPECT_THROW_MSG(a / tensor({1, 1, 1}, kFloat32), DTypeError, "dtype mismatch in div");
}

TEST(ScalarPromotion, FloorDivideRoundsTowardMinusInfinityAsPython) {
  const Tensor a = tensor({7, -7, 7, -7, 0}, kInt64), b = tensor({2, 2, -2, -2, 3}, kInt64);
  const Tensor q = floor_divide(a, b);
  EXPECT_EQ(q.dtype(), kInt64);
  EXPECT_EQ(q.to_vector<int64_t>(), (std::vector<int64_t>{3, -4, -4, 3, 0}));
  EXPECT_EQ(floor_divide(a, 2).to_vector<int64_t>(), (std::vector<int64_t>{3, -4, 3, -4, 0}));
  EXPECT_EQ(floor_divide(tensor({7}, kInt32), 0).to_vector<int64_t>(), std::vector<int64_t>{0});  // defined
  const int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(floor_divide(from_vector(std::vector<int64_t>{min}), -1).item<int64_t>(), min);  // wraps
  // Floating: Python's 1 // 0.1 is 9 (floor(1 / 0.1) would be 10), -7.5 // 2 is -4.
  EXPECT_EQ(
      floor_divide(tensor({1.0, 7.5, -7.5}, kFloat64), tensor({0.1, 2, 2}, kFloat64)).to_vector<double>(),
      (std::vector<double>{9, 3, -4}));
  const Tensor f = floor_divide(tensor({7, -7}, kInt64), 2.5);
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{2.0f, -3.0f}));
  // A step function: zero gradient.
  Tensor x = tensor({3.5, -1.5}, kFloat64);
  x.requires_grad_();
  floor_divide(x, 2).sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{0, 0}));
  EXPECT_THROW_MSG(floor_divide(tensor({1}, kBool), true), DTypeError,
                   "floor_divide does not support dtype bool");
}

TEST(ScalarPromotion, MeanOfIntegersOrBoolsSaysHowToCast) {
  const Tensor preds = tensor({1, 2, 3}, kInt64), y = tensor({1, 0, 3}, kInt64);
  EXPECT_THROW_MSG(
      (preds == y).mean(), DTypeError,
      "dtype mismatch in mean: input must be float32 or float64, got bool; cast with .to(kFloat32) first");
  EXPECT_THROW_MSG(
      preds.mean(), DTypeError,
      "dtype mismatch in mean: input must be float32 or float64, got int64; cast with .to(kFloat32) first");
  EXPECT_FLOAT_EQ((preds == y).to(kFloat32).mean().item<float>(), 2.0f / 3.0f);
}
