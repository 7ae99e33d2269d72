// The basic tokenizer's per-code-point shortcuts (data/bert_basic_tokenizer.cpp) against its
// reference path, the whole text normalised at once and then split: every code point of the
// Basic Multilingual Plane in the contexts where cutting the text could change the result
// (between letters, before and after combining marks, beside dropped controls), and random
// mixtures, under each normaliser option.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ember/core/io/utf8.h"
#include "ember/data/bert_basic_tokenizer.h"

namespace {
using namespace ember;
using data::BertTokenizerOptions;

std::vector<std::string> fast_words(const std::string& text, const BertTokenizerOptions& o) {
  std::vector<std::string> words;
  data::for_each_basic_word(text, o, [&](std::string_view w) { words.emplace_back(w); });
  return words;
}

void expect_same_words(const std::string& text, const BertTokenizerOptions& o, const std::string& what) {
  const std::vector<std::string> fast = fast_words(text, o), reference = data::basic_words_reference(text, o);
  if (fast == reference) return;
  size_t i = 0;
  while (i < fast.size() && i < reference.size() && fast[i] == reference[i]) ++i;
  ADD_FAILURE() << what << ": word " << i << " is \"" << (i < fast.size() ? fast[i] : "(none)")
                << "\", the reference has \"" << (i < reference.size() ? reference[i] : "(none)") << "\" ("
                << fast.size() << " and " << reference.size() << " words)";
}

std::vector<BertTokenizerOptions> option_sets() {
  std::vector<BertTokenizerOptions> sets;
  for (const bool lower : {true, false})
    for (const bool chinese : {true, false})
      for (const std::optional<bool> strip :
           {std::optional<bool>{}, std::optional<bool>{true}, std::optional<bool>{false}}) {
        BertTokenizerOptions o;
        o.do_lower_case = lower;
        o.tokenize_chinese_chars = chinese;
        o.strip_accents = strip;
        sets.push_back(o);
      }
  return sets;
}

std::string name_of(const BertTokenizerOptions& o) {
  return std::string("lower ") + (o.do_lower_case ? "on" : "off") + ", chinese " +
         (o.tokenize_chinese_chars ? "on" : "off") + ", strip " +
         (o.strip_accents ? (*o.strip_accents ? "on" : "off") : "default");
}

std::string utf8(const std::u32string& s) {
  std::string out;
  for (const char32_t c : s) io::append_utf8(out, c);
  return out;
}

TEST(BertBasicTokenizer, EveryBmpCodePointInContextMatchesTheReference) {
  // c between letters, followed by two marks out of canonical order, after a mark, and with a
  // dropped control between marks on both sides.
  std::u32string text;
  for (char32_t c = 1; c < 0x10000; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    text += U'q';
    text += c;
    text += U"\u0301\u0323 \u0301";
    text += c;
    text += U"\u0316\u0007\u0323";
    text += c;
    text += U"z ";
  }
  const std::string bytes = utf8(text);
  for (const BertTokenizerOptions& o : option_sets()) expect_same_words(bytes, o, name_of(o));
}

TEST(BertBasicTokenizer, RandomMixturesMatchTheReference) {
  // Letters, digits, punctuation, white space, controls, marks of several classes, CJK (a
  // unified and a compatibility ideograph), U+0130 (two code points in lower case), final
  // sigma, fullwidth forms, precomposed letters, an emoji and a CJK extension B ideograph.
  const std::u32string pool =
      U"aZ9.,'$ \t\n\r\u0000\u0007\u00AD\u200B\u0301\u0316\u0323\u0345\u05B0\u0E38\u4E2D\u6587\uF900"
      U"\u3002\uFF0C\uFF21\u0130\u03A3\u03C2\u00C9\u00E9\u1E0A\u00A0\u2028\u3000\uFFFD\U0001F600\U00020000";
  std::mt19937 rng(20261203);
  std::uniform_int_distribution<size_t> pick(0, pool.size() - 1), length(1, 24);
  for (int t = 0; t < 3000; ++t) {
    std::u32string s;
    for (size_t n = length(rng); n > 0; --n) s += pool[pick(rng)];
    const std::string bytes = utf8(s);
    for (const BertTokenizerOptions& o : option_sets())
      expect_same_words(bytes, o, "mixture " + std::to_string(t) + ", " + name_of(o));
    if (HasFailure()) break;
  }
}

// Hand-checked words, so that the reference itself is pinned as well as the agreement: accents
// go (U+0130 too: NFD makes it I and a dot above), the ligature stays (NFD, not NFKD), a
// control joins its neighbours, each ideograph is a word.
TEST(BertBasicTokenizer, HandCheckedWords) {
  BertTokenizerOptions o;
  const std::vector<std::string> expected = {"cafe", ",", "中", "文", "naive", "ﬁne", "istanbul"};
  EXPECT_EQ(
      fast_words("Caf\xC3\xA9, \xE4\xB8\xAD\xE6\x96\x87na\xC3\xAF\x76\x65\x01 \xEF\xAC\x81ne \xC4\xB0stanbul",
                 o),
      expected);
  o.do_lower_case = false;
  const std::vector<std::string> cased = {"Café", ",", "中", "文", "naïve"};
  EXPECT_EQ(fast_words("Caf\xC3\xA9, \xE4\xB8\xAD\xE6\x96\x87na\xC3\xAF\x76\x65", o), cased);
}

}  // namespace
