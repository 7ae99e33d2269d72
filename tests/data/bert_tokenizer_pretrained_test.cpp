// BertTokenizer::from_pretrained: which file gives which option, the special-token forms, the
// "no limit" model_max_length, and the errors. The ids against transformers on whole checkpoint
// folders: bert_tokenizer_parity_test.cpp.
#include <gtest/gtest.h>

#include "ember/data/bert_tokenizer.h"
#include "support/expect.h"
#include "support/temp_dir.h"

using namespace ember;
using data::BertTokenizer;
using test::TempDir;

namespace {

constexpr const char* kVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n<s>\nhello\nhé\n##llo\nhe\nworld\n";

// A tokenizer.json of a BERT WordPiece model over kVocab's tokens, with the normalizer's
// options and its vocabulary's text as given.
std::string tokenizer_json(const std::string& normalizer, const std::string& vocab) {
  return R"({"version": "1.0", "normalizer": )" + normalizer +
         R"(, "pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "WordPiece", "unk_token": "[UNK]",
         "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": )" +
         vocab + "}}";
}

const char* const kVocabJson =
    R"({"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "<s>": 5, "hello": 6, "hé": 7,
        "##llo": 8, "he": 9, "world": 10})";
const char* const kLowerNormalizer =
    R"({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null,
        "lowercase": true})";

}  // namespace

TEST(BertTokenizerPretrained, VocabAloneTakesTransformersDefaults) {
  TempDir dir;
  dir.write("vocab.txt", kVocab);
  const BertTokenizer tok = BertTokenizer::from_pretrained(dir.path());
  EXPECT_TRUE(tok.options().do_lower_case);
  EXPECT_EQ(tok.options().model_max_length, SIZE_MAX);  // transformers: no limit when unsaid
  EXPECT_EQ(tok.convert_tokens_to_ids(tok.tokenize("HELLO World")), (std::vector<int64_t>{6, 10}));
  // With no limit, a long text is not cut.
  std::string many;
  for (int i = 0; i < 600; ++i) many += "world ";
  EXPECT_EQ(tok.encode(many).input_ids.size(), 602u);
}

TEST(BertTokenizerPretrained, TokenizerConfigGivesCaseLimitAndSpecialTokens) {
  TempDir dir;
  dir.write("vocab.txt", kVocab);
  // Special tokens as transformers writes them: a string, or an AddedToken object.
  dir.write("tokenizer_config.json",
            R"({"do_lower_case": false, "strip_accents": null, "tokenize_chinese_chars": false,
                "model_max_length": 4, "cls_token": {"__type": "AddedToken", "content": "<s>", "lstrip": false},
                "tokenizer_class": "BertTokenizer", "never_split": null, "do_basic_tokenize": true})");
  const BertTokenizer tok = BertTokenizer::from_pretrained(dir.path());
  EXPECT_FALSE(tok.options().do_lower_case);
  EXPECT_FALSE(tok.options().tokenize_chinese_chars);
  EXPECT_EQ(tok.options().model_max_length, 4u);
  EXPECT_EQ(tok.cls_token_id(), 5);
  // Cased: "Hello" is not "hello", "He" is not "he"; unset max_length is model_max_length (4).
  EXPECT_EQ(tok.encode("Hello world he").input_ids, (std::vector<int64_t>{5, 1, 10, 3}));
  data::EncodeOptions longer;
  longer.max_length = 8;
  EXPECT_EQ(tok.encode("Hello world he", std::nullopt, longer).input_ids,
            (std::vector<int64_t>{5, 1, 10, 9, 3}));
  // special_tokens_map.json names the special tokens last.
  dir.write("special_tokens_map.json", R"({"cls_token": "[CLS]", "mask_token": {"content": "[MASK]"}})");
  EXPECT_EQ(BertTokenizer::from_pretrained(dir.path()).cls_token_id(), 2);
}

