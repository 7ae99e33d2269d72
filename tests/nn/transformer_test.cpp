// MultiheadAttention and the transformer encoder: PyTorch's parameter names, masks with
// PyTorch's MultiheadAttention meaning (true = ignore), the weights path against the fused
// one, batch_first and sequence-first layouts, and typed errors for bad arguments. Outputs and
// gradients against PyTorch itself are in transformer_parity_test.cpp.
#include <gtest/gtest.h>

#include <limits>

#include "support/expect.h"

using namespace ember;
using ember::test::max_abs_diff;

namespace {
std::vector<std::string> names_of(const nn::Module& m) {
  std::vector<std::string> out;
  for (const auto& p : m.named_parameters()) out.push_back(p.first);
  return out;
}

}  // namespace

TEST(MultiheadAttention, ParametersHavePyTorchsNamesAndShapes) {
  nn::MultiheadAttention mha(8, 2);
  EXPECT_EQ(names_of(mha),
            (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}));
  EXPECT_EQ(mha.in_proj_weight.shape(), (Shape{24, 8}));
  EXPECT_EQ(sum(abs(mha.in_proj_bias)).item<double>(), 0.0);
  EXPECT_EQ(sum(abs(mha.out_proj->bias)).item<double>(), 0.0);
  EXPECT_EQ(mha.head_dim, 4);
}

TEST(MultiheadAttention, KeyPaddingMaskIgnoresKeysAndTheWeightsPathAgrees) {
  manual_seed(7);
  nn::MultiheadAttention mha(8, 2, 0.0, true, /*batch_first=*/true);
  const Tensor x = randn({2, 5, 8});
  Tensor pad = zeros({2, 5}, kBool);
  pad.select(0, 1).narrow(0, 3, 2).fill_(1.0);  // batch 1: keys 3 and 4 are padding
  const auto [fused, none] = mha(x, x, x, pad);
  EXPECT_FALSE(none.defined());
  const auto [plain, weights] = mha(x, x, x, pad, /*need_weights=*/true);
  EXPECT_LT(max_abs_diff(fused, plain), 1e-5);
  ASSERT_EQ(weights.shape(), (Shape{2, 5, 5}));
  // No weight on padded keys; every row sums to 1.
  EXPECT_EQ(sum(weights.select(0, 1).narrow(1, 3, 2)).item<double>(), 0.0);
  EXPECT_LT(max_abs_diff(sum(weights, {-1}), ones({2, 5})), 1e-6);
  // Changing a padded position's values changes nothing in batch 1.
  Tensor x2 = x.clone();
  {
    NoGradGuard no_grad;
    x2.select(0, 1).select(0, 4).fill_(100.0);
  }
  const Tensor out2 = mha(x2, x2, x2, pad).first;
  EXPECT_LT(max_abs_diff(out2.select(0, 1).narrow(0, 0, 4), fused.select(0, 1).narrow(0, 0, 4)), 1e-5);
}

TEST(MultiheadAttention, SequenceFirstAndBatchFirstGiveTheSameAndAFullyMaskedRowIsZero) {
  manual_seed(3);
  nn::MultiheadAttention seq_first(4, 1), batch_first(4, 1, 0.0, true, true);
  batch_first.load_state_dict(seq_first.state_dict());
  const Tensor x = randn({3, 2, 4});  // [L, B, E]
  const Tensor a = seq_first(x, x, x).first,
               b = batch_first(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1)).first;
  EXPECT_LT(max_abs_diff(a, b.transpose(0, 1)), 1e-6);
  // Query 0 may attend nowhere: its attention is zero, so its output is out_proj's bias (0).
  Tensor attn_mask = zeros({3, 3}, kBool);
  attn_mask.select(0, 0).fill_(1.0);
  const Tensor xg = x.detach().requires_grad_(true);
  const Tensor out = seq_first(xg, xg, xg, Tensor(), false, attn_mask).first;
  EXPECT_EQ(sum(abs(out.select(0, 0))).item<double>(), 0.0);
  sum(out).backward();
  EXPECT_TRUE(std::isfinite(sum(xg.grad()).item<double>()));
}

