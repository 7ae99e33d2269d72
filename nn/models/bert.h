#pragma once
// BERT (Devlin et al.), an encoder with Hugging Face's BertModel's structure and parameter
// names, so that a transformers checkpoint loads as it is and Ember's loads in transformers:
//   embeddings.{word,position,token_type}_embeddings.weight, embeddings.LayerNorm.*,
//   encoder.layer.N.attention.self.{query,key,value}.*, encoder.layer.N.attention.output.dense.*,
//   encoder.layer.N.attention.output.LayerNorm.*, encoder.layer.N.intermediate.dense.*,
//   encoder.layer.N.output.dense.*, encoder.layer.N.output.LayerNorm.*, pooler.dense.*
// Post-norm layers (LayerNorm after each residual), absolute positions, no decoder parts.
// transformers' position_ids and token_type_ids buffers are not persistent, so not here.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/device.h"
#include "ember/nn/container.h"
#include "ember/nn/dropout.h"
#include "ember/nn/embedding.h"
#include "ember/nn/linear.h"
#include "ember/nn/models/bert_config.h"
#include "ember/nn/module.h"
#include "ember/nn/normalization.h"
#include "ember/nn/serialization.h"

namespace ember::nn::models {

/// The real tokens of a padded batch, packed one sequence after another (padding-free BERT,
/// as ByteTransformer): sequence b's tokens are rows [offsets[b], offsets[b + 1]) of a
/// [N, hidden] tensor. Layers compute on the N real tokens only; attention runs per sequence
/// on its true length.
struct BertPackedSequences {
  std::vector<int64_t> offsets;  // B + 1 entries, on the host
};

/// Word + position + token type embeddings, LayerNorm, dropout.
class EMBER_API BertEmbeddings : public ForwardingModule<BertEmbeddings> {
 public:
  explicit BertEmbeddings(const BertConfig& config);
  /// input_ids and token_type_ids (undefined: zeros) [B, L] -> [B, L, hidden_size].
  Tensor forward(const Tensor& input_ids, const Tensor& token_type_ids);
  Tensor forward(const Tensor& input_ids) override { return forward(input_ids, Tensor()); }
  /// Tokens at explicit positions: input_ids, token_type_ids (undefined: zeros) and
  /// position_ids of one shape (the packed path's [N]) -> [..., hidden_size].
  Tensor forward(const Tensor& input_ids, const Tensor& token_type_ids, const Tensor& position_ids);

  std::shared_ptr<Embedding> word_embeddings, position_embeddings, token_type_embeddings;
  std::shared_ptr<nn::LayerNorm> layer_norm;  // registered as "LayerNorm"
  std::shared_ptr<Dropout> dropout;

 private:
  // words + type rows + position rows (broadcast), LayerNorm, dropout.
  Tensor embed(const Tensor& input_ids, const Tensor& token_type_ids, const Tensor& position_rows);
};

/// The heads' query, key and value projections and scaled dot-product attention.
class EMBER_API BertSelfAttention : public ForwardingModule<BertSelfAttention> {
 public:
  explicit BertSelfAttention(const BertConfig& config);
  /// hidden [B, L, H]; mask: undefined or bool [B, 1, 1, L] (true = attend) -> [B, L, H].
  Tensor forward(const Tensor& hidden, const Tensor& mask);
  /// Packed tokens [N, H]: each sequence attends to its own tokens -> [N, H].
  Tensor forward(const Tensor& hidden, const BertPackedSequences& packed);
  Tensor forward(const Tensor& hidden) override { return forward(hidden, Tensor()); }

  const int64_t num_heads;
  const double dropout_p;  // on the attention weights, while training
  std::shared_ptr<Linear> query, key, value;
};

/// dense, dropout, LayerNorm(x + residual): the two blocks' outputs (BertSelfOutput, BertOutput).
class EMBER_API BertResidualOutput : public ForwardingModule<BertResidualOutput> {
 public:
  Tensor forward(const Tensor& hidden, const Tensor& residual);
  /// NotImplementedError: the block needs its residual input.
  Tensor forward(const Tensor& hidden) override;

  std::shared_ptr<Linear> dense;
  std::shared_ptr<nn::LayerNorm> layer_norm;  // registered as "LayerNorm"
  std::shared_ptr<Dropout> dropout;

 protected:
  BertResidualOutput(const char* type_name, int64_t in_features, const BertConfig& config);
};

class EMBER_API BertSelfOutput : public BertResidualOutput {
 public:
  explicit BertSelfOutput(const BertConfig& c) : BertResidualOutput("BertSelfOutput", c.hidden_size, c) {}
};

class EMBER_API BertOutput : public BertResidualOutput {
 public:
  explicit BertOutput(const BertConfig& c) : BertResidualOutput("BertOutput", c.intermediate_size, c) {}
};

/// Self-attention ("self") and its output block ("output").
class EMBER_API BertAttention : public ForwardingModule<BertAttention> {
 public:
  explicit BertAttention(const BertConfig& config);
  Tensor forward(const Tensor& hidden, const Tensor& mask);
  Tensor forward(const Tensor& hidden, const BertPackedSequences& packed);
  Tensor forward(const Tensor& hidden) override { return forward(hidden, Tensor()); }

  std::shared_ptr<BertSelfAttention> self_attention;  // registered as "self"
  std::shared_ptr<BertSelfOutput> output;
};

/// dense to intermediate_size and the config's activation.
class EMBER_API BertIntermediate : public Module {
 public:
  explicit BertIntermediate(const BertConfig& config);
  Tensor forward(const Tensor& hidden) override;

