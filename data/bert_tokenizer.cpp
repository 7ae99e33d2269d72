// BertTokenizer follows transformers' BertTokenizer, which runs on Hugging Face's tokenizers
// (Rust): BertNormalizer (clean text, CJK spacing, accents, lower case), BertPreTokenizer
// (whitespace, then punctuation), WordPiece, TemplateProcessing for [CLS]/[SEP] and its
// longest-first truncation. The special tokens are cut out of the raw text first, as its
// added-vocabulary pass does.
#include "ember/data/bert_tokenizer.h"

#include <algorithm>
#include <utility>

#include "ember/core/error.h"
#include "ember/core/io/file_io.h"
#include "ember/core/io/utf8.h"
#include "ember/core/ops/factory.h"
#include "ember/data/bert_basic_tokenizer.h"
#include "ember/data/token_table.h"

namespace ember::data {
namespace {

constexpr const char* kContinuation = "##";

std::string item(const char* name, size_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; }

// name and index name the argument ("text", "pairs[2]"); name is null when there is only one.
void check_utf8(const std::string& text, const char* op, const char* name, size_t index) {
  size_t bad = 0;
  if (io::valid_utf8(text, &bad)) return;
  if (!name) raise<ValueError>(op, ": invalid UTF-8 at byte ", bad);
  raise<ValueError>(op, ": invalid UTF-8 at byte ", bad, " of ",
                    index == static_cast<size_t>(-1) ? std::string(name) : item(name, index));
}

// The lines of a vocab file, split as Python's universal newlines do ("\n", "\r\n", "\r").
std::vector<std::string> vocab_lines(const std::string& bytes) {
  std::vector<std::string> lines;
  std::string cur;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const char c = bytes[i];
    if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < bytes.size() && bytes[i + 1] == '\n') ++i;
      lines.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) lines.push_back(std::move(cur));
  return lines;
}

std::vector<std::string> read_vocab(const std::string& path) {
  const std::string bytes = io::read_file(path, "BertTokenizer");
  size_t bad = 0;
  if (!io::valid_utf8(bytes, &bad))
    raise<IOError>("BertTokenizer: \"", path, "\" is not UTF-8 (invalid byte at offset ", bad, ")");
  std::vector<std::string> lines = vocab_lines(bytes);
  if (lines.empty()) raise<ValueError>("BertTokenizer: the vocabulary is empty (\"", path, "\" has no line)");
  return lines;
}

// The clean-up of tokenizers' WordPiece decoder, applied to each token as it is appended (with
// its leading space): no space before . ? ! , and the English contractions.
std::string wordpiece_cleanup(std::string s) {
  static const std::pair<const char*, const char*> kRules[] = {
      {" .", "."},   {" ?", "?"},           {" !", "!"},   {" ,", ","},     {" ' ", "'"},    {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
  };
  for (const auto& [from, to] : kRules) {
    const std::string f = from;
    std::string out;
    size_t pos = 0;
    for (size_t hit; (hit = s.find(f, pos)) != std::string::npos; pos = hit + f.size()) {
      out.append(s, pos, hit - pos);
      out += to;
    }
    out.append(s, pos, std::string::npos);
    s = std::move(out);
  }
  return s;
}

}  // namespace

struct BertTokenizer::Lookups {
  TokenTable ids;            // every token as written
  TokenTable continuations;  // the tokens that start with "##", without it
};

BertTokenizer::BertTokenizer(const std::string& vocab_file, BertTokenizerOptions options)
    : BertTokenizer(read_vocab(vocab_file), std::move(options)) {}

