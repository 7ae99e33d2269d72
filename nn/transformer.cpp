#include "ember/nn/transformer.h"

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"

namespace ember::nn {
namespace {

const TransformerEncoderLayerOptions& checked(const TransformerEncoderLayerOptions& o) {
  if (o.activation != "relu" && o.activation != "gelu")
    raise<ValueError>("TransformerEncoderLayer: activation should be relu/gelu, not ", o.activation);
  return o;
}

TransformerEncoderLayerOptions options_of(int64_t d_model, int64_t nhead, int64_t dim_feedforward,
                                          double dropout, const std::string& activation,
                                          double layer_norm_eps, bool batch_first, bool norm_first) {
  TransformerEncoderLayerOptions o;
  o.d_model = d_model, o.nhead = nhead, o.dim_feedforward = dim_feedforward, o.dropout = dropout;
  o.activation = activation, o.layer_norm_eps = layer_norm_eps, o.batch_first = batch_first;
  o.norm_first = norm_first;
  return o;
}

}  // namespace

TransformerEncoderLayer::TransformerEncoderLayer(const TransformerEncoderLayerOptions& o)
    : ForwardingModule("TransformerEncoderLayer"), options(checked(o)) {
  self_attn = register_module("self_attn", std::make_shared<MultiheadAttention>(o.d_model, o.nhead, o.dropout,
                                                                                o.bias, o.batch_first));
  linear1 = register_module("linear1", std::make_shared<Linear>(o.d_model, o.dim_feedforward, o.bias));
  dropout = register_module("dropout", std::make_shared<Dropout>(o.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(o.dim_feedforward, o.d_model, o.bias));
  norm1 =
      register_module("norm1", std::make_shared<LayerNorm>(Shape{o.d_model}, o.layer_norm_eps, true, o.bias));
  norm2 =
      register_module("norm2", std::make_shared<LayerNorm>(Shape{o.d_model}, o.layer_norm_eps, true, o.bias));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(o.dropout));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(o.dropout));
}

TransformerEncoderLayer::TransformerEncoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward,
                                                 double dropout_p, const std::string& activation,
                                                 double layer_norm_eps, bool batch_first, bool norm_first)
    : TransformerEncoderLayer(options_of(d_model, nhead, dim_feedforward, dropout_p, activation,
                                         layer_norm_eps, batch_first, norm_first)) {}

Tensor TransformerEncoderLayer::self_attention_block(const Tensor& x, const Tensor& mask,
                                                     const Tensor& key_padding_mask, bool is_causal) {
  return (*dropout1)((*self_attn)(x, x, x, key_padding_mask, false, mask, true, is_causal).first);
}

Tensor TransformerEncoderLayer::feed_forward_block(const Tensor& x) {
  const Tensor h = (*linear1)(x);
  return (*dropout2)((*linear2)((*dropout)(options.activation == "gelu" ? gelu(h) : relu(h))));
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& src_mask,
                                        const Tensor& src_key_padding_mask, bool is_causal) {
  Tensor x = src;
  if (options.norm_first) {
    x = x + self_attention_block((*norm1)(x), src_mask, src_key_padding_mask, is_causal);
    return x + feed_forward_block((*norm2)(x));
  }
  x = (*norm1)(x + self_attention_block(x, src_mask, src_key_padding_mask, is_causal));
  return (*norm2)(x + feed_forward_block(x));
}

std::shared_ptr<TransformerEncoderLayer> TransformerEncoderLayer::clone() const {
  auto copy = std::make_shared<TransformerEncoderLayer>(options);
  copy->load_state_dict(state_dict());
  copy->train(is_training());
  return copy;
}

TransformerEncoder::TransformerEncoder(const TransformerEncoderLayer& encoder_layer, int64_t num_layers_,
                                       std::shared_ptr<LayerNorm> norm_)
    : ForwardingModule("TransformerEncoder"), num_layers(num_layers_) {
  if (num_layers < 1)
    raise<ValueError>("TransformerEncoder: num_layers must be at least 1, got ", num_layers);
  layers = register_module("layers", std::make_shared<ModuleList>());
  for (int64_t i = 0; i < num_layers; ++i) layers->append(encoder_layer.clone());
  if (norm_) norm = register_module("norm", std::move(norm_));
}

Tensor TransformerEncoder::forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask,
                                   bool is_causal) {
  Tensor x = src;
  for (const auto& layer : *layers)
    x = static_cast<TransformerEncoderLayer&>(*layer)(x, mask, src_key_padding_mask, is_causal);
  return norm ? (*norm)(x) : x;
}

}  // namespace ember::nn
