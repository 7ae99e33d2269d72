#include "ember/nn/models/bert.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>
#include <system_error>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/io/file_io.h"
#include "ember/core/ops/attention.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/index.h"
#include "ember/core/ops/views.h"
#include "ember/extend/check.h"
#include "ember/nn/init.h"
#include "ember/nn/models/bert_packed_attention.h"
#include "ember/nn/serialization.h"

namespace ember::nn::models {
namespace {

constexpr const char* kPrefix = "bert.";

std::string path_in(const std::string& dir, const char* file) {
  return (std::filesystem::path(dir) / file).string();
}

// "['a', 'b']", as Python prints a list of strings.
std::string py_list(const std::vector<std::string>& items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", '" : "'") + items[i] + "'";
  return s + "]";
}

// transformers' _init_weights for a fresh model.
void init_like_transformers(Module& model, double std) {
  NoGradGuard no_grad;
  for (const auto& [name, m] : model.named_modules()) {
    if (auto linear = std::dynamic_pointer_cast<Linear>(m)) {
      init::normal_(linear->weight, 0.0, std);
      if (linear->bias.defined()) init::zeros_(linear->bias);
    } else if (auto emb = std::dynamic_pointer_cast<Embedding>(m)) {
      init::normal_(emb->weight, 0.0, std);
      if (emb->padding_idx) {
        Tensor row = emb->weight.select(0, *emb->padding_idx);
        init::zeros_(row);
      }
    }
  }
}

// A layer and the encoder read the same on a padded batch (Span: its key mask) and on
// packed tokens (Span: BertPackedSequences).
template <class Span>
Tensor run(BertLayer& l, const Tensor& hidden, const Span& span) {
  const Tensor a = (*l.attention)(hidden, span);
  return (*l.output)((*l.intermediate)(a), a);
}

template <class Span>
Tensor run(BertEncoder& e, const Tensor& hidden, const Span& span) {
  Tensor x = hidden;
  for (const auto& l : *e.layer) x = static_cast<BertLayer&>(*l)(x, span);
  return x;
}

// Where a padded batch's real tokens are (attention_mask != 0), read on the host.
struct TokenPlacement {
  BertPackedSequences packed;
  std::vector<int64_t> rows;       // b * L + i of each real token, sequence by sequence
  std::vector<int64_t> positions;  // i of each real token
  std::vector<int64_t> unpack;     // each of the B * L positions' packed row; N for padding
  bool first_padded = false;       // some row's position 0 is padding
};

TokenPlacement place_tokens(const Tensor& attention_mask) {
  const int64_t B = attention_mask.size(0), L = attention_mask.size(1);
  // Non-zero attends, whatever the dtype (a float mask's 0.5 too).
  const std::vector<int64_t> mask = ne(attention_mask, 0).cpu().to(kInt64).contiguous().to_vector<int64_t>();
  TokenPlacement p;
  p.packed.offsets.reserve(static_cast<size_t>(B + 1));
  p.packed.offsets.push_back(0);
  p.unpack.resize(mask.size());
  int64_t padded = 0;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t i = 0; i < L; ++i) {
      const auto at = static_cast<size_t>(b * L + i);
      if (mask[at] == 0) {
        p.unpack[at] = -1;
        ++padded;
        p.first_padded |= i == 0;
        continue;
      }
      p.unpack[at] = static_cast<int64_t>(p.rows.size());
      p.rows.push_back(b * L + i);
      p.positions.push_back(i);
    }
    p.packed.offsets.push_back(static_cast<int64_t>(p.rows.size()));
  }
  if (padded > 0)
    for (int64_t& u : p.unpack)
      if (u < 0) u = static_cast<int64_t>(p.rows.size());
  return p;
}

}  // namespace

BertEmbeddings::BertEmbeddings(const BertConfig& c) : ForwardingModule("BertEmbeddings") {
  word_embeddings = register_module("word_embeddings",
                                    std::make_shared<Embedding>(c.vocab_size, c.hidden_size, c.pad_token_id));
  position_embeddings = register_module(
      "position_embeddings", std::make_shared<Embedding>(c.max_position_embeddings, c.hidden_size));
  token_type_embeddings =
      register_module("token_type_embeddings", std::make_shared<Embedding>(c.type_vocab_size, c.hidden_size));
  layer_norm = register_module("LayerNorm", std::make_shared<nn::LayerNorm>(c.hidden_size, c.layer_norm_eps));
  dropout = register_module("dropout", std::make_shared<Dropout>(c.hidden_dropout_prob));
}

