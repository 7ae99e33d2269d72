// nn::models::Bert and BertConfig: config.json parsing and its errors, Hugging Face's parameter
// names and shapes, forward's arguments, from_pretrained's strictness (missing keys, shapes,
// the "bert." prefix, leftovers) and save_pretrained's round trip. Numbers against transformers:
// bert_parity_test.cpp.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "support/bert_parity.h"
#include "support/expect.h"
#include "support/temp_dir.h"

using namespace ember;
using nn::models::Bert;
using nn::models::BertConfig;
namespace fs = std::filesystem;

namespace {

using test::TempDir;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

BertConfig tiny(const std::string& act = "gelu") {
  BertConfig c;
  c.vocab_size = 100, c.hidden_size = 32, c.num_hidden_layers = 2, c.num_attention_heads = 4;
  c.intermediate_size = 64, c.max_position_embeddings = 32, c.hidden_act = act;
  return c;
}

// A copy of a fixture's model directory (config.json, model.safetensors) to edit.
void copy_fixture(const std::string& name, const TempDir& to) {
  for (const char* f : {"config.json", "model.safetensors"})
    fs::copy_file(test::fixture_path(name) + "/" + f, to.path(f));
}

// Every parameter name BertModel has, in its order.
std::vector<std::string> hf_names(int layers) {
  std::vector<std::string> names{"embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
                                 "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight",
                                 "embeddings.LayerNorm.bias"};
  for (int i = 0; i < layers; ++i) {
    const std::string l = "encoder.layer." + std::to_string(i) + ".";
    for (const char* m :
         {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
          "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"})
      for (const char* p : {".weight", ".bias"}) names.push_back(l + m + p);
  }
  names.push_back("pooler.dense.weight");
  names.push_back("pooler.dense.bias");
  return names;
}

Tensor ids_of(std::initializer_list<std::initializer_list<int64_t>> rows) {
  std::vector<int64_t> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  return from_vector(flat, {static_cast<int64_t>(rows.size()), static_cast<int64_t>(rows.begin()->size())});
}

// Same shape and the same values, bit for bit as doubles.
bool equal(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() &&
         a.cpu().contiguous().to_vector<double>() == b.cpu().contiguous().to_vector<double>();
}

}  // namespace

TEST(BertConfig, ReadsATransformersConfigJson) {
  const std::string path = test::fixture_path("bert_gelu_new") + "/config.json";
  const BertConfig c = BertConfig::from_json_file(path);
  EXPECT_EQ(c.vocab_size, 100);
  EXPECT_EQ(c.hidden_size, 32);
  EXPECT_EQ(c.num_hidden_layers, 2);
  EXPECT_EQ(c.num_attention_heads, 4);
  EXPECT_EQ(c.intermediate_size, 64);
  EXPECT_EQ(c.hidden_act, "gelu_new");
  EXPECT_EQ(c.max_position_embeddings, 32);
  EXPECT_EQ(c.type_vocab_size, 2);
  EXPECT_EQ(c.layer_norm_eps, 1e-12);
  EXPECT_EQ(c.pad_token_id, std::optional<int64_t>(0));
  EXPECT_EQ(c.hidden_dropout_prob, 0.1);
  EXPECT_EQ(c.attention_probs_dropout_prob, 0.1);
  EXPECT_EQ(c.initializer_range, 0.02);
}

TEST(BertConfig, MissingKeysTakeTransformersDefaults) {
  const BertConfig c =
      BertConfig::from_json(R"({"pad_token_id": null, "architectures": ["BertForMaskedLM"]})");
  EXPECT_EQ(c.vocab_size, 30522);
  EXPECT_EQ(c.hidden_size, 768);
  EXPECT_EQ(c.num_hidden_layers, 12);
  EXPECT_EQ(c.num_attention_heads, 12);
  EXPECT_EQ(c.intermediate_size, 3072);
  EXPECT_EQ(c.max_position_embeddings, 512);
  EXPECT_EQ(c.layer_norm_eps, 1e-12);
  EXPECT_FALSE(c.pad_token_id.has_value());
}

