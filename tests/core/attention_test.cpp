// scaled_dot_product_attention against hand-computed numbers and a float64 reference written
// with plain ops (matmul, softmax, where), with its gradients; fully masked rows; dropout;
// the argument checks. The catalog (tests/support/op_catalog_attention.cpp) adds gradcheck,
// the mixed-device checks and the CUDA parity suite.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"
#include "support/gradcheck.h"
#include "support/threads_guard.h"

using namespace ember;
using ember::test::max_abs_diff;
using ember::test::values_near;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask = Tensor(),
            bool causal = false, std::optional<double> scale = std::nullopt) {
  return scaled_dot_product_attention(q, k, v, mask, 0.0, causal, scale);
}

// The definition, with ops: softmax(q k^T * scale + mask) v, a fully masked row zeros.
Tensor reference(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool causal,
                 std::optional<double> scale = std::nullopt) {
  const int64_t L = q.size(-2), S = k.size(-2), E = q.size(-1);
  Tensor s = matmul(q, k.transpose(-2, -1)) * (scale ? *scale : 1.0 / std::sqrt(double(E)));
  Tensor keep;
  if (causal) keep = ge(arange(double(L)).unsqueeze(1), arange(double(S)).unsqueeze(0));
  if (mask.defined() && mask.dtype() == kBool) keep = mask;
  if (mask.defined() && mask.dtype() != kBool) s = s + mask;
  if (keep.defined()) s = where(keep, s, full({}, -kInf, s.dtype()));
  const Tensor any = gt(amax(s.detach(), {-1}, true), -kInf);
  const Tensor zero = zeros({}, s.dtype());
  return matmul(where(any, softmax(where(any, s, zero), -1), zero), v);
}

bool all_finite(const Tensor& t) {
  for (double x : t.to_vector<double>())
    if (!std::isfinite(x)) return false;
  return true;
}

struct Case {
  Shape qs, ks, vs;
  Tensor mask;  // float64 when additive (converted to the case's dtype)
  bool causal = false;
};

// Output and gradients of sum(out * w) from the fused op in dtype, against the reference in
// float64 from the same values.
void expect_matches_reference(const Case& c, DType dtype, double tol) {
  manual_seed(5);
  const Tensor q0 = randn(c.qs, kFloat64), k0 = randn(c.ks, kFloat64), v0 = randn(c.vs, kFloat64);
  std::vector<Tensor> ins, refs;
  for (const Tensor& t : {q0, k0, v0}) {
    ins.push_back(t.to(dtype).clone().requires_grad_());
    refs.push_back(t.clone().requires_grad_());
  }
  Tensor mask = c.mask;
  if (mask.defined() && mask.dtype() != kBool) mask = mask.to(dtype);
  const Tensor out = sdpa(ins[0], ins[1], ins[2], mask, c.causal);
  const Tensor ref = reference(refs[0], refs[1], refs[2], c.mask, c.causal);
  ASSERT_EQ(out.shape(), ref.shape());
  EXPECT_LE(max_abs_diff(out, ref), tol);
  const Tensor w = rand(ref.shape(), kFloat64);
  (out * w.to(dtype)).sum().backward();
  (ref * w).sum().backward();
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(ins[i].grad().defined()) << "input " << i;
    EXPECT_LE(max_abs_diff(ins[i].grad(), refs[i].grad()), tol) << "gradient of input " << i;
  }
}

}  // namespace

