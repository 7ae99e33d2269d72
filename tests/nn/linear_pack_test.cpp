// A linear's weight packed once for the GEMM (core/ops/linear_pack.h, nn::Linear::pack_weight):
// the same bits as the unpacked product at every shape, thread count and view; a pack that is
// read (proved by a write it cannot see), and one that is never read once the weight changed.
#include <gtest/gtest.h>

#include <vector>

#include "ember/ember.h"
#include "ember/kernels/cpu/bf16_gemm.h"
#include "ember/kernels/cpu/sgemm.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;

namespace {

// Restores the thread count a test changed.
struct ThreadCount {
  explicit ThreadCount(int n) : before(get_num_threads()) { set_num_threads(n); }
  ~ThreadCount() { set_num_threads(before); }
  int before;
};

void expect_same_bits(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>()) << what;
}

}  // namespace

TEST(LinearWeightPack, GivesTheBitsOfTheUnpackedProductAtEveryShapeAndThreadCount) {
  manual_seed(1);
  struct Case {
    Shape input;
    int64_t out;
    bool bias;
  };
  // BERT's batch-1 shapes, partial panels (37 -> 45), a 3-D input, many rows into one panel
  // (cut into row blocks), no bias, and k deeper than one of sgemm's depth chunks.
  const std::vector<Case> cases = {{{48, 128}, 128, true}, {{48, 128}, 512, true},  {{48, 512}, 128, true},
                                   {{7, 37}, 45, true},    {{2, 5, 37}, 45, false}, {{300, 64}, 16, true},
                                   {{3, 300}, 20, true}};
  for (const Case& c : cases) {
    const Tensor x = randn(c.input), w = randn({c.out, c.input.back()});
    const Tensor b = c.bias ? randn({c.out}) : Tensor();
    const LinearWeightPack pack = pack_linear_weight(w);
    EXPECT_EQ(pack.defined(), cpu::sgemm_available());
    EXPECT_TRUE(pack.is_current_for(w));
    if (pack.defined()) {
      EXPECT_EQ(pack.nbytes(), (c.out + 15) / 16 * 16 * c.input.back() * 4);
    }
    for (int threads : {1, 2}) {
      ThreadCount count(threads);
      const std::string what =
          shape_str(c.input) + " -> " + std::to_string(c.out) + " at " + std::to_string(threads) + " threads";
      expect_same_bits(linear(x, w, b, pack), linear(x, w, b), what);
    }
  }
  // An input read through a transposed view (column-major rows).
  const Tensor xt = randn({20, 9}).t(), w = randn({33, 20});
  expect_same_bits(linear(xt, w, Tensor(), pack_linear_weight(w)), linear(xt, w), "transposed input");
}

// Without autograd a contiguous input of more than two dims is read in place (no [rows, in]
// view) and its result made in its final shape; others still go through views. Each way gives
// the 2-D product's bits, with no features (the bias in every row) and with no rows too.
TEST(LinearWeightPack, ReadsAContiguousInputOfAnyRankInPlaceAndOthersThroughViews) {
  manual_seed(2);
  const Tensor w = randn({45, 37}), b = randn({45});
  const LinearWeightPack pack = pack_linear_weight(w);
  const Tensor x4 = randn({2, 3, 4, 37});
  const Tensor y4 = linear(x4, w, b, pack);
  EXPECT_EQ(y4.shape(), (Shape{2, 3, 4, 45}));
  EXPECT_TRUE(y4.is_contiguous());
  expect_same_bits(y4.reshape({24, 45}), linear(x4.reshape({24, 37}), w, b), "4-D input");
  const Tensor strided = randn({5, 2, 37}).transpose(0, 1);  // [2, 5, 37], not contiguous
  ASSERT_FALSE(strided.is_contiguous());
  expect_same_bits(linear(strided, w, b, pack), linear(strided.contiguous(), w, b), "strided 3-D input");
  const Tensor none = linear(randn({0, 3, 37}), w, b, pack);
  EXPECT_EQ(none.shape(), (Shape{0, 3, 45}));
  const Tensor w0 = randn({4, 0}), b0 = from_vector<float>({1.5f, -2.0f, 0.25f, 3.0f}, {4});
  const Tensor no_features = linear(randn({2, 3, 0}), w0, b0, pack_linear_weight(w0));
  ASSERT_EQ(no_features.shape(), (Shape{2, 3, 4}));
  for (int64_t r = 0; r < 6; ++r)
    EXPECT_EQ(no_features.reshape({6, 4}).select(0, r).to_vector<float>(),
              (std::vector<float>{1.5f, -2.0f, 0.25f, 3.0f}))
        << "row " << r;
  // Recorded by autograd: the view path, the same values and the unpacked gradient.
  const Tensor xg = randn({2, 5, 37}).requires_grad_(), xu = xg.detach().requires_grad_();
  const Tensor yg = linear(xg, w, b, pack), yu = linear(xu, w, b);
  expect_same_bits(yg, yu, "3-D input that requires grad");
  yg.sum().backward();
  yu.sum().backward();
  expect_same_bits(xg.grad(), xu.grad(), "its gradient");
}

