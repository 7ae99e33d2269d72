#include "ember/data/bert_basic_tokenizer.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "ember/core/io/utf8.h"
#include "ember/data/unicode.h"

namespace ember::data {
namespace {

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

// Hugging Face's normaliser on a piece of text, the reference the tables below shortcut:
// control characters dropped, white space made a space, CJK ideographs spaced, accents
// stripped after NFD, lower case.
std::u32string normalized(std::string_view piece, const BertTokenizerOptions& o) {
  const std::u32string in = io::decode_utf8(piece, "BertTokenizer");
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
  return s;
}

// What the normaliser and the splitter do with one code point of the Basic Multilingual Plane
// when that does not depend on its neighbours, made once from the same predicates (so the
// shortcut agrees with normalized() by construction). Complex: everything else (a decomposing
// or combining character, a lower case of two code points, ...), which goes through
// normalized() with its neighbours. Every other kind is a starter (combining class 0) that
// NFD leaves alone, so the text can be cut around it: canonical ordering never crosses one.
// Dropped characters are the exception: removed before NFD, they can join two runs of marks,
// so a complex run extends across them.
enum class Kind : uint8_t { Complex, Drop, Space, Punctuation, Letter, Ideograph };
struct CodePointClass {
  Kind kind = Kind::Complex;
  char16_t lower = 0;  // its lower case (Punctuation, Letter)
};

CodePointClass classify(char32_t c) {
  if (c >= 0xD800 && c <= 0xDFFF) return {};  // surrogates: never in valid UTF-8
  if (unicode::combining_class(c) != 0) return {};
  if (c == 0 || c == 0xFFFD || is_control(c)) return {Kind::Drop};
  if (is_whitespace(c)) return {Kind::Space};
  if (unicode::is_nonspacing_mark(c) || unicode::nfd(std::u32string(1, c)) != std::u32string(1, c)) return {};
  std::u32string lower;
  unicode::append_lower(lower, c);
  if (lower.size() != 1 || lower[0] > 0xFFFF) return {};
  const char32_t l = lower[0];
  if (unicode::is_white_space(l) || is_punctuation(l) != is_punctuation(c)) return {};
  if (is_cjk(c)) return l == c ? CodePointClass{Kind::Ideograph, static_cast<char16_t>(c)} : CodePointClass{};
  return {is_punctuation(c) ? Kind::Punctuation : Kind::Letter, static_cast<char16_t>(l)};
}

const CodePointClass* bmp_classes() {
  static const std::unique_ptr<CodePointClass[]> table = [] {
    auto t = std::make_unique<CodePointClass[]>(0x10000);
    for (char32_t c = 0; c < 0x10000; ++c) t[c] = classify(c);
    return t;
  }();
  return table.get();
}

// Splits normalised code points into words: at white space, and around each punctuation
// character, which is a word of its own.
struct WordSplitter {
  const std::function<void(std::string_view)>& sink;
  std::string word, single;

  void flush() {
    if (!word.empty()) sink(word);
    word.clear();
  }
  void alone(char32_t c) {  // punctuation, or a spaced ideograph
    flush();
    single.clear();
    io::append_utf8(single, c);
    sink(single);
  }
  void letter(char32_t c) { io::append_utf8(word, c); }
  void normalized_code_point(char32_t n) {
    if (unicode::is_white_space(n))
      flush();
    else if (is_punctuation(n))
      alone(n);
    else
      letter(n);
  }
};

}  // namespace

std::vector<std::string> basic_words_reference(std::string_view text, const BertTokenizerOptions& o) {
  std::vector<std::string> words;
  const std::function<void(std::string_view)> sink = [&](std::string_view w) { words.emplace_back(w); };
  WordSplitter split{sink, {}, {}};
  for (const char32_t n : normalized(text, o)) split.normalized_code_point(n);
  split.flush();
  return words;
}

void for_each_basic_word(std::string_view text, const BertTokenizerOptions& o,
                         const std::function<void(std::string_view)>& sink) {
  static const CodePointClass* const classes = bmp_classes();
  WordSplitter split{sink, {}, {}};
  const auto kind_at = [&](size_t i, size_t& next) {
    const char32_t c = io::next_code_point(text, next = i);
    return c < 0x10000 ? classes[c].kind : Kind::Complex;
  };
  for (size_t i = 0; i < text.size();) {
    size_t next = i;
    const char32_t c = io::next_code_point(text, next);
    const CodePointClass cls = c < 0x10000 ? classes[c] : CodePointClass{};
    switch (cls.kind) {
      case Kind::Drop:
        break;
      case Kind::Space:
        split.flush();
        break;
      case Kind::Punctuation:
        split.alone(o.do_lower_case ? cls.lower : c);
        break;
      case Kind::Ideograph:
        if (o.tokenize_chinese_chars)
          split.alone(c);
        else
          split.letter(c);
        break;
      case Kind::Letter:
        split.letter(o.do_lower_case ? cls.lower : c);
        break;
      case Kind::Complex: {
        // The run of complex (and dropped) code points from here, normalised as a whole.
        size_t end = next;
        for (size_t after; end < text.size(); end = after) {
          const Kind k = kind_at(end, after);
          if (k != Kind::Complex && k != Kind::Drop) break;
        }
        for (const char32_t n : normalized(text.substr(i, end - i), o)) split.normalized_code_point(n);
        next = end;
        break;
      }
    }
    i = next;
  }
  split.flush();
}

}  // namespace ember::data