TEST(ScaledDotProductAttention, HandComputedValues) {
  // One query [1, 0], keys [1, 0] and [0, 1], scale 1: scores 1 and 0, weights e / (e + 1)
  // and 1 / (e + 1) of the values [1, 2] and [3, 4].
  const Tensor q = tensor({{1, 0}}, kFloat32), k = tensor({{1, 0}, {0, 1}}, kFloat32),
               v = tensor({{1, 2}, {3, 4}}, kFloat32);
  const double e = std::exp(1.0), p0 = e / (e + 1), p1 = 1 / (e + 1);
  EXPECT_TRUE(values_near(sdpa(q, k, v, Tensor(), false, 1.0), {p0 * 1 + p1 * 3, p0 * 2 + p1 * 4}, {1, 2}));
  // The default scale is 1 / sqrt(2): scores 1 / sqrt(2) and 0.
  const double d = std::exp(1 / std::sqrt(2.0)), r0 = d / (d + 1), r1 = 1 / (d + 1);
  EXPECT_TRUE(values_near(sdpa(q, k, v), {r0 * 1 + r1 * 3, r0 * 2 + r1 * 4}, {1, 2}));
  // Masking the first key out leaves the second's value.
  EXPECT_TRUE(values_near(sdpa(q, k, v, tensor({0, 1}, kBool)), {3, 4}, {1, 2}));
  // An additive mask of log(e) on the second key makes the two scores (scale 1) equal.
  EXPECT_TRUE(values_near(sdpa(q, k, v, tensor({0, 1}, kFloat32), false, 1.0), {2, 3}, {1, 2}));
}

TEST(ScaledDotProductAttention, MatchesReferenceAcrossBlocks) {
  // 130 queries and 70 keys: three query blocks, and two key blocks in the backward (the forward
  // takes up to 256 keys in one), neither a multiple of 64.
  for (DType dtype : {kFloat64, kFloat32}) {
    const double tol = dtype == kFloat64 ? 1e-10 : 2e-4;
    SCOPED_TRACE(dtype_name(dtype));
    expect_matches_reference({{2, 3, 130, 8}, {2, 3, 70, 8}, {2, 3, 70, 5}, Tensor(), false}, dtype, tol);
    // Causal with L > S (top-left: rows 69 and on see every key), L == S and L < S.
    expect_matches_reference({{2, 130, 8}, {2, 70, 8}, {2, 70, 5}, Tensor(), true}, dtype, tol);
    expect_matches_reference({{2, 70, 8}, {2, 70, 8}, {2, 70, 5}, Tensor(), true}, dtype, tol);
    expect_matches_reference({{2, 70, 8}, {2, 130, 8}, {2, 130, 5}, Tensor(), true}, dtype, tol);
    // 1000 keys: eleven blocks of 96 (sequences over 512 take 96-row blocks); with 2 batch
    // entries the backward wants 4 groups of key blocks for 8 tasks, so it sums dQ in four
    // partials of three blocks each but the last. Causal 1000 x 1000 has 96-row query blocks
    // too, 40 queries one of 64.
    expect_matches_reference({{1, 2, 40, 4}, {1, 2, 1000, 4}, {1, 2, 1000, 3}, Tensor(), false}, dtype, tol);
    expect_matches_reference({{2, 1000, 4}, {2, 1000, 4}, {2, 1000, 3}, Tensor(), true}, dtype, tol);
  }
}

TEST(ScaledDotProductAttention, MasksMatchReference) {
  manual_seed(9);
  for (DType dtype : {kFloat64, kFloat32}) {
    const double tol = dtype == kFloat64 ? 1e-10 : 2e-4;
    SCOPED_TRACE(dtype_name(dtype));
    // A full bool mask, mostly attending.
    expect_matches_reference(
        {{2, 3, 130, 4}, {2, 3, 70, 4}, {2, 3, 70, 3}, lt(rand({2, 3, 130, 70}), 0.8), false}, dtype, tol);
    // A padding mask [N, 1, 1, S] and one shared by every batch [L, S].
    expect_matches_reference(
        {{2, 3, 130, 4}, {2, 3, 70, 4}, {2, 3, 70, 3}, lt(rand({2, 1, 1, 70}), 0.7), false}, dtype, tol);
    expect_matches_reference({{2, 3, 130, 4}, {2, 3, 70, 4}, {2, 3, 70, 3}, lt(rand({130, 70}), 0.5), false},
                             dtype, tol);
    // Additive: [L, S], and per head [1, H, L, 1] (broadcast over keys).
    expect_matches_reference(
        {{2, 3, 130, 4}, {2, 3, 70, 4}, {2, 3, 70, 3}, randn({130, 70}, kFloat64) * 3.0, false}, dtype, tol);
    expect_matches_reference(
        {{2, 3, 130, 4}, {2, 3, 70, 4}, {2, 3, 70, 3}, randn({1, 3, 130, 1}, kFloat64), false}, dtype, tol);
  }
}