// A write through data_ptr bumps no version, so the pack still holds the old weight: the
// packed product shows it (which proves the pack is what is read), and an in-place op since
// makes the pack stale, so the product is the unpacked one again.
TEST(LinearWeightPack, IsReadUntilTheWeightsVersionMovesAndNeverAfter) {
  if (!cpu::sgemm_available()) GTEST_SKIP() << "no packed form without Ember's sgemm";
  manual_seed(2);
  const Tensor x = randn({6, 16}), b = randn({20});
  Tensor w = randn({20, 16});
  const Tensor before = linear(x, w, b);
  const LinearWeightPack pack = pack_linear_weight(w);
  w.data_ptr<float>()[0] += 1.0f;  // weight row 0: output column 0 changes
  const Tensor unpacked = linear(x, w, b), packed = linear(x, w, b, pack);
  EXPECT_NE(unpacked.to_vector<float>(), before.to_vector<float>());
  expect_same_bits(packed, before, "a pack made before a raw write");
  {
    NoGradGuard no_grad;
    w.mul_(1.0f);  // the same values, a new version
  }
  EXPECT_FALSE(pack.is_current_for(w));
  expect_same_bits(linear(x, w, b, pack), unpacked, "a stale pack");
}

TEST(LinearWeightPack, IsStaleForAnotherViewStorageOrAFreedWeight) {
  manual_seed(3);
  const Tensor w = randn({32, 32});
  const LinearWeightPack pack = pack_linear_weight(w);
  EXPECT_TRUE(pack.is_current_for(w));
  EXPECT_TRUE(pack.is_current_for(w.view({32, 32})));  // another handle of the same view
  EXPECT_FALSE(pack.is_current_for(w.t()));
  EXPECT_FALSE(pack.is_current_for(narrow(w, 0, 16, 16)));
  EXPECT_FALSE(pack.is_current_for(w.clone()));
  EXPECT_FALSE(pack.is_current_for(Tensor()));
  // A pack outlives its weight without keeping it: the weight's storage is gone, and a new
  // weight (which may get its address) is never taken for it.
  LinearWeightPack orphan = pack_linear_weight(randn({32, 32}));
  const Tensor next = randn({32, 32});
  EXPECT_FALSE(orphan.is_current_for(next));
  EXPECT_FALSE(LinearWeightPack().is_current_for(next));
  EXPECT_FALSE(LinearWeightPack().defined());
}

TEST(LinearWeightPack, BadWeightsAreErrorsAndLinearsChecksStillHold) {
  EXPECT_THROW_MSG(pack_linear_weight(randn({4})), ShapeError, "pack_linear_weight");
  EXPECT_THROW_MSG(pack_linear_weight(Tensor()), ValueError, "pack_linear_weight");
  const Tensor w = randn({5, 4});
  const LinearWeightPack pack = pack_linear_weight(w);
  EXPECT_THROW_MSG(linear(randn({3, 5}), w, Tensor(), pack), ShapeError, "shape mismatch in linear");
  // A float64 weight has no packed form; linear runs unpacked.
  const Tensor wd = randn({5, 4}, kFloat64), xd = randn({3, 4}, kFloat64);
  const LinearWeightPack dpack = pack_linear_weight(wd);
  EXPECT_FALSE(dpack.defined());
  expect_same_bits(linear(xd, wd, Tensor(), dpack).to(kFloat32), linear(xd, wd).to(kFloat32), "float64");
}

