#include "support/bert_packing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace ember::test {
namespace {

// max |a - b| / (1 + |b|) over the elements.
double worst(const Tensor& a, const Tensor& b) {
  const auto x = a.to_vector<double>(), y = b.to_vector<double>();
  double w = 0;
  for (size_t i = 0; i < x.size(); ++i) w = std::max(w, std::abs(x[i] - y[i]) / (1 + std::abs(y[i])));
  return w;
}

struct StepResult {
  nn::models::BertModelOutput out;
  double loss;
  std::vector<std::pair<std::string, Tensor>> grads;
};

StepResult step(PackingCase& c, bool skip) {
  c.bert->set_skip_padding(skip);
  c.bert->zero_grad();
  c.head->zero_grad();
  nn::models::BertModelOutput out = c.bert->forward(c.input_ids, c.attention_mask, c.token_type_ids);
  Tensor loss = cross_entropy(c.head->forward(out.last_hidden_state.select(1, 0)), c.labels);
  loss.backward();
  StepResult r{out, loss.item<double>(), {}};
  // The pooler is outside the loss: its parameters have no gradient.
  auto keep = [](const Tensor& g) { return g.defined() ? g.clone() : Tensor(); };
  for (const auto& [name, p] : c.bert->named_parameters()) r.grads.emplace_back(name, keep(p.grad()));
  for (const auto& [name, p] : c.head->named_parameters())
    r.grads.emplace_back("head." + name, keep(p.grad()));
  return r;
}

}  // namespace

PackingCase make_packing_case(Device device, DType dtype) {
  manual_seed(7);
  nn::models::BertConfig cfg;
  cfg.vocab_size = 50, cfg.hidden_size = 32, cfg.num_hidden_layers = 2, cfg.num_attention_heads = 4;
  cfg.intermediate_size = 48, cfg.max_position_embeddings = 16;
  cfg.hidden_dropout_prob = 0, cfg.attention_probs_dropout_prob = 0;
  PackingCase c;
  c.bert = std::make_shared<nn::models::Bert>(cfg);
  c.head = std::make_shared<nn::Linear>(32, 2);
  c.bert->to(dtype).to(device);
  c.head->to(dtype).to(device);
  const std::vector<int64_t> lengths{7, 3, 9, 1};
  const int64_t B = 4, L = 9;
  std::vector<int64_t> ids, mask, types;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < L; ++i) {
      const bool real = i < lengths[static_cast<size_t>(b)];
      ids.push_back(real ? 1 + (b * 13 + i * 7) % 49 : 0);
      mask.push_back(real);
      types.push_back(real && i >= 2 ? 1 : 0);
    }
  c.input_ids = from_vector(ids, {B, L}).to(device);
  c.attention_mask = from_vector(mask, {B, L}).to(device);
  c.token_type_ids = from_vector(types, {B, L}).to(device);
  c.labels = from_vector(std::vector<int64_t>{1, 0, 1, 0}, {B}).to(device);
  return c;
}

void expect_packing_matches_padding(Device device, DType dtype, double tol) {
  PackingCase c = make_packing_case(device, dtype);
  const StepResult padded = step(c, false), packed = step(c, true);
  const Tensor real = c.attention_mask.cpu().to(kBool).unsqueeze(2);
  const Tensor got = packed.out.last_hidden_state.cpu(), want = padded.out.last_hidden_state.cpu();
  // Real positions as the padded path computes them; padded positions exactly zero.
  EXPECT_LE(worst(where(real, got, zeros_like(got)), where(real, want, zeros_like(want))), tol);
  EXPECT_EQ(where(real, zeros_like(got), got).abs().max().item<double>(), 0.0);
  EXPECT_LE(worst(packed.out.pooler_output.cpu(), padded.out.pooler_output.cpu()), tol);
  EXPECT_LE(std::abs(packed.loss - padded.loss) / (1 + std::abs(padded.loss)), tol);
  EXPECT_GT(padded.loss, 0.1);  // a real loss, not a degenerate one
  ASSERT_EQ(packed.grads.size(), padded.grads.size());
  for (size_t i = 0; i < packed.grads.size(); ++i) {
    SCOPED_TRACE(packed.grads[i].first);
    ASSERT_EQ(packed.grads[i].second.defined(), padded.grads[i].second.defined());
    if (padded.grads[i].second.defined()) {
      EXPECT_LE(worst(packed.grads[i].second.cpu(), padded.grads[i].second.cpu()), tol);
    }
  }
  // The gradients are not all zero (the comparison would then prove nothing).
  EXPECT_GT(padded.grads.front().second.abs().max().item<double>(), 0.0);
}

}  // namespace ember::test
