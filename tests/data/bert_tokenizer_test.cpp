// data::BertTokenizer on hand-checked cases: the basic tokenizer (cleaning, CJK, accents,
// punctuation, special tokens), WordPiece, encode / batch_encode (pairs, truncation, padding)
// and the errors. tests/data/bert_tokenizer_parity_test.cpp checks a 1,000-line corpus against
// transformers.
//
// Where transformers' two BERT tokenizers differ, Ember follows the Rust one (BertTokenizer in
// transformers 5, on the tokenizers library) and not the Python one (BertTokenizerLegacy). The
// differences found, each pinned by a case below (FollowsRustTokenizers*):
//  1. Legacy NFC-normalizes the text first: without lower case, "e" + U+0301 stays two code
//     points in Rust (and so in Ember) and becomes "é" in Legacy.
//  2. Legacy lower-cases with Python's str.lower, which writes a final sigma "ς" at the end of
//     a word; Rust maps each character alone ("ΟΔΟΣ" -> "οδοσ").
//  3. CJK ranges: Legacy counts U+2B820..U+2B91F as CJK ideographs, Rust does not (its range
//     starts at U+2B920).
//  4. Unassigned code points: Legacy drops them as control characters (category "Cn"); Rust
//     keeps them.
//  5. Pair truncation (longest_first): Rust cuts the longer sequence down to the shorter one,
//     then halves the budget and gives the odd token to the sequence that was longer, or to the
//     second when both were equally long; Legacy removes tokens one at a time and gives the odd
//     token to the first. 20 + 20 tokens in max_length 32: Rust 14 + 15, Legacy 15 + 14.
//  6. max_length below the number of special tokens: Rust does not truncate at all, Legacy
//     keeps the special tokens alone; Ember raises ValueError instead of either.
// Not Legacy vs Rust but worth knowing: transformers' tokenizer(text, "") drops an empty pair
// (Python truthiness) while the batch form and the tokenizers library keep it; Ember's
// encode(text, "") keeps it. And tokenizers' Unicode tables are older than utf8proc's (Unicode
// 15): characters added to P*, Mn or Cf after about Unicode 10 (U+2E4F, U+0898, U+0890) are
// punctuation, marks or controls for Ember and Legacy but plain letters for Rust; the parity
// corpus leaves them out.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "support/expect.h"

using namespace ember;
using data::BertTokenizer;
using data::BertTokenizerOptions;
using data::EncodeOptions;
using data::Padding;
using Tokens = std::vector<std::string>;
using Ids = std::vector<int64_t>;

