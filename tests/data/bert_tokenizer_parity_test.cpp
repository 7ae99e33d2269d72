// data::BertTokenizer against transformers' BertTokenizer (transformers 5.24, tokenizers 0.23)
// on the committed corpus of tests/parity/fixtures (made by
// tests/parity/make_tokenizer_fixtures.py, which documents the format): every row's input_ids,
// attention_mask and token_type_ids must be identical, for single lines padded to max_length
// and for pairs padded to the longest, lower-cased and cased.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "ember/core/io/file_io.h"
#include "ember/core/io/json.h"
#include "support/expect.h"

using namespace ember;

namespace {

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(io::read_file(path, "tokenizer fixture"));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

int64_t integer(const io::json::Value& v) {
  uint64_t u = 0;
  if (!v.as_uint64(u)) ADD_FAILURE() << "not a non-negative integer: " << v.text;
  return static_cast<int64_t>(u);
}

const std::vector<std::string>& corpus() {
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> out;
    for (const std::string& line : lines_of(test::fixture_path("tokenizer_corpus.txt"))) {
      const io::json::Value v = io::json::parse(line);
      EXPECT_EQ(v.type, io::json::Value::Type::String) << line;
      out.push_back(v.text);
    }
    return out;
  }();
  return texts;
}

// Runs one configuration of tokenizer_expected.txt; returns the rows it compared. The
// tokenizer is made from tokenizer_vocab.txt with the configuration's case, or read by
// BertTokenizer::from_pretrained from pretrained_dir (a fixture folder) when one is named.
size_t check_config(const std::string& config, const std::string& pretrained_dir = "") {
  const std::vector<std::string>& texts = corpus();
  const std::vector<std::string> expected = lines_of(test::fixture_path("tokenizer_expected.txt"));
  EXPECT_FALSE(expected.empty());
  const io::json::Value header = io::json::parse(expected.at(0));
  const auto max_length = static_cast<size_t>(integer(*header.find("max_length")));
  EXPECT_EQ(static_cast<size_t>(integer(*header.find("lines"))), texts.size());

  const bool pairs = config.rfind("pair", 0) == 0;
  data::BertTokenizerOptions topt;
  topt.do_lower_case = config.find("lower") != std::string::npos;
  const data::BertTokenizer tok =
      pretrained_dir.empty() ? data::BertTokenizer(test::fixture_path("tokenizer_vocab.txt"), topt)
                             : data::BertTokenizer::from_pretrained(test::fixture_path(pretrained_dir));
  EXPECT_EQ(tok.options().do_lower_case, topt.do_lower_case) << pretrained_dir;
  data::EncodeOptions eopt;
  eopt.max_length = max_length;
  eopt.truncation = true;
  eopt.padding = pairs ? data::Padding::Longest : data::Padding::MaxLength;

  size_t rows = 0, mismatches = 0;
  for (size_t k = 1; k < expected.size(); ++k) {
    const io::json::Value rec = io::json::parse(expected[k]);
    if (rec.find("config")->text != config) continue;
    const auto first = static_cast<size_t>(integer(*rec.find("first")));
    const int64_t width = integer(*rec.find("width"));
    const std::vector<io::json::Value>& want = rec.find("rows")->items;
    std::vector<std::string> a, b;
    for (size_t r = 0; r < want.size(); ++r) {
      const size_t line = first + (pairs ? 2 * r : r);
      a.push_back(texts.at(line));
      if (pairs) b.push_back(texts.at(line + 1));
    }
    const data::BatchEncoding got = pairs ? tok.batch_encode(a, b, eopt) : tok.batch_encode(a, eopt);
    const auto n = static_cast<int64_t>(want.size());
    EXPECT_EQ(got.input_ids.shape(), (Shape{n, width})) << config << " batch at line " << first;
    if (got.input_ids.shape() != Shape{n, width}) {
      mismatches += want.size();
      continue;
    }
    const auto ids = got.input_ids.to_vector<int64_t>();
    const auto mask = got.attention_mask.to_vector<int64_t>();
    const auto types = got.token_type_ids.to_vector<int64_t>();
    const auto lengths = got.lengths.to_vector<int64_t>();
    for (size_t r = 0; r < want.size(); ++r, ++rows) {
      // Rebuild transformers' full rows: ids then [PAD]s; mask 1s then 0s; types 0s, then 1s up
      // to the real length, then 0s.
      const std::vector<io::json::Value>& row = want[r].items;
      const int64_t type0 = integer(row.at(0));
      const auto len = static_cast<int64_t>(row.size() - 1);
      std::vector<int64_t> w_ids, w_mask, w_types;
      for (int64_t j = 0; j < width; ++j) {
        w_ids.push_back(j < len ? integer(row.at(static_cast<size_t>(j) + 1)) : tok.pad_token_id());
        w_mask.push_back(j < len ? 1 : 0);
        w_types.push_back(j >= type0 && j < len ? 1 : 0);
      }
      const auto at = static_cast<std::ptrdiff_t>(r * static_cast<size_t>(width));
      const auto end = at + width;
      const bool same = std::equal(w_ids.begin(), w_ids.end(), ids.begin() + at, ids.begin() + end) &&
                        std::equal(w_mask.begin(), w_mask.end(), mask.begin() + at, mask.begin() + end) &&
                        std::equal(w_types.begin(), w_types.end(), types.begin() + at, types.begin() + end) &&
                        lengths[r] == len;
      if (!same && mismatches++ < 5) {
        const size_t line = first + (pairs ? 2 * r : r);
        std::ostringstream msg;
        for (int64_t j = 0; j < width; ++j) msg << ids[static_cast<size_t>(at + j)] << ' ';
        msg << "\n  expected ids: ";
        for (int64_t v : w_ids) msg << v << ' ';
        ADD_FAILURE() << config << ": corpus line " << line << " (" << io::json::quote(texts[line])
                      << ") differs from transformers\n  ids: " << msg.str();
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << config << ": rows that differ from transformers, of " << rows;
  return rows;
}

}  // namespace

TEST(BertTokenizerParity, CorpusHasOverAThousandLines) { EXPECT_GE(corpus().size(), 1000u); }

TEST(BertTokenizerParity, SingleLinesLowerCasedPaddedToMaxLength) {
  EXPECT_EQ(check_config("single_lower"), corpus().size());
}

TEST(BertTokenizerParity, SingleLinesCasedPaddedToMaxLength) {
  EXPECT_EQ(check_config("single_cased"), corpus().size());
}

// A checkpoint's tokenizer files (tests/parity/make_sentence_fixtures.py writes them from the
// same vocabulary and checks that transformers' AutoTokenizer gives the corpus rows above).
TEST(BertTokenizerParity, FromPretrainedCasedVocabAndConfigMatchTransformers) {
  EXPECT_EQ(check_config("single_cased", "tokenizer_cased"), corpus().size());
}

TEST(BertTokenizerParity, FromPretrainedTokenizerJsonAloneMatchesTransformers) {
  EXPECT_EQ(check_config("single_lower", "tokenizer_uncased_json"), corpus().size());
}

TEST(BertTokenizerParity, PairsLowerCasedPaddedToTheLongest) {
  EXPECT_EQ(check_config("pair_lower"), corpus().size() / 2);
}

TEST(BertTokenizerParity, PairsCasedPaddedToTheLongest) {
  EXPECT_EQ(check_config("pair_cased"), corpus().size() / 2);
}