BertTokenizer::BertTokenizer(std::vector<std::string> tokens, BertTokenizerOptions options)
    : options_(std::move(options)), tokens_(std::move(tokens)) {
  if (tokens_.empty()) raise<ValueError>("BertTokenizer: the vocabulary is empty");
  std::vector<std::string_view> all, continued;
  std::vector<int64_t> all_ids, continued_ids;
  for (size_t i = 0; i < tokens_.size(); ++i) {
    size_t bad = 0;
    if (!io::valid_utf8(tokens_[i], &bad))
      raise<ValueError>("BertTokenizer: vocabulary token ", i, " is not UTF-8 (invalid byte at offset ", bad,
                        ")");
    all.push_back(tokens_[i]);
    all_ids.push_back(static_cast<int64_t>(i));
    if (tokens_[i].rfind(kContinuation, 0) == 0) {
      continued.push_back(std::string_view(tokens_[i]).substr(2));
      continued_ids.push_back(static_cast<int64_t>(i));
    }
  }
  // A duplicate keeps its last id, as in Hugging Face.
  lookups_ = std::make_shared<const Lookups>(
      Lookups{TokenTable(all, all_ids), TokenTable(continued, continued_ids)});
  const auto required = [&](const std::string& token, const char* option) {
    const int64_t id = lookups_->ids.find(token);
    if (id < 0) raise<ValueError>("BertTokenizer: the vocabulary has no ", token, " token (", option, ")");
    return id;
  };
  unk_id_ = required(options_.unk_token, "unk_token");
  sep_id_ = required(options_.sep_token, "sep_token");
  pad_id_ = required(options_.pad_token, "pad_token");
  cls_id_ = required(options_.cls_token, "cls_token");
  mask_id_ = lookups_->ids.find(options_.mask_token);
  for (const std::string* t : {&options_.unk_token, &options_.sep_token, &options_.pad_token,
                               &options_.cls_token, &options_.mask_token})
    if (!t->empty() && lookups_->ids.find(*t) >= 0 &&
        std::find(never_split_.begin(), never_split_.end(), *t) == never_split_.end())
      never_split_.push_back(*t);
  // Longest first: at one position the longest special token wins (leftmost-longest).
  std::stable_sort(never_split_.begin(), never_split_.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& t : never_split_) starts_special_[static_cast<unsigned char>(t[0])] = true;
}

std::optional<int64_t> BertTokenizer::token_to_id(const std::string& token) const {
  const int64_t id = lookups_->ids.find(token);
  if (id < 0) return std::nullopt;
  return id;
}

namespace {

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

void BertTokenizer::append_wordpiece_ids(std::string_view word, std::vector<int64_t>& out) const {
  size_t chars = 0;
  for (const char c : word) chars += !is_continuation_byte(c);
  if (chars > options_.max_input_chars_per_word) {
    out.push_back(unk_id_);
    return;
  }
  // Greedy longest match from the left, continuations looked up without their "##"; no piece
  // longer than the longest token is tried.
  const size_t mark = out.size();
  for (size_t from = 0; from < word.size();) {
    const TokenTable& table = from == 0 ? lookups_->ids : lookups_->continuations;
    int64_t id = -1;
    size_t to = std::min(word.size(), from + table.max_key_bytes());
    for (; to > from; --to) {
      if (to < word.size() && is_continuation_byte(word[to])) continue;  // inside a code point
      if ((id = table.find(word.substr(from, to - from))) >= 0) break;
    }
    if (id < 0) {  // a word with a part no token covers is one unknown token
      out.resize(mark);
      out.push_back(unk_id_);
      return;
    }
    out.push_back(id);
    from = to;
  }
}

void BertTokenizer::append_plain_ids(std::string_view text, std::vector<int64_t>& out) const {
  if (text.empty()) return;
  for_each_basic_word(text, options_, [&](std::string_view w) { append_wordpiece_ids(w, out); });
}

std::vector<int64_t> BertTokenizer::ids_of(const std::string& text, const char* op, Argument where) const {
  check_utf8(text, op, where.name, where.index);
  std::vector<int64_t> out;
  const std::string_view all(text);
  size_t segment = 0;
  for (size_t i = 0; i < text.size();) {
    const std::string* hit = nullptr;
    if (starts_special_[static_cast<unsigned char>(text[i])])
      for (const std::string& t : never_split_)
        if (all.compare(i, t.size(), t) == 0) {
          hit = &t;
          break;
        }
    if (!hit) {
      ++i;
      continue;
    }
    append_plain_ids(all.substr(segment, i - segment), out);
    out.push_back(lookups_->ids.find(*hit));
    i += hit->size();
    segment = i;
  }
  append_plain_ids(all.substr(segment), out);
  return out;
}

std::vector<std::string> BertTokenizer::tokenize(const std::string& text) const {
  return convert_ids_to_tokens(ids_of(text, "BertTokenizer.tokenize", {}));
}

std::vector<int64_t> BertTokenizer::convert_tokens_to_ids(const std::vector<std::string>& tokens) const {
  std::vector<int64_t> ids;
  ids.reserve(tokens.size());
  for (const std::string& t : tokens) {
    const int64_t id = lookups_->ids.find(t);
    ids.push_back(id < 0 ? unk_id_ : id);
  }
  return ids;
}

std::vector<std::string> BertTokenizer::convert_ids_to_tokens(const std::vector<int64_t>& ids) const {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (int64_t id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= tokens_.size())
      raise<IndexError>("BertTokenizer.convert_ids_to_tokens: id ", id,
                        " is out of range for a vocabulary of ", tokens_.size(), " tokens");
    out.push_back(tokens_[static_cast<size_t>(id)]);
  }
  return out;
}

