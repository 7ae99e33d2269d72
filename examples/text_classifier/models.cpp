#include "models.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace ember::examples {

Pooling parse_pooling(const std::string& name) {
  if (name == "cls") return Pooling::Cls;
  if (name == "mean") return Pooling::Mean;
  throw std::invalid_argument("--pooling must be cls or mean, got \"" + name + "\"");
}

const char* pooling_name(Pooling p) { return p == Pooling::Cls ? "cls" : "mean"; }

SequenceClassifier::SequenceClassifier(std::shared_ptr<nn::models::Bert> b, int64_t num_labels, Pooling p)
    : ForwardingModule("SequenceClassifier"), pooling(p) {
  const nn::models::BertConfig& c = b->config;
  bert = register_module("bert", std::move(b));
  dropout = register_module("dropout", std::make_shared<nn::Dropout>(c.hidden_dropout_prob));
  classifier = register_module("classifier", std::make_shared<nn::Linear>(c.hidden_size, num_labels));
  // transformers' initialisation of a new head: N(0, initializer_range), zero bias.
  NoGradGuard no_grad;
  normal_(classifier->weight, 0.0, c.initializer_range);
  classifier->bias.zero_();
}

Tensor SequenceClassifier::pooled_states(const Tensor& input_ids, const Tensor& attention_mask,
                                         const Tensor& token_type_ids) {
  const Tensor hidden = (*bert)(input_ids, attention_mask, token_type_ids).last_hidden_state;
  if (pooling == Pooling::Cls) return hidden.select(1, 0);
  // Padding's states are not zero: weigh each position by its mask, divide by the count.
  const Tensor weight = attention_mask.defined() ? attention_mask.to(hidden.dtype()).unsqueeze(2)
                                                 : ones({hidden.size(0), hidden.size(1), 1}, hidden.device());
  return (hidden * weight).sum({1}) / weight.sum({1});
}

Tensor SequenceClassifier::classify(const Tensor& pooled) {
  return classifier->forward(dropout->forward(pooled));
}

Tensor SequenceClassifier::forward(const Tensor& input_ids, const Tensor& attention_mask,
                                   const Tensor& token_type_ids) {
  return classify(pooled_states(input_ids, attention_mask, token_type_ids));
}

Tensor SequenceClassifier::forward(const Tensor&) {
  raise<NotImplementedError>("SequenceClassifier: call forward(input_ids, attention_mask, token_type_ids)");
}

MaskedLanguageModel::MaskedLanguageModel(std::shared_ptr<nn::models::Bert> b)
    : ForwardingModule("BertForMaskedLM") {
  const nn::models::BertConfig& c = b->config;
  bert = register_module("bert", std::move(b));
  auto cls = std::make_shared<nn::Module>("BertOnlyMLMHead");
  auto predictions = std::make_shared<nn::Module>("BertLMPredictionHead");
  auto transform = std::make_shared<nn::Module>("BertPredictionHeadTransform");
  transform_dense =
      transform->register_module("dense", std::make_shared<nn::Linear>(c.hidden_size, c.hidden_size));
  transform_layer_norm = transform->register_module(
      "LayerNorm", std::make_shared<nn::LayerNorm>(Shape{c.hidden_size}, c.layer_norm_eps));
  predictions->register_module("transform", transform);
  bias = predictions->register_parameter("bias", zeros({c.vocab_size}));
  cls->register_module("predictions", predictions);
  register_module("cls", cls);
  NoGradGuard no_grad;
  normal_(transform_dense->weight, 0.0, c.initializer_range);
  transform_dense->bias.zero_();
}

Tensor MaskedLanguageModel::head(const Tensor& hidden) {
  Tensor h = transform_dense->forward(hidden);
  const std::string& act = bert->config.hidden_act;
  h = act == "relu" ? relu(h) : gelu(h, act == "gelu" ? "none" : "tanh");
  h = transform_layer_norm->forward(h);
  // The decoder is the word embedding table, transposed (tied weights).
  return matmul(h, bert->embeddings->word_embeddings->weight.t()) + bias;
}

Tensor MaskedLanguageModel::forward(const Tensor& input_ids, const Tensor& attention_mask,
                                    const Tensor& token_type_ids) {
  return head((*bert)(input_ids, attention_mask, token_type_ids).last_hidden_state);
}

Tensor MaskedLanguageModel::scores_at(const Tensor& input_ids, const Tensor& attention_mask,
                                      const Tensor& token_type_ids, const Tensor& positions) {
  const Tensor hidden = (*bert)(input_ids, attention_mask, token_type_ids).last_hidden_state;
  return head(index_select(hidden.reshape({-1, hidden.size(2)}), 0, positions));
}

Tensor MaskedLanguageModel::forward(const Tensor&) {
  raise<NotImplementedError>("MaskedLanguageModel: call forward(input_ids, attention_mask, token_type_ids)");
}

MaskedBatch mask_tokens(const Tensor& input_ids, const Tensor& attention_mask, int64_t mask_id,
                        int64_t cls_id, int64_t sep_id, int64_t vocab_size) {
  const Tensor ids_cpu = input_ids.cpu().contiguous();
  std::vector<int64_t> ids = ids_cpu.to_vector<int64_t>();
  const std::vector<int64_t> mask = attention_mask.cpu().to_vector<int64_t>();
  // Three uniforms per token: chosen?, which replacement, the random id.
  const std::vector<float> u = rand({input_ids.numel(), 3}).to_vector<float>();
  std::vector<int64_t> positions, targets;
  for (size_t i = 0; i < ids.size(); ++i) {
    const bool special = mask[i] == 0 || ids[i] == cls_id || ids[i] == sep_id;
    if (special || u[3 * i] >= 0.15f) continue;
    positions.push_back(static_cast<int64_t>(i));
    targets.push_back(ids[i]);
    const float how = u[3 * i + 1];
    if (how < 0.8f)
      ids[i] = mask_id;
    else if (how < 0.9f)
      ids[i] = std::min<int64_t>(vocab_size - 1,
                                 static_cast<int64_t>(u[3 * i + 2] * static_cast<float>(vocab_size)));
  }
  const Device d = input_ids.device();
  const auto n = static_cast<int64_t>(positions.size());
  return {from_vector(ids, input_ids.shape()).to(d), from_vector(positions, {n}).to(d),
          from_vector(targets, {n}).to(d)};
}

}  // namespace ember::examples
