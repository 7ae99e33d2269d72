#include "ember/nn/models/bert_config.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "ember/core/error.h"
#include "ember/core/io/file_io.h"
#include "ember/core/io/json.h"
#include "ember/nn/module.h"

namespace ember::nn::models {
namespace {

using io::json::Value;

const char* const kActivations[] = {"gelu", "gelu_new", "gelu_pytorch_tanh", "relu"};

[[noreturn]] void bad(const std::string& key, const std::string& source, const std::string& want,
                      const std::string& got) {
  raise<ValueError>("BertConfig: \"", key, "\" in ", source, " must be ", want, ", got ", got);
}

// A JSON number written as an integer (no fraction or exponent) that fits in int64.
bool as_int64(const Value& v, int64_t& out) {
  if (v.type != Value::Type::Number || v.text.find_first_of(".eE") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  const long long n = std::strtoll(v.text.c_str(), &end, 10);
  if (errno || *end) return false;
  out = n;
  return true;
}

int64_t read_int(const Value& v, const std::string& key, const std::string& source, int64_t min) {
  int64_t n = 0;
  const std::string want = min == 0 ? "a non-negative integer" : "a positive integer";
  if (!as_int64(v, n)) bad(key, source, want, io::json::describe(v));
  if (n < min) bad(key, source, want, io::json::describe(v));
  return n;
}

double read_number(const Value& v, const std::string& key, const std::string& source) {
  if (v.type != Value::Type::Number) bad(key, source, "a number", io::json::describe(v));
  return std::strtod(v.text.c_str(), nullptr);
}

void check_probability(double p, const std::string& key, const std::string& source) {
  if (!(p >= 0.0 && p <= 1.0)) bad(key, source, "a probability in [0, 1]", detail::py_float(p));
}

}  // namespace

BertConfig BertConfig::from_json(const std::string& text, const std::string& source) {
  Value root;
  try {
    root = io::json::parse(text);
  } catch (const IOError& e) {
    raise<IOError>("BertConfig: ", source, " is not valid JSON: ", e.what());
  }
  if (root.type != Value::Type::Object)
    raise<ValueError>("BertConfig: ", source, " must hold a JSON object, got ", io::json::describe(root));
  BertConfig c;
  for (const auto& [key, v] : root.members) {
    if (key == "vocab_size") {
      c.vocab_size = read_int(v, key, source, 1);
    } else if (key == "hidden_size") {
      c.hidden_size = read_int(v, key, source, 1);
    } else if (key == "num_hidden_layers") {
      c.num_hidden_layers = read_int(v, key, source, 0);
    } else if (key == "num_attention_heads") {
      c.num_attention_heads = read_int(v, key, source, 1);
    } else if (key == "intermediate_size") {
      c.intermediate_size = read_int(v, key, source, 1);
    } else if (key == "max_position_embeddings") {
      c.max_position_embeddings = read_int(v, key, source, 1);
    } else if (key == "type_vocab_size") {
      c.type_vocab_size = read_int(v, key, source, 1);
    } else if (key == "hidden_act") {
      if (v.type != Value::Type::String) bad(key, source, "a string", io::json::describe(v));
      c.hidden_act = v.text;
    } else if (key == "hidden_dropout_prob") {
      c.hidden_dropout_prob = read_number(v, key, source);
    } else if (key == "attention_probs_dropout_prob") {
      c.attention_probs_dropout_prob = read_number(v, key, source);
    } else if (key == "initializer_range") {
      c.initializer_range = read_number(v, key, source);
    } else if (key == "layer_norm_eps") {
      c.layer_norm_eps = read_number(v, key, source);
    } else if (key == "pad_token_id") {
      int64_t id = 0;
      if (v.type == Value::Type::Null) {
        c.pad_token_id.reset();
      } else if (as_int64(v, id)) {
        c.pad_token_id = id;
      } else {
        bad(key, source, "an integer or null", io::json::describe(v));
      }
    } else if (key == "model_type") {
      if (v.type != Value::Type::String || v.text != "bert")
        bad(key, source, "\"bert\" (the only model Ember's Bert reads)", io::json::describe(v));
    } else if (key == "position_embedding_type") {
      if (v.type != Value::Type::String || v.text != "absolute")
        bad(key, source, "\"absolute\" (relative position embeddings are not supported)",
            io::json::describe(v));
    } else if (key == "is_decoder" || key == "add_cross_attention") {
      if (v.type != Value::Type::Bool) bad(key, source, "a boolean", io::json::describe(v));
      if (v.boolean) bad(key, source, "false (Ember's Bert is an encoder only)", "true");
    }
  }
  c.validate(source);
  return c;
}

BertConfig BertConfig::from_json_file(const std::string& path) {
  return from_json(io::read_file(path, "BertConfig"), path);
}

void BertConfig::validate(const std::string& source) const {
  const std::pair<const char*, int64_t> positive[] = {{"vocab_size", vocab_size},
                                                      {"hidden_size", hidden_size},
                                                      {"num_attention_heads", num_attention_heads},
                                                      {"intermediate_size", intermediate_size},
                                                      {"max_position_embeddings", max_position_embeddings},
                                                      {"type_vocab_size", type_vocab_size}};
  for (const auto& [key, n] : positive)
    if (n < 1) bad(key, source, "a positive integer", std::to_string(n));
  if (num_hidden_layers < 0)
    bad("num_hidden_layers", source, "a non-negative integer", std::to_string(num_hidden_layers));
  if (hidden_size % num_attention_heads != 0)
    raise<ValueError>("BertConfig: \"hidden_size\" (", hidden_size, ") in ", source,
                      " is not a multiple of \"num_attention_heads\" (", num_attention_heads, ")");
  bool known = false;
  for (const char* a : kActivations) known |= hidden_act == a;
  if (!known)
    bad("hidden_act", source, "one of \"gelu\", \"gelu_new\", \"gelu_pytorch_tanh\", \"relu\"",
        io::json::quote(hidden_act));
  check_probability(hidden_dropout_prob, "hidden_dropout_prob", source);
  check_probability(attention_probs_dropout_prob, "attention_probs_dropout_prob", source);
  if (!(layer_norm_eps >= 0.0 && std::isfinite(layer_norm_eps)))
    bad("layer_norm_eps", source, "a finite non-negative number", detail::py_float(layer_norm_eps));
  if (!(initializer_range >= 0.0 && std::isfinite(initializer_range)))
    bad("initializer_range", source, "a finite non-negative number", detail::py_float(initializer_range));
  if (pad_token_id && (*pad_token_id < -vocab_size || *pad_token_id >= vocab_size))
    bad("pad_token_id", source,
        "null or an index into the " + std::to_string(vocab_size) + " word embeddings",
        std::to_string(*pad_token_id));
  // Sizes come from a file: a hostile one (num_hidden_layers 10^6) is refused here, at once,
  // rather than as a failed allocation after minutes of building layers. Counted in double,
  // which cannot overflow at these sizes.
  const double H = double(hidden_size), I = double(intermediate_size);
  const double parameters =
      (double(vocab_size) + double(max_position_embeddings) + double(type_vocab_size)) * H + 2 * H +
      double(num_hidden_layers) * (4 * H * H + 2 * H * I + 9 * H + I) + H * H + H;
  if (parameters > double(kMaxBertParameters))
    raise<ValueError>("BertConfig: ", source, " describes a model of ", parameters, " parameters (",
                      parameters * 4 / double(1ull << 30), " GiB as float32), more than the ",
                      kMaxBertParameters, " (64 GiB) Ember builds");
}

std::string BertConfig::to_json() const {
  validate();
  // Keys in the order transformers writes them (sorted), numbers as Python prints them.
  std::ostringstream o;
  auto num = [](double x) { return detail::py_float(x); };
  o << "{\n"
    << "  \"architectures\": [\n    \"BertModel\"\n  ],\n"
    << "  \"attention_probs_dropout_prob\": " << num(attention_probs_dropout_prob) << ",\n"
    << "  \"dtype\": \"float32\",\n"
    << "  \"hidden_act\": " << io::json::quote(hidden_act) << ",\n"
    << "  \"hidden_dropout_prob\": " << num(hidden_dropout_prob) << ",\n"
    << "  \"hidden_size\": " << hidden_size << ",\n"
    << "  \"initializer_range\": " << num(initializer_range) << ",\n"
    << "  \"intermediate_size\": " << intermediate_size << ",\n"
    << "  \"layer_norm_eps\": " << num(layer_norm_eps) << ",\n"
    << "  \"max_position_embeddings\": " << max_position_embeddings << ",\n"
    << "  \"model_type\": \"bert\",\n"
    << "  \"num_attention_heads\": " << num_attention_heads << ",\n"
    << "  \"num_hidden_layers\": " << num_hidden_layers << ",\n"
    << "  \"pad_token_id\": " << (pad_token_id ? std::to_string(*pad_token_id) : "null") << ",\n"
    << "  \"position_embedding_type\": \"absolute\",\n"
    << "  \"type_vocab_size\": " << type_vocab_size << ",\n"
    << "  \"vocab_size\": " << vocab_size << "\n"
    << "}\n";
  return o.str();
}

void BertConfig::to_json_file(const std::string& path) const {
  io::atomic_write(path, to_json(), "BertConfig");
}

}  // namespace ember::nn::models
