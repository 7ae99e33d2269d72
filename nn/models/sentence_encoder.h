#pragma once
// SentenceEncoder: a sentence-transformers model (a BERT, a Pooling module, optionally
// Normalize) read from its directory, turning texts into embedding vectors as
// SentenceTransformer.encode does: texts sorted by length and batched so that little padding is
// computed, the vectors returned in the texts' order.
//
//   auto encoder = nn::models::SentenceEncoder::from_pretrained("all-MiniLM-L6-v2");
//   Tensor e = encoder->encode({"A man is eating food.", "Someone eats."});  // [2, 384]
//   Tensor cosine = matmul(e, e.t());  // normalized vectors: dot products are cosines
//
// ready models sit above nn and data: this one uses data's BertTokenizer.
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/ops/linear_pack.h"
#include "ember/core/tensor.h"
#include "ember/data/bert_tokenizer.h"
#include "ember/nn/models/bert.h"
#include "ember/nn/models/sentence_pooling.h"

namespace ember::nn::models {

struct SentenceEncodeOptions {
  /// Texts per forward (sentence-transformers' default).
  size_t batch_size = 32;
  /// Called after each batch with the texts done so far and the total (a progress bar).
  std::function<void(size_t done, size_t total)> progress;
};

class EMBER_API SentenceEncoder {
 public:
  /// Reads a sentence-transformers directory: modules.json (a Transformer, a Pooling, an
  /// optional Normalize, in that order; a directory without modules.json is a plain BERT
  /// checkpoint, read with mean pooling as sentence-transformers does), the BERT and its
  /// tokenizer from the Transformer's folder (Bert::from_pretrained,
  /// BertTokenizer::from_pretrained), sentence_bert_config.json's max_seq_length (else the
  /// tokenizer's model_max_length, at most the model's positions) and the Pooling folder's
  /// config.json. The model is put in eval mode, moved to device when one is given, and its
  /// linear weights are packed on the CPU. ValueError naming the file for a module Ember does
  /// not have (Dense, a second Transformer, ...) or a value it cannot honour; IOError for a
  /// missing or unreadable file. LoadMode::Map maps the weights (nn::map_file): the packed
  /// linear weights' pages are given back, so the encoder holds about one copy of the model
  /// (the packs) instead of two; the file must then not change in place while it lives.
  static std::shared_ptr<SentenceEncoder> from_pretrained(const std::string& dir,
                                                          std::optional<Device> device = std::nullopt,
                                                          LoadMode mode = LoadMode::Read);

  /// A model from its parts (bert is put in eval mode and skips padding: Bert::set_skip_padding).
  /// ValueError when max_seq_length is 0.
  SentenceEncoder(std::shared_ptr<Bert> bert, data::BertTokenizer tokenizer, SentencePooling pooling,
                  bool normalize, size_t max_seq_length);

  /// The embeddings of texts: float32 [texts.size(), dimension()] on the CPU, row i for
  /// texts[i]. Each text is tokenized (truncated to max_seq_length tokens, special tokens
  /// included), the texts are sorted by token count, longest first, and run in batches padded
  /// to their longest text, without autograd. ValueError for batch_size 0 and for a text that
  /// is not UTF-8 (naming texts[i]). May run on several threads at once.
  Tensor encode(const std::vector<std::string>& texts, const SentenceEncodeOptions& options = {}) const;
  /// encode({"a", "b"}): a braced list is a list of texts (not std::string's iterator pair).
  Tensor encode(std::initializer_list<std::string> texts, const SentenceEncodeOptions& options = {}) const {
    return encode(std::vector<std::string>(texts), options);
  }
  /// One text: [dimension()].
  Tensor encode(const std::string& text) const;

  /// The length of an embedding: hidden_size times the pooling modes.
  int64_t dimension() const;
  /// Where the model's weights are.
  Device device() const;
  /// Moves the model (in place) and packs its linear weights for the device, in
  /// weight_format(). Must not run beside encode. NotImplementedError, before anything moves,
  /// for a device other than the CPU while the format is bfloat16.
  void to(Device device);
  /// The form in which the linear products read their weights on the CPU (PackFormat):
  /// Float32, the default, gives the float32 model's bits; BFloat16 rounds weights and
  /// activations to bfloat16 at the products (float sums): half the weights' memory and about
  /// twice the product rate on CPUs with AVX512_BF16, embeddings within a cosine of 0.999 of
  /// float32's. NotImplementedError (the format unchanged) for BFloat16 off the CPU or on a CPU
  /// without a bfloat16 kernel. Safe beside encode, whose batches meanwhile may compute some
  /// layers in either form.
  void set_weight_format(PackFormat format);
  PackFormat weight_format() const { return weight_format_; }

  const std::shared_ptr<Bert> bert;
  const data::BertTokenizer tokenizer;
  const SentencePooling pooling;
  /// Whether the vectors are scaled to unit length (a Normalize module).
  const bool normalize;
  /// The longest input in tokens, special tokens included.
  const size_t max_seq_length;

 private:
  PackFormat weight_format_ = PackFormat::Float32;
};

}  // namespace ember::nn::models