  const std::string activation;
  std::shared_ptr<Linear> dense;
};

class EMBER_API BertLayer : public ForwardingModule<BertLayer> {
 public:
  explicit BertLayer(const BertConfig& config);
  Tensor forward(const Tensor& hidden, const Tensor& mask);
  Tensor forward(const Tensor& hidden, const BertPackedSequences& packed);
  Tensor forward(const Tensor& hidden) override { return forward(hidden, Tensor()); }

  std::shared_ptr<BertAttention> attention;
  std::shared_ptr<BertIntermediate> intermediate;
  std::shared_ptr<BertOutput> output;
};

class EMBER_API BertEncoder : public ForwardingModule<BertEncoder> {
 public:
  explicit BertEncoder(const BertConfig& config);
  Tensor forward(const Tensor& hidden, const Tensor& mask);
  Tensor forward(const Tensor& hidden, const BertPackedSequences& packed);
  Tensor forward(const Tensor& hidden) override { return forward(hidden, Tensor()); }

  std::shared_ptr<ModuleList> layer;  // num_hidden_layers BertLayers, "0", "1", ...
};

/// tanh(dense(hidden[:, 0])): the [CLS] token's state.
class EMBER_API BertPooler : public Module {
 public:
  explicit BertPooler(const BertConfig& config);
  Tensor forward(const Tensor& hidden) override;

  std::shared_ptr<Linear> dense;
};

struct BertModelOutput {
  Tensor last_hidden_state;  // [B, L, hidden_size]
  Tensor pooler_output;      // [B, hidden_size]
};

class EMBER_API Bert : public ForwardingModule<Bert> {
 public:
  /// A fresh model, initialised as transformers initialises one: weights from
  /// N(0, initializer_range), biases zero, LayerNorms ones and zeros, the padding row zero.
  /// ValueError for an invalid config (BertConfig::validate).
  explicit Bert(const BertConfig& config);

  /// input_ids [B, L] (int64 or int32) with L <= max_position_embeddings; attention_mask [B, L]
  /// of 1 (attend) and 0 (padding), int64, int32, bool or floating (as transformers accepts
  /// it: any non-zero value attends), undefined for all ones;
  /// token_type_ids [B, L], undefined for zeros. As transformers' BertModel (its default SDPA
  /// attention): padded keys get no weight, and a sequence whose mask is all zeros attends to
  /// nothing, its attention outputs zeros. Dropout while training.
  ///
  /// With skip_padding on (set_skip_padding), a batch with padding computes its real tokens
  /// only (BertPackedSequences): the same states at every real position (within float
  /// rounding), zeros at the padded ones, where transformers computes states nobody reads.
  /// A batch in which some row's position 0 is padding (left padding, or a row that is all
  /// padding) is computed padded instead: the pooler reads position 0 of every row, as
  /// transformers' does, so its state there must be transformers'.
  BertModelOutput forward(const Tensor& input_ids, const Tensor& attention_mask,
                          const Tensor& token_type_ids = Tensor());
  /// NotImplementedError: Bert returns two tensors; call forward(input_ids, attention_mask,
  /// token_type_ids) (undefined tensors for the defaults).
  Tensor forward(const Tensor& input_ids) override;

  /// Reads dir/config.json and dir/model.safetensors as transformers' BertModel.from_pretrained
  /// does, the tensors with or without the "bert." prefix (BertModel's checkpoints have none,
  /// BertFor*'s have it), strictly: a missing tensor is a ValueError naming the key and the
  /// file, a shape that differs a ShapeError naming the key, the file and both shapes.
  /// F16, BF16 and F64 tensors load converted to float32. Tensors the model does not use
  /// (a classifier, the pretraining heads) are listed in one warning line on stderr, as
  /// transformers does ("Some weights of the model checkpoint at DIR were not used when
  /// initializing Bert: [...]"). The model is moved to device when one is given. With
  /// LoadMode::Map the model's tensors are the file's mapped pages (map_file), not copies.
  static std::shared_ptr<Bert> from_pretrained(const std::string& dir,
                                               std::optional<Device> device = std::nullopt,
                                               LoadMode mode = LoadMode::Read);
  /// Writes dir/config.json and dir/model.safetensors, a directory transformers'
  /// BertModel.from_pretrained loads, as a whole (io::atomic_write_dir): loaders and other
  /// savers, on any thread or process, see the old directory or the new one, never a mix, and
  /// the directory's other files (a vocab.txt) stay. (A from_pretrained running during a save
  /// may read one file of each; load once the saves are done.) dir is created when missing; a failure
  /// leaves it as it was; an existing config.json or weights file without a write bit is
  /// refused (IOError), as save_file refuses it.
  void save_pretrained(const std::string& dir) const;

  /// Whether forward skips padding (off by default: transformers' outputs at every position).
  /// The gain is the batch's share of padding: half of it for the bundled reviews at
  /// max_length 128.
  void set_skip_padding(bool on) { skip_padding_ = on; }
  bool skip_padding() const { return skip_padding_; }

  const BertConfig config;
  std::shared_ptr<BertEmbeddings> embeddings;
  std::shared_ptr<BertEncoder> encoder;
  std::shared_ptr<BertPooler> pooler;

 private:
  // The packed forward; nullopt where some row's position 0 is padding (forward's comment).
  std::optional<BertModelOutput> forward_packed(const Tensor& input_ids, const Tensor& attention_mask,
                                                const Tensor& token_type_ids);
  bool skip_padding_ = false;
};

}  // namespace ember::nn::models