Tensor BertEmbeddings::forward(const Tensor& input_ids, const Tensor& token_type_ids) {
  check_defined("BertEmbeddings", {{"input_ids", input_ids}});
  check_ndim("BertEmbeddings", {"input_ids", input_ids}, 2);
  const int64_t length = input_ids.size(1);
  if (length > position_embeddings->num_embeddings)
    raise<ShapeError>("BertEmbeddings: input_ids has ", length,
                      " positions, more than max_position_embeddings (", position_embeddings->num_embeddings,
                      ")");
  // Positions 0 .. L - 1 are the table's first L rows: a view, broadcast over the batch, where
  // transformers gathers them (an arange, a gather and a copy; the values are the same).
  return embed(input_ids, token_type_ids, narrow(position_embeddings->weight, 0, 0, length));
}

Tensor BertEmbeddings::forward(const Tensor& input_ids, const Tensor& token_type_ids,
                               const Tensor& position_ids) {
  return embed(input_ids, token_type_ids, (*position_embeddings)(position_ids));
}

Tensor BertEmbeddings::embed(const Tensor& input_ids, const Tensor& token_type_ids,
                             const Tensor& position_rows) {
  // Absent token types are all type 0: its row, broadcast (no zeros to make and gather). In
  // transformers' order: (words + types) + positions, so the sums are the same.
  const Tensor types = token_type_ids.defined() ? (*token_type_embeddings)(token_type_ids)
                                                : token_type_embeddings->weight.select(0, 0);
  return (*dropout)(layer_norm->forward((*word_embeddings)(input_ids) + types, position_rows));
}

BertSelfAttention::BertSelfAttention(const BertConfig& c)
    : ForwardingModule("BertSelfAttention"),
      num_heads(c.num_attention_heads),
      dropout_p(c.attention_probs_dropout_prob) {
  query = register_module("query", std::make_shared<Linear>(c.hidden_size, c.hidden_size));
  key = register_module("key", std::make_shared<Linear>(c.hidden_size, c.hidden_size));
  value = register_module("value", std::make_shared<Linear>(c.hidden_size, c.hidden_size));
}

Tensor BertSelfAttention::forward(const Tensor& hidden, const Tensor& mask) {
  const int64_t B = hidden.size(0), L = hidden.size(1), H = hidden.size(2);
  // [B, L, H] -> [B, heads, L, H / heads]
  auto heads = [&](const Tensor& x) { return transpose(reshape(x, {B, L, num_heads, H / num_heads}), 1, 2); };
  const Tensor out =
      scaled_dot_product_attention(heads((*query)(hidden)), heads((*key)(hidden)), heads((*value)(hidden)),
                                   mask, is_training() ? dropout_p : 0.0);
  return reshape(transpose(out, 1, 2), {B, L, H});
}

Tensor BertSelfAttention::forward(const Tensor& hidden, const BertPackedSequences& packed) {
  return packed_self_attention((*query)(hidden), (*key)(hidden), (*value)(hidden), packed.offsets, num_heads,
                               is_training() ? dropout_p : 0.0);
}

BertResidualOutput::BertResidualOutput(const char* type_name, int64_t in_features, const BertConfig& c)
    : ForwardingModule(type_name) {
  dense = register_module("dense", std::make_shared<Linear>(in_features, c.hidden_size));
  layer_norm = register_module("LayerNorm", std::make_shared<nn::LayerNorm>(c.hidden_size, c.layer_norm_eps));
  dropout = register_module("dropout", std::make_shared<Dropout>(c.hidden_dropout_prob));
}

Tensor BertResidualOutput::forward(const Tensor& hidden, const Tensor& residual) {
  return layer_norm->forward((*dropout)((*dense)(hidden)), residual);
}

Tensor BertResidualOutput::forward(const Tensor&) {
  raise<NotImplementedError>(type_name(), ": forward needs the block's input and the residual");
}

BertAttention::BertAttention(const BertConfig& c) : ForwardingModule("BertAttention") {
  self_attention = register_module("self", std::make_shared<BertSelfAttention>(c));
  output = register_module("output", std::make_shared<BertSelfOutput>(c));
}

Tensor BertAttention::forward(const Tensor& hidden, const Tensor& mask) {
  return (*output)((*self_attention)(hidden, mask), hidden);
}

Tensor BertAttention::forward(const Tensor& hidden, const BertPackedSequences& packed) {
  return (*output)((*self_attention)(hidden, packed), hidden);
}

BertIntermediate::BertIntermediate(const BertConfig& c)
    : Module("BertIntermediate"), activation(c.hidden_act) {
  dense = register_module("dense", std::make_shared<Linear>(c.hidden_size, c.intermediate_size));
}

Tensor BertIntermediate::forward(const Tensor& hidden) {
  const Tensor h = (*dense)(hidden);
  if (activation == "relu") return relu(h);
  // gelu_new and gelu_pytorch_tanh are the tanh form; gelu the erf form.
  return gelu(h, activation == "gelu" ? "none" : "tanh");
}

