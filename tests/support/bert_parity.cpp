#include "support/bert_parity.h"

#include <gtest/gtest.h>

#include "support/expect.h"
#include "support/transformer_parity.h"

namespace ember::test {
namespace {

// Reduction lengths along the longest path (docs/DESIGN.md's K) of the fixtures' BERT: hidden
// 32, 4 heads of 8, 12 positions, intermediate 64, 2 layers.
constexpr double kHidden = 32, kHead = 8, kLength = 12, kIntermediate = 64, kLayers = 2;
// q/k/v, q.k^T, softmax, p.v, attention output dense, LayerNorm, intermediate, output dense, LayerNorm.
constexpr double kPerLayer =
    kHidden + kHead + 2 * kLength + kHidden + kHidden + kHidden + kIntermediate + kHidden;
constexpr double kLastHidden = kHidden + kLayers * kPerLayer;  // the embeddings' LayerNorm first
constexpr double kPooler = kLastHidden + kHidden;

}  // namespace

const std::vector<std::string>& bert_parity_cases() {
  static const std::vector<std::string> names{"bert_gelu", "bert_gelu_new", "bert_gelu_bf16"};
  return names;
}

void run_bert_parity_case(const std::string& name, Device device) {
  const std::string dir = fixture_path(name);
  ::testing::internal::CaptureStderr();
  const auto model = nn::models::Bert::from_pretrained(dir, device);
  const std::string warning = ::testing::internal::GetCapturedStderr();
  // bert_gelu_new is a BertForSequenceClassification checkpoint: "bert." names and a classifier.
  EXPECT_EQ(warning, name == "bert_gelu_new"
                         ? "Some weights of the model checkpoint at " + dir +
                               " were not used when initializing Bert: ['classifier.bias', "
                               "'classifier.weight']\n"
                         : "");
  model->eval();
  const nn::StateDict io = nn::load_file(dir + "/io.safetensors");
  auto at = [&](const std::string& key) { return io.at(key).to(device); };
  const Tensor ids = at("input_ids"), mask = at("attention_mask"), types = at("token_type_ids");
  const nn::models::BertModelOutput out = (*model)(ids, mask, types);
  expect_parity_close(out.last_hidden_state, io.at("last_hidden_state"), kLastHidden,
                      name + " last_hidden_state");
  expect_parity_close(out.pooler_output, io.at("pooler_output"), kPooler, name + " pooler_output");
  {
    // The third sequence's mask all zeros: its attention outputs zeros (transformers' SDPA).
    NoGradGuard no_grad;
    const nn::models::BertModelOutput masked = (*model)(ids, at("all_masked.attention_mask"), types);
    expect_parity_close(masked.last_hidden_state, io.at("all_masked.last_hidden_state"), kLastHidden,
                        name + " all_masked.last_hidden_state");
    expect_parity_close(masked.pooler_output, io.at("all_masked.pooler_output"), kPooler,
                        name + " all_masked.pooler_output");
  }
  if (!io.contains("labels")) return;
  // One fine-tuning step: Linear(32, 2) on the [CLS] state, cross-entropy.
  nn::Linear head(32, 2);
  head.load_state_dict(
      nn::StateDict{{"weight", io.at("head_init.weight")}, {"bias", io.at("head_init.bias")}});
  head.to(device);
  const Tensor loss = cross_entropy(head(out.last_hidden_state.select(1, 0)), at("labels"));
  expect_parity_close(loss, io.at("loss"), kPooler + 2 + 3, name + " loss");
  loss.backward();
  const double k_grad = 2 * (kPooler + 5);
  expect_parity_close(head.weight.grad(), io.at("grad.head.weight"), k_grad, name + " grad head.weight");
  expect_parity_close(head.bias.grad(), io.at("grad.head.bias"), k_grad, name + " grad head.bias");
  for (const char* p : {"encoder.layer.0.attention.self.query.weight", "embeddings.word_embeddings.weight"})
    expect_parity_close(model->parameter(p).grad(), io.at(std::string("grad.") + p), k_grad,
                        name + " grad " + p);
}

}  // namespace ember::test