TEST(LinearPackWeight, ForwardAndGradientsAreTheUnpackedOnesAndFollowAnOptimizerStep) {
  manual_seed(4);
  nn::Linear packed(24, 40), plain(24, 40);
  {
    NoGradGuard no_grad;
    plain.weight.copy_(packed.weight);
    plain.bias.copy_(packed.bias);
  }
  packed.pack_weight();
  EXPECT_TRUE(packed.weight_packed());
  EXPECT_FALSE(plain.weight_packed());
  nn::SGD opt_packed(packed.parameters(), {0.5}), opt_plain(plain.parameters(), {0.5});
  const Tensor x = randn({10, 24});
  for (int step = 0; step < 3; ++step) {
    const Tensor xa = x.detach().requires_grad_(), xb = x.detach().requires_grad_();
    const Tensor ya = packed(xa), yb = plain(xb);
    expect_same_bits(ya.detach(), yb.detach(), "forward at step " + std::to_string(step));
    (ya * ya).sum().backward();
    (yb * yb).sum().backward();
    expect_same_bits(xa.grad(), xb.grad(), "input gradient");
    expect_same_bits(packed.weight.grad(), plain.weight.grad(), "weight gradient");
    // The step changes the weight in place: the next forward must pack it again.
    opt_packed.step();
    opt_plain.step();
    opt_packed.zero_grad();
    opt_plain.zero_grad();
  }
  packed.pack_weight(false);
  EXPECT_FALSE(packed.weight_packed());
  expect_same_bits(packed(x), plain(x), "after pack_weight(false)");
}

TEST(LinearPackWeight, PackLinearWeightsReachesEveryLinearAndLoadStateDictIsSeen) {
  manual_seed(5);
  auto first = std::make_shared<nn::Linear>(8, 16), last = std::make_shared<nn::Linear>(16, 4);
  nn::Sequential model({first, std::make_shared<nn::ReLU>(), last});
  nn::Sequential other({std::make_shared<nn::Linear>(8, 16), std::make_shared<nn::ReLU>(),
                        std::make_shared<nn::Linear>(16, 4)});
  EXPECT_EQ(nn::pack_linear_weights(model), 2);
  EXPECT_TRUE(first->weight_packed());
  EXPECT_TRUE(last->weight_packed());
  const Tensor x = randn({5, 8});
  const Tensor y = model(x);
  // New weights by load_state_dict: the packed forward gives the other model's answer.
  model.load_state_dict(other.state_dict());
  expect_same_bits(model(x), other(x), "after load_state_dict");
  EXPECT_NE(model(x).to_vector<float>(), y.to_vector<float>());
  EXPECT_EQ(nn::pack_linear_weights(model, false), 2);
  EXPECT_FALSE(first->weight_packed());
}

// Module::to moves the weight to a new storage: the packed forward runs on the new device with
// the unpacked answer, and an input left behind is still a device-mismatch error naming the
// parameter (the pack changes nothing about the checks).
TEST(LinearPackWeight, ToAnotherDeviceRepacksThereAndMismatchesAreStillNamed) {
  ember::test::EmulatedCuda emu(1);
  manual_seed(6);
  nn::Sequential model({std::make_shared<nn::Linear>(12, 20)});
  const Tensor x = randn({4, 12});
  const Tensor expected = model(x);
  nn::pack_linear_weights(model);
  model.to(Device::cuda(0));
  expect_same_bits(model(x.to(Device::cuda(0))).cpu(), expected, "on cuda:0");
  EXPECT_THROW_MSG(model(x), DeviceMismatchError,
                   "tensors on different devices: linear got input on cpu and weight (0.weight) on cuda:0");
}

namespace {

// t's values rounded to bfloat16 (and back to float32).
Tensor rounded_to_bf16(const Tensor& t) {
  std::vector<float> v = t.contiguous().to_vector<float>();
  for (float& x : v) x = cpu::from_bf16(cpu::to_bf16(x));
  return from_vector(v, t.shape());
}

}  // namespace

