// The text_classifier example end to end on small slices of the bundled review corpus: its
// flag errors, an interrupted run that --resume continues bit for bit, predict on
// standard input, pretraining into a Hugging Face directory that the frozen mode reads; a
// copy elsewhere without the bundled corpus names the flags to pass. Runs the built binary; skipped in builds
// without examples.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "support/run_example.h"

namespace fs = std::filesystem;
using ember::test::Outcome;

namespace {

Outcome text_classifier(const std::string& args) {
  return ember::test::run_example("text_classifier", "--device cpu " + args);
}

// The "Epoch N: ..." line, without its timing.
std::string epoch_result(const std::string& output, int epoch) {
  const std::regex line("Epoch " + std::to_string(epoch) + ": (test accuracy [0-9.]+ %, ROC AUC [0-9.]+)");
  std::smatch m;
  return std::regex_search(output, m, line) ? m[1].str()
                                            : std::string("(no epoch ") + std::to_string(epoch) + ")";
}

class TextClassifierCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(ember::test::example_path("text_classifier")))
      GTEST_SKIP() << "the text_classifier example is not built (EMBER_BUILD_EXAMPLES=OFF)";
    std::string tmpl = (fs::temp_directory_path() / "ember_text_cli_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  std::string dir_;
};

// 96 reviews in batches of 32: three batches per epoch.
bool same_bytes(const std::string& a, const std::string& b) {
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  const std::string x(std::istreambuf_iterator<char>(fa), {}), y(std::istreambuf_iterator<char>(fb), {});
  return !x.empty() && x == y;
}

const std::string kSmall = "--limit 96 --batch-size 32 --max-length 32 --epochs 2 --log-interval 100 ";

}  // namespace

TEST_F(TextClassifierCli, BadFlagsAreOneLine) {
  Outcome r = text_classifier("--mode guess");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output,
            "text_classifier: --mode must be finetune, pretrain, frozen or predict, got \"guess\"\n");
  r = text_classifier("--mode predict");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "text_classifier: --mode predict needs --pretrained DIR\n");
  r = text_classifier("--max-length 2");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "text_classifier: --max-length must be at least 3 ([CLS] x [SEP])\n");
  r = text_classifier("--pooling max");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "text_classifier: --pooling must be cls or mean, got \"max\"\n");
  r = text_classifier("--padding pack");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "text_classifier: --padding must be skip or compute, got \"pack\"\n");
}

TEST_F(TextClassifierCli, AnInterruptedRunResumesToTheSameNumbers) {
  const std::string whole_dir = dir_ + "/whole", run_dir = dir_ + "/run";
  const Outcome whole = text_classifier(kSmall + "--save " + whole_dir);
  ASSERT_EQ(whole.status, 0) << whole.output;
  // Stopped in the second epoch (batch 4 of 6): the checkpoint of epoch 1 stays.
  const Outcome stopped = text_classifier(kSmall + "--save " + run_dir + " --stop-after 4");
  EXPECT_EQ(stopped.status, 130) << stopped.output;
  EXPECT_NE(stopped.output.find("Interrupted during epoch 2: the checkpoint of epoch 1 in " + run_dir +
                                " is intact"),
            std::string::npos)
      << stopped.output;
  EXPECT_EQ(epoch_result(stopped.output, 1), epoch_result(whole.output, 1));
  const Outcome resumed = text_classifier(kSmall + "--save " + run_dir + " --resume " + run_dir);
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("Resumed from " + run_dir + " after epoch 1"), std::string::npos);
  EXPECT_EQ(resumed.output.find("Epoch 1:"), std::string::npos);
  EXPECT_EQ(epoch_result(resumed.output, 2), epoch_result(whole.output, 2));
  EXPECT_NE(epoch_result(whole.output, 2).find("ROC AUC"), std::string::npos);
  // Bit for bit: model, AdamW state, schedule and random state of the last epoch.
  EXPECT_TRUE(same_bytes(whole_dir + "/checkpoint.safetensors", run_dir + "/checkpoint.safetensors"));

  // The saved directory predicts: a label and its probability per input line.
  const Outcome predicted =
      ember::test::run_example("text_classifier", "--mode predict --device cpu --pretrained " + run_dir +
                                                      " < " + run_dir + "/vocab.txt");
  ASSERT_EQ(predicted.status, 0) << predicted.output.substr(0, 500);
  const std::regex answer("^[01]\t(0\\.[5-9][0-9]*|1\\.0+)$");
  size_t lines = 0;
  for (size_t at = 0; at < predicted.output.size();) {
    const size_t end = predicted.output.find('\n', at);
    const std::string one = predicted.output.substr(at, end - at);
    EXPECT_TRUE(std::regex_match(one, answer)) << "line " << lines << ": " << one;
    ++lines;
    at = end == std::string::npos ? predicted.output.size() : end + 1;
  }
  EXPECT_GT(lines, 3000u);  // one per vocab line
}

