// nn::models::Bert against transformers' fixtures on cuda:0 and, with two devices, cuda:1
// (tests/support/bert_parity.h): from_pretrained onto the device, the forward, a fully masked
// sequence and a fine-tuning step through the CUDA kernels.
#include <gtest/gtest.h>

#include "gpu_required.h"
#include "support/bert_parity.h"

using namespace ember;

class BertParityCuda : public ::testing::TestWithParam<std::string> {};

TEST_P(BertParityCuda, MatchesTransformersOnEachDevice) {
  EMBER_REQUIRE_GPU();
  for (int d = 0; d < std::min(cuda::device_count(), 2); ++d) {
    SCOPED_TRACE("cuda:" + std::to_string(d));
    test::run_bert_parity_case(GetParam(), Device::cuda(d));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BertParityCuda, ::testing::ValuesIn(test::bert_parity_cases()),
                         [](const auto& info) { return info.param; });