// The float softmax's exponentials (kernels/cpu/exp_lanes.h: a row of 75 keys is 64 values
// eight vectors at a time, 8 in one vector and 3 one by one): a key masked out, or pushed
// 1000 below the others by an additive mask, weighs exactly nothing, so a value of 1e36 there
// leaves the output what the kept keys give; a NaN in a query makes its row NaN and no other.
TEST(ScaledDotProductAttention, FloatMaskedKeysWeighNothingAndNaNStaysInItsRow) {
  manual_seed(10);
  const int64_t L = 9, S = 75;
  const Tensor q = randn({1, L, 4}), k = randn({1, S, 4});
  Tensor v = randn({1, S, 3});
  std::vector<uint8_t> keep(S, 1);
  std::vector<float> add(S, 0.0f);
  for (int64_t j : {3, 40, 63, 64, 70, 74}) {
    keep[static_cast<size_t>(j)] = 0;
    add[static_cast<size_t>(j)] = -1000.0f;
  }
  {
    NoGradGuard no_grad;
    for (int64_t j = 0; j < S; ++j)
      if (!keep[static_cast<size_t>(j)]) narrow(v, 1, j, 1).fill_(1e36f);
  }
  std::vector<int64_t> kept;
  for (int64_t j = 0; j < S; ++j)
    if (keep[static_cast<size_t>(j)]) kept.push_back(j);
  const Tensor idx = from_vector(kept, {static_cast<int64_t>(kept.size())});
  const Tensor expected = sdpa(q, index_select(k, 1, idx), index_select(v, 1, idx));
  const Tensor bool_mask = from_vector(keep, {S}).to(kBool);
  for (const Tensor& mask : {bool_mask, from_vector(add, {S})}) {
    const Tensor out = sdpa(q, k, v, mask);
    ASSERT_TRUE(all_finite(out));
    EXPECT_LE(max_abs_diff(out, expected), 1e-6);
  }
  Tensor q_nan = q.clone();
  {
    NoGradGuard no_grad;
    narrow(narrow(q_nan, 1, 4, 1), 2, 1, 1).fill_(NAN);
  }
  // With the mask, without it (the forward then scales each row in its maximum's pass) and
  // causal (there the NaN query's row sees 5 keys).
  for (const auto& [mask, causal] : {std::pair{bool_mask, false}, {Tensor(), false}, {Tensor(), true}}) {
    const std::vector<float> out = sdpa(q_nan, k, v, mask, causal).to_vector<float>();
    for (int64_t i = 0; i < L; ++i)
      for (int64_t c = 0; c < 3; ++c)
        EXPECT_EQ(std::isnan(out[static_cast<size_t>(i * 3 + c)]), i == 4) << "query " << i << " value " << c
                                                                           << (mask.defined() ? " masked"
                                                                               : causal       ? " causal"
                                                                                              : "");
  }
}

// A positive scale is applied in the maximum's pass, any other before the mask as written: each
// against the definition, with 45 keys (a vector pass of 32, one of 8 and 5 left) and causal.
TEST(ScaledDotProductAttention, ScalesOfEitherSignAndZeroMatchReference) {
  manual_seed(12);
  const Tensor q = randn({2, 7, 4}, kFloat64), k = randn({2, 45, 4}, kFloat64),
               v = randn({2, 45, 3}, kFloat64);
  for (DType dtype : {kFloat32, kFloat64})
    for (double scale : {0.8, -0.8, 0.0})
      for (bool causal : {false, true}) {
        SCOPED_TRACE(std::string(dtype_name(dtype)) + " scale " + std::to_string(scale) +
                     (causal ? " causal" : ""));
        const Tensor out = sdpa(q.to(dtype), k.to(dtype), v.to(dtype), Tensor(), causal, scale);
        EXPECT_LE(max_abs_diff(out, reference(q, k, v, Tensor(), causal, scale)),
                  dtype == kFloat32 ? 2e-5 : 1e-12);
      }
}