TEST(BertConfig, UnsupportedOrInvalidValuesNameTheKeyAndTheFile) {
  struct Case {
    std::string json, message;
  };
  const Case cases[] = {
      {R"({"hidden_size": 30, "num_attention_heads": 4})",
       "BertConfig: \"hidden_size\" (30) in cfg.json is not a multiple of \"num_attention_heads\" (4)"},
      {R"({"hidden_act": "silu"})",
       "BertConfig: \"hidden_act\" in cfg.json must be one of \"gelu\", \"gelu_new\", \"gelu_pytorch_tanh\", "
       "\"relu\", got \"silu\""},
      {R"({"hidden_act": 3})", "BertConfig: \"hidden_act\" in cfg.json must be a string, got 3"},
      {R"({"model_type": "roberta"})",
       "BertConfig: \"model_type\" in cfg.json must be \"bert\" (the only model Ember's Bert reads), got "
       "\"roberta\""},
      {R"({"position_embedding_type": "relative_key"})",
       "BertConfig: \"position_embedding_type\" in cfg.json must be \"absolute\""},
      {R"({"is_decoder": true})", "BertConfig: \"is_decoder\" in cfg.json must be false"},
      {R"({"add_cross_attention": true})", "BertConfig: \"add_cross_attention\" in cfg.json must be false"},
      {R"({"vocab_size": 0})", "BertConfig: \"vocab_size\" in cfg.json must be a positive integer, got 0"},
      {R"({"hidden_size": 32.5})",
       "BertConfig: \"hidden_size\" in cfg.json must be a positive integer, got 32.5"},
      {R"({"intermediate_size": "64"})",
       "BertConfig: \"intermediate_size\" in cfg.json must be a positive integer, got \"64\""},
      {R"({"num_hidden_layers": -1})",
       "BertConfig: \"num_hidden_layers\" in cfg.json must be a non-negative integer, got -1"},
      {R"({"hidden_dropout_prob": 1.5})",
       "BertConfig: \"hidden_dropout_prob\" in cfg.json must be a probability in [0, 1], got 1.5"},
      {R"({"attention_probs_dropout_prob": null})",
       "BertConfig: \"attention_probs_dropout_prob\" in cfg.json must be a number, got null"},
      {R"({"layer_norm_eps": -1e-12})",
       "BertConfig: \"layer_norm_eps\" in cfg.json must be a finite non-negative number, got -1e-12"},
      {R"({"vocab_size": 10, "pad_token_id": 10})",
       "BertConfig: \"pad_token_id\" in cfg.json must be null or an index into the 10 word embeddings, got "
       "10"},
      {R"({"pad_token_id": "0"})", "BertConfig: \"pad_token_id\" in cfg.json must be an integer or null"},
      {R"([1, 2])", "BertConfig: cfg.json must hold a JSON object, got an array"},
  };
  for (const Case& c : cases)
    EXPECT_THROW_MSG(BertConfig::from_json(c.json, "cfg.json"), ValueError, c.message);
  EXPECT_THROW_MSG(BertConfig::from_json("{", "cfg.json"), IOError, "BertConfig: cfg.json is not valid JSON");
  EXPECT_THROW_MSG(BertConfig::from_json_file("/nonexistent/config.json"), IOError,
                   "BertConfig: cannot open \"/nonexistent/config.json\"");
  // A model from an invalid config is refused the same way.
  BertConfig bad = tiny();
  bad.num_attention_heads = 5;
  EXPECT_THROW_MSG(Bert{bad}, ValueError, "BertConfig: \"hidden_size\" (32) in BertConfig is not a multiple");
}

