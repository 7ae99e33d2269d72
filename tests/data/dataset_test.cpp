#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::data;
using ember::test::values_near;

namespace {
// Example i: data [i*i, i*i], target i; get_batch is Dataset's default.
class Squares : public Dataset {
 public:
  size_t size() const override { return 3; }
  Example get(size_t i) const override {
    return {full({2}, static_cast<double>(i * i)), scalar_tensor(static_cast<double>(i), kInt64)};
  }
};
}  // namespace

TEST(DefaultCollate, ChecksItsExamples) {
  EXPECT_THROW_LINE(default_collate({}), ValueError, "default_collate: no examples to stack");
  const Example a{zeros({2}), scalar_tensor(0, kInt64)}, b{zeros({3}), scalar_tensor(1, kInt64)};
  EXPECT_THROW_LINE(default_collate({a, b}), ShapeError,
                    "default_collate: example 1 has data of shape [3] but example 0 has [2]");
  const Example c{zeros({2}), scalar_tensor(1)};
  EXPECT_THROW_LINE(default_collate({a, c}), DTypeError,
                    "default_collate: example 1 has target of dtype float32 but example 0 has int64");
}

TEST(TensorDataset, GetAndGetBatchCopyRows) {
  auto ds =
      std::make_shared<TensorDataset>(from_vector(std::vector<float>{0, 0, 1, 10, 2, 20, 3, 30}, {4, 2}),
                                      from_vector(std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(ds->size(), 4u);
  const Example e = ds->get(2);
  EXPECT_TRUE(values_near(e.data, {2, 20}, {2}));
  EXPECT_TRUE(values_near(e.target, {2}, {}));
  const Batch b = ds->get_batch({3, 0, 3});
  EXPECT_TRUE(values_near(b.data, {3, 30, 0, 0, 3, 30}, {3, 2}));
  EXPECT_TRUE(values_near(b.target, {3, 0, 3}, {3}));
  Tensor d = b.data;
  d.fill_(-1);  // a copy: the dataset is unchanged
  EXPECT_TRUE(values_near(ds->get(3).data, {3, 30}, {2}));
  EXPECT_THROW_LINE(ds->get(4), IndexError, "get: index 4 is out of range for a dataset of size 4");
  EXPECT_THROW_LINE(ds->get_batch({0, -1}), IndexError,
                    "get_batch: index -1 is out of range for a dataset of size 4");
}

TEST(Dataset, DefaultGetBatchStacksWhatGetReturns) {
  const Squares ds;
  const Batch b = ds.get_batch({2, 0});
  EXPECT_TRUE(values_near(b.data, {4, 4, 0, 0}, {2, 2}));
  EXPECT_TRUE(values_near(b.target, {2, 0}, {2}));
  EXPECT_EQ(b.target.dtype(), kInt64);
  EXPECT_THROW_LINE(ds.get_batch({3}), IndexError,
                    "get_batch: index 3 is out of range for a dataset of size 3");
}

TEST(TensorDataset, ChecksItsTensors) {
  EXPECT_THROW_LINE(TensorDataset(zeros({3, 2}), zeros({4})), ShapeError,
                    "TensorDataset: data has 3 rows but targets has 4");
  EXPECT_THROW_LINE(TensorDataset(scalar_tensor(1), zeros({1})), ShapeError,
                    "TensorDataset: data must have at least one dim, got a scalar");
  EXPECT_THROW_LINE(TensorDataset(zeros({1}), Tensor()), ValueError, "TensorDataset: targets is undefined");
  // A strided input is fine: rows are taken from a contiguous copy.
  TensorDataset t(from_vector(std::vector<float>{0, 1, 2, 3, 4, 5}, {2, 3}).t(), zeros({3}));
  EXPECT_TRUE(values_near(t.get(1).data, {1, 4}, {2}));
}

TEST(Normalize, TransformsTensorsAndRejectsBadStd) {
  const Normalize n(0.5, 0.25);
  EXPECT_TRUE(values_near(n(tensor({0.5, 1.0, 0.0})), {0.0, 2.0, -2.0}, {3}));
  EXPECT_TRUE(Normalize().is_identity());
  EXPECT_TRUE(values_near(Normalize()(tensor({0.25, 3.0})), {0.25, 3.0}, {2}));
  EXPECT_THROW_MSG(Normalize(0.1, 0.0), ValueError, "Normalize: std must be positive");
  EXPECT_THROW_MSG(Normalize(0.1, -1.0), ValueError, "Normalize: std must be positive");
  EXPECT_THROW_MSG(Normalize(NAN, 1.0), ValueError, "Normalize: std must be positive");
  EXPECT_THROW_MSG(n(tensor({1, 2}, kInt64)), DTypeError,
                   "dtype mismatch in normalize: input must be float32 or float64, got int64");
}