TEST(ScaledDotProductAttention, BroadcastAndStridedInputs) {
  manual_seed(2);
  // Keys and values shared by the batch, a 2-D query for all heads.
  const Tensor q = randn({5, 4}, kFloat64), k = randn({2, 3, 6, 4}, kFloat64), v = randn({3, 6, 2}, kFloat64);
  const Tensor out = sdpa(q, k, v);
  EXPECT_EQ(out.shape(), (Shape{2, 3, 5, 2}));
  EXPECT_LE(max_abs_diff(out, reference(q, k, v, Tensor(), false)), 1e-12);
  // Heads from [N, L, H, E] through a transpose.
  const Tensor x = randn({2, 7, 3, 4}, kFloat64);
  const Tensor qt = x.transpose(1, 2);
  EXPECT_LE(max_abs_diff(sdpa(qt, qt, qt), reference(qt, qt, qt, Tensor(), false)), 1e-12);
}

// Heads split from one sequence's [1, L, H * E] by a transpose are read where they are, and
// the output comes in the same interleaved layout, so merging the heads back is a view; values
// and gradients against the definition, in both dtypes.
TEST(ScaledDotProductAttention, InterleavedHeadsAreReadInPlaceAndMergeBackAsAView) {
  manual_seed(13);
  const int64_t L = 70, H = 4, E = 8;
  for (DType dtype : {kFloat64, kFloat32}) {
    SCOPED_TRACE(dtype_name(dtype));
    const Tensor x0 = randn({1, L, H * E}, kFloat64);
    const Tensor x = x0.to(dtype).clone().requires_grad_(), ref_x = x0.clone().requires_grad_();
    auto heads = [&](const Tensor& t) { return t.reshape({1, L, H, E}).transpose(1, 2); };
    const Tensor out = sdpa(heads(x), heads(x * 0.5), heads(x));
    EXPECT_EQ(out.stride(1), E);  // head h's rows start E apart and are H * E long
    EXPECT_EQ(out.stride(2), H * E);
    const Tensor merged = out.transpose(1, 2).reshape({1, L, H * E});
    EXPECT_TRUE(merged.is_contiguous());
    const Tensor ref = reference(heads(ref_x), heads(ref_x * 0.5), heads(ref_x), Tensor(), false)
                           .transpose(1, 2)
                           .reshape({1, L, H * E});
    const double tol = dtype == kFloat64 ? 1e-10 : 2e-4;
    EXPECT_LE(max_abs_diff(merged, ref), tol);
    const Tensor w = rand(ref.shape(), kFloat64);
    (merged * w.to(dtype)).sum().backward();
    (ref * w).sum().backward();
    EXPECT_LE(max_abs_diff(x.grad(), ref_x.grad()), tol);
  }
}

// The node saves those in-place views, not copies: writing to the projection they view after
// the forward makes the backward raise, as for any saved tensor, instead of running on values
// the forward never saw.
TEST(ScaledDotProductAttention, WritingToTheViewedInputAfterTheForwardRaisesInTheBackward) {
  const Tensor x = randn({1, 6, 8}).requires_grad_();
  Tensor projected = x * 2.0;
  const Tensor q = projected.reshape({1, 6, 2, 4}).transpose(1, 2);
  const Tensor out = sdpa(q, q, q);
  {
    NoGradGuard no_grad;
    projected.add_(1.0);
  }
  EXPECT_THROW_MSG(
      out.sum().backward(), AutogradError,
      "a tensor saved for the backward of scaled_dot_product_attention was modified by an in-place");
}