// Sizes from a file are bounded before anything is built: 10^6 layers were 27 s and 4 GB of
// building layers before a std::bad_alloc.
TEST(BertConfig, AHostileSizeIsRefusedAtOnce) {
  EXPECT_THROW_MSG(BertConfig::from_json(R"({"num_hidden_layers": 1000000})", "big/config.json"), ValueError,
                   "BertConfig: big/config.json describes a model of 7.08");
  EXPECT_THROW_MSG(BertConfig::from_json(R"({"hidden_size": 3000000, "num_attention_heads": 1})"), ValueError,
                   "BertConfig: config.json describes a model of ");
  BertConfig large;  // BERT-large's sizes pass
  large.hidden_size = 1024, large.num_hidden_layers = 24, large.num_attention_heads = 16;
  large.intermediate_size = 4096;
  EXPECT_NO_THROW(large.validate());
}

TEST(BertConfig, ToJsonReadsBackAndSaysBert) {
  BertConfig c = tiny("gelu_new");
  c.layer_norm_eps = 1e-5, c.hidden_dropout_prob = 0.25, c.pad_token_id.reset();
  const std::string text = c.to_json();
  EXPECT_NE(text.find("\"model_type\": \"bert\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"layer_norm_eps\": 1e-05"), std::string::npos) << text;
  EXPECT_NE(text.find("\"pad_token_id\": null"), std::string::npos) << text;
  const BertConfig back = BertConfig::from_json(text);
  EXPECT_EQ(back.to_json(), text);
  EXPECT_EQ(back.hidden_act, "gelu_new");
  EXPECT_EQ(back.layer_norm_eps, 1e-5);
  EXPECT_EQ(back.hidden_dropout_prob, 0.25);
  EXPECT_FALSE(back.pad_token_id.has_value());
}

TEST(Bert, HasTransformersParameterNamesAndShapes) {
  Bert model(tiny());
  std::vector<std::string> names;
  for (const auto& [name, p] : model.named_parameters()) names.push_back(name);
  EXPECT_EQ(names, hf_names(2));
  EXPECT_TRUE(
      model.named_buffers().empty());  // transformers' position_ids / token_type_ids are not persistent
  // The same names and shapes as the checkpoint transformers wrote.
  const nn::StateDict file = nn::load_file(test::fixture_path("bert_gelu") + "/model.safetensors");
  std::vector<std::string> keys = file.keys();
  std::sort(keys.begin(), keys.end());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(keys, names);
  for (const auto& [name, p] : model.named_parameters()) EXPECT_EQ(p.shape(), file.at(name).shape()) << name;
  EXPECT_EQ(model.parameter("encoder.layer.1.intermediate.dense.weight").shape(), (Shape{64, 32}));
}

TEST(Bert, InitialisesAsTransformers) {
  manual_seed(3);
  Bert model(tiny());
  // The padding row is zero, biases zero, LayerNorms ones; weights N(0, 0.02).
  EXPECT_EQ(model.embeddings->word_embeddings->weight.select(0, 0).abs().sum().item<double>(), 0.0);
  EXPECT_EQ(model.parameter("encoder.layer.0.attention.self.query.bias").abs().sum().item<double>(), 0.0);
  EXPECT_EQ(model.parameter("embeddings.LayerNorm.weight").sum().item<double>(), 32.0);
  const Tensor w = model.parameter("encoder.layer.0.output.dense.weight");
  const double std = sqrt(mean(square(w))).item<double>();
  EXPECT_NEAR(std, 0.02, 0.002);
}

