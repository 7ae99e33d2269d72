#pragma once
// MultiheadAttention, as torch.nn.MultiheadAttention with kdim = vdim = embed_dim: one packed
// input projection (in_proj_weight [3E, E], in_proj_bias [3E]), heads of E / num_heads, and
// out_proj (a Linear), so a PyTorch state_dict loads as it is. The heads run through
// scaled_dot_product_attention.
//
// Masks have PyTorch's MultiheadAttention meaning, the OPPOSITE of scaled_dot_product_attention's
// bool mask: here a true entry means "ignore this key" (key_padding_mask [B, S]: true at
// padding) or "this query may not attend there" (attn_mask [L, S] or [B * num_heads, L, S]);
// a floating mask is added to the scores. A query whose keys are all masked gives zeros (as
// scaled_dot_product_attention does), not NaN.
#include <memory>
#include <utility>

#include "ember/nn/linear.h"
#include "ember/nn/module.h"

namespace ember::nn {

class EMBER_API MultiheadAttention : public ForwardingModule<MultiheadAttention> {
 public:
  /// ValueError when embed_dim is not a positive multiple of num_heads or dropout is outside [0, 1].
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout = 0.0, bool bias = true,
                     bool batch_first = false);

  /// query [L, B, E] (or [B, L, E] with batch_first, or [L, E] unbatched), key and value
  /// [S, B, E] likewise. Returns the output like query and, when need_weights, the attention
  /// weights [B, L, S] (averaged over heads when average_attn_weights, else [B, H, L, S]);
  /// the second tensor is undefined otherwise. Dropout applies while training.
  /// MultiheadAttention needs query, key and value: NotImplementedError (as calling
  /// PyTorch's with one tensor is a TypeError).
  Tensor forward(const Tensor& input) override;
  std::pair<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& key_padding_mask = Tensor(), bool need_weights = false,
                                    const Tensor& attn_mask = Tensor(), bool average_attn_weights = true,
                                    bool is_causal = false);
  std::string extra_repr() const override;

  const int64_t embed_dim, num_heads, head_dim;
  const double dropout;
  const bool batch_first;
  Tensor in_proj_weight;
  Tensor in_proj_bias;  // undefined without bias
  std::shared_ptr<Linear> out_proj;
};

}  // namespace ember::nn
