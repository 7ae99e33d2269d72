#pragma once
// TransformerEncoderLayer and TransformerEncoder, as torch.nn's: self-attention and a
// feed-forward block, each with a residual connection and a LayerNorm, after the block
// (norm_first = false, the original Transformer and BERT) or before it (norm_first = true).
// Parameter names are PyTorch's (layers.0.self_attn.in_proj_weight, layers.0.linear1.weight,
// layers.0.norm1.weight, ..., norm.weight), so its state_dict saved as safetensors loads.
#include <memory>
#include <string>

#include "ember/nn/container.h"
#include "ember/nn/dropout.h"
#include "ember/nn/linear.h"
#include "ember/nn/module.h"
#include "ember/nn/multihead_attention.h"
#include "ember/nn/normalization.h"

namespace ember::nn {

struct TransformerEncoderLayerOptions {
  int64_t d_model = 512;
  int64_t nhead = 8;
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";  // "relu" or "gelu" (erf form)
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;
  bool bias = true;
};

class EMBER_API TransformerEncoderLayer : public ForwardingModule<TransformerEncoderLayer> {
 public:
  /// ValueError for an unknown activation, nhead not dividing d_model or a bad dropout.
  explicit TransformerEncoderLayer(const TransformerEncoderLayerOptions& options);
  TransformerEncoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward = 2048,
                          double dropout = 0.1, const std::string& activation = "relu",
                          double layer_norm_eps = 1e-5, bool batch_first = false, bool norm_first = false);

  /// src [S, B, E] ([B, S, E] with batch_first; [S, E] unbatched). src_mask and
  /// src_key_padding_mask have MultiheadAttention's meaning (true = ignore).
  Tensor forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask = Tensor(),
                 bool is_causal = false);
  /// forward(src) with no masks.
  Tensor forward(const Tensor& src) override { return forward(src, Tensor()); }
  /// A fresh layer with this one's options and a copy of its parameters (PyTorch's deepcopy,
  /// which TransformerEncoder applies to its prototype layer).
  std::shared_ptr<TransformerEncoderLayer> clone() const;

  const TransformerEncoderLayerOptions options;
  std::shared_ptr<MultiheadAttention> self_attn;
  std::shared_ptr<Linear> linear1;
  std::shared_ptr<Dropout> dropout;
  std::shared_ptr<Linear> linear2;
  std::shared_ptr<LayerNorm> norm1, norm2;
  std::shared_ptr<Dropout> dropout1, dropout2;

 private:
  Tensor self_attention_block(const Tensor& x, const Tensor& mask, const Tensor& key_padding_mask,
                              bool is_causal);
  Tensor feed_forward_block(const Tensor& x);
};

class EMBER_API TransformerEncoder : public ForwardingModule<TransformerEncoder> {
 public:
  /// num_layers copies of encoder_layer (same starting parameters, as PyTorch's deepcopy),
  /// then norm when given. ValueError for num_layers < 1.
  TransformerEncoder(const TransformerEncoderLayer& encoder_layer, int64_t num_layers,
                     std::shared_ptr<LayerNorm> norm = nullptr);

  /// As TransformerEncoderLayer::forward, through every layer, then norm.
  Tensor forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask = Tensor(),
                 bool is_causal = false);
  /// forward(src) with no masks.
  Tensor forward(const Tensor& src) override { return forward(src, Tensor()); }

  const int64_t num_layers;
  std::shared_ptr<ModuleList> layers;
  std::shared_ptr<LayerNorm> norm;  // null when none
};

}  // namespace ember::nn
