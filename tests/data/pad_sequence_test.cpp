#include "ember/data/pad_sequence.h"

#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::data;

namespace {
Tensor ids(std::vector<int64_t> v) { return from_vector(v); }
}  // namespace

TEST(PadSequence, PadsOneDimSequencesToTheLongest) {
  const Tensor out = pad_sequence({ids({1, 2}), ids({3, 4, 5, 6}), ids({}), ids({7})});
  EXPECT_EQ(out.shape(), (Shape{4, 4}));
  EXPECT_EQ(out.dtype(), kInt64);
  EXPECT_EQ(out.to_vector<int64_t>(),
            (std::vector<int64_t>{1, 2, 0, 0, /**/ 3, 4, 5, 6, /**/ 0, 0, 0, 0, /**/ 7, 0, 0, 0}));
  const Tensor t = pad_sequence({ids({1, 2}), ids({3, 4, 5})}, /*batch_first=*/false, /*padding_value=*/-100);
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(t.to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 2, 4, -100, 5}));
}

TEST(PadSequence, PadsTrailingDimsAndConvertsThePaddingValue) {
  // [L_i, 2] float sequences; padding 0.5.
  const Tensor a = from_vector(std::vector<float>{1, 2}, {1, 2});
  const Tensor b = from_vector(std::vector<float>{3, 4, 5, 6, 7, 8}, {3, 2});
  const Tensor out = pad_sequence({a, b}, true, 0.5);
  EXPECT_EQ(out.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1, 2, 0.5, 0.5, 0.5, 0.5, 3, 4, 5, 6, 7, 8}));
  const Tensor tb = pad_sequence({a, b}, false, 0.5);
  EXPECT_EQ(tb.shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(tb.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 0.5, 0.5, 5, 6, 0.5, 0.5, 7, 8}));
  // A transposed (non-contiguous) sequence pads by its logical values.
  const Tensor tr = from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}).t();  // [3, 2]
  EXPECT_EQ(pad_sequence({tr, a}).to_vector<float>(),
            (std::vector<float>{1, 4, 2, 5, 3, 6, 1, 2, 0, 0, 0, 0}));
  // An integer dtype takes the value converted as full converts it.
  EXPECT_EQ(pad_sequence({ids({1}), ids({2, 3})}, true, 7.0).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 7, 2, 3}));
}

TEST(PadSequence, RecordsNoAutograd) {
  Tensor a = from_vector(std::vector<float>{1, 2});
  a.requires_grad_(true);
  const Tensor out = pad_sequence({a, from_vector(std::vector<float>{3})});
  EXPECT_FALSE(out.requires_grad());
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1, 2, 3, 0}));
}

TEST(PadSequence, Errors) {
  EXPECT_THROW_LINE(pad_sequence({}), ValueError, "pad_sequence: received an empty list of sequences");
  EXPECT_THROW_LINE(pad_sequence({ids({1}), Tensor()}), ValueError,
                    "pad_sequence: sequences[1] is an undefined tensor");
  EXPECT_THROW_MSG(pad_sequence({ids({1}), from_vector(std::vector<float>{1})}), DTypeError,
                   "dtype mismatch in pad_sequence: sequences[0] is int64 but sequences[1] is float32");
  EXPECT_THROW_LINE(pad_sequence({ids({1}), scalar_tensor(1, kInt64)}), ShapeError,
                    "pad_sequence: sequences[1] must have at least 1 dim, got shape []");
  EXPECT_THROW_LINE(
      pad_sequence({zeros({2, 3}), zeros({2, 4})}), ShapeError,
      "pad_sequence: sequences[1] has shape [2, 4] but sequences[0] has [2, 3]: the dims after the "
      "first must agree");
  EXPECT_THROW_LINE(
      pad_sequence({zeros({2, 3}), zeros({2})}), ShapeError,
      "pad_sequence: sequences[1] has shape [2] but sequences[0] has [2, 3]: the dims after the first "
      "must agree");
}

TEST(PadSequence, StaysOnTheSequencesDevice) {
  test::EmulatedCuda emu(2);
  const Tensor a = ids({1, 2, 3}).to(Device::cuda(1)), b = ids({4}).to(Device::cuda(1));
  const Tensor out = pad_sequence({a, b});
  EXPECT_EQ(out.device(), Device::cuda(1));
  EXPECT_EQ(out.cpu().to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4, 0, 0}));
  EXPECT_THROW_MSG(
      pad_sequence({a, ids({4})}), DeviceMismatchError,
      "tensors on different devices: pad_sequence got sequences[0] on cuda:1 and sequences[1] on cpu");
}