namespace {

// Ids in the comments. U+0301 and U+0307 are combining marks; U+2B820 is not a CJK ideograph
// for tokenizers, U+2B920 is; U+0378 is unassigned; "##c" is there twice (ids 38 and 52).
const Tokens kVocab = {
    // 0-9
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", ",", "!", "?",
    // 10-19
    "我", "爱", "模", "型", "nl", "##p", "un", "##aff", "##able", "unaff",
    // 20-29
    "cafe", "café", "Café", "naive", "$", "5", "+", "3", "^", "「",
    // 30-39
    "」", "¿", "que", "a", "##a", "b", "##b", "c", "##c", "οδοσ",
    // 40-49
    "e", "##\xcc\x81", "i", "##\xcc\x87", "x", "\xf0\xab\xa0\xa0", "\xf0\xab\xa4\xa0", "\xcd\xb8", "[", "]",
    // 50-53
    "sep", "ab", "##c", "."};

BertTokenizer tokenizer(BertTokenizerOptions o = {}) { return BertTokenizer(kVocab, std::move(o)); }

BertTokenizerOptions cased() {
  BertTokenizerOptions o;
  o.do_lower_case = false;
  return o;
}

// A file under the test's temporary folder, removed by the destructor.
struct TempFile {
  std::string path;
  TempFile(const std::string& name, const std::string& bytes) : path(::testing::TempDir() + name) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

}  // namespace

TEST(BertTokenizer, SplitsOnWhitespaceAndPunctuationAndLowerCases) {
  const BertTokenizer t = tokenizer();
  EXPECT_EQ(t.tokenize("Hello, WORLD!"), (Tokens{"hello", ",", "world", "!"}));
  EXPECT_EQ(t.tokenize("  hello\t\nworld  "), (Tokens{"hello", "world"}));
  EXPECT_EQ(t.tokenize(""), Tokens{});
  EXPECT_EQ(t.tokenize(" \t "), Tokens{});
  EXPECT_EQ(t.convert_tokens_to_ids(t.tokenize("Hello, WORLD!")), (Ids{5, 7, 6, 8}));
}

TEST(BertTokenizer, EveryCjkIdeographIsAToken) {
  const BertTokenizer t = tokenizer();
  EXPECT_EQ(t.tokenize("我爱NLP模型"), (Tokens{"我", "爱", "nl", "##p", "模", "型"}));
  BertTokenizerOptions o;
  o.tokenize_chinese_chars = false;
  EXPECT_EQ(tokenizer(o).tokenize("我爱 模型"), (Tokens{"[UNK]", "[UNK]"}));
}

TEST(BertTokenizer, AccentsFollowLowerCaseUnlessStripAccentsIsSet) {
  EXPECT_EQ(tokenizer().tokenize("Café NAÏVE"), (Tokens{"cafe", "naive"}));
  EXPECT_EQ(tokenizer(cased()).tokenize("Café"), (Tokens{"Café"}));
  BertTokenizerOptions strip = cased();
  strip.strip_accents = true;
  EXPECT_EQ(tokenizer(strip).tokenize("Café"), (Tokens{"[UNK]"}));  // "Cafe": not in the vocabulary
  EXPECT_EQ(tokenizer(strip).tokenize("café"), (Tokens{"cafe"}));
  BertTokenizerOptions keep;
  keep.strip_accents = false;
  EXPECT_EQ(tokenizer(keep).tokenize("CAFÉ"), (Tokens{"café"}));
}

TEST(BertTokenizer, AsciiSymbolsAndUnicodePunctuationAreSplitOff) {
  const BertTokenizer t = tokenizer();
  // $ + ^ are symbols for Unicode but punctuation for BERT (every non-alphanumeric ASCII).
  EXPECT_EQ(t.tokenize("$5+3^"), (Tokens{"$", "5", "+", "3", "^"}));
  EXPECT_EQ(t.tokenize("「我」¿Qué?"), (Tokens{"「", "我", "」", "¿", "que", "?"}));
}

TEST(BertTokenizer, CleaningDropsControlCharactersAndMapsWhitespaceToSpace) {
  const BertTokenizer t = tokenizer();
  // NUL, U+FFFD, ESC, DEL, NEL, zero-width space (Cf), soft hyphen (Cf), private use (Co): gone,
  // joining what they separated; ideographic space, no-break space, line separator: spaces.
  EXPECT_EQ(t.tokenize(std::string("a\0b", 3)), (Tokens{"ab"}));
  EXPECT_EQ(t.tokenize("a\xef\xbf\xbd"
                       "b\x1b"
                       "c\x7f\xc2\x85"),
            (Tokens{"ab", "##c"}));
  EXPECT_EQ(t.tokenize("a\xe2\x80\x8b"
                       "b\xc2\xad"
                       "c\xee\x80\x80"),
            (Tokens{"ab", "##c"}));
  EXPECT_EQ(t.tokenize("a\xe3\x80\x80"
                       "b\xc2\xa0"
                       "c\xe2\x80\xa8"
                       "a"),
            (Tokens{"a", "b", "c", "a"}));
  EXPECT_EQ(t.tokenize("a\x0b"
                       "b\x0c"
                       "c"),
            (Tokens{"ab", "##c"}));  // VT and FF are controls first
}

TEST(BertTokenizer, WordPieceTakesTheLongestMatchFromTheLeft) {
  const BertTokenizer t = tokenizer();
  EXPECT_EQ(t.tokenize("unaffable"), (Tokens{"unaff", "##able"}));  // "unaff" beats "un" + "##aff"
  EXPECT_EQ(t.tokenize("unable"), (Tokens{"un", "##able"}));
  EXPECT_EQ(t.tokenize("abc"), (Tokens{"ab", "##c"}));
  EXPECT_EQ(t.tokenize("aaab"), (Tokens{"a", "##a", "##a", "##b"}));
  // No piece for "##x": the whole word is unknown, not just its tail.
  EXPECT_EQ(t.tokenize("abx hello"), (Tokens{"[UNK]", "hello"}));
  // The duplicated "##c" (ids 38 and 52) maps to its last id.
  EXPECT_EQ(t.convert_tokens_to_ids({"##c", "nope"}), (Ids{52, 1}));
}

TEST(BertTokenizer, AWordOfMoreThanMaxInputCharsPerWordIsUnknown) {
  const BertTokenizer t = tokenizer();
  const std::string hundred = "a" + std::string(99, 'a');
  EXPECT_EQ(t.tokenize(hundred).size(), 100u);
  EXPECT_EQ(t.tokenize(hundred + "a"), (Tokens{"[UNK]"}));
  BertTokenizerOptions o;
  o.max_input_chars_per_word = 4;
  // Characters, not bytes: "οδοσ" is 4 characters in 8 bytes.
  EXPECT_EQ(tokenizer(o).tokenize("οδοσ"), (Tokens{"οδοσ"}));
  o.max_input_chars_per_word = 3;
  EXPECT_EQ(tokenizer(o).tokenize("aaa aaaa"), (Tokens{"a", "##a", "##a", "[UNK]"}));
}

TEST(BertTokenizer, SpecialTokensAreFoundAnywhereAndNeverSplit) {
  const BertTokenizer t = tokenizer();
  EXPECT_EQ(t.tokenize("hello[SEP]world"), (Tokens{"hello", "[SEP]", "world"}));
  EXPECT_EQ(t.tokenize("[CLS][MASK] [PAD]x[UNK]"), (Tokens{"[CLS]", "[MASK]", "[PAD]", "x", "[UNK]"}));
  // Matched in the raw text, case-sensitive: "[sep]" is text.
  EXPECT_EQ(t.tokenize("[sep]"), (Tokens{"[", "sep", "]"}));
  // Without a [MASK] in the vocabulary it is plain text.
  Tokens v = kVocab;
  v[4] = "mask";
  const BertTokenizer no_mask(v);
  EXPECT_EQ(no_mask.mask_token_id(), -1);
  EXPECT_EQ(no_mask.tokenize("[MASK]"), (Tokens{"[", "mask", "]"}));
}

TEST(BertTokenizer, FollowsRustTokenizersWhereLegacyDiffers) {
  // 1. No NFC: "e" + U+0301 stays decomposed (Legacy would make it "é").
  EXPECT_EQ(tokenizer(cased()).tokenize("e\xcc\x81"), (Tokens{"e", "##\xcc\x81"}));
  // 2. Each character lower-cased alone: no final sigma.
  EXPECT_EQ(tokenizer().tokenize("ΟΔΟΣ"), (Tokens{"οδοσ"}));
  // U+0130's full lower case is "i" + U+0307 (kept when accents are not stripped).
  BertTokenizerOptions keep;
  keep.strip_accents = false;
  EXPECT_EQ(tokenizer(keep).tokenize("\xc4\xb0"), (Tokens{"i", "##\xcc\x87"}));
  EXPECT_EQ(tokenizer().tokenize("\xc4\xb0"), (Tokens{"i"}));
  // 3. U+2B820 is not a CJK ideograph here, U+2B920 is.
  EXPECT_EQ(tokenizer().tokenize("\xf0\xab\xa0\xa0"
                                 "a"),
            (Tokens{"\xf0\xab\xa0\xa0", "##a"}));
  EXPECT_EQ(tokenizer().tokenize("\xf0\xab\xa4\xa0"
                                 "a"),
            (Tokens{"\xf0\xab\xa4\xa0", "a"}));
  // 4. An unassigned code point (U+0378) is kept.
  EXPECT_EQ(tokenizer().tokenize("\xcd\xb8"), (Tokens{"\xcd\xb8"}));
}

namespace {

std::string letters(size_t n, char c) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += i ? std::string(" ") + c : std::string(1, c);
  return s;
}

// How many of each sequence's tokens survive truncation to max_length.
std::pair<size_t, size_t> kept(size_t a, size_t b, size_t max_length) {
  EncodeOptions o;
  o.max_length = max_length;
  const data::Encoding e = tokenizer().encode(letters(a, 'a'), letters(b, 'b'), o);
  const size_t na = static_cast<size_t>(std::count(e.input_ids.begin(), e.input_ids.end(), 33));
  const size_t nb = static_cast<size_t>(std::count(e.input_ids.begin(), e.input_ids.end(), 35));
  EXPECT_EQ(e.input_ids.size(), na + nb + 3);
  return {na, nb};
}

}  // namespace

