// nn::Embedding and embedding(): rows by index, gradients by finite differences, padding_idx
// as in PyTorch, and typed errors for bad indices on every device.
#include <gtest/gtest.h>

#include "support/emulated_cuda.h"
#include "support/expect.h"
#include "support/gradcheck.h"

using namespace ember;

TEST(Embedding, PicksTheRowsOfTheTableInTheIndicesShape) {
  const Tensor weight = tensor({{0, 1}, {10, 11}, {20, 21}, {30, 31}}, kFloat32);
  const Tensor idx = from_vector(std::vector<int64_t>{3, 0, 3, 1, 2, 2}).view({2, 3});
  const Tensor out = embedding(idx, weight);
  EXPECT_EQ(out.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{30, 31, 0, 1, 30, 31, 10, 11, 20, 21, 20, 21}));
}

TEST(Embedding, GradientMatchesFiniteDifferences) {
  const Tensor idx = from_vector(std::vector<int64_t>{1, 4, 1, 0, 2});
  EXPECT_TRUE(test::gradcheck([&](const std::vector<Tensor>& in) { return embedding(idx, in[0]); },
                              {test::leaf({5, 3})}));
  // With padding_idx the padding row's gradient is zero by definition (no finite difference
  // agrees), and every other row's equals the plain gradient.
  const Tensor w = test::leaf({5, 3}), w_pad = w.detach().clone().requires_grad_(true);
  const Tensor g_out = test::leaf({5, 3}).detach();
  sum(embedding(idx, w) * g_out).backward();
  sum(embedding(idx, w_pad, 1) * g_out).backward();
  Tensor want = w.grad().clone();
  {
    NoGradGuard no_grad;
    want.select(0, 1).fill_(0);
  }
  EXPECT_EQ(w_pad.grad().to_vector<double>(), want.to_vector<double>());
  EXPECT_NE(w.grad().select(0, 1).to_vector<double>(), (std::vector<double>{0, 0, 0}));
}

TEST(Embedding, PaddingRowIsZeroReadAsItIsAndGetsNoGradient) {
  manual_seed(3);
  nn::Embedding emb(5, 3, /*padding_idx=*/-1);  // row 4
  ASSERT_TRUE(emb.padding_idx.has_value());
  EXPECT_EQ(*emb.padding_idx, 4);
  EXPECT_EQ(emb.weight.select(0, 4).to_vector<float>(), (std::vector<float>{0, 0, 0}));
  {
    NoGradGuard no_grad;
    emb.weight.select(0, 4).fill_(7);  // PyTorch returns the row's current values too
  }
  const Tensor idx = from_vector(std::vector<int64_t>{4, 2, 4});
  const Tensor out = emb(idx);
  EXPECT_EQ(out.select(0, 0).to_vector<float>(), (std::vector<float>{7, 7, 7}));
  sum(out * 2.0).backward();
  const std::vector<float> g = emb.weight.grad().to_vector<float>();
  const std::vector<float> want{0, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(g, want);
  EXPECT_EQ(emb.repr(), "Embedding(5, 3, padding_idx=4)");
}

TEST(Embedding, BadIndicesAndArgumentsAreTypedErrors) {
  const Tensor weight = zeros({10, 2});
  EXPECT_THROW_LINE(embedding(from_vector(std::vector<int64_t>{1, 10}), weight), IndexError,
                    "embedding: index 10 is out of range for 10 embeddings");
  EXPECT_THROW_LINE(embedding(from_vector(std::vector<int64_t>{-1, 3}), weight), IndexError,
                    "embedding: index -1 is out of range for 10 embeddings");
  EXPECT_THROW_MSG(embedding(tensor({1, 2}, kFloat32), weight), DTypeError,
                   "dtype mismatch in embedding: indices must be int64 or int32, got float32");
  EXPECT_THROW_MSG(embedding(from_vector(std::vector<int64_t>{0}), weight, 10), ValueError,
                   "embedding: padding_idx must be within num_embeddings (10), got 10");
  EXPECT_THROW_MSG(nn::Embedding(3, 2, 3), ValueError,
                   "Embedding: padding_idx must be within num_embeddings (3), got 3");
  // No indices at all: an empty result of the right shape.
  EXPECT_EQ(embedding(empty({0, 4}, kInt64), weight).shape(), (Shape{0, 4, 2}));
}

TEST(Embedding, IndicesOnAnotherDeviceAreNamedAndOutOfRangeFailsOnCudaToo) {
  test::EmulatedCuda emu(1);
  nn::Embedding emb(6, 2);
  emb.to("cuda:0");
  const Tensor idx = from_vector(std::vector<int64_t>{0, 5});
  EXPECT_THROW_LINE(emb(idx), DeviceMismatchError,
                    "tensors on different devices: embedding got indices on cpu and weight on cuda:0; "
                    "move the model with model.to(device) or the input with input.to(device)");
  EXPECT_EQ(emb(idx.to("cuda:0")).device(), Device::cuda(0));
  EXPECT_THROW_LINE(emb(from_vector(std::vector<int64_t>{6}).to("cuda:0")), IndexError,
                    "embedding: index 6 is out of range for 6 embeddings of weight");
}
