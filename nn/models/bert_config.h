#pragma once
// BertConfig: the hyperparameters of a BERT encoder as a Hugging Face config.json holds them
// (transformers' BertConfig, its defaults for keys a file leaves out). Reading is strict about
// what Ember would otherwise have to guess: a value of the wrong type or out of range, an
// activation Ember does not have, another model_type or position_embedding_type, a decoder
// (is_decoder, add_cross_attention) are ValueErrors naming the key and the file. Keys that
// do not change the encoder's numbers (architectures, id2label, torch_dtype, ...) are ignored,
// as transformers keeps them aside.
#include <cstdint>
#include <optional>
#include <string>

#include "ember/core/export.h"

namespace ember::nn::models {

/// The most parameters a BertConfig may describe (2^34: 64 GiB as float32); BERT-large has
/// 3.4e8. validate() refuses more, so that a hostile config fails at once.
constexpr int64_t kMaxBertParameters = int64_t(1) << 34;

struct EMBER_API BertConfig {
  int64_t vocab_size = 30522;
  int64_t hidden_size = 768;
  int64_t num_hidden_layers = 12;
  int64_t num_attention_heads = 12;
  int64_t intermediate_size = 3072;
  std::string hidden_act = "gelu";  // "gelu" (erf), "gelu_new" / "gelu_pytorch_tanh" (tanh form), "relu"
  double hidden_dropout_prob = 0.1;
  double attention_probs_dropout_prob = 0.1;
  int64_t max_position_embeddings = 512;
  int64_t type_vocab_size = 2;
  double initializer_range = 0.02;  // std of the normal initialisation of a fresh model
  double layer_norm_eps = 1e-12;
  std::optional<int64_t> pad_token_id = 0;  // the word embedding row that gets no gradient

  /// Parses config.json's text; source names it in errors (the file's path). ValueError
  /// "BertConfig: ..." naming the key and source; IOError for text that is not JSON.
  static BertConfig from_json(const std::string& text, const std::string& source = "config.json");
  /// Reads and parses the file at path.
  static BertConfig from_json_file(const std::string& path);
  /// Checks the values (as from_json does); source names them in errors.
  void validate(const std::string& source = "BertConfig") const;
  /// The config.json text transformers' BertConfig.from_pretrained reads (model_type "bert",
  /// architectures ["BertModel"], position_embedding_type "absolute").
  std::string to_json() const;
  /// Writes to_json() to path atomically (a temporary file beside it, then a rename).
  void to_json_file(const std::string& path) const;
};

}  // namespace ember::nn::models