TEST(BertTokenizer, EncodeAddsClsAndSepAndTypeIdsForPairs) {
  const BertTokenizer t = tokenizer();
  data::Encoding e = t.encode("hello world");
  EXPECT_EQ(e.input_ids, (Ids{2, 5, 6, 3}));
  EXPECT_EQ(e.attention_mask, (Ids{1, 1, 1, 1}));
  EXPECT_EQ(e.token_type_ids, (Ids{0, 0, 0, 0}));
  e = t.encode("hello", "world !");
  EXPECT_EQ(e.input_ids, (Ids{2, 5, 3, 6, 8, 3}));
  EXPECT_EQ(e.token_type_ids, (Ids{0, 0, 0, 1, 1, 1}));
  e = t.encode("hello", std::string());  // an empty pair is still a pair
  EXPECT_EQ(e.input_ids, (Ids{2, 5, 3, 3}));
  EXPECT_EQ(e.token_type_ids, (Ids{0, 0, 0, 1}));
  EncodeOptions plain;
  plain.add_special_tokens = false;
  EXPECT_EQ(t.encode("hello", "world", plain).input_ids, (Ids{5, 6}));
  EXPECT_EQ(t.encode("hello", "world", plain).token_type_ids, (Ids{0, 1}));
  EncodeOptions fixed;
  fixed.max_length = 6;
  fixed.padding = Padding::MaxLength;
  e = t.encode("hello", std::nullopt, fixed);
  EXPECT_EQ(e.input_ids, (Ids{2, 5, 3, 0, 0, 0}));
  EXPECT_EQ(e.attention_mask, (Ids{1, 1, 1, 0, 0, 0}));
  EXPECT_EQ(e.token_type_ids, (Ids{0, 0, 0, 0, 0, 0}));
}