BertLayer::BertLayer(const BertConfig& c) : ForwardingModule("BertLayer") {
  attention = register_module("attention", std::make_shared<BertAttention>(c));
  intermediate = register_module("intermediate", std::make_shared<BertIntermediate>(c));
  output = register_module("output", std::make_shared<BertOutput>(c));
}

Tensor BertLayer::forward(const Tensor& hidden, const Tensor& mask) { return run(*this, hidden, mask); }

Tensor BertLayer::forward(const Tensor& hidden, const BertPackedSequences& packed) {
  return run(*this, hidden, packed);
}

BertEncoder::BertEncoder(const BertConfig& c) : ForwardingModule("BertEncoder") {
  layer = register_module("layer", std::make_shared<ModuleList>());
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) layer->append(std::make_shared<BertLayer>(c));
}

Tensor BertEncoder::forward(const Tensor& hidden, const Tensor& mask) { return run(*this, hidden, mask); }

Tensor BertEncoder::forward(const Tensor& hidden, const BertPackedSequences& packed) {
  return run(*this, hidden, packed);
}

BertPooler::BertPooler(const BertConfig& c) : Module("BertPooler") {
  dense = register_module("dense", std::make_shared<Linear>(c.hidden_size, c.hidden_size));
}

Tensor BertPooler::forward(const Tensor& hidden) { return tanh((*dense)(hidden.select(1, 0))); }

Bert::Bert(const BertConfig& c) : ForwardingModule("Bert"), config((c.validate(), c)) {
  embeddings = register_module("embeddings", std::make_shared<BertEmbeddings>(config));
  encoder = register_module("encoder", std::make_shared<BertEncoder>(config));
  pooler = register_module("pooler", std::make_shared<BertPooler>(config));
  init_like_transformers(*this, config.initializer_range);
}

BertModelOutput Bert::forward(const Tensor& input_ids, const Tensor& attention_mask,
                              const Tensor& token_type_ids) {
  constexpr const char* op = "Bert";
  check_defined(op, {{"input_ids", input_ids}});
  check_same_device(op, {{"input_ids", input_ids},
                         {"attention_mask", attention_mask},
                         {"token_type_ids", token_type_ids},
                         {"embeddings.word_embeddings.weight", embeddings->word_embeddings->weight}});
  for (const auto& [name, t] :
       {std::pair<const char*, Tensor>{"input_ids", input_ids}, {"token_type_ids", token_type_ids}})
    if (t.defined() && t.dtype() != kInt64 && t.dtype() != kInt32)
      raise<DTypeError>("dtype mismatch in ", op, ": ", name, " must be int64 or int32, got ",
                        dtype_name(t.dtype()));
  if (attention_mask.defined() && attention_mask.dtype() == kUInt8)
    raise<DTypeError>("dtype mismatch in ", op,
                      ": attention_mask must be int64, int32, bool or floating, got ",
                      dtype_name(attention_mask.dtype()));
  check_ndim(op, {"input_ids", input_ids}, 2);
  for (const auto& [name, t] :
       {std::pair<const char*, Tensor>{"attention_mask", attention_mask}, {"token_type_ids", token_type_ids}})
    if (t.defined() && t.shape() != input_ids.shape())
      raise<ShapeError>(op, ": ", name, " must have input_ids' shape ", shape_str(input_ids.shape()),
                        ", got ", shape_str(t.shape()));
  // transformers (SDPA) turns the 1/0 mask into a bool mask over keys, [B, 1, 1, L]: padded
  // keys get no weight; a row with no key to attend gives zeros.
  if (skip_padding_ && attention_mask.defined())
    if (std::optional<BertModelOutput> out = forward_packed(input_ids, attention_mask, token_type_ids))
      return std::move(*out);
  Tensor mask;
  if (attention_mask.defined())
    mask = reshape(ne(attention_mask, 0), {input_ids.size(0), 1, 1, input_ids.size(1)});
  const Tensor hidden = (*encoder)((*embeddings)(input_ids, token_type_ids), mask);
  return {hidden, (*pooler)(hidden)};
}

