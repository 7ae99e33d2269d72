// from_blob wraps memory without a copy (writes go both ways, views share it, the deleter
// runs once when the last view is gone) and Tensor::values reads a CPU tensor in place.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;

TEST(FromBlob, SharesTheCallersMemoryBothWays) {
  std::vector<float> buf{1, 2, 3, 4, 5, 6};
  Tensor t = from_blob(buf.data(), {2, 3});
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(t.data_ptr<float>(), buf.data());
  buf[4] = 50;
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 50, 6}));
  t.mul_(2.0);
  EXPECT_EQ(buf, (std::vector<float>{2, 4, 6, 8, 100, 12}));
  Tensor row = t.select(0, 1);  // a view: still the caller's memory
  row.fill_(0);
  EXPECT_EQ(buf, (std::vector<float>{2, 4, 6, 0, 0, 0}));
  Tensor sum_t = t + 1.0;  // a new tensor: its own memory
  EXPECT_NE(sum_t.data_ptr<float>(), buf.data());
}

TEST(FromBlob, DeleterRunsOnceWhenTheLastViewIsGone) {
  int calls = 0;
  auto* data = new int64_t[4]{7, 8, 9, 10};
  {
    Tensor view;
    {
      Tensor t = from_blob(data, {4}, kInt64, [&](void* p) {
        ++calls;
        delete[] static_cast<int64_t*>(p);
      });
      view = t.narrow(0, 1, 2);
    }
    EXPECT_EQ(calls, 0);  // the view still holds the storage
    EXPECT_EQ(view.to_vector<int64_t>(), (std::vector<int64_t>{8, 9}));
  }
  EXPECT_EQ(calls, 1);
}

TEST(FromBlob, GradientsFlowIntoAWrappedLeaf) {
  std::vector<double> buf{1, 2, 3};
  Tensor w = from_blob(buf.data(), {3}, TensorOptions(kFloat64).requires_grad(true));
  sum(w * w).backward();
  EXPECT_EQ(w.grad().to_vector<double>(), (std::vector<double>{2, 4, 6}));
}

TEST(FromBlob, BadArgumentsAreTypedErrorsAndKeepTheDeleterUncalled) {
  int calls = 0;
  auto count = [&](void*) { ++calls; };
  EXPECT_THROW_LINE(from_blob(nullptr, {2}), ValueError, "from_blob: data is null for shape [2]");
  EXPECT_EQ(from_blob(nullptr, {0, 3}).numel(), 0);
  alignas(8) unsigned char bytes[16] = {};
  EXPECT_THROW_LINE(from_blob(bytes + 1, {2}, kFloat32, count), ValueError,
                    "from_blob: data is not aligned to 4 bytes for float32");
  EXPECT_THROW_LINE(from_blob(bytes, {-1}), ValueError, "from_blob: negative size in shape [-1]");
  EXPECT_THROW_LINE(
      from_blob(bytes, {INT64_MAX, 4}), ValueError,
      "from_blob: shape [9223372036854775807, 4] is too large: int64 cannot count its elements");
  {
    test::EmulatedCuda emu(1);
    EXPECT_THROW(from_blob(bytes, {2}, TensorOptions(Device::cuda(3)), count), DeviceError);
  }
  EXPECT_EQ(calls, 0);
}

TEST(TensorValues, ReadsAContiguousCpuTensorInPlace) {
  const Tensor t = arange(0, 6, 1, kFloat64).view({2, 3});
  const ArrayView<const double> v = t.values<double>();
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v.data(), t.data_ptr<double>());
  double total = 0;
  for (double x : v) total += x;
  EXPECT_EQ(total, 15.0);
  EXPECT_EQ(v[4], 4.0);
  EXPECT_THROW_LINE(v.at(6), IndexError, "ArrayView::at: index 6 is out of range for size 6");
  EXPECT_THROW_MSG(t.values<float>(), DTypeError,
                   "data_ptr: requested float32 from a tensor of dtype float64");
  EXPECT_THROW_LINE(t.t().values<double>(), ValueError,
                    "values: the tensor is not contiguous; call .contiguous() first");
  test::EmulatedCuda emu(1);
  EXPECT_THROW_LINE(t.to("cuda:0").values<double>(), ValueError,
                    "values: the tensor is on cuda:0; copy it to the CPU with .cpu() first");
}

// Memory written behind Ember's back (raw_data(), e.g. by MPI) is reported with mark_modified,
// so autograd still refuses a gradient computed from the old values.
TEST(MarkModified, AWriteThroughRawDataIsSeenByAutograd) {
  Tensor w = tensor({2.0}).requires_grad_();
  Tensor x = tensor({3.0});
  Tensor y = (w * x).sum();  // saves x for w's gradient
  const uint64_t before = x.version();
  static_cast<float*>(x.raw_data())[0] = 5.0f;
  mark_modified(x);
  EXPECT_EQ(x.version(), before + 1);
  EXPECT_THROW_MSG(y.backward(), AutogradError, "a tensor saved for the backward of mul");
}