TEST(ScaledDotProductAttention, FullyMaskedRowsGiveZerosAndZeroGradients) {
  for (DType dtype : {kFloat32, kFloat64}) {
    manual_seed(4);
    Tensor q = randn({2, 70, 4}, dtype).requires_grad_(), k = randn({2, 90, 4}, dtype).requires_grad_();
    Tensor v = randn({2, 90, 3}, dtype).requires_grad_();
    // Rows 3 and 66 of the first batch attend to nothing (by bool mask); row 5 of the second
    // has -inf everywhere in the additive mask.
    Tensor keep = ones({2, 70, 90}, kBool);
    keep.select(0, 0).select(0, 3).fill_(0);
    keep.select(0, 0).select(0, 66).fill_(0);
    Tensor add = zeros({2, 70, 90}, dtype);
    add.select(0, 1).select(0, 5).fill_(-kInf);
    for (const Tensor& mask : {keep, add}) {
      q.set_grad(Tensor());
      k.set_grad(Tensor());
      v.set_grad(Tensor());
      const Tensor out = sdpa(q, k, v, mask);
      (out * out).sum().backward();
      EXPECT_TRUE(all_finite(out));
      for (const Tensor& t : {q, k, v}) EXPECT_TRUE(all_finite(t.grad()));
      const std::vector<std::pair<int64_t, int64_t>> rows =
          mask.dtype() == kBool ? std::vector<std::pair<int64_t, int64_t>>{{0, 3}, {0, 66}}
                                : std::vector<std::pair<int64_t, int64_t>>{{1, 5}};
      for (auto [b, i] : rows) {
        EXPECT_TRUE(values_near(out.select(0, b).select(0, i), {0, 0, 0}, {3}, 0));
        EXPECT_TRUE(values_near(q.grad().select(0, b).select(0, i), {0, 0, 0, 0}, {4}, 0));
      }
    }
  }
  // The gradient with a fully masked row equals the reference's (zero where it is cut off).
  Tensor keep = ones({1, 5, 6}, kBool);
  keep.select(1, 2).fill_(0);
  expect_matches_reference({{1, 5, 3}, {1, 6, 3}, {1, 6, 2}, keep, false}, kFloat64, 1e-12);
  // No keys at all: zeros, and a zero query gradient.
  Tensor q = randn({2, 3, 4}).requires_grad_();
  const Tensor out = sdpa(q, zeros({2, 0, 4}), zeros({2, 0, 5}));
  EXPECT_TRUE(values_near(out, std::vector<double>(30, 0.0), {2, 3, 5}, 0));
  out.sum().backward();
  EXPECT_TRUE(values_near(q.grad(), std::vector<double>(24, 0.0), {2, 3, 4}, 0));
}

TEST(ScaledDotProductAttention, EmptyBatchOrQueries) {
  EXPECT_EQ(sdpa(zeros({0, 3, 4}), zeros({0, 5, 4}), zeros({0, 5, 2})).shape(), (Shape{0, 3, 2}));
  Tensor k = randn({2, 5, 4}).requires_grad_();
  const Tensor out = sdpa(zeros({2, 0, 4}), k, randn({2, 5, 2}));
  EXPECT_EQ(out.shape(), (Shape{2, 0, 2}));
  out.sum().backward();
  EXPECT_TRUE(values_near(k.grad(), std::vector<double>(40, 0.0), {2, 5, 4}, 0));
  // No keys: every row attends to nothing, zeros out and zero gradients.
  Tensor q = randn({2, 3, 4}).requires_grad_();
  const Tensor none = sdpa(q, zeros({2, 0, 4}), zeros({2, 0, 2}));
  EXPECT_TRUE(values_near(none, std::vector<double>(12, 0.0), {2, 3, 2}, 0));
  none.sum().backward();
  EXPECT_TRUE(values_near(q.grad(), std::vector<double>(24, 0.0), {2, 3, 4}, 0));
}

