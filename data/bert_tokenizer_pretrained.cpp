// BertTokenizer::from_pretrained: a transformers checkpoint directory's tokenizer files, read
// as AutoTokenizer (BertTokenizerFast) reads them. The vocabulary comes from tokenizer.json
// when present (the fast tokenizer is built from it), else vocab.txt. The options come from
// tokenizer.json's BertNormalizer and WordPiece model, then tokenizer_config.json, whose
// do_lower_case, strip_accents and tokenize_chinese_chars win over the normalizer's (transformers
// rebuilds the normalizer when they differ), then special_tokens_map.json's special tokens.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <utility>

#include "ember/core/error.h"
#include "ember/core/io/json.h"
#include "ember/data/bert_tokenizer.h"

namespace ember::data {
namespace {

using io::json::Value;
namespace fs = std::filesystem;

constexpr const char* kOp = "BertTokenizer.from_pretrained";

// Where one value came from, for errors: the file and the key path inside it.
struct Where {
  const std::string& file;
  std::string key;
};

[[noreturn]] void bad(const Where& w, const char* want, const Value& got) {
  raise<ValueError>(kOp, ": \"", w.key, "\" in ", w.file, " must be ", want, ", got ",
                    io::json::describe(got));
}

bool read_bool(const Value& v, const Where& w) {
  if (v.type != Value::Type::Bool) bad(w, "true or false", v);
  return v.boolean;
}

std::optional<bool> read_optional_bool(const Value& v, const Where& w) {
  if (v.type == Value::Type::Null) return std::nullopt;
  if (v.type != Value::Type::Bool) bad(w, "true, false or null", v);
  return v.boolean;
}

const std::string& read_string(const Value& v, const Where& w) {
  if (v.type != Value::Type::String) bad(w, "a string", v);
  return v.text;
}

// A special token: a string, or an AddedToken object ({"content": "[UNK]", ...}).
const std::string& read_token(const Value& v, const Where& w) {
  if (v.type == Value::Type::Object) {
    const Value* content = v.find("content");
    if (content && content->type == Value::Type::String) return content->text;
  }
  if (v.type != Value::Type::String) bad(w, "a token (a string or an object with \"content\")", v);
  return v.text;
}

// A non-negative integer count. Values of 2^62 and more (transformers writes int(1e30) for "no
// limit", as an integer or in exponent form) read as SIZE_MAX.
size_t read_count(const Value& v, const Where& w) {
  constexpr double kUnlimited = 4611686018427387904.0;  // 2^62
  if (v.type == Value::Type::Number) {
    uint64_t n = 0;
    const double d = std::strtod(v.text.c_str(), nullptr);
    if (v.as_uint64(n)) return n >= static_cast<uint64_t>(kUnlimited) ? SIZE_MAX : static_cast<size_t>(n);
    if (d >= kUnlimited) return SIZE_MAX;
    if (d >= 0 && d == std::floor(d)) return static_cast<size_t>(d);
  }
  bad(w, "a non-negative integer", v);
}

// The special tokens a tokenizer_config.json or special_tokens_map.json names.
void read_special_tokens(const Value& root, const std::string& file, BertTokenizerOptions& o) {
  const std::pair<const char*, std::string*> tokens[] = {{"unk_token", &o.unk_token},
                                                         {"sep_token", &o.sep_token},
                                                         {"pad_token", &o.pad_token},
                                                         {"cls_token", &o.cls_token},
                                                         {"mask_token", &o.mask_token}};
  for (const auto& [key, field] : tokens)
    if (const Value* v = root.find(key); v && v->type != Value::Type::Null)
      *field = read_token(*v, {file, key});
}

void read_tokenizer_config(const std::string& file, BertTokenizerOptions& o) {
  const Value root = io::json::parse_object_file(file, kOp);
  if (const Value* v = root.find("tokenizer_class"); v && v->type == Value::Type::String) {
    const std::string& c = v->text;
    if (c != "BertTokenizer" && c != "BertTokenizerFast")
      raise<ValueError>(kOp, ": \"tokenizer_class\" in ", file, " is ", io::json::quote(c),
                        "; Ember reads BERT's WordPiece tokenizer (BertTokenizer, BertTokenizerFast)");
  }
  if (const Value* v = root.find("do_lower_case")) o.do_lower_case = read_bool(*v, {file, "do_lower_case"});
  if (const Value* v = root.find("strip_accents"))
    o.strip_accents = read_optional_bool(*v, {file, "strip_accents"});
  if (const Value* v = root.find("tokenize_chinese_chars"))
    o.tokenize_chinese_chars = read_bool(*v, {file, "tokenize_chinese_chars"});
  if (const Value* v = root.find("model_max_length"))
    o.model_max_length = read_count(*v, {file, "model_max_length"});
  if (const Value* v = root.find("do_basic_tokenize"); v && !read_bool(*v, {file, "do_basic_tokenize"}))
    raise<ValueError>(kOp, ": \"do_basic_tokenize\" false in ", file,
                      " is not supported (Ember always splits words and punctuation first)");
  if (const Value* v = root.find("never_split"); v && v->type != Value::Type::Null)
    if (v->type != Value::Type::Array || !v->items.empty())
      raise<ValueError>(kOp, ": \"never_split\" in ", file, " is not supported (only null or [])");
  read_special_tokens(root, file, o);
}

// tokenizer.json: the normalizer's and the WordPiece model's options, and the vocabulary.
std::vector<std::string> read_tokenizer_json(const std::string& file, BertTokenizerOptions& o) {
  const Value root = io::json::parse_object_file(file, kOp);
  const auto typed = [&](const char* key, const char* type) -> const Value* {
    const Value* v = root.find(key);
    if (!v || v->type == Value::Type::Null) return nullptr;
    const Value* t = v->type == Value::Type::Object ? v->find("type") : nullptr;
    if (!t || t->type != Value::Type::String || t->text != type)
      raise<ValueError>(kOp, ": \"", key, "\" in ", file, " must be a ", type,
                        " (Ember reads BERT's WordPiece tokenizer), got ",
                        t ? io::json::describe(*t) : io::json::describe(*v));
    return v;
  };
  if (const Value* n = typed("normalizer", "BertNormalizer")) {
    if (const Value* v = n->find("clean_text"); v && !read_bool(*v, {file, "normalizer.clean_text"}))
      raise<ValueError>(kOp, ": \"normalizer.clean_text\" false in ", file, " is not supported");
    if (const Value* v = n->find("lowercase"))
      o.do_lower_case = read_bool(*v, {file, "normalizer.lowercase"});
    if (const Value* v = n->find("strip_accents"))
      o.strip_accents = read_optional_bool(*v, {file, "normalizer.strip_accents"});
    if (const Value* v = n->find("handle_chinese_chars"))
      o.tokenize_chinese_chars = read_bool(*v, {file, "normalizer.handle_chinese_chars"});
  }
  typed("pre_tokenizer", "BertPreTokenizer");
  const Value* model = typed("model", "WordPiece");
  if (!model) raise<ValueError>(kOp, ": ", file, " has no \"model\"");
  if (const Value* v = model->find("unk_token")) o.unk_token = read_string(*v, {file, "model.unk_token"});
  if (const Value* v = model->find("max_input_chars_per_word"))
    o.max_input_chars_per_word = read_count(*v, {file, "model.max_input_chars_per_word"});
  if (const Value* v = model->find("continuing_subword_prefix");
      v && read_string(*v, {file, "model.continuing_subword_prefix"}) != "##")
    raise<ValueError>(kOp, ": \"model.continuing_subword_prefix\" in ", file, " is ", io::json::describe(*v),
                      "; Ember's WordPiece continues words with \"##\"");
  const Value* vocab = model->find("vocab");
  if (!vocab || vocab->type != Value::Type::Object)
    raise<ValueError>(kOp, ": \"model.vocab\" in ", file, " must be an object of token: id");
  // Ids index the token list, each given once. A vocab.txt with a token on two lines gives the
  // map its last line's id: the first line's id is a gap, filled with a token that no text can
  // produce (text is cleaned of NUL), as that line's id is never looked up. Gaps are bounded so
  // that a hostile id cannot make the list huge.
  const size_t entries = vocab->members.size();
  const size_t limit = 2 * entries + 1024;
  std::vector<std::string> tokens;
  std::vector<bool> seen;
  for (const auto& [token, id] : vocab->members) {
    uint64_t i = 0;
    if (!id.as_uint64(i) || i >= limit)
      raise<ValueError>(kOp, ": \"model.vocab\" in ", file, ": the id of ", io::json::quote(token), " is ",
                        io::json::describe(id), "; ids must be integers below ", limit, " (twice the ",
                        entries, " tokens, plus 1024)");
    if (i >= tokens.size()) {
      tokens.resize(i + 1, std::string("\0unused id", 10));
      seen.resize(i + 1, false);
    }
    if (seen[i])
      raise<ValueError>(kOp, ": \"model.vocab\" in ", file, ": id ", i, " is given to two tokens (",
                        io::json::quote(tokens[i]), " and ", io::json::quote(token), ")");
    seen[i] = true;
    tokens[i] = token;
  }
  return tokens;
}

}  // namespace

BertTokenizer BertTokenizer::from_pretrained(const std::string& dir) {
  const auto path = [&](const char* name) { return (fs::path(dir) / name).string(); };
  const auto exists = [](const std::string& p) {
    std::error_code ec;
    return fs::exists(p, ec);
  };
  BertTokenizerOptions o;
  o.model_max_length = SIZE_MAX;  // transformers' default when tokenizer_config.json says nothing
  std::vector<std::string> tokens;
  const std::string json_file = path("tokenizer.json"), vocab_file = path("vocab.txt");
  if (exists(json_file)) {
    tokens = read_tokenizer_json(json_file, o);
  } else if (!exists(vocab_file)) {
    raise<IOError>(kOp, ": ", dir, " has neither tokenizer.json nor vocab.txt");
  }
  if (const std::string f = path("tokenizer_config.json"); exists(f)) read_tokenizer_config(f, o);
  if (const std::string f = path("special_tokens_map.json"); exists(f))
    read_special_tokens(io::json::parse_object_file(f, kOp), f, o);
  if (tokens.empty()) return BertTokenizer(vocab_file, std::move(o));
  return BertTokenizer(std::move(tokens), std::move(o));
}

}  // namespace ember::data