TEST(Bert, ForwardShapesDefaultsAndArgumentErrors) {
  manual_seed(4);
  Bert model(tiny("relu"));
  model.eval();
  const Tensor ids = ids_of({{2, 7, 8, 3, 0}, {2, 9, 3, 0, 0}});
  const auto out = model(ids, Tensor());
  EXPECT_EQ(out.last_hidden_state.shape(), (Shape{2, 5, 32}));
  EXPECT_EQ(out.pooler_output.shape(), (Shape{2, 32}));
  // Undefined mask and token types mean all ones and zeros.
  const auto explicit_ =
      model(ids, ones({2, 5}, TensorOptions().dtype(kInt64)), zeros({2, 5}, TensorOptions().dtype(kInt64)));
  EXPECT_TRUE(equal(out.last_hidden_state, explicit_.last_hidden_state));
  // A bool or int32 mask means the same as int64 1/0.
  const Tensor mask = ids_of({{1, 1, 1, 1, 0}, {1, 1, 1, 0, 0}});
  EXPECT_TRUE(equal(model(ids, mask).last_hidden_state, model(ids, ne(mask, 0)).last_hidden_state));
  EXPECT_TRUE(
      equal(model(ids, mask).last_hidden_state, model(ids.to(kInt32), mask.to(kInt32)).last_hidden_state));
  // Padding changes the unpadded positions' states.
  EXPECT_FALSE(equal(model(ids, mask).last_hidden_state, out.last_hidden_state));

  EXPECT_THROW_MSG(model.forward(ids), NotImplementedError,
                   "Bert: forward returns last_hidden_state and pooler_output");
  EXPECT_THROW_MSG(model(ids.to(kFloat32), Tensor()), DTypeError,
                   "dtype mismatch in Bert: input_ids must be int64 or int32, got float32");
  // A float mask, as transformers takes it: 1 attends, 0 is padding.
  EXPECT_TRUE(equal(model(ids, mask.to(kFloat32)).last_hidden_state, model(ids, mask).last_hidden_state));
  EXPECT_THROW_MSG(
      model(ids, mask.to(kUInt8)), DTypeError,
      "dtype mismatch in Bert: attention_mask must be int64, int32, bool or floating, got uint8");
  EXPECT_THROW_MSG(model(ids, ones({2, 4}, TensorOptions().dtype(kInt64))), ShapeError,
                   "Bert: attention_mask must have input_ids' shape [2, 5], got [2, 4]");
  EXPECT_THROW_MSG(model(ids, Tensor(), zeros({5}, TensorOptions().dtype(kInt64))), ShapeError,
                   "Bert: token_type_ids must have input_ids' shape [2, 5], got [5]");
  EXPECT_THROW_MSG(model(zeros({1, 33}, TensorOptions().dtype(kInt64)), Tensor()), ShapeError,
                   "BertEmbeddings: input_ids has 33 positions, more than max_position_embeddings (32)");
  EXPECT_THROW(model(zeros({2, 5, 1}, TensorOptions().dtype(kInt64)), Tensor()), ShapeError);
}

// Default positions are a view of the position table's first rows and absent token types its
// type-0 row, broadcast; explicit ids gather the same rows. The sums run in the same order (the
// same bits), and the tables' gradients are the same sums of the output's gradient.
TEST(Bert, DefaultPositionsAndTypesReadTheTablesAsGathersWould) {
  manual_seed(5);
  Bert model(tiny());
  model.eval();
  auto& e = *model.embeddings;
  const Tensor ids = ids_of({{2, 7, 8, 3, 0}, {2, 9, 3, 0, 0}});
  const Tensor types = zeros({2, 5}, TensorOptions().dtype(kInt64));
  const Tensor positions =
      arange(5.0, TensorOptions().dtype(kInt64)).unsqueeze(0).expand({2, 5}).contiguous();
  const Tensor weights = randn({2, 5, 32});
  auto grads = [&](const Tensor& out) {
    model.zero_grad();
    sum(out * weights).backward();
    return std::pair{e.position_embeddings->weight.grad().clone(),
                     e.token_type_embeddings->weight.grad().clone()};
  };
  const Tensor by_views = e(ids, Tensor()), by_gathers = e(ids, types, positions);
  EXPECT_TRUE(equal(by_views, by_gathers));
  const auto [pos_v, type_v] = grads(by_views);
  const auto [pos_g, type_g] = grads(by_gathers);
  // Float sums of ten rows in another order: within a few units of float's last place.
  auto relative = [](const Tensor& a, const Tensor& b) {
    return max(abs(a - b)).item<double>() / max(abs(b)).item<double>();
  };
  EXPECT_LT(relative(pos_v, pos_g), 1e-6);
  EXPECT_LT(relative(type_v, type_g), 1e-6);
  // Rows past the sequence and the unused type get nothing; the used ones something.
  EXPECT_EQ(pos_v.narrow(0, 5, 27).abs().max().item<double>(), 0.0);
  EXPECT_EQ(type_v.select(0, 1).abs().max().item<double>(), 0.0);
  EXPECT_GT(type_v.select(0, 0).abs().max().item<double>(), 0.1);
  // Undefined types at explicit positions (the packed path's call) read type 0 as well.
  EXPECT_TRUE(equal(e(ids, Tensor(), positions), by_gathers));
}