TEST(BertTokenizer, PairsAreTruncatedLongestFirstAsTokenizersDoes) {
  // The numbers transformers' BertTokenizer gives (see the header comment, item 5).
  EXPECT_EQ(kept(20, 20, 32), std::make_pair(size_t{14}, size_t{15}));
  EXPECT_EQ(kept(20, 20, 33), std::make_pair(size_t{15}, size_t{15}));
  EXPECT_EQ(kept(30, 29, 32), std::make_pair(size_t{15}, size_t{14}));
  EXPECT_EQ(kept(29, 30, 32), std::make_pair(size_t{14}, size_t{15}));
  EXPECT_EQ(kept(5, 40, 32), std::make_pair(size_t{5}, size_t{24}));
  EXPECT_EQ(kept(40, 5, 32), std::make_pair(size_t{24}, size_t{5}));
  EXPECT_EQ(kept(2, 3, 6), std::make_pair(size_t{1}, size_t{2}));
  EXPECT_EQ(kept(1, 1, 4), std::make_pair(size_t{0}, size_t{1}));
  EXPECT_EQ(kept(0, 40, 10), std::make_pair(size_t{0}, size_t{7}));
  EXPECT_EQ(kept(40, 0, 10), std::make_pair(size_t{7}, size_t{0}));
  EXPECT_EQ(kept(40, 40, 5), std::make_pair(size_t{1}, size_t{1}));
  EXPECT_EQ(kept(3, 3, 3), std::make_pair(size_t{0}, size_t{0}));
  EXPECT_EQ(kept(4, 5, 100), std::make_pair(size_t{4}, size_t{5}));
  // One sequence: cut to max_length - 2; without truncation, nothing is cut.
  EncodeOptions o;
  o.max_length = 4;
  EXPECT_EQ(tokenizer().encode("a b c d e", std::nullopt, o).input_ids, (Ids{2, 33, 35, 3}));
  o.truncation = false;
  EXPECT_EQ(tokenizer().encode("a b c d e", std::nullopt, o).input_ids.size(), 7u);
}

