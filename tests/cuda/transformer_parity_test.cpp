// The transformer toolkit against PyTorch's fixtures on cuda:0 and, with two devices, cuda:1
// (tests/support/transformer_parity.h): layer_norm, GELU, attention and their modules through
// the CUDA kernels.
#include <gtest/gtest.h>

#include "gpu_required.h"
#include "support/transformer_parity.h"

using namespace ember;

class TransformerParityCuda : public ::testing::TestWithParam<std::string> {};

TEST_P(TransformerParityCuda, MatchesPyTorchOnEachDevice) {
  EMBER_REQUIRE_GPU();
  for (int d = 0; d < std::min(cuda::device_count(), 2); ++d) {
    SCOPED_TRACE("cuda:" + std::to_string(d));
    test::run_transformer_parity_case(GetParam(), Device::cuda(d));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TransformerParityCuda,
                         ::testing::ValuesIn(test::transformer_parity_cases()),
                         [](const auto& info) { return info.param; });