std::string BertTokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  for (std::string& t : convert_ids_to_tokens(ids)) {
    if (skip_special_tokens && std::find(never_split_.begin(), never_split_.end(), t) != never_split_.end())
      continue;
    tokens.push_back(std::move(t));
  }
  std::string out;
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string t = std::move(tokens[i]);
    if (i > 0) t = t.rfind(kContinuation, 0) == 0 ? t.substr(2) : " " + t;
    out += wordpiece_cleanup(t);
  }
  return out;
}

size_t BertTokenizer::max_length_of(const EncodeOptions& options) const {
  return options.max_length.value_or(options_.model_max_length);
}

namespace {

// The widest row Padding::MaxLength pads to: far past any model's positions, and a bound on
// what a max_length from a file or an argument (SIZE_MAX: "no limit") can make us allocate.
constexpr size_t kMaxPaddedWidth = size_t{1} << 20;

size_t padded_width(size_t max_length, const char* op) {
  if (max_length > kMaxPaddedWidth)
    raise<ValueError>(op, ": cannot pad to max_length ", max_length, " (at most ", kMaxPaddedWidth,
                      " tokens); set EncodeOptions::max_length, or pad to the longest row");
  return max_length;
}

}  // namespace

Encoding BertTokenizer::build(std::vector<int64_t> a, std::optional<std::vector<int64_t>> b,
                              const EncodeOptions& options, const char* op) const {
  const size_t added = options.add_special_tokens ? (b ? 3 : 2) : 0;
  if (options.truncation) {
    const size_t max_length = max_length_of(options);
    if (max_length < added)
      raise<ValueError>(op, ": max_length ", max_length, " cannot hold the ", added, " special tokens");
    const size_t budget = max_length - added;
    if (!b) {
      if (a.size() > budget) a.resize(budget);
    } else if (a.size() + b->size() > budget) {
      // longest_first as tokenizers computes it: the shorter sequence keeps its length when the
      // longer can give way; else both get half, the odd token going to the one that was longer
      // (to the pair when both were equally long).
      size_t shorter = std::min(a.size(), b->size());
      size_t longer = shorter > budget ? shorter : std::max(shorter, budget - shorter);
      if (shorter + longer > budget) {
        shorter = budget / 2;
        longer = shorter + budget % 2;
      }
      const bool a_longer = a.size() > b->size();
      a.resize(std::min(a.size(), a_longer ? longer : shorter));
      b->resize(std::min(b->size(), a_longer ? shorter : longer));
    }
  }
  Encoding e;
  auto& ids = e.input_ids;
  auto& types = e.token_type_ids;
  if (options.add_special_tokens) ids.push_back(cls_id_);
  ids.insert(ids.end(), a.begin(), a.end());
  if (options.add_special_tokens) ids.push_back(sep_id_);
  types.assign(ids.size(), 0);
  if (b) {
    ids.insert(ids.end(), b->begin(), b->end());
    if (options.add_special_tokens) ids.push_back(sep_id_);
    types.resize(ids.size(), 1);
  }
  e.attention_mask.assign(ids.size(), 1);
  return e;
}