TEST(BertTokenizerPretrained, HugeModelMaxLengthMeansNoLimit) {
  TempDir dir;
  dir.write("vocab.txt", kVocab);
  for (const char* v : {"1000000000000000019884624838656", "1e30", "4611686018427387904"}) {
    dir.write("tokenizer_config.json", std::string(R"({"model_max_length": )") + v + "}");
    EXPECT_EQ(BertTokenizer::from_pretrained(dir.path()).options().model_max_length, SIZE_MAX) << v;
  }
  dir.write("tokenizer_config.json", R"({"model_max_length": 512})");
  EXPECT_EQ(BertTokenizer::from_pretrained(dir.path()).options().model_max_length, 512u);
  // Padding to "no limit" is refused instead of allocating it.
  dir.write("tokenizer_config.json", R"({"model_max_length": 1e30})");
  data::EncodeOptions pad;
  pad.padding = data::Padding::MaxLength;
  EXPECT_THROW_MSG(
      BertTokenizer::from_pretrained(dir.path()).batch_encode({"hello"}, pad), ValueError,
      "BertTokenizer.batch_encode: cannot pad to max_length 18446744073709551615 (at most 1048576 "
      "tokens)");
}

TEST(BertTokenizerPretrained, TokenizerJsonAloneGivesVocabularyAndNormalizer) {
  TempDir dir;
  dir.write("tokenizer.json", tokenizer_json(kLowerNormalizer, kVocabJson));
  const BertTokenizer tok = BertTokenizer::from_pretrained(dir.path());
  EXPECT_EQ(tok.vocab_size(), 11u);
  EXPECT_TRUE(tok.options().do_lower_case);
  // Lower case strips accents (strip_accents null): "HÉ" -> "he".
  EXPECT_EQ(tok.encode("HÉ Hello").input_ids, (std::vector<int64_t>{2, 9, 6, 3}));
  // The normalizer's lowercase false keeps case and accents.
  TempDir cased;
  cased.write(
      "tokenizer.json",
      tokenizer_json(R"({"type": "BertNormalizer", "lowercase": false, "strip_accents": null})", kVocabJson));
  EXPECT_EQ(BertTokenizer::from_pretrained(cased.path()).encode("hé Hello").input_ids,
            (std::vector<int64_t>{2, 7, 1, 3}));
  // tokenizer_config.json wins over the normalizer, as transformers rebuilds it.
  cased.write("tokenizer_config.json", R"({"do_lower_case": true})");
  EXPECT_EQ(BertTokenizer::from_pretrained(cased.path()).encode("Hello").input_ids,
            (std::vector<int64_t>{2, 6, 3}));
}

TEST(BertTokenizerPretrained, TokenizerJsonIdsMayLeaveGaps) {
  // A vocab.txt with "hello" on lines 6 and 11 gives tokenizer.json "hello": 11 and no id 6.
  TempDir dir;
  dir.write("tokenizer.json",
            tokenizer_json(kLowerNormalizer, R"({"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4,
                                                 "<s>": 5, "hé": 7, "##llo": 8, "he": 9, "world": 10, "hello": 11})"));
  const BertTokenizer tok = BertTokenizer::from_pretrained(dir.path());
  EXPECT_EQ(tok.vocab_size(), 12u);
  EXPECT_EQ(tok.encode("hello world").input_ids, (std::vector<int64_t>{2, 11, 10, 3}));
  EXPECT_EQ(tok.token_to_id(""), std::nullopt);
}

