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
#include "ember/core/ops/factory.h"
#include "ember/data/unicode.h"
#include "ember/nn/json.h"

namespace ember::data {
namespace {

constexpr const char* kContinuation = "##";

// where names the argument ("text", "pairs[2]"), or is empty when there is only one.
void check_utf8(const std::string& text, const char* op, const std::string& where) {
  size_t bad = 0;
  if (!nn::json::valid_utf8(text, &bad))
    raise<ValueError>(op, ": invalid UTF-8 at byte ", bad, where.empty() ? "" : " of ", where);
}

std::string item(const char* name, size_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; }

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
  if (!nn::json::valid_utf8(bytes, &bad))
    raise<IOError>("BertTokenizer: \"", path, "\" is not UTF-8 (invalid byte at offset ", bad, ")");
  std::vector<std::string> lines = vocab_lines(bytes);
  if (lines.empty()) raise<ValueError>("BertTokenizer: the vocabulary is empty (\"", path, "\" has no line)");
  return lines;
}

// Hugging Face's "control" characters: Unicode's "other" categories, but tab, newline and
// carriage return count as whitespace.
bool is_control(char32_t c) {
  if (c == U'\t' || c == U'\n' || c == U'\r') return false;
  return unicode::is_other(c);
}

bool is_whitespace(char32_t c) {
  return c == U'\t' || c == U'\n' || c == U'\r' || unicode::is_white_space(c);
}

// BERT's punctuation: every ASCII character that is not a letter, digit, space or control
// ("$", "+", "^" ... included), and Unicode's P* categories.
bool is_punctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126))
    return true;
  return unicode::is_punctuation(c);
}

// The CJK ideograph blocks of Hugging Face's tokenizers (its Python tokenizer has U+2B820
// where this has U+2B920: CJK Extension E starts there).
bool is_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
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

BertTokenizer::BertTokenizer(const std::string& vocab_file, BertTokenizerOptions options)
    : BertTokenizer(read_vocab(vocab_file), std::move(options)) {}