TEST(ScaledDotProductAttention, ThreadsGiveTheSameBits) {
  // Large enough that every pass splits into tasks across the pool: the forward's (batch,
  // query block) tasks and the backward's (batch, key block) and (batch, query block) ones.
  manual_seed(8);
  const Tensor q0 = randn({2, 3, 200, 32}), k0 = randn({2, 3, 300, 32}), v0 = randn({2, 3, 300, 32});
  const Tensor mask = lt(rand({2, 1, 1, 300}), 0.9), w = rand({2, 3, 200, 32});
  auto run = [&](int threads, bool causal) {
    ember::test::ThreadsGuard guard(threads);
    std::vector<Tensor> in{q0.clone().requires_grad_(), k0.clone().requires_grad_(),
                           v0.clone().requires_grad_()};
    const Tensor out = sdpa(in[0], in[1], in[2], causal ? Tensor() : mask, causal);
    (out * w).sum().backward();
    return std::vector<Tensor>{out, in[0].grad(), in[1].grad(), in[2].grad()};
  };
  for (bool causal : {false, true}) {
    const std::vector<Tensor> one = run(1, causal), four = run(4, causal);
    for (size_t i = 0; i < one.size(); ++i)
      EXPECT_EQ(one[i].to_vector<double>(), four[i].to_vector<double>())
          << "result " << i << " causal " << causal;
  }
}

TEST(ScaledDotProductAttention, Gradcheck) {
  manual_seed(1);
  using ember::test::gradcheck;
  using ember::test::leaf;
  const Tensor keep = lt(rand({2, 5, 6}), 0.7), add = randn({5, 6}, kFloat64);
  for (bool causal : {false, true}) {
    EXPECT_TRUE(
        gradcheck([&](const std::vector<Tensor>& a) { return sdpa(a[0], a[1], a[2], Tensor(), causal); },
                  {leaf({2, 5, 3}), leaf({2, 6, 3}), leaf({2, 6, 2})}));
  }
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& a) { return sdpa(a[0], a[1], a[2], keep); },
                        {leaf({2, 5, 3}), leaf({2, 6, 3}), leaf({2, 6, 2})}));
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& a) { return sdpa(a[0], a[1], a[2], add, false, 0.7); },
                        {leaf({2, 5, 3}), leaf({2, 6, 3}), leaf({2, 6, 2})}));
  // Across blocks: 66 queries, 65 keys (two blocks each), causal.
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& a) { return sdpa(a[0], a[1], a[2], Tensor(), true); },
                        {leaf({1, 66, 2}), leaf({1, 65, 2}), leaf({1, 65, 1})}));
}

TEST(ScaledDotProductAttention, DropoutDropsWeightsFromTheGenerator) {
  manual_seed(3);
  Tensor q = randn({2, 6, 4}, kFloat64).requires_grad_(), k = randn({2, 7, 4}, kFloat64);
  Tensor v = randn({2, 7, 3}, kFloat64);
  // The same draws as dropout of the weights: the reference's weights, dropped, times v.
  manual_seed(21);
  const Tensor out = scaled_dot_product_attention(q, k, v, Tensor(), 0.4, true);
  const Tensor eye = (arange(7.0).unsqueeze(1) == arange(7.0).unsqueeze(0)).to(kFloat64);
  Tensor weights;
  {
    NoGradGuard no_grad;
    weights = reference(q, k, eye, Tensor(), true);  // v = I: the output is the weights
  }
  manual_seed(21);
  const Tensor expected = matmul(dropout(weights, 0.4), v);
  EXPECT_LE(max_abs_diff(out, expected), 1e-12);
  EXPECT_GT(max_abs_diff(out, sdpa(q, k, v, Tensor(), true)), 1e-3);  // something was dropped
  out.sum().backward();
  EXPECT_TRUE(all_finite(q.grad()));
  // p = 1 drops everything; a fully masked row stays zeros with dropout too.
  EXPECT_TRUE(values_near(scaled_dot_product_attention(q, k, v, Tensor(), 1.0), std::vector<double>(36, 0.0),
                          {2, 6, 3}, 0));
  const Tensor none = zeros({2, 6, 7}, kBool);
  EXPECT_TRUE(values_near(scaled_dot_product_attention(q, k, v, none, 0.5), std::vector<double>(36, 0.0),
                          {2, 6, 3}, 0));
}