namespace {

void pad_to(Encoding& e, size_t width, int64_t pad_id) {
  if (e.input_ids.size() >= width) return;
  e.input_ids.resize(width, pad_id);
  e.attention_mask.resize(width, 0);
  e.token_type_ids.resize(width, 0);
}

}  // namespace

Encoding BertTokenizer::encode(const std::string& text, const std::optional<std::string>& pair,
                               const EncodeOptions& options) const {
  constexpr const char* op = "BertTokenizer.encode";
  std::optional<std::vector<int64_t>> b;
  std::vector<int64_t> a = ids_of(text, op, {pair ? "text" : nullptr});
  if (pair) b = ids_of(*pair, op, {"pair"});
  Encoding e = build(std::move(a), std::move(b), options, op);
  if (options.padding == Padding::MaxLength) pad_to(e, padded_width(max_length_of(options), op), pad_id_);
  return e;
}

BatchEncoding BertTokenizer::stack(std::vector<Encoding> rows, const EncodeOptions& options,
                                   const char* op) const {
  size_t width = options.padding == Padding::MaxLength ? padded_width(max_length_of(options), op) : 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const size_t n = rows[i].input_ids.size();
    if (options.padding == Padding::Longest) {
      width = std::max(width, n);
    } else if (options.padding == Padding::None && i > 0 && n != width) {
      raise<ValueError>(op, ": row ", i, " has ", n, " tokens and row 0 has ", width,
                        ", and padding is None: a tensor cannot be ragged (pad, or truncate to max_length)");
    } else if (options.padding == Padding::None) {
      width = n;
    } else if (n > width) {
      raise<ValueError>(op, ": row ", i, " has ", n, " tokens, more than max_length ", width,
                        " without truncation: a tensor cannot be ragged");
    }
  }
  const auto b = static_cast<int64_t>(rows.size());
  const auto l = static_cast<int64_t>(width);
  std::vector<int64_t> ids, mask, types, lengths;
  ids.reserve(rows.size() * width);
  mask.reserve(rows.size() * width);
  types.reserve(rows.size() * width);
  for (Encoding& e : rows) {
    lengths.push_back(static_cast<int64_t>(e.input_ids.size()));
    pad_to(e, width, pad_id_);
    ids.insert(ids.end(), e.input_ids.begin(), e.input_ids.end());
    mask.insert(mask.end(), e.attention_mask.begin(), e.attention_mask.end());
    types.insert(types.end(), e.token_type_ids.begin(), e.token_type_ids.end());
  }
  BatchEncoding out;
  out.input_ids = from_vector(ids, Shape{b, l});
  out.attention_mask = from_vector(mask, Shape{b, l});
  out.token_type_ids = from_vector(types, Shape{b, l});
  out.lengths = from_vector(lengths, Shape{b});
  return out;
}

BatchEncoding BertTokenizer::batch_encode(const std::vector<std::string>& texts,
                                          const EncodeOptions& options) const {
  constexpr const char* op = "BertTokenizer.batch_encode";
  std::vector<Encoding> rows;
  rows.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i)
    rows.push_back(build(ids_of(texts[i], op, {"texts", i}), std::nullopt, options, op));
  return stack(std::move(rows), options, op);
}

BatchEncoding BertTokenizer::batch_encode(const std::vector<std::string>& texts,
                                          const std::vector<std::string>& pairs,
                                          const EncodeOptions& options) const {
  constexpr const char* op = "BertTokenizer.batch_encode";
  if (texts.size() != pairs.size())
    raise<ValueError>(op, ": ", texts.size(), " texts and ", pairs.size(), " pairs; they pair up one to one");
  std::vector<Encoding> rows;
  rows.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i)
    rows.push_back(
        build(ids_of(texts[i], op, {"texts", i}), ids_of(pairs[i], op, {"pairs", i}), options, op));
  return stack(std::move(rows), options, op);
}

}  // namespace ember::data
