#include "ember/nn/models/sentence_encoder.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <utility>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/io/json.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/views.h"
#include "ember/nn/linear.h"

namespace ember::nn::models {
namespace {

using io::json::Value;
namespace fs = std::filesystem;

constexpr const char* kOp = "SentenceEncoder.from_pretrained";

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

std::string in(const std::string& dir, const std::string& name) { return (fs::path(dir) / name).string(); }

// A module's kind from its type, by the class name that ends it: sentence-transformers 6 writes
// "sentence_transformers.base.modules.transformer.Transformer", older releases
// "sentence_transformers.models.Transformer".
std::string class_name(const std::string& type) {
  const size_t dot = type.rfind('.');
  return dot == std::string::npos ? type : type.substr(dot + 1);
}

struct Layout {
  std::string transformer, pooling;  // folders
  bool normalize = false;
};

// modules.json: Transformer, Pooling, optionally Normalize, in that order.
Layout read_modules(const std::string& dir) {
  Layout layout;
  const std::string file = in(dir, "modules.json");
  if (!exists(file)) {  // a plain transformers checkpoint: sentence-transformers adds mean pooling
    layout.transformer = dir;
    return layout;
  }
  const Value root = io::json::parse_file(file, kOp);
  if (root.type != Value::Type::Array)
    raise<ValueError>(kOp, ": ", file, " must hold a JSON array of modules, got ", io::json::describe(root));
  std::vector<std::string> kinds;
  for (const Value& m : root.items) {
    const Value* type = m.type == Value::Type::Object ? m.find("type") : nullptr;
    const Value* path = m.type == Value::Type::Object ? m.find("path") : nullptr;
    if (!type || type->type != Value::Type::String || !path || path->type != Value::Type::String)
      raise<ValueError>(kOp, ": every module in ", file, " needs a \"type\" and a \"path\" string, got ",
                        io::json::describe(m));
    const std::string kind = class_name(type->text);
    if (fs::path(path->text).is_absolute() || path->text.find("..") != std::string::npos)
      raise<ValueError>(kOp, ": the path of module ", kinds.size(), " in ", file, " must be a folder inside ",
                        dir, ", got ", io::json::quote(path->text));
    const std::string folder = path->text.empty() ? dir : in(dir, path->text);
    const size_t at = kinds.size();
    if (kind == "Transformer" && at == 0) {
      layout.transformer = folder;
    } else if (kind == "Pooling" && at == 1) {
      layout.pooling = folder;
    } else if (kind == "Normalize" && at == 2) {
      layout.normalize = true;
    } else {
      raise<ValueError>(kOp, ": module ", at, " of ", file, " is ", io::json::quote(type->text),
                        "; Ember reads a Transformer, a Pooling and an optional Normalize, in that order");
    }
    kinds.push_back(kind);
  }
  if (kinds.size() < 2) raise<ValueError>(kOp, ": ", file, " must list a Transformer and a Pooling module");
  return layout;
}

// sentence_bert_config.json's max_seq_length, when the file gives one.
std::optional<size_t> read_max_seq_length(const std::string& folder) {
  const std::string file = in(folder, "sentence_bert_config.json");
  if (!exists(file)) return std::nullopt;
  const Value root = io::json::parse_object_file(file, kOp);
  if (const Value* v = root.find("do_lower_case"); v && v->type == Value::Type::Bool && v->boolean)
    raise<ValueError>(
        kOp, ": \"do_lower_case\" true in ", file,
        " is not supported (lower-case the texts, or set do_lower_case in tokenizer_config.json)");
  const Value* v = root.find("max_seq_length");
  if (!v || v->type == Value::Type::Null) return std::nullopt;
  uint64_t n = 0;
  if (!v->as_uint64(n) || n == 0)
    raise<ValueError>(kOp, ": \"max_seq_length\" in ", file, " must be a positive integer, got ",
                      io::json::describe(*v));
  return static_cast<size_t>(n);
}

}  // namespace

std::shared_ptr<SentenceEncoder> SentenceEncoder::from_pretrained(const std::string& dir,
                                                                  std::optional<Device> device,
                                                                  LoadMode mode) {
  const Layout layout = read_modules(dir);
  data::BertTokenizer tokenizer = data::BertTokenizer::from_pretrained(layout.transformer);
  std::shared_ptr<Bert> bert = Bert::from_pretrained(layout.transformer, std::nullopt, mode);
  SentencePooling pooling;
  if (!layout.pooling.empty()) pooling = SentencePooling::from_json_file(in(layout.pooling, "config.json"));
  const size_t positions = static_cast<size_t>(bert->config.max_position_embeddings);
  const size_t max_seq_length = std::min(
      read_max_seq_length(layout.transformer).value_or(tokenizer.options().model_max_length), positions);
  auto encoder = std::make_shared<SentenceEncoder>(std::move(bert), std::move(tokenizer), std::move(pooling),
                                                   layout.normalize, max_seq_length);
  encoder->to(device.value_or(Device::cpu()));
  return encoder;
}

SentenceEncoder::SentenceEncoder(std::shared_ptr<Bert> bert_model, data::BertTokenizer tok,
                                 SentencePooling pool, bool normalize_vectors, size_t max_length)
    : bert(std::move(bert_model)),
      tokenizer(std::move(tok)),
      pooling(std::move(pool)),
      normalize(normalize_vectors),
      max_seq_length(max_length) {
  if (!bert) raise<ValueError>("SentenceEncoder: bert is null");
  if (max_seq_length == 0) raise<ValueError>("SentenceEncoder: max_seq_length must be positive");
  if (pooling.modes.empty()) raise<ValueError>("SentenceEncoder: the pooling has no mode");
  bert->eval();
  // Batches sorted by length still pad their shorter texts: computing only the real tokens was
  // 10-25 % faster for batches of 32 short sentences (bench/README.md, "Sentence encoders").
  bert->set_skip_padding(true);
}

int64_t SentenceEncoder::dimension() const {
  return bert->config.hidden_size * static_cast<int64_t>(pooling.modes.size());
}

Device SentenceEncoder::device() const { return bert->embeddings->word_embeddings->weight.device(); }

void SentenceEncoder::to(Device d) {
  if (weight_format_ == PackFormat::BFloat16 && !d.is_cpu())
    raise<NotImplementedError>(
        "SentenceEncoder::to(", d.str(),
        "): bfloat16 weights are a CPU form; set_weight_format(PackFormat::Float32) first");
  bert->to(d);
  pack_linear_weights(*bert, weight_format_);
}

void SentenceEncoder::set_weight_format(PackFormat format) {
  pack_linear_weights(*bert, format);  // all or none: an error leaves the packs as they were
  weight_format_ = format;
}

Tensor SentenceEncoder::encode(const std::string& text) const {
  return select(encode(std::vector<std::string>{text}), 0, 0);
}

Tensor SentenceEncoder::encode(const std::vector<std::string>& texts,
                               const SentenceEncodeOptions& options) const {
  if (options.batch_size == 0) raise<ValueError>("SentenceEncoder.encode: batch_size must be positive");
  NoGradGuard no_grad;
  data::EncodeOptions e;
  e.max_length = max_seq_length;
  e.padding = data::Padding::None;
  std::vector<std::vector<int64_t>> ids(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    try {
      ids[i] = tokenizer.encode(texts[i], std::nullopt, e).input_ids;
    } catch (const ValueError& err) {
      raise<ValueError>("SentenceEncoder.encode: texts[", i, "]: ", err.what());
    }
  }
  // Longest first, so that each batch pads little; ties keep the texts' order.
  std::vector<size_t> order(texts.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return ids[a].size() > ids[b].size(); });
  const int64_t dim = dimension();
  Tensor out = empty({static_cast<int64_t>(texts.size()), dim});
  auto* rows = out.data_ptr<float>();
  const Device d = device();
  for (size_t start = 0; start < order.size(); start += options.batch_size) {
    const size_t count = std::min(options.batch_size, order.size() - start);
    const size_t width = ids[order[start]].size();
    std::vector<int64_t> batch(count * width, tokenizer.pad_token_id()), mask(count * width, 0);
    bool padded = false;
    for (size_t r = 0; r < count; ++r) {
      const std::vector<int64_t>& row = ids[order[start + r]];
      std::copy(row.begin(), row.end(), batch.begin() + static_cast<std::ptrdiff_t>(r * width));
      std::fill_n(mask.begin() + static_cast<std::ptrdiff_t>(r * width), row.size(), 1);
      padded |= row.size() < width;
    }
    const Shape shape{static_cast<int64_t>(count), static_cast<int64_t>(width)};
    const Tensor input_ids = from_vector(batch, shape).to(d);
    const Tensor attention_mask = from_vector(mask, shape).to(d);
    // An unpadded batch needs no mask in attention (every key is real).
    const Tensor hidden = bert->forward(input_ids, padded ? attention_mask : Tensor()).last_hidden_state;
    Tensor vectors = pooling(hidden, attention_mask);
    if (normalize) vectors = vectors / maximum(sqrt(sum(vectors * vectors, {1}, true)), 1e-12);
    const Tensor host = vectors.to(kFloat32).cpu().contiguous();
    const float* src = host.data_ptr<float>();
    for (size_t r = 0; r < count; ++r)
      std::memcpy(rows + order[start + r] * static_cast<size_t>(dim), src + r * static_cast<size_t>(dim),
                  sizeof(float) * static_cast<size_t>(dim));
    if (options.progress) options.progress(start + count, order.size());
  }
  return out;
}

}  // namespace ember::nn::models