TEST(ScaledDotProductAttention, ArgumentErrors) {
  const Tensor q = zeros({2, 3, 4}), k = zeros({2, 5, 4}), v = zeros({2, 5, 6});
  EXPECT_THROW_LINE(sdpa(Tensor(), k, v), ValueError,
                    "scaled_dot_product_attention: query is an undefined tensor");
  {
    ember::test::EmulatedCuda emu(1);
    const Device gpu = Device::cuda(0);
    // Devices first: a float64 key on another device is a device error.
    EXPECT_THROW_LINE(
        sdpa(q, k.to(kFloat64).to(gpu), v), DeviceMismatchError,
        "tensors on different devices: scaled_dot_product_attention got query on cpu and key on cuda:0");
    EXPECT_THROW_LINE(
        sdpa(q.to(gpu), k.to(gpu), v), DeviceMismatchError,
        "tensors on different devices: scaled_dot_product_attention got query on cuda:0 and value on "
        "cpu");
    EXPECT_THROW_LINE(
        sdpa(q, k, v, ones({3, 5}, kBool).to(gpu)), DeviceMismatchError,
        "tensors on different devices: scaled_dot_product_attention got query on cpu and attn_mask on "
        "cuda:0");
  }
  // Then dtypes, before shapes (the key below has the wrong E too).
  EXPECT_THROW_LINE(
      sdpa(q.to(kInt64), k, v), DTypeError,
      "dtype mismatch in scaled_dot_product_attention: query must be float32 or float64, got int64");
  EXPECT_THROW_LINE(sdpa(q, zeros({2, 5, 7}, kFloat64), v), DTypeError,
                    "dtype mismatch in scaled_dot_product_attention: query is float32 but key is float64");
  EXPECT_THROW_LINE(
      sdpa(q, k, v, zeros({3, 5}, kInt64)), DTypeError,
      "dtype mismatch in scaled_dot_product_attention: attn_mask must be bool or float32, got int64");
  EXPECT_THROW_LINE(
      sdpa(q, k, v, zeros({3, 7}, kFloat64)), DTypeError,
      "dtype mismatch in scaled_dot_product_attention: attn_mask must be bool or float32, got float64");
  // Argument values.
  EXPECT_THROW_LINE(scaled_dot_product_attention(q, k, v, Tensor(), 1.5), ValueError,
                    "scaled_dot_product_attention: dropout_p must be in [0, 1], got 1.5");
  EXPECT_THROW_MSG(sdpa(q, k, v, ones({3, 5}, kBool), true), ValueError,
                   "scaled_dot_product_attention: is_causal cannot be combined with attn_mask");
  EXPECT_THROW_MSG(sdpa(q, k, v, zeros({3, 5}).requires_grad_()), ValueError,
                   "scaled_dot_product_attention: attn_mask requires grad");
  // Shapes.
  EXPECT_THROW_LINE(sdpa(zeros({4}), k, v), ShapeError,
                    "scaled_dot_product_attention: query must have at least 2 dims, got shape [4]");
  EXPECT_THROW_LINE(
      sdpa(q, zeros({2, 5, 3}), v), ShapeError,
      "shape mismatch in scaled_dot_product_attention: query [2, 3, 4] and key [2, 5, 3] differ in "
      "their last dim (E)");
  EXPECT_THROW_LINE(
      sdpa(q, k, zeros({2, 4, 6})), ShapeError,
      "shape mismatch in scaled_dot_product_attention: key [2, 5, 4] and value [2, 4, 6] differ in "
      "their number of keys (dim -2)");
  EXPECT_THROW_LINE(
      sdpa(q, zeros({3, 5, 4}), v), ShapeError,
      "shape mismatch in scaled_dot_product_attention: the batch dims of query [2, 3, 4], key [3, 5, "
      "4] and value [2, 5, 6] do not broadcast");
  EXPECT_THROW_LINE(
      sdpa(q, k, v, ones({3, 4}, kBool)), ShapeError,
      "shape mismatch in scaled_dot_product_attention: attn_mask [3, 4] does not broadcast to [2, 3, "
      "5]");
  EXPECT_THROW_LINE(
      sdpa(q, k, v, ones({1, 2, 3, 5}, kBool)), ShapeError,
      "shape mismatch in scaled_dot_product_attention: attn_mask [1, 2, 3, 5] does not broadcast to "
      "[2, 3, 5]");
}