TEST(Bert, DropoutOnlyWhileTraining) {
  BertConfig c = tiny();
  c.hidden_dropout_prob = 0.5, c.attention_probs_dropout_prob = 0.5;
  Bert model(c);
  const Tensor ids = ids_of({{2, 7, 8, 3}});
  const Tensor a = model(ids, Tensor()).last_hidden_state, b = model(ids, Tensor()).last_hidden_state;
  EXPECT_FALSE(equal(a, b));
  model.eval();
  EXPECT_TRUE(equal(model(ids, Tensor()).last_hidden_state, model(ids, Tensor()).last_hidden_state));
}

TEST(Bert, FromPretrainedIsStrict) {
  // A missing tensor names the key and the file.
  {
    TempDir dir;
    copy_fixture("bert_gelu", dir);
    nn::StateDict w = nn::load_file(dir.path("model.safetensors"));
    nn::StateDict kept;
    for (const auto& [k, t] : w)
      if (k != "encoder.layer.1.output.dense.bias") kept.insert(k, t);
    nn::save_file(kept, dir.path("model.safetensors"));
    EXPECT_THROW_MSG(Bert::from_pretrained(dir.path()), ValueError,
                     "Bert.from_pretrained: weight \"encoder.layer.1.output.dense.bias\" is missing from " +
                         dir.path("model.safetensors"));
  }
  // A shape that differs from config.json's names the key, the file and both shapes.
  {
    TempDir dir;
    copy_fixture("bert_gelu_new", dir);
    nn::StateDict w = nn::load_file(dir.path("model.safetensors"));
    nn::StateDict changed;
    for (const auto& [k, t] : w) changed.insert(k, k == "bert.pooler.dense.bias" ? zeros({31}) : t);
    nn::save_file(changed, dir.path("model.safetensors"));
    EXPECT_THROW_MSG(Bert::from_pretrained(dir.path()), ShapeError,
                     "Bert.from_pretrained: weight \"bert.pooler.dense.bias\" in " +
                         dir.path("model.safetensors") +
                         " has shape [31], but the model's (from config.json) is [32]");
  }
  // An integer tensor where a weight belongs.
  {
    TempDir dir;
    copy_fixture("bert_gelu", dir);
    nn::StateDict w = nn::load_file(dir.path("model.safetensors"));
    nn::StateDict changed;
    for (const auto& [k, t] : w) changed.insert(k, k == "pooler.dense.bias" ? t.to(kInt64) : t);
    nn::save_file(changed, dir.path("model.safetensors"));
    EXPECT_THROW_MSG(Bert::from_pretrained(dir.path()), DTypeError,
                     "Bert.from_pretrained: weight \"pooler.dense.bias\" in " +
                         dir.path("model.safetensors") + " is int64, not a floating dtype");
  }
  // float64 tensors load, converted to float32.
  {
    TempDir dir;
    copy_fixture("bert_gelu", dir);
    const nn::StateDict w = nn::load_file(dir.path("model.safetensors"));
    nn::StateDict wide;
    for (const auto& [k, t] : w) wide.insert(k, t.to(kFloat64));
    nn::save_file(wide, dir.path("model.safetensors"));
    const auto model = Bert::from_pretrained(dir.path());
    for (const auto& [name, p] : model->named_parameters()) {
      EXPECT_EQ(p.dtype(), kFloat32);
      EXPECT_TRUE(equal(p, w.at(name))) << name;
    }
  }
  // No weights file, a config that is not BERT's.
  {
    TempDir dir;
    copy_fixture("bert_gelu", dir);
    fs::remove(dir.path("model.safetensors"));
    EXPECT_THROW_MSG(Bert::from_pretrained(dir.path()), IOError, "load_file: cannot open");
    std::ofstream(dir.path("config.json")) << R"({"model_type": "distilbert"})";
    EXPECT_THROW_MSG(Bert::from_pretrained(dir.path()), ValueError,
                     "BertConfig: \"model_type\" in " + dir.path("config.json") + " must be \"bert\"");
  }
}

