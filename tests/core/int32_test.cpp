// int32 tensors (token ids and masks as tokenizers give them): factories, casts, comparisons,
// arithmetic, indexing with int32 indices, printing and value reads.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;

TEST(Int32, NameSizeAndFactories) {
  EXPECT_STREQ(dtype_name(kInt32), "int32");
  EXPECT_EQ(itemsize(kInt32), 4u);
  EXPECT_FALSE(is_floating(kInt32));
  EXPECT_EQ(zeros({2}, kInt32).to_vector<int32_t>(), (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(ones({2}, kInt32).to_vector<int32_t>(), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(full({2}, -7, kInt32).to_vector<int32_t>(), (std::vector<int32_t>{-7, -7}));
  EXPECT_EQ(arange(4, kInt32).to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 2, 3}));
  const Tensor t = tensor({3, -1, 2}, kInt32);
  EXPECT_EQ(t.dtype(), kInt32);
  EXPECT_EQ(t.to_vector<int64_t>(), (std::vector<int64_t>{3, -1, 2}));
  const Tensor v = from_vector(std::vector<int32_t>{INT32_MIN, INT32_MAX});
  EXPECT_EQ(v.dtype(), kInt32);
  EXPECT_EQ(v.to_vector<int32_t>(), (std::vector<int32_t>{INT32_MIN, INT32_MAX}));
  EXPECT_EQ(v.select(0, 1).item<int>(), INT32_MAX);
  std::vector<int32_t> blob{5, 6, 7};
  const Tensor b = from_blob(blob.data(), {3}, kInt32);
  blob[1] = 60;  // shares the memory
  EXPECT_EQ(b.to_vector<int32_t>(), (std::vector<int32_t>{5, 60, 7}));
  EXPECT_EQ(randint(0, 5, {100}, kInt32).dtype(), kInt32);
  EXPECT_EQ(max(randint(0, 5, {100}, kInt32)).item<int>() < 5, true);
}

TEST(Int32, CastsBothWays) {
  const Tensor big = from_vector(std::vector<int64_t>{int64_t{1} << 31, -1, 7});
  EXPECT_EQ(big.to(kInt32).to_vector<int32_t>(), (std::vector<int32_t>{INT32_MIN, -1, 7}));  // modulo 2^32
  const Tensor i = tensor({-2, 0, 5}, kInt32);
  EXPECT_EQ(i.to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{-2, 0, 5}));
  EXPECT_EQ(i.to(kFloat32).to_vector<float>(), (std::vector<float>{-2, 0, 5}));
  EXPECT_EQ(i.to(kBool).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(tensor({2.9, -2.9}).to(kInt32).to_vector<int32_t>(), (std::vector<int32_t>{2, -2}));
  EXPECT_EQ(tensor({1, 0}, kBool).to(kInt32).to_vector<int32_t>(), (std::vector<int32_t>{1, 0}));
  EXPECT_THROW_MSG(from_vector(std::vector<int32_t>{-1}).item<uint8_t>(), ValueError,
                   "item: value -1 does not fit uint8");
}

TEST(Int32, ComparisonsArithmeticAndReductions) {
  const Tensor a = tensor({1, 5, -3}, kInt32), b = tensor({2, 5, -4}, kInt32);
  EXPECT_EQ((a < b).to_vector<bool>(), (std::vector<bool>{true, false, false}));
  EXPECT_EQ((a == b).to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ((a >= 1).to_vector<bool>(), (std::vector<bool>{true, true, false}));
  EXPECT_EQ((a + b).dtype(), kInt32);
  EXPECT_EQ((a * b).to_vector<int32_t>(), (std::vector<int32_t>{2, 25, 12}));
  EXPECT_EQ((a - 1).to_vector<int32_t>(), (std::vector<int32_t>{0, 4, -4}));
  EXPECT_EQ((-a).to_vector<int32_t>(), (std::vector<int32_t>{-1, -5, 3}));
  EXPECT_EQ(abs(a).to_vector<int32_t>(), (std::vector<int32_t>{1, 5, 3}));
  EXPECT_EQ((a / b).to_vector<float>(), (std::vector<float>{0.5f, 1.0f, 0.75f}));
  EXPECT_EQ(floor_divide(a, 2).to_vector<int32_t>(), (std::vector<int32_t>{0, 2, -2}));
  EXPECT_EQ(where(a > 0, a, b).to_vector<int32_t>(), (std::vector<int32_t>{1, 5, -4}));
  const Tensor s = a.sum();  // as PyTorch: integer sums are int64
  EXPECT_EQ(s.dtype(), kInt64);
  EXPECT_EQ(s.item<int64_t>(), 3);
  EXPECT_EQ(a.max().item<int>(), 5);
  EXPECT_EQ(a.argmax(0).item<int64_t>(), 1);
  EXPECT_THROW_MSG(a + tensor({1, 1, 1}, kInt64), DTypeError, "dtype mismatch in add");
  EXPECT_THROW_MSG(a.mean(), DTypeError,
                   "dtype mismatch in mean: input must be float32 or float64, got int32");
}

TEST(Int32, IndicesAreAcceptedAsInt64Ones) {
  const Tensor w = tensor({{0, 1}, {10, 11}, {20, 21}}, kFloat64);
  const Tensor i32 = tensor({2, 0, 2}, kInt32), i64 = i32.to(kInt64);
  EXPECT_EQ(index_select(w, 0, i32).to_vector<double>(), index_select(w, 0, i64).to_vector<double>());
  EXPECT_EQ(embedding(i32, w).to_vector<double>(), (std::vector<double>{20, 21, 0, 1, 20, 21}));
  const Tensor g = tensor({{1, 0}, {0, 1}, {1, 1}}, kInt32);
  EXPECT_EQ(gather(w, 1, g).to_vector<double>(), (std::vector<double>{1, 0, 10, 11, 21, 21}));
  // The gradient flows to the weight as with int64 indices (row 2 picked twice).
  Tensor wg = w.clone().detach();
  wg.requires_grad_();
  embedding(i32, wg).sum().backward();
  EXPECT_EQ(wg.grad().to_vector<double>(), (std::vector<double>{1, 1, 0, 0, 2, 2}));
  EXPECT_THROW_MSG(embedding(tensor({3}, kInt32), w), IndexError, "embedding: index 3 is out of range for 3");
  nn::Embedding emb(5, 2);
  EXPECT_EQ(emb(tensor({{1, 4}}, kInt32)).shape(), (Shape{1, 2, 2}));
}

TEST(Int32, PrintsAndReadsValues) {
  std::ostringstream os;
  os << tensor({1, -2}, kInt32);
  EXPECT_EQ(os.str(), "tensor([1, -2], shape=[2], dtype=int32, device=cpu)");
  EXPECT_EQ(tensor({4}, kInt32).item<int64_t>(), 4);
  EXPECT_EQ(tensor({4}, kInt32).values<int32_t>()[0], 4);
  EXPECT_THROW_MSG(tensor({4}, kInt32).data_ptr<int64_t>(), DTypeError,
                   "data_ptr: requested int64 from a tensor of dtype int32");
}