BertTokenizer::BertTokenizer(std::vector<std::string> tokens, BertTokenizerOptions options)
    : options_(std::move(options)), tokens_(std::move(tokens)) {
  if (tokens_.empty()) raise<ValueError>("BertTokenizer: the vocabulary is empty");
  ids_.reserve(tokens_.size());
  for (size_t i = 0; i < tokens_.size(); ++i) {
    size_t bad = 0;
    if (!nn::json::valid_utf8(tokens_[i], &bad))
      raise<ValueError>("BertTokenizer: vocabulary token ", i, " is not UTF-8 (invalid byte at offset ", bad,
                        ")");
    ids_[tokens_[i]] = static_cast<int64_t>(i);  // a duplicate keeps its last id, as in Hugging Face
  }
  const auto required = [&](const std::string& token, const char* option) {
    const auto it = ids_.find(token);
    if (it == ids_.end())
      raise<ValueError>("BertTokenizer: the vocabulary has no ", token, " token (", option, ")");
    return it->second;
  };
  unk_id_ = required(options_.unk_token, "unk_token");
  sep_id_ = required(options_.sep_token, "sep_token");
  pad_id_ = required(options_.pad_token, "pad_token");
  cls_id_ = required(options_.cls_token, "cls_token");
  if (const auto it = ids_.find(options_.mask_token); it != ids_.end()) mask_id_ = it->second;
  for (const std::string* t : {&options_.unk_token, &options_.sep_token, &options_.pad_token,
                               &options_.cls_token, &options_.mask_token})
    if (!t->empty() && ids_.count(*t) &&
        std::find(never_split_.begin(), never_split_.end(), *t) == never_split_.end())
      never_split_.push_back(*t);
  // Longest first: at one position the longest special token wins (leftmost-longest).
  std::stable_sort(never_split_.begin(), never_split_.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::optional<int64_t> BertTokenizer::token_to_id(const std::string& token) const {
  const auto it = ids_.find(token);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

namespace {

// The basic tokenizer on text free of special tokens: the words WordPiece then splits.
std::vector<std::string> basic_words(const std::string& text, const BertTokenizerOptions& o) {
  const std::u32string in = unicode::decode(text);
  std::u32string s;
  s.reserve(in.size());
  for (char32_t c : in) {
    if (c == 0 || c == 0xFFFD || is_control(c)) continue;
    if (is_whitespace(c)) {
      s.push_back(U' ');
    } else if (o.tokenize_chinese_chars && is_cjk(c)) {
      s.push_back(U' ');
      s.push_back(c);
      s.push_back(U' ');
    } else {
      s.push_back(c);
    }
  }
  if (o.strip_accents.value_or(o.do_lower_case)) {
    std::u32string d = unicode::nfd(s);
    d.erase(std::remove_if(d.begin(), d.end(), unicode::is_nonspacing_mark), d.end());
    s = std::move(d);
  }
  if (o.do_lower_case) {
    std::u32string lower;
    lower.reserve(s.size());
    for (char32_t c : s) unicode::append_lower(lower, c);
    s = std::move(lower);
  }
  std::vector<std::string> words;
  std::string cur;
  const auto flush = [&] {
    if (!cur.empty()) words.push_back(std::move(cur));
    cur.clear();
  };
  for (char32_t c : s) {
    if (unicode::is_white_space(c)) {
      flush();
    } else if (is_punctuation(c)) {
      flush();
      unicode::append_utf8(cur, c);
      flush();
    } else {
      unicode::append_utf8(cur, c);
    }
  }
  flush();
  return words;
}

}  // namespace

std::vector<std::string> BertTokenizer::tokens_of(const std::string& text, const char* op,
                                                  const std::string& where) const {
  check_utf8(text, op, where);
  std::vector<std::string> out;
  const auto plain = [&](size_t begin, size_t end) {
    if (begin == end) return;
    for (std::string& word : basic_words(text.substr(begin, end - begin), options_)) {
      // WordPiece: greedy longest match from the left, continuations prefixed with "##".
      std::vector<size_t> starts;  // byte offsets of the word's code points, and its end
      for (size_t i = 0; i < word.size(); ++i)
        if ((static_cast<unsigned char>(word[i]) & 0xC0) != 0x80) starts.push_back(i);
      if (starts.size() > options_.max_input_chars_per_word) {
        out.push_back(options_.unk_token);
        continue;
      }
      starts.push_back(word.size());
      std::vector<std::string> pieces;
      size_t from = 0;  // index into starts
      while (from + 1 < starts.size()) {
        size_t to = starts.size() - 1;
        std::string piece;
        for (; to > from; --to) {
          piece = word.substr(starts[from], starts[to] - starts[from]);
          if (from > 0) piece = kContinuation + piece;
          if (ids_.count(piece)) break;
        }
        if (to == from) {
          pieces.assign(1, options_.unk_token);
          break;
        }
        pieces.push_back(std::move(piece));
        from = to;
      }
      for (std::string& p : pieces) out.push_back(std::move(p));
    }
  };
  size_t segment = 0, i = 0;
  while (i < text.size()) {
    const std::string* hit = nullptr;
    for (const std::string& t : never_split_)
      if (text.compare(i, t.size(), t) == 0) {
        hit = &t;
        break;
      }
    if (!hit) {
      ++i;
      continue;
    }
    plain(segment, i);
    out.push_back(*hit);
    i += hit->size();
    segment = i;
  }
  plain(segment, text.size());
  return out;
}

std::vector<std::string> BertTokenizer::tokenize(const std::string& text) const {
  return tokens_of(text, "BertTokenizer.tokenize", "");
}

std::vector<int64_t> BertTokenizer::convert_tokens_to_ids(const std::vector<std::string>& tokens) const {
  std::vector<int64_t> ids;
  ids.reserve(tokens.size());
  for (const std::string& t : tokens) {
    const auto it = ids_.find(t);
    ids.push_back(it == ids_.end() ? unk_id_ : it->second);
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

std::vector<int64_t> BertTokenizer::ids_of(const std::string& text, const char* op,
                                           const std::string& where) const {
  return convert_tokens_to_ids(tokens_of(text, op, where));
}

Encoding BertTokenizer::build(std::vector<int64_t> a, std::optional<std::vector<int64_t>> b,
                              const EncodeOptions& options, const char* op) const {
  const size_t added = options.add_special_tokens ? (b ? 3 : 2) : 0;
  if (options.truncation) {
    if (options.max_length < added)
      raise<ValueError>(op, ": max_length ", options.max_length, " cannot hold the ", added,
                        " special tokens");
    const size_t budget = options.max_length - added;
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
  std::vector<int64_t> a = ids_of(text, op, pair ? "text" : "");
  if (pair) b = ids_of(*pair, op, "pair");
  Encoding e = build(std::move(a), std::move(b), options, op);
  if (options.padding == Padding::MaxLength) pad_to(e, options.max_length, pad_id_);
  return e;
}

BatchEncoding BertTokenizer::stack(std::vector<Encoding> rows, const EncodeOptions& options,
                                   const char* op) const {
  size_t width = options.padding == Padding::MaxLength ? options.max_length : 0;
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
    rows.push_back(build(ids_of(texts[i], op, item("texts", i)), std::nullopt, options, op));
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
        build(ids_of(texts[i], op, item("texts", i)), ids_of(pairs[i], op, item("pairs", i)), options, op));
  return stack(std::move(rows), options, op);
}

}  // namespace ember::data
