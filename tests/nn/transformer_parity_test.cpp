// The transformer toolkit against PyTorch's fixtures on the CPU (tests/support/transformer_parity.h).
#include <gtest/gtest.h>

#include "support/transformer_parity.h"

using namespace ember;

class TransformerParity : public ::testing::TestWithParam<std::string> {};

TEST_P(TransformerParity, MatchesPyTorchOnCpu) {
  test::run_transformer_parity_case(GetParam(), Device::cpu());
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TransformerParity, ::testing::ValuesIn(test::transformer_parity_cases()),
                         [](const auto& info) { return info.param; });