TEST(MultiheadAttention, BadArgumentsAreTypedErrors) {
  EXPECT_THROW_LINE(
      nn::MultiheadAttention(10, 3), ValueError,
      "MultiheadAttention: embed_dim must be divisible by num_heads (got embed_dim=10 and num_heads=3)");
  nn::MultiheadAttention mha(4, 2, 0.0, true, true);
  const Tensor x = randn({2, 3, 4});
  EXPECT_THROW_MSG(mha(x, x, x, zeros({2, 3}, kInt64)), DTypeError,
                   "MultiheadAttention: key_padding_mask must be bool or float32, got int64");
  EXPECT_THROW_MSG(mha(x, x, x, zeros({3, 2}, kBool)), ShapeError,
                   "MultiheadAttention: key_padding_mask must have shape [2, 3], got [3, 2]");
  EXPECT_THROW_MSG(mha(x, x, x, Tensor(), false, zeros({3, 4}, kBool)), ShapeError,
                   "MultiheadAttention: attn_mask must have shape [3, 3] or [4, 3, 3], got [3, 4]");
  EXPECT_THROW_MSG(mha(randn({2, 3, 5}), x, x), ShapeError,
                   "MultiheadAttention: query must have shape [B, L, E]");
}

TEST(TransformerEncoder, LayersAreCopiesNamedAsPyTorchsAndBadOptionsAreErrors) {
  nn::TransformerEncoderLayerOptions o;
  o.d_model = 8, o.nhead = 2, o.dim_feedforward = 16, o.batch_first = true;
  nn::TransformerEncoderLayer proto(o);
  nn::TransformerEncoder enc(proto, 2, std::make_shared<nn::LayerNorm>(8));
  const auto names = names_of(enc);
  EXPECT_EQ(names.front(), "layers.0.self_attn.in_proj_weight");
  EXPECT_EQ(names.back(), "norm.bias");
  EXPECT_EQ(names.size(), 2u * 12u + 2u);
  // Both copies start from the prototype's parameters, as PyTorch's deepcopy.
  EXPECT_EQ(max_abs_diff(enc.parameter("layers.1.linear1.weight"), proto.linear1->weight), 0.0);
  EXPECT_FALSE(enc.parameter("layers.1.linear1.weight").is_same(proto.linear1->weight));
  o.activation = "swish";
  EXPECT_THROW_LINE(nn::TransformerEncoderLayer{o}, ValueError,
                    "TransformerEncoderLayer: activation should be relu/gelu, not swish");
  o.activation = "gelu", o.nhead = 3;
  EXPECT_THROW_MSG(nn::TransformerEncoderLayer{o}, ValueError,
                   "MultiheadAttention: embed_dim must be divisible");
  EXPECT_THROW_LINE(nn::TransformerEncoder(proto, 0), ValueError,
                    "TransformerEncoder: num_layers must be at least 1, got 0");
}

TEST(TransformerEncoder, NormFirstAndPostNormRunAndTrainOnBothLayouts) {
  for (bool norm_first : {false, true}) {
    nn::TransformerEncoderLayer layer(8, 2, 16, 0.0, "gelu", 1e-5, /*batch_first=*/false, norm_first);
    nn::TransformerEncoder enc(layer, 2);
    const Tensor x = randn({5, 3, 8});  // [S, B, E]
    Tensor pad = zeros({3, 5}, kBool);
    pad.select(0, 2).narrow(0, 4, 1).fill_(1.0);
    const Tensor y = enc(x, Tensor(), pad);
    EXPECT_EQ(y.shape(), (Shape{5, 3, 8}));
    sum(y * y).backward();
    for (const auto& [name, p] : enc.named_parameters())
      EXPECT_TRUE(p.grad().defined()) << name << (norm_first ? " (norm_first)" : "");
  }
}