TEST(Bert, FromPretrainedListsLeftoversInOneWarningLine) {
  // Old checkpoints kept position_ids as a tensor; pretraining heads are leftovers too.
  TempDir dir;
  copy_fixture("bert_gelu", dir);
  nn::StateDict w = nn::load_file(dir.path("model.safetensors"));
  w.insert("embeddings.position_ids", arange(32.0, TensorOptions().dtype(kInt64)).reshape({1, 32}));
  w.insert("cls.predictions.bias", zeros({100}));
  nn::save_file(w, dir.path("model.safetensors"));
  ::testing::internal::CaptureStderr();
  const auto model = Bert::from_pretrained(dir.path());
  // position_ids is a known leftover, dropped silently; the head is listed.
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "Some weights of the model checkpoint at " + dir.path() +
                " were not used when initializing Bert: ['cls.predictions.bias']\n");
  EXPECT_TRUE(equal(model->parameter("pooler.dense.weight"), w.at("pooler.dense.weight")));
  // With position_ids the only leftover, nothing is printed.
  nn::StateDict without_head;
  for (const auto& [key, t] : w)
    if (key != "cls.predictions.bias") without_head.insert(key, t);
  nn::save_file(without_head, dir.path("model.safetensors"));
  ::testing::internal::CaptureStderr();
  Bert::from_pretrained(dir.path());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(Bert, PrefixedAndPlainCheckpointsLoadTheSameWeights) {
  // bert_gelu_new is a BertForSequenceClassification checkpoint ("bert." names, a classifier).
  ::testing::internal::CaptureStderr();
  const auto model = Bert::from_pretrained(test::fixture_path("bert_gelu_new"));
  ::testing::internal::GetCapturedStderr();
  const nn::StateDict file = nn::load_file(test::fixture_path("bert_gelu_new") + "/model.safetensors");
  for (const auto& [name, p] : model->named_parameters())
    EXPECT_TRUE(equal(p, file.at("bert." + name))) << name;
  EXPECT_EQ(model->config.hidden_act, "gelu_new");
}

TEST(Bert, Bfloat16CheckpointsLoadAsFloat32) {
  const auto model = Bert::from_pretrained(test::fixture_path("bert_gelu_bf16"));
  const auto full = Bert::from_pretrained(test::fixture_path("bert_gelu"));
  for (const auto& [name, p] : model->named_parameters()) {
    EXPECT_EQ(p.dtype(), kFloat32);
    // bf16 keeps 8 significant bits of the float32 weights.
    const Tensor rel = abs(p - full->parameter(name)) / (abs(full->parameter(name)) + 1e-30);
    EXPECT_LE(max(rel).item<double>(), 1.0 / 256) << name;
  }
}

TEST(Bert, SavePretrainedRoundTrips) {
  const auto model = Bert::from_pretrained(test::fixture_path("bert_gelu"));
  TempDir dir;
  const std::string out = dir.path("saved/bert");  // created, parents too
  model->save_pretrained(out);
  const auto back = Bert::from_pretrained(out);
  for (const auto& [name, p] : model->named_parameters())
    EXPECT_TRUE(equal(p, back->parameter(name))) << name;
  EXPECT_EQ(back->config.to_json(), model->config.to_json());
  EXPECT_EQ(read_text(out + "/config.json"), model->config.to_json());
  EXPECT_EQ(nn::load_file_with_metadata(out + "/model.safetensors").metadata.at("format"), "pt");
  // EMBER_BERT_SAVE_DIR: also write there, for make_bert_fixtures.py --check-ember-dir.
  if (const char* keep = std::getenv("EMBER_BERT_SAVE_DIR")) model->save_pretrained(keep);
}