TEST(BertTokenizer, BatchEncodePadsToTheLongestOrToMaxLength) {
  const BertTokenizer t = tokenizer();
  EncodeOptions o;
  o.max_length = 8;
  data::BatchEncoding b = t.batch_encode({"a b c", "a", ""}, o);  // Padding::Longest by default
  EXPECT_EQ(b.input_ids.dtype(), kInt64);
  EXPECT_EQ(b.input_ids.device(), Device::cpu());
  EXPECT_EQ(b.input_ids.shape(), (Shape{3, 5}));
  EXPECT_EQ(b.input_ids.to_vector<int64_t>(), (Ids{2, 33, 35, 37, 3, 2, 33, 3, 0, 0, 2, 3, 0, 0, 0}));
  EXPECT_EQ(b.attention_mask.to_vector<int64_t>(), (Ids{1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0}));
  EXPECT_EQ(b.token_type_ids.to_vector<int64_t>(), Ids(15, 0));
  EXPECT_EQ(b.lengths.shape(), (Shape{3}));
  EXPECT_EQ(b.lengths.to_vector<int64_t>(), (Ids{5, 3, 2}));
  o.padding = Padding::MaxLength;
  b = t.batch_encode({"a b c", "a"}, o);
  EXPECT_EQ(b.input_ids.shape(), (Shape{2, 8}));
  EXPECT_EQ(b.input_ids.to_vector<int64_t>(), (Ids{2, 33, 35, 37, 3, 0, 0, 0, 2, 33, 3, 0, 0, 0, 0, 0}));
  EXPECT_EQ(b.lengths.to_vector<int64_t>(), (Ids{5, 3}));
  // Pairs: types 1 for the second sequence, 0 in the padding.
  o.padding = Padding::Longest;
  b = t.batch_encode({"a", "a b"}, {"b", "c"}, o);
  EXPECT_EQ(b.input_ids.to_vector<int64_t>(), (Ids{2, 33, 3, 35, 3, 0, 2, 33, 35, 3, 37, 3}));
  EXPECT_EQ(b.token_type_ids.to_vector<int64_t>(), (Ids{0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(b.attention_mask.to_vector<int64_t>(), (Ids{1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1}));
  // No padding: fine when every row is equally long.
  o.padding = Padding::None;
  b = t.batch_encode({"a b", "b c"}, o);
  EXPECT_EQ(b.input_ids.shape(), (Shape{2, 4}));
  // An empty batch.
  b = t.batch_encode(std::vector<std::string>{}, o);
  EXPECT_EQ(b.input_ids.shape(), (Shape{0, 0}));
  EXPECT_EQ(b.lengths.shape(), (Shape{0}));
}

TEST(BertTokenizer, RaggedBatchesAndTinyMaxLengthsAreValueErrors) {
  const BertTokenizer t = tokenizer();
  EncodeOptions o;
  o.padding = Padding::None;
  EXPECT_THROW_MSG(t.batch_encode({"a b", "a"}, o), ValueError,
                   "BertTokenizer.batch_encode: row 1 has 3 tokens and row 0 has 4, and padding is None");
  o.padding = Padding::MaxLength;
  o.max_length = 3;
  o.truncation = false;
  EXPECT_THROW_MSG(t.batch_encode({"a", "a b"}, o), ValueError,
                   "BertTokenizer.batch_encode: row 1 has 4 tokens, more than max_length 3");
  o.truncation = true;
  o.max_length = 2;
  EXPECT_THROW_MSG(t.batch_encode({"a"}, {"b"}, o), ValueError,
                   "BertTokenizer.batch_encode: max_length 2 cannot hold the 3 special tokens");
  o.max_length = 1;
  EXPECT_THROW_MSG(t.encode("a", std::nullopt, o), ValueError,
                   "BertTokenizer.encode: max_length 1 cannot hold the 2 special tokens");
  EXPECT_THROW_MSG(t.batch_encode({"a", "b"}, {"c"}), ValueError,
                   "BertTokenizer.batch_encode: 2 texts and 1 pairs");
}

TEST(BertTokenizer, InvalidUtf8IsAValueErrorWithTheByteOffset) {
  const BertTokenizer t = tokenizer();
  EXPECT_THROW_MSG(t.tokenize("ab\xff"), ValueError, "BertTokenizer.tokenize: invalid UTF-8 at byte 2");
  EXPECT_THROW_LINE(t.encode("我\xe6\x88"), ValueError, "BertTokenizer.encode: invalid UTF-8 at byte 3");
  EXPECT_THROW_MSG(t.encode("a", std::string("\xc0\x80")), ValueError,
                   "BertTokenizer.encode: invalid UTF-8 at byte 0 of pair");
  EXPECT_THROW_MSG(t.batch_encode({"a", "\xed\xa0\x80"}), ValueError,
                   "BertTokenizer.batch_encode: invalid UTF-8 at byte 0 of texts[1]");
  EXPECT_THROW_LINE(t.batch_encode({"a", "b"}, {"c", "d\xe2\x82"}), ValueError,
                    "BertTokenizer.batch_encode: invalid UTF-8 at byte 1 of pairs[1]");
  EXPECT_THROW_LINE(t.tokenize("ab\xff"), ValueError, "BertTokenizer.tokenize: invalid UTF-8 at byte 2");
}

TEST(BertTokenizer, AVocabularyNeedsItsSpecialTokens) {
  EXPECT_THROW_MSG(BertTokenizer(Tokens{}), ValueError, "BertTokenizer: the vocabulary is empty");
  for (const char* missing : {"[UNK]", "[SEP]", "[PAD]", "[CLS]"}) {
    Tokens v = kVocab;
    v.erase(std::find(v.begin(), v.end(), missing));
    EXPECT_THROW_MSG(BertTokenizer{v}, ValueError,
                     std::string("BertTokenizer: the vocabulary has no ") + missing + " token");
  }
  BertTokenizerOptions o;
  o.unk_token = "<unk>";
  EXPECT_THROW_MSG(BertTokenizer(kVocab, o), ValueError,
                   "BertTokenizer: the vocabulary has no <unk> token (unk_token)");
  EXPECT_THROW_MSG(BertTokenizer(Tokens{"[UNK]", "\xff"}), ValueError,
                   "BertTokenizer: vocabulary token 1 is not UTF-8");
}

TEST(BertTokenizer, ReadsVocabTxtLineByLine) {
  // CRLF and CR end lines too, an empty line is the token "", the last line needs no newline,
  // a duplicate keeps its last id.
  TempFile f("bert_vocab.txt", "[PAD]\r\n[UNK]\r[CLS]\n[SEP]\n\nhello\nworld\nhello");
  const BertTokenizer t(f.path);
  EXPECT_EQ(t.vocab_size(), 8u);
  EXPECT_EQ(t.token_to_id(""), std::optional<int64_t>(4));
  EXPECT_EQ(t.token_to_id("hello"), std::optional<int64_t>(7));
  EXPECT_EQ(t.token_to_id("world"), std::optional<int64_t>(6));
  EXPECT_EQ(t.token_to_id("nope"), std::nullopt);
  EXPECT_EQ(t.convert_ids_to_tokens({5, 7}), (Tokens{"hello", "hello"}));
  EXPECT_EQ(t.cls_token_id(), 2);
  EXPECT_EQ(t.encode("Hello world").input_ids, (Ids{2, 7, 6, 3}));
}

TEST(BertTokenizer, VocabFileErrors) {
  EXPECT_THROW_MSG(BertTokenizer(std::string("/nonexistent/vocab.txt")), IOError,
                   "BertTokenizer: cannot open \"/nonexistent/vocab.txt\"");
  TempFile empty("bert_vocab_empty.txt", "");
  EXPECT_THROW_MSG(BertTokenizer(empty.path), ValueError, "BertTokenizer: the vocabulary is empty");
  TempFile bad("bert_vocab_bad.txt", "[PAD]\n[UNK]\n\xfe\n");
  EXPECT_THROW_MSG(BertTokenizer(bad.path), IOError, "BertTokenizer: \"" + bad.path + "\" is not UTF-8");
  TempFile no_sep("bert_vocab_nosep.txt", "[PAD]\n[UNK]\n[CLS]\n");
  EXPECT_THROW_MSG(BertTokenizer(no_sep.path), ValueError,
                   "BertTokenizer: the vocabulary has no [SEP] token");
}

TEST(BertTokenizer, DecodeJoinsPiecesAsTheWordPieceDecoder) {
  const BertTokenizer t = tokenizer();
  EXPECT_EQ(t.decode({2, 5, 53, 6, 7, 3}), "[CLS] hello. world, [SEP]");
  EXPECT_EQ(t.decode({2, 5, 53, 6, 7, 3, 0}, /*skip_special_tokens=*/true), "hello. world,");
  EXPECT_EQ(t.decode({15, 14, 15, 16, 17, 18}), "##p nlp unaffable");
  EXPECT_EQ(t.decode(t.encode("Unaffable, NLP!").input_ids, true), "unaffable, nlp!");
  EXPECT_EQ(t.decode({}), "");
  EXPECT_THROW_MSG(
      t.decode({54}), IndexError,
      "BertTokenizer.convert_ids_to_tokens: id 54 is out of range for a vocabulary of 54 tokens");
  EXPECT_THROW_MSG(t.decode({-1}), IndexError, "BertTokenizer.convert_ids_to_tokens: id -1 is out of range");
}
