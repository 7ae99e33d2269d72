#pragma once
// The text classifier's two models around one nn::models::Bert, laid out as transformers'
// BertForSequenceClassification ("bert.*", "classifier.*") and BertForMaskedLM ("bert.*",
// "cls.predictions.*"), so that their checkpoints carry transformers' names.
#include <memory>
#include <string>

#include "ember/ember.h"

namespace ember::examples {

/// How a sequence's last hidden states become the classifier's input.
enum class Pooling {
  Cls,   // the [CLS] token's state (transformers' choice)
  Mean,  // the mean over the real tokens: what a BERT pretrained without a sentence-level
         // objective (this example's masked-LM pretraining) carries sentence meaning in
};
/// "cls" or "mean"; std::invalid_argument for anything else.
Pooling parse_pooling(const std::string& name);
const char* pooling_name(Pooling p);

/// Dropout and Linear(hidden, num_labels) on the pooled last hidden states.
class SequenceClassifier : public nn::ForwardingModule<SequenceClassifier> {
 public:
  SequenceClassifier(std::shared_ptr<nn::models::Bert> bert, int64_t num_labels,
                     Pooling pooling = Pooling::Cls);
  /// Logits [B, num_labels] of a tokenized batch.
  Tensor forward(const Tensor& input_ids, const Tensor& attention_mask, const Tensor& token_type_ids);
  /// NotImplementedError: the classifier needs the attention mask and token types.
  Tensor forward(const Tensor& input_ids) override;
  /// The pooled states of a batch, [B, hidden]: the classifier's input.
  Tensor pooled_states(const Tensor& input_ids, const Tensor& attention_mask, const Tensor& token_type_ids);
  /// Logits from pooled states (the frozen mode computes the states under NoGradGuard).
  Tensor classify(const Tensor& pooled);

  const Pooling pooling;
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
  /// Scores [N, vocab_size] at N positions of the flattened batch (int64 indices into B * L):
  /// the loss needs only the masked ~15%, and the vocabulary projection is most of the work.
  Tensor scores_at(const Tensor& input_ids, const Tensor& attention_mask, const Tensor& token_type_ids,
                   const Tensor& positions);
  /// NotImplementedError: the model needs the attention mask and token types.
  Tensor forward(const Tensor& input_ids) override;

  std::shared_ptr<nn::models::Bert> bert;
  std::shared_ptr<nn::Linear> transform_dense;          // cls.predictions.transform.dense
  std::shared_ptr<nn::LayerNorm> transform_layer_norm;  // cls.predictions.transform.LayerNorm
  Tensor bias;                                          // cls.predictions.bias

 private:
  Tensor head(const Tensor& hidden);
};

/// BERT's MLM corruption of a batch of ids: each real token (not [CLS]/[SEP]/[PAD]) is
/// chosen with probability 0.15; a chosen token becomes [MASK] (80%), a random id (10%) or
/// stays (10%). Draws from the default generator.
struct MaskedBatch {
  Tensor ids;        // [B, L]: the corrupted ids
  Tensor positions;  // int64 [N]: the chosen tokens' indices into the flattened B * L
  Tensor targets;    // int64 [N]: their original ids
};
MaskedBatch mask_tokens(const Tensor& input_ids, const Tensor& attention_mask, int64_t mask_id,
                        int64_t cls_id, int64_t sep_id, int64_t vocab_size);

}  // namespace ember::examples