std::optional<BertModelOutput> Bert::forward_packed(const Tensor& input_ids, const Tensor& attention_mask,
                                                    const Tensor& token_type_ids) {
  const int64_t B = input_ids.size(0), L = input_ids.size(1), H = config.hidden_size;
  const TokenPlacement p = place_tokens(attention_mask);
  if (p.first_padded) return std::nullopt;
  const auto n = static_cast<int64_t>(p.rows.size());
  if (n == B * L) {  // no padding: the padded path is the packed one, without the gathers
    const Tensor hidden = (*encoder)((*embeddings)(input_ids, token_type_ids), Tensor());
    return BertModelOutput{hidden, (*pooler)(hidden)};
  }
  const Device d = input_ids.device();
  const Tensor rows = from_vector(p.rows, {n}).to(d);
  auto gather = [&](const Tensor& t) { return index_select(t.reshape({B * L}), 0, rows); };
  const Tensor types = token_type_ids.defined() ? gather(token_type_ids) : Tensor();
  const Tensor packed =
      (*encoder)((*embeddings)(gather(input_ids), types, from_vector(p.positions, {n}).to(d)), p.packed);
  // Back to [B, L, H]: padded positions read a zero row appended after the N real ones.
  const Tensor with_zero = cat({packed, zeros({1, H}, TensorOptions(packed.dtype()).device(d))}, 0);
  const Tensor hidden = index_select(with_zero, 0, from_vector(p.unpack, {B * L}).to(d)).reshape({B, L, H});
  return BertModelOutput{hidden, (*pooler)(hidden)};
}

Tensor Bert::forward(const Tensor&) {
  raise<NotImplementedError>(
      "Bert: forward returns last_hidden_state and pooler_output; call forward(input_ids, attention_mask, "
      "token_type_ids) (undefined tensors for all-ones masks and zero token types)");
}

std::shared_ptr<Bert> Bert::from_pretrained(const std::string& dir, std::optional<Device> device,
                                            LoadMode mode) {
  const std::string file = path_in(dir, "model.safetensors");
  const BertConfig config = BertConfig::from_json_file(path_in(dir, "config.json"));  // validated
  // The weights before the model: decoding holds the file's bytes and its tensors at once, and
  // a model made first would be a third copy at that moment (3x the model at the peak, 2x now).
  const StateDict weights = mode == LoadMode::Map ? map_file(file) : load_file(file);
  auto model = std::make_shared<Bert>(config);
  const StateDict own = model->state_dict();
  // BertModel's checkpoints name "embeddings....", BertFor*'s "bert.embeddings....": the
  // prefix under which more of the model's tensors are found.
  size_t plain = 0, prefixed = 0;
  for (const auto& [key, t] : own)
    plain += weights.contains(key), prefixed += weights.contains(kPrefix + key);
  const std::string prefix = prefixed > plain ? kPrefix : "";
  StateDict picked;
  std::set<std::string> used;
  for (const auto& [key, t] : own) {
    const std::string name = prefix + key;
    if (!weights.contains(name))
      raise<ValueError>("Bert.from_pretrained: weight \"", name, "\" is missing from ", file);
    const Tensor& w = weights.at(name);
    if (w.shape() != t.shape())
      raise<ShapeError>("Bert.from_pretrained: weight \"", name, "\" in ", file, " has shape ",
                        shape_str(w.shape()), ", but the model's (from config.json) is ",
                        shape_str(t.shape()));
    if (!is_floating(w.dtype()))
      raise<DTypeError>("Bert.from_pretrained: weight \"", name, "\" in ", file, " is ",
                        dtype_name(w.dtype()), ", not a floating dtype");
    picked.insert(key, w);
    used.insert(name);
  }
  // Mapped weights are assigned, not copied: a copy would read every page in.
  model->load_state_dict(picked, true, mode == LoadMode::Map);
  // Older checkpoints store transformers' position_ids buffer (0 .. max_positions - 1), which
  // Ember computes: dropped silently, as transformers drops it.
  const auto known_leftover = [&](const std::string& key) {
    return key == prefix + "embeddings.position_ids";
  };
  std::vector<std::string> unused;
  for (const auto& [key, t] : weights)
    if (!used.count(key) && !known_leftover(key)) unused.push_back(key);
  std::sort(unused.begin(), unused.end());
  if (!unused.empty())
    std::cerr << "Some weights of the model checkpoint at " << dir
              << " were not used when initializing Bert: " << py_list(unused) << "\n";
  if (device) model->to(*device);
  return model;
}

void Bert::save_pretrained(const std::string& dir) const {
  constexpr const char* what = "Bert.save_pretrained";
  // A file the user made read-only is refused, as a single file's save refuses it. Nothing is
  // created in dir: another thread's save may be swapping it out (its removal would then fail).
  for (const char* name : {"model.safetensors", "config.json"})
    io::check_replaceable(path_in(dir, name), what);
  io::atomic_write_dir(
      dir,
      [&](const std::string& tmp) {
        save_file(state_dict(), path_in(tmp, "model.safetensors"), {{"format", "pt"}});
        config.to_json_file(path_in(tmp, "config.json"));
      },
      what);
}

}  // namespace ember::nn::models
