#pragma once
// The text classifier's two models around one nn::models::Bert, laid out as transformers'
// BertForSequenceClassification ("bert.*", "classifier.*") and BertForMaskedLM ("bert.*",
// "cls.predictions.*"), so that their checkpoints carry transformers' names.
#include <memory>

#include "ember/ember.h"

namespace ember::examples {

/// Dropout and Linear(hidden, num_labels) on the [CLS] token's last hidden state.
class SequenceClassifier : public nn::ForwardingModule<SequenceClassifier> {
 public:
  SequenceClassifier(std::shared_ptr<nn::models::Bert> bert, int64_t num_labels);
  /// Logits [B, num_labels] of a tokenized batch.
  Tensor forward(const Tensor& input_ids, const Tensor& attention_mask, const Tensor& token_type_ids);
  /// NotImplementedError: the classifier needs the attention mask and token types.
  Tensor forward(const Tensor& input_ids) override;
  /// The [CLS] states of a batch, [B, hidden]: the classifier's input.
  Tensor cls_states(const Tensor& input_ids, const Tensor& attention_mask, const Tensor& token_type_ids);
  /// Logits from [CLS] states (the frozen mode computes the states under NoGradGuard).
  Tensor classify(const Tensor& cls);

  std::shared_ptr<nn::models::Bert> bert;
  std::shared_ptr<nn::Dropout> dropout;
  std::shared_ptr<nn::Linear> classifier;
};

/// BERT's masked-language-model head: dense, activation, LayerNorm, then scores over the
/// vocabulary through the word embeddings (tied, as transformers ties them) plus a bias.
class MaskedLanguageModel : public nn::ForwardingModule<MaskedLanguageModel> {
 public:
  explicit MaskedLanguageModel(std::shared_ptr<nn::models::Bert> bert);
  /// Scores [B, L, vocab_size].
  Tensor forward(const Tensor& input_ids, const Tensor& attention_mask, const Tensor& token_type_ids);
  /// NotImplementedError: the model needs the attention mask and token types.
  Tensor forward(const Tensor& input_ids) override;

  std::shared_ptr<nn::models::Bert> bert;
  std::shared_ptr<nn::Linear> transform_dense;          // cls.predictions.transform.dense
  std::shared_ptr<nn::LayerNorm> transform_layer_norm;  // cls.predictions.transform.LayerNorm
  Tensor bias;                                          // cls.predictions.bias
};

/// BERT's MLM corruption of a batch of ids: each real token (not [CLS]/[SEP]/[PAD]) is
/// chosen with probability 0.15; a chosen token becomes [MASK] (80%), a random id (10%) or
/// stays (10%). Returns (corrupted ids, labels: the original id where chosen, -100
/// elsewhere). Draws from the default generator.
std::pair<Tensor, Tensor> mask_tokens(const Tensor& input_ids, const Tensor& attention_mask, int64_t mask_id,
                                      int64_t cls_id, int64_t sep_id, int64_t vocab_size);

}  // namespace ember::examples
