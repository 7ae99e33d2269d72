// Bert::set_skip_padding on the CPU: packed real tokens give the padded path's states, loss
// and gradients (tests/support/bert_packing.h), a batch without padding is computed as it
// always was (same bits), and one with padding at position 0 is computed padded.
#include <gtest/gtest.h>

#include <cmath>

#include "support/bert_packing.h"

using namespace ember;

TEST(BertPacking, MatchesThePaddedPathInFloat64) {
  test::expect_packing_matches_padding(Device::cpu(), kFloat64, 1e-12);
}

TEST(BertPacking, MatchesThePaddedPathInFloat32) {
  test::expect_packing_matches_padding(Device::cpu(), kFloat32, 2e-5);
}

TEST(BertPacking, ABatchWithoutPaddingGivesTheSameBits) {
  test::PackingCase c = test::make_packing_case(Device::cpu(), kFloat32);
  const Tensor ids = c.input_ids.narrow(0, 2, 1), mask = c.attention_mask.narrow(0, 2, 1);
  const Tensor padded = c.bert->forward(ids, mask).last_hidden_state;
  c.bert->set_skip_padding(true);
  const Tensor packed = c.bert->forward(ids, mask).last_hidden_state;
  EXPECT_EQ((packed - padded).abs().max().item<double>(), 0.0);
}

// The pooler reads position 0 of every row: where that is padding (left padding, or a row or a
// whole batch of padding), the batch is computed padded, so every output is transformers' (the
// padded path's, to the bit), where the packed path gave zeros there and failed in cat for a
// batch of padding only.
TEST(BertPacking, PaddingAtPositionZeroGivesThePaddedPathsOutputs) {
  test::PackingCase c = test::make_packing_case(Device::cpu(), kFloat64);
  const int64_t B = c.attention_mask.size(0), L = c.attention_mask.size(1);
  Tensor left = zeros({B, L}, kInt64), row_of_padding = c.attention_mask.clone(),
         none = zeros({B, L}, kInt64);
  {
    NoGradGuard no_grad;
    left.narrow(1, 2, L - 2).fill_(1);  // every row left-padded by two
    row_of_padding.select(0, 1).zero_();
  }
  for (const auto& [name, mask] : std::vector<std::pair<std::string, Tensor>>{
           {"left padding", left}, {"a row of padding", row_of_padding}, {"only padding", none}}) {
    c.bert->set_skip_padding(false);
    const auto padded = c.bert->forward(c.input_ids, mask, c.token_type_ids);
    c.bert->set_skip_padding(true);
    const auto skipped = c.bert->forward(c.input_ids, mask, c.token_type_ids);
    EXPECT_EQ((skipped.pooler_output - padded.pooler_output).abs().max().item<double>(), 0.0) << name;
    EXPECT_EQ((skipped.last_hidden_state - padded.last_hidden_state).abs().max().item<double>(), 0.0) << name;
  }
}
