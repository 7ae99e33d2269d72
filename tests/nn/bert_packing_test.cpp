// Bert::set_skip_padding on the CPU: packed real tokens give the padded path's states, loss
// and gradients (tests/support/bert_packing.h), a batch without padding is computed as it
// always was (same bits), and a sequence that is all padding gives zeros.
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

TEST(BertPacking, ASequenceThatIsAllPaddingGivesZeros) {
  test::PackingCase c = test::make_packing_case(Device::cpu(), kFloat64);
  c.bert->set_skip_padding(true);
  Tensor mask = c.attention_mask.clone();
  {
    NoGradGuard no_grad;
    mask.select(0, 1).zero_();
  }
  const auto out = c.bert->forward(c.input_ids, mask, c.token_type_ids);
  EXPECT_EQ(out.last_hidden_state.select(0, 1).abs().max().item<double>(), 0.0);
  EXPECT_GT(out.last_hidden_state.select(0, 0).abs().max().item<double>(), 0.1);
  EXPECT_TRUE(std::isfinite(out.pooler_output.sum().item<double>()));
}
