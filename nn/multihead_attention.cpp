#include "ember/nn/multihead_attention.h"

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/ops/attention.h"
#include "ember/core/ops/dropout.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/linalg.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/softmax.h"
#include "ember/core/ops/views.h"
#include "ember/extend/check.h"
#include "ember/nn/init.h"

namespace ember::nn {
namespace {
constexpr const char* kOp = "MultiheadAttention";

int64_t checked_head_dim(int64_t embed_dim, int64_t num_heads) {
  if (embed_dim <= 0 || num_heads <= 0 || embed_dim % num_heads != 0)
    raise<ValueError>(kOp, ": embed_dim must be divisible by num_heads (got embed_dim=", embed_dim,
                      " and num_heads=", num_heads, ")");
  return embed_dim / num_heads;
}

// The most negative finite value of dtype: what the plain path puts in place of -inf scores, so
// that softmax and its gradient stay finite on a row with nothing to attend.
double lowest(DType dtype) {
  return dtype == kFloat64 ? std::numeric_limits<double>::lowest()
                           : static_cast<double>(std::numeric_limits<float>::lowest());
}

Tensor scalar_like(double value, const Tensor& like) {
  return full({}, value, TensorOptions().dtype(like.dtype()).device(like.device()));
}

// One mask in PyTorch's MultiheadAttention meaning (true = ignore, or additive), as a
// [B or 1, H or 1, L or 1, S] view.
struct Mask4d {
  Tensor t;
  bool additive = false;
};

Mask4d mask_4d(const char* name, const Tensor& m, const Shape& want2, const Shape& want3, DType dtype,
               const Shape& view2, const Shape& view3) {
  if (m.dtype() != kBool && m.dtype() != dtype)
    raise<DTypeError>(kOp, ": ", name, " must be bool or ", dtype_name(dtype), ", got ",
                      dtype_name(m.dtype()));
  if (m.requires_grad()) raise<ValueError>(kOp, ": ", name, " requires grad, but masks get no gradient");
  if (m.shape() == want2) return {reshape(m, view2), m.dtype() != kBool};
  if (!want3.empty() && m.shape() == want3) return {reshape(m, view3), m.dtype() != kBool};
  raise<ShapeError>(kOp, ": ", name, " must have shape ", shape_str(want2),
                    want3.empty() ? std::string() : " or " + shape_str(want3), ", got ",
                    shape_str(m.shape()));
}

// The masks merged for scaled_dot_product_attention: a bool "attend" mask when every mask is
// bool, an additive one otherwise (ignored positions at -inf, as PyTorch merges them).
Tensor merge_masks(const std::vector<Mask4d>& masks, const Tensor& q) {
  if (masks.empty()) return Tensor();
  bool any_additive = false;
  for (const Mask4d& m : masks) any_additive |= m.additive;
  Tensor merged;
  if (!any_additive) {
    for (const Mask4d& m : masks)
      merged = merged.defined() ? add(merged, m.t.to(kFloat32)) : m.t.to(kFloat32);
    return logical_not(gt(merged, 0.0));
  }
  const Tensor ninf = scalar_like(-std::numeric_limits<double>::infinity(), q), zero = scalar_like(0.0, q);
  for (const Mask4d& m : masks) {
    const Tensor a = m.additive ? m.t : where(m.t, ninf, zero);
    merged = merged.defined() ? add(merged, a) : a;
  }
  return merged;
}

// [B, T, E] -> [B, H, T, head_dim].
Tensor split_heads(const Tensor& x, int64_t heads) {
  return transpose(reshape(x, {x.size(0), x.size(1), heads, x.size(2) / heads}), 1, 2);
}

}  // namespace

MultiheadAttention::MultiheadAttention(int64_t embed_dim_, int64_t num_heads_, double dropout_, bool bias,
                                       bool batch_first_)
    : ForwardingModule("MultiheadAttention"),
      embed_dim(embed_dim_),
      num_heads(num_heads_),
      head_dim(checked_head_dim(embed_dim_, num_heads_)),
      dropout(dropout_),
      batch_first(batch_first_) {
  if (!(dropout >= 0.0 && dropout <= 1.0))
    raise<ValueError>(kOp, ": dropout probability has to be between 0 and 1, but got ", dropout);
  // PyTorch's _reset_parameters: xavier_uniform_ on the packed projection, zero biases.
  in_proj_weight = register_parameter("in_proj_weight", empty({3 * embed_dim, embed_dim}));
  init::xavier_uniform_(in_proj_weight);
  if (bias) in_proj_bias = register_parameter("in_proj_bias", zeros({3 * embed_dim}));
  out_proj = register_module("out_proj", std::make_shared<Linear>(embed_dim, embed_dim, bias));
  if (bias) init::zeros_(out_proj->bias);
}

std::pair<Tensor, Tensor> MultiheadAttention::forward(const Tensor& query, const Tensor& key,
                                                      const Tensor& value, const Tensor& key_padding_mask,
                                                      bool need_weights, const Tensor& attn_mask,
                                                      bool average_attn_weights, bool is_causal) {
  check_defined(kOp, {{"query", query}, {"key", key}, {"value", value}});
  check_same_device(kOp, {{"query", query},
                          {"key", key},
                          {"value", value},
                          {"key_padding_mask", key_padding_mask},
                          {"attn_mask", attn_mask},
                          {"in_proj_weight", in_proj_weight}});
  check_floating(kOp, {"query", query});
  check_same_dtype(kOp,
                   {{"query", query}, {"key", key}, {"value", value}, {"in_proj_weight", in_proj_weight}});
  const bool unbatched = query.dim() == 2;
  for (const auto& [name, t] :
       {std::pair<const char*, Tensor>{"query", query}, {"key", key}, {"value", value}})
    if (t.dim() != (unbatched ? 2 : 3) || t.size(-1) != embed_dim)
      raise<ShapeError>(kOp, ": ", name, " must have shape ",
                        unbatched     ? "[L, E]"
                        : batch_first ? "[B, L, E]"
                                      : "[L, B, E]",
                        " with E = embed_dim (", embed_dim, "), got ", shape_str(t.shape()));
  // Batch first from here on: [B, L, E].
  auto batched = [&](const Tensor& t) {
    return unbatched ? unsqueeze(t, 0) : batch_first ? t : transpose(t, 0, 1);
  };
  const Tensor q_in = batched(query), k_in = batched(key), v_in = batched(value);
  const int64_t B = q_in.size(0), L = q_in.size(1), S = k_in.size(1), E = embed_dim;
  if (k_in.size(0) != B || v_in.size(0) != B || v_in.size(1) != S)
    raise<ShapeError>(
        kOp, ": key and value must have the same batch and length, and the batch of query; got query ",
        shape_str(query.shape()), ", key ", shape_str(key.shape()), ", value ", shape_str(value.shape()));

  // Projections: one product for self-attention, three slices of the packed weight otherwise.
  auto bias_part = [&](int64_t i) {
    return in_proj_bias.defined() ? narrow(in_proj_bias, 0, i * E, E) : Tensor();
  };
  Tensor q, k, v;
  if (query.is_same(key) && key.is_same(value)) {
    const Tensor qkv = linear(q_in, in_proj_weight, in_proj_bias);
    q = narrow(qkv, 2, 0, E), k = narrow(qkv, 2, E, E), v = narrow(qkv, 2, 2 * E, E);
  } else {
    q = linear(q_in, narrow(in_proj_weight, 0, 0, E), bias_part(0));
    k = linear(k_in, narrow(in_proj_weight, 0, E, E), bias_part(1));
    v = linear(v_in, narrow(in_proj_weight, 0, 2 * E, E), bias_part(2));
  }
  q = split_heads(q, num_heads), k = split_heads(k, num_heads), v = split_heads(v, num_heads);

  std::vector<Mask4d> masks;
  if (key_padding_mask.defined())
    masks.push_back(mask_4d("key_padding_mask", key_padding_mask, unbatched ? Shape{S} : Shape{B, S}, {},
                            q.dtype(), {B, 1, 1, S}, {}));
  if (attn_mask.defined())
    masks.push_back(mask_4d("attn_mask", attn_mask, {L, S}, {B * num_heads, L, S}, q.dtype(), {1, 1, L, S},
                            {B, num_heads, L, S}));
  // is_causal alone goes to the attention as is; with other masks it joins them.
  bool causal = is_causal;
  if (is_causal && (!masks.empty() || need_weights)) {
    const TensorOptions idx = TensorOptions().dtype(kInt64).device(q.device());
    masks.push_back({reshape(gt(unsqueeze(arange(double(S), idx), 0), unsqueeze(arange(double(L), idx), 1)),
                             {1, 1, L, S}),
                     false});
    causal = false;
  }
  const Tensor mask = merge_masks(masks, q);
  const double p = is_training() ? dropout : 0.0;

  Tensor heads, weights;
  if (!need_weights) {
    heads = scaled_dot_product_attention(q, k, v, mask, p, causal);
  } else {
    // The weights are asked for: the plain path, whose probabilities are at hand.
    Tensor scores = matmul(q, transpose(k, 2, 3)) * (1.0 / std::sqrt(static_cast<double>(head_dim)));
    if (mask.defined())
      scores = mask.dtype() == kBool
                   ? where(mask, scores, scalar_like(-std::numeric_limits<double>::infinity(), q))
                   : scores + mask;
    // A row with no key to attend gives zeros, as the fused path does.
    const Tensor none_attended = eq(amax(scores, {-1}, true), -std::numeric_limits<double>::infinity());
    Tensor probs = softmax(maximum(scores, scalar_like(lowest(q.dtype()), q)), -1);
    probs = where(none_attended, scalar_like(0.0, q), probs);
    probs = ember::dropout(probs, p, p > 0.0);
    heads = matmul(probs, v);
    weights = average_attn_weights ? mean(probs, {1}) : probs;
    if (unbatched) weights = squeeze(weights, 0);
  }
  Tensor out = (*out_proj)(reshape(transpose(heads, 1, 2), {B, L, E}));
  out = unbatched ? squeeze(out, 0) : batch_first ? out : transpose(out, 0, 1);
  return {out, weights};
}

Tensor MultiheadAttention::forward(const Tensor&) {
  raise<NotImplementedError>(
      kOp, ": forward needs query, key and value (for self-attention, pass the same tensor thrice)");
}

std::string MultiheadAttention::extra_repr() const {
  return ember::detail::concat("embed_dim=", embed_dim, ", num_heads=", num_heads,
                               dropout > 0 ? ", dropout=" + detail::py_float(dropout) : std::string(),
                               batch_first ? ", batch_first=True" : "");
}

}  // namespace ember::nn