TEST_F(TextClassifierCli, PretrainingWritesADirectoryTheFrozenModeReads) {
  const std::string pre = dir_ + "/pretrained";
  const Outcome r =
      text_classifier("--mode pretrain --limit 64 --batch-size 32 --max-length 32 --epochs 1 --save " + pre);
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* file : {"config.json", "model.safetensors", "vocab.txt"})
    EXPECT_TRUE(fs::exists(pre + "/" + file)) << file;
  const Outcome frozen = text_classifier(kSmall + "--mode frozen --pretrained " + pre);
  ASSERT_EQ(frozen.status, 0) << frozen.output;
  EXPECT_NE(frozen.output.find("Training a head on a frozen BERT"), std::string::npos) << frozen.output;
  EXPECT_NE(epoch_result(frozen.output, 2).find("ROC AUC"), std::string::npos) << frozen.output;
  // Without --pretrained: the baseline, a head on a random encoder; mean pooling, saved in
  // the model's metadata so that predict pools the same way.
  const std::string head_dir = dir_ + "/head";
  const Outcome random =
      text_classifier(kSmall + "--epochs 1 --mode frozen --pooling mean --save " + head_dir);
  ASSERT_EQ(random.status, 0) << random.output;
  EXPECT_NE(random.output.find("Training a head on a frozen random BERT"), std::string::npos)
      << random.output;
  EXPECT_NE(random.output.find("batch 32, mean pooling"), std::string::npos) << random.output;
  std::ifstream saved(head_dir + "/model.safetensors", std::ios::binary);
  const std::string bytes(std::istreambuf_iterator<char>(saved), {});
  EXPECT_NE(bytes.find("\"pooling\":\"mean\""), std::string::npos);
  const Outcome predicted =
      ember::test::run_example("text_classifier", "--mode predict --device cpu --pretrained " + head_dir +
                                                      " < " + head_dir + "/vocab.txt");
  EXPECT_EQ(predicted.status, 0) << predicted.output.substr(0, 500);
}

// The default skips padding (Bert::set_skip_padding); --padding compute runs the padded
// batches. A frozen encoder has no dropout, so both train the head on the same states (to
// float rounding) and end with the same test accuracy and AUC, with mean pooling too.
TEST_F(TextClassifierCli, SkippingPaddingTrainsAsComputingIt) {
  for (const char* pooling : {"cls", "mean"}) {
    SCOPED_TRACE(pooling);
    const std::string common = kSmall + "--mode frozen --pooling " + pooling + " --padding ";
    const Outcome skip = text_classifier(common + "skip"), compute = text_classifier(common + "compute");
    ASSERT_EQ(skip.status, 0) << skip.output;
    ASSERT_EQ(compute.status, 0) << compute.output;
    const std::string a = epoch_result(skip.output, 2), b = epoch_result(compute.output, 2);
    ASSERT_NE(a.find("ROC AUC"), std::string::npos) << skip.output;
    EXPECT_EQ(a, b);
  }
}

// The corpus is found from the binary's own folder, not from a path compiled in: a copy of the
// binary elsewhere names each flag it still needs, and runs once they are given.
TEST_F(TextClassifierCli, ACopyWithoutTheCorpusNamesTheFlagsToPass) {
  const std::string bin = fs::canonical(dir_).string() + "/bin";
  fs::create_directories(bin);
  fs::copy_file(ember::test::example_path("text_classifier"), bin + "/text_classifier");
  const std::string reviews = std::string(EMBER_SOURCE_DIR) + "/examples/data/reviews";
  const std::string lost =
      "text_classifier: the bundled reviews (examples/data/reviews) was not found: neither "
      "data/reviews beside the executable in " +
      bin + " nor examples/data/reviews in that folder or one above it holds reviews.tsv.gz; ";
  auto copy = [&](const std::string& args) {
    return ember::test::run_binary(bin + "/text_classifier", "--device cpu " + kSmall + args);
  };
  Outcome r = copy("");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output, lost + "name the files with --data PATH and --vocab PATH\n");
  r = copy("--vocab " + reviews + "/vocab.txt");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output, lost + "name the file with --data PATH\n");
  r = copy("--data " + reviews + "/reviews.tsv.gz");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output, lost + "name the file with --vocab PATH\n");
  r = copy("--data " + reviews + "/reviews.tsv.gz --vocab " + reviews + "/vocab.txt");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(epoch_result(r.output, 2), "(no epoch 2)") << r.output;
}
