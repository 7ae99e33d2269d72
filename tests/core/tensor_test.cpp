#include <gtest/gtest.h>

#include <sstream>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;
using ember::test::values_near;

TEST(Factories, FillValuesShapesAndOptions) {
  EXPECT_TRUE(values_near(zeros({2, 3}), {0, 0, 0, 0, 0, 0}, {2, 3}));
  EXPECT_TRUE(values_near(ones({3}), {1, 1, 1}, {3}));
  EXPECT_TRUE(values_near(full({2}, 7.5), {7.5, 7.5}, {2}));
  EXPECT_TRUE(values_near(arange(5), {0, 1, 2, 3, 4}, {5}));
  EXPECT_TRUE(values_near(arange(1, 2, 0.25), {1, 1.25, 1.5, 1.75}, {4}));
  EXPECT_TRUE(values_near(arange(3, 0, -1, kInt64), {3, 2, 1}, {3}));
  EXPECT_EQ(zeros({2}, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(ones({2}, TensorOptions(kInt64)).to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(ones({2}, TensorOptions().requires_grad(true)).requires_grad());
  EXPECT_EQ(empty({0, 3}).numel(), 0);
  EXPECT_EQ(scalar_tensor(3.0).dim(), 0);
  EXPECT_EQ(scalar_tensor(3.0).item<double>(), 3.0);
  EXPECT_THROW_MSG(arange(0, 1, 0), ValueError, "arange: step must be finite and non-zero");
  EXPECT_THROW_MSG(zeros({2, -1}), ValueError, "zeros: negative size in shape [2, -1]");
}

TEST(Factories, FromValuesAndLikes) {
  Tensor t = tensor({{1, 2, 3}, {4, 5, 6}}, kFloat32);
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  Tensor v = from_vector(std::vector<int64_t>{1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(v.dtype(), kInt64);
  EXPECT_EQ(v.select(0, 1).select(0, 0).item<int64_t>(), 3);
  EXPECT_THROW_MSG(v.item<int64_t>(), ValueError, "item: only one-element tensors can be converted");
  EXPECT_THROW_MSG(from_vector(std::vector<float>{1, 2, 3}, {2, 2}), ShapeError,
                   "from_vector: 3 values do not fill shape [2, 2]");
  EXPECT_THROW_MSG(tensor({{1, 2}, {3}}, kFloat32), ValueError, "tensor: rows of unequal length");
  Tensor z = zeros_like(t);
  EXPECT_EQ(z.shape(), t.shape());
  EXPECT_EQ(z.dtype(), t.dtype());
  EXPECT_TRUE(values_near(ones_like(v), {1, 1, 1, 1}, {2, 2}));
  EXPECT_TRUE(values_near(full_like(v, 9), {9, 9, 9, 9}, {2, 2}));
  EXPECT_EQ(empty_like(t).shape(), t.shape());
}

TEST(Factories, SeededRandomIsReproducible) {
  manual_seed(42);
  Tensor a = rand({1000});
  Tensor n1 = randn({1001});
  Tensor i1 = randint(3, 9, {500});
  manual_seed(42);
  Tensor b = rand({1000});
  Tensor n2 = randn({1001});
  Tensor i2 = randint(3, 9, {500});
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
  EXPECT_EQ(n1.to_vector<float>(), n2.to_vector<float>());
  EXPECT_EQ(i1.to_vector<int64_t>(), i2.to_vector<int64_t>());
  // The draws advance the generator: the next draw differs.
  EXPECT_NE(rand({1000}).to_vector<float>(), a.to_vector<float>());
  // Statistics: uniform in [0, 1), normal with mean 0 and std 1, integers in [3, 9).
  const auto u = a.to_vector<double>();
  for (double x : u) ASSERT_TRUE(x >= 0 && x < 1);
  EXPECT_NEAR(a.mean().item<double>(), 0.5, 0.04);
  manual_seed(1);
  Tensor big = randn({100000});
  EXPECT_NEAR(big.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR((big * big).mean().item<double>(), 1.0, 0.02);
  for (int64_t x : i1.to_vector<int64_t>()) ASSERT_TRUE(x >= 3 && x < 9);
  EXPECT_EQ(rand_like(a).shape(), a.shape());
  EXPECT_EQ(randn_like(a).shape(), a.shape());
  EXPECT_THROW_MSG(randint(5, 5, {2}), ValueError, "randint: expected low < high");
  EXPECT_THROW_MSG(rand({2}, kInt64), DTypeError, "rand needs a floating dtype, got int64");
}

TEST(Factories, PhiloxMatchesTheReferenceVector) {
  // Philox4x32-10 known-answer test from the Random123 distribution (kat_vectors):
  // counter (0,0,0,0), key (0,0) -> 6627e8d5 e169c58d bc57ac4c 9b00dbd8.
  // Ember's element i of a draw with seed 0 at offset 0 is word i of that block.
  manual_seed(0);
  Tensor w = randint(0, 4294967295LL, {4});
  const auto v = w.to_vector<int64_t>();
  const int64_t range = 4294967295LL;
  EXPECT_EQ(v[0], int64_t(0x6627e8d5) % range);
  EXPECT_EQ(v[1], int64_t(0xe169c58d) % range);
  EXPECT_EQ(v[2], int64_t(0xbc57ac4c) % range);
  EXPECT_EQ(v[3], int64_t(0x9b00dbd8) % range);
}

TEST(Tensor, MetadataAndPrinting) {
  Tensor t = arange(6).reshape({2, 3});
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.size(-1), 3);
  EXPECT_EQ(t.strides(), (Shape{3, 1}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.device(), Device::cpu());
  std::ostringstream os;
  os << t;
  EXPECT_EQ(os.str(),
            "tensor([[0., 1., 2.],\n        [3., 4., 5.]], shape=[2, 3], dtype=float32, device=cpu)");
  std::ostringstream os2;
  os2 << tensor({1, 0}, kInt64) << " " << (tensor({1, 0}, kFloat32) > 0.5);
  EXPECT_EQ(os2.str(),
            "tensor([1, 0], shape=[2], dtype=int64, device=cpu) tensor([true, false], shape=[2], dtype=bool, "
            "device=cpu)");
  EXPECT_THROW_MSG(t.size(2), IndexError, "size: dim 2 is out of range for a tensor of 2 dimensions");
}

TEST(Tensor, ViewsShareStorageAndVersion) {
  Tensor t = arange(12).reshape({3, 4});
  Tensor v = t.view({4, 3});
  Tensor tr = t.t();
  Tensor n = t.narrow(1, 1, 2);
  Tensor s = t.select(0, 2);
  EXPECT_EQ(tr.shape(), (Shape{4, 3}));
  EXPECT_FALSE(tr.is_contiguous());
  EXPECT_TRUE(values_near(tr, {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}, {4, 3}));
  EXPECT_TRUE(values_near(n, {1, 2, 5, 6, 9, 10}, {3, 2}));
  EXPECT_TRUE(values_near(s, {8, 9, 10, 11}, {4}));
  EXPECT_TRUE(values_near(t.permute({1, 0}).contiguous(), tr.to_vector<double>(), {4, 3}));
  EXPECT_TRUE(values_near(t.transpose(0, 1), tr.to_vector<double>(), {4, 3}));
  EXPECT_EQ(t.unsqueeze(0).shape(), (Shape{1, 3, 4}));
  EXPECT_EQ(t.unsqueeze(-1).shape(), (Shape{3, 4, 1}));
  EXPECT_EQ(t.unsqueeze(1).squeeze().shape(), (Shape{3, 4}));
  EXPECT_EQ(t.unsqueeze(1).squeeze(1).shape(), (Shape{3, 4}));
  EXPECT_EQ(t.squeeze(0).shape(), (Shape{3, 4}));
  EXPECT_EQ(t.flatten().shape(), (Shape{12}));
  EXPECT_EQ(t.reshape({2, -1, 2}).shape(), (Shape{2, 3, 2}));
  Tensor e = tensor({1, 2, 3}, kFloat32).expand({2, 3});
  EXPECT_EQ(e.strides(), (Shape{0, 1}));
  EXPECT_TRUE(values_near(e, {1, 2, 3, 1, 2, 3}, {2, 3}));

  const uint64_t before = t.version();
  n.fill_(-1);  // writes through the view into t
  EXPECT_TRUE(values_near(t, {0, -1, -1, 3, 4, -1, -1, 7, 8, -1, -1, 11}, {3, 4}));
  EXPECT_GT(t.version(), before);
  EXPECT_EQ(t.version(), v.version());
  EXPECT_EQ(s.version(), t.version());
  EXPECT_TRUE(values_near(v, t.to_vector<double>(), {4, 3}));

  // A transposed view cannot be viewed flat, but it can be reshaped (copied).
  EXPECT_THROW_MSG(tr.view({12}), ShapeError, "view: shape [12] is incompatible");
  EXPECT_TRUE(values_near(tr.reshape({12}), {0, 4, 8, -1, -1, -1, -1, -1, -1, 3, 7, 11}, {12}));
  EXPECT_TRUE(values_near(tr.contiguous(), tr.to_vector<double>(), {4, 3}));
  EXPECT_THROW_MSG(t.view({5, -1}), ShapeError, "view: shape [5, -1] is invalid for 12 elements");
  EXPECT_THROW_MSG(t.narrow(0, 2, 2), IndexError, "narrow: [2, 4) is out of range for dim 0 of size 3");
  EXPECT_THROW_MSG(t.select(1, 4), IndexError, "select: index 4 is out of range for dim 1 of size 4");
  EXPECT_THROW_MSG(t.permute({0, 0}), ValueError, "permute: dim 0 is repeated");
  EXPECT_THROW_MSG(tensor({1, 2}, kFloat32).expand({3, 3}), ShapeError,
                   "expand: cannot expand shape [2] to [3, 3]");
}

TEST(Tensor, CopyFillCloneAcrossDtypes) {
  Tensor t = zeros({2, 3});
  t.copy_(tensor({1, 2, 3}, kFloat32));  // broadcast
  EXPECT_TRUE(values_near(t, {1, 2, 3, 1, 2, 3}, {2, 3}));
  t.copy_(tensor({{1, 2, 3}, {4, 5, 6}}, kFloat64));  // converted
  EXPECT_TRUE(values_near(t, {1, 2, 3, 4, 5, 6}, {2, 3}));
  Tensor c = t.clone();
  c.fill_(0);
  EXPECT_TRUE(values_near(t, {1, 2, 3, 4, 5, 6}, {2, 3}));
  EXPECT_TRUE(values_near(c, {0, 0, 0, 0, 0, 0}, {2, 3}));
  t.t().zero_();
  EXPECT_TRUE(values_near(t, {0, 0, 0, 0, 0, 0}, {2, 3}));
}

TEST(Tensor, RoundTripsThroughEmulatedDevices) {
  test::EmulatedCuda emu(2);
  for (DType dt : {kFloat32, kFloat64, kInt64, kUInt8, kBool}) {
    Tensor a = arange(0, 6, 1, kInt64).reshape({2, 3}).to(dt);
    Tensor on0 = a.to(Device::cuda(0));
    Tensor on1 = on0.to("cuda:1");
    Tensor back = on1.cpu();
    EXPECT_EQ(on0.device(), Device::cuda(0));
    EXPECT_EQ(on1.device(), Device::cuda(1));
    EXPECT_EQ(back.device(), Device::cpu());
    EXPECT_EQ(back.shape(), a.shape());
    EXPECT_EQ(back.dtype(), dt);
    EXPECT_EQ(back.to_vector<double>(), a.to_vector<double>());
  }
  // A strided view moves as its values, and to() on the same device is the same tensor.
  Tensor t = arange(6).reshape({2, 3}).t();
  EXPECT_TRUE(values_near(t.cuda(1).cpu(), {0, 3, 1, 4, 2, 5}, {3, 2}));
  EXPECT_TRUE(t.to(Device::cpu()).is_same(t));
  // copy_ crosses devices too.
  Tensor dst = zeros({3}, Device::cuda(1));
  dst.copy_(tensor({1, 2, 3}, kFloat32));
  EXPECT_TRUE(values_near(dst, {1, 2, 3}, {3}));
}