// A bfloat16 pack's product is that of the rounded weight and input, summed in float: the
// float64 product of the rounded values within float sums' error, and visibly not the float32
// product (the rounding happened).
TEST(LinearWeightPackBf16, IsTheProductOfTheOperandsRoundedToBfloat16) {
  if (!cpu::bf16_kernel_available(cpu::Bf16Kernel::Best)) {
    EXPECT_THROW_MSG(pack_linear_weight(randn({4, 4}), PackFormat::BFloat16), NotImplementedError,
                     "pack_linear_weight: bfloat16 weights need");
    return;
  }
  manual_seed(21);
  struct Case {
    Shape input;
    int64_t out;
  };
  for (const Case& c :
       std::vector<Case>{{{48, 128}, 96}, {{2, 5, 33}, 17}, {{1, 768}, 768}, {{300, 64}, 40}}) {
    const int64_t in = c.input.back();
    const Tensor x = randn(c.input), w = randn({c.out, in}), b = randn({c.out});
    const LinearWeightPack pack = pack_linear_weight(w, PackFormat::BFloat16);
    EXPECT_EQ(pack.format(), PackFormat::BFloat16);
    EXPECT_EQ(pack.nbytes(), (c.out + 15) / 16 * 16 * ((in + 1) / 2) * 4) << "half a float pack's bytes";
    const Tensor y = linear(x, w, b, pack);
    const Tensor want =
        linear(rounded_to_bf16(x).to(kFloat64), rounded_to_bf16(w).to(kFloat64), b.to(kFloat64)).to(kFloat32);
    EXPECT_LE(max(abs(y - want)).item<float>(), 2e-5f * float(in)) << shape_str(c.input);
    EXPECT_GT(max(abs(y - linear(x, w, b))).item<float>(), 1e-3f) << "the operands were not rounded";
  }
}

TEST(LinearWeightPackBf16, AWeightThatIsNotFloat32IsADTypeError) {
  EXPECT_THROW_MSG(pack_linear_weight(randn({3, 4}, kFloat64), PackFormat::BFloat16), DTypeError,
                   "pack_linear_weight: bfloat16 packing takes a float32 weight, got float64");
  EXPECT_STREQ(pack_format_name(PackFormat::BFloat16), "bfloat16");
  EXPECT_STREQ(pack_format_name(PackFormat::Float32), "float32");
}

TEST(LinearPackWeightBf16, ForwardReadsTheBfloat16PackAndPacksAgainAfterAStep) {
  if (!cpu::bf16_kernel_available(cpu::Bf16Kernel::Best)) GTEST_SKIP() << "no bfloat16 kernel on this CPU";
  manual_seed(22);
  nn::Linear layer(24, 40);
  const Tensor x = randn({10, 24});
  const Tensor plain = layer(x);
  layer.pack_weight(PackFormat::BFloat16);
  ASSERT_TRUE(layer.packed_format().has_value());
  EXPECT_EQ(*layer.packed_format(), PackFormat::BFloat16);
  EXPECT_TRUE(layer.weight_packed());
  expect_same_bits(
      layer(x), linear(x, layer.weight, layer.bias, pack_linear_weight(layer.weight, PackFormat::BFloat16)),
      "bfloat16 forward");
  {
    NoGradGuard no_grad;
    layer.weight.mul_(0.5f);  // a new version: the next forward packs the new weight in bfloat16
  }
  expect_same_bits(
      layer(x), linear(x, layer.weight, layer.bias, pack_linear_weight(layer.weight, PackFormat::BFloat16)),
      "after the weight changed");
  layer.pack_weight(false);
  EXPECT_FALSE(layer.packed_format().has_value());
  expect_same_bits(layer(x), linear(x, layer.weight, layer.bias), "unpacked");
  EXPECT_NE(layer(x).to_vector<float>(), plain.to_vector<float>());
}

// pack_linear_weights packs every Linear or, on an error, none.
TEST(LinearPackWeightBf16, PackLinearWeightsChangesNoLinearWhenOneCannotBePacked) {
  auto first = std::make_shared<nn::Linear>(8, 16), last = std::make_shared<nn::Linear>(16, 4);
  nn::Sequential model({first, std::make_shared<nn::ReLU>(), last});
  last->to(kFloat64);
  if (cpu::bf16_kernel_available(cpu::Bf16Kernel::Best))
    EXPECT_THROW_MSG(nn::pack_linear_weights(model, PackFormat::BFloat16), DTypeError,
                     "pack_linear_weight: bfloat16 packing takes a float32 weight");
  else
    EXPECT_THROW_MSG(nn::pack_linear_weights(model, PackFormat::BFloat16), NotImplementedError,
                     "pack_linear_weight: bfloat16 weights need");
  EXPECT_FALSE(first->weight_packed());
  EXPECT_FALSE(last->weight_packed());
  last->to(kFloat32);
  if (!cpu::bf16_kernel_available(cpu::Bf16Kernel::Best)) return;
  EXPECT_EQ(nn::pack_linear_weights(model, PackFormat::BFloat16), 2);
  EXPECT_EQ(first->packed_format(), PackFormat::BFloat16);
  EXPECT_EQ(last->packed_format(), PackFormat::BFloat16);
}
