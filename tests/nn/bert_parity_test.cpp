// nn::models::Bert against transformers' fixtures on the CPU (tests/support/bert_parity.h).
#include <gtest/gtest.h>

#include "support/bert_parity.h"

using namespace ember;

class BertParity : public ::testing::TestWithParam<std::string> {};

TEST_P(BertParity, MatchesTransformersOnCpu) { test::run_bert_parity_case(GetParam(), Device::cpu()); }

INSTANTIATE_TEST_SUITE_P(Fixtures, BertParity, ::testing::ValuesIn(test::bert_parity_cases()),
                         [](const auto& info) { return info.param; });