TEST(BertTokenizerPretrained, ErrorsNameTheFileAndTheKey) {
  TempDir empty;
  EXPECT_THROW_MSG(
      BertTokenizer::from_pretrained(empty.path()), IOError,
      "BertTokenizer.from_pretrained: " + empty.path() + " has neither tokenizer.json nor vocab.txt");
  TempDir dir;
  dir.write("vocab.txt", kVocab);
  const std::string config = dir.path("tokenizer_config.json");
  dir.write("tokenizer_config.json", R"({"do_lower_case": "yes"})");
  EXPECT_THROW_MSG(BertTokenizer::from_pretrained(dir.path()), ValueError,
                   "BertTokenizer.from_pretrained: \"do_lower_case\" in " + config +
                       " must be true or false, got \"yes\"");
  dir.write("tokenizer_config.json", R"({"model_max_length": -3})");
  EXPECT_THROW_MSG(BertTokenizer::from_pretrained(dir.path()), ValueError,
                   "BertTokenizer.from_pretrained: \"model_max_length\" in " + config +
                       " must be a non-negative integer, got -3");
  dir.write("tokenizer_config.json", R"({"tokenizer_class": "GPT2Tokenizer"})");
  EXPECT_THROW_MSG(
      BertTokenizer::from_pretrained(dir.path()), ValueError,
      "BertTokenizer.from_pretrained: \"tokenizer_class\" in " + config + " is \"GPT2Tokenizer\"");
  dir.write("tokenizer_config.json", R"({"unk_token": 3})");
  EXPECT_THROW_MSG(BertTokenizer::from_pretrained(dir.path()), ValueError,
                   "BertTokenizer.from_pretrained: \"unk_token\" in " + config + " must be a token");
  dir.write("tokenizer_config.json", "{\"do_lower_case\": tru");
  EXPECT_THROW_MSG(BertTokenizer::from_pretrained(dir.path()), IOError,
                   "BertTokenizer.from_pretrained: " + config + " is not valid JSON: invalid JSON at byte");
  dir.write("tokenizer_config.json", "[]");
  EXPECT_THROW_MSG(BertTokenizer::from_pretrained(dir.path()), ValueError,
                   "BertTokenizer.from_pretrained: " + config + " must hold a JSON object, got an array");
  // A special token the vocabulary lacks: the constructor's error.
  dir.write("tokenizer_config.json", R"({"pad_token": "<pad>"})");
  EXPECT_THROW_MSG(BertTokenizer::from_pretrained(dir.path()), ValueError,
                   "BertTokenizer: the vocabulary has no <pad> token (pad_token)");

  TempDir js;
  const std::string file = js.path("tokenizer.json");
  js.write("tokenizer.json", R"({"model": {"type": "BPE", "vocab": {}}})");
  EXPECT_THROW_MSG(BertTokenizer::from_pretrained(js.path()), ValueError,
                   "BertTokenizer.from_pretrained: \"model\" in " + file + " must be a WordPiece");
  js.write("tokenizer.json", tokenizer_json(R"({"type": "Lowercase"})", kVocabJson));
  EXPECT_THROW_MSG(BertTokenizer::from_pretrained(js.path()), ValueError,
                   "BertTokenizer.from_pretrained: \"normalizer\" in " + file + " must be a BertNormalizer");
  js.write("tokenizer.json", tokenizer_json(kLowerNormalizer, R"({"[PAD]": 0, "[UNK]": 1030})"));
  EXPECT_THROW_MSG(
      BertTokenizer::from_pretrained(js.path()), ValueError,
      "BertTokenizer.from_pretrained: \"model.vocab\" in " + file +
          ": the id of \"[UNK]\" is 1030; ids must be integers below 1028 (twice the 2 tokens, plus 1024)");
  js.write("tokenizer.json", tokenizer_json(kLowerNormalizer, R"({"[PAD]": 0, "[UNK]": -1})"));
  EXPECT_THROW_MSG(
      BertTokenizer::from_pretrained(js.path()), ValueError,
      "BertTokenizer.from_pretrained: \"model.vocab\" in " + file + ": the id of \"[UNK]\" is -1;");
  js.write("tokenizer.json", tokenizer_json(kLowerNormalizer, R"({"[PAD]": 0, "[UNK]": 0})"));
  EXPECT_THROW_MSG(BertTokenizer::from_pretrained(js.path()), ValueError,
                   "BertTokenizer.from_pretrained: \"model.vocab\" in " + file +
                       ": id 0 is given to two tokens (\"[PAD]\" and \"[UNK]\")");
}
