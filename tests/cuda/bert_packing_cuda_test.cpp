// Bert::set_skip_padding through the CUDA kernels: the packed step equals the padded step on
// cuda:0 and, with two devices, cuda:1 (tests/support/bert_packing.h).
#include <gtest/gtest.h>

#include "gpu_required.h"
#include "support/bert_packing.h"

using namespace ember;

TEST(BertPackingCuda, MatchesThePaddedPathOnEachDevice) {
  EMBER_REQUIRE_GPU();
  for (int d = 0; d < std::min(cuda::device_count(), 2); ++d) {
    SCOPED_TRACE("cuda:" + std::to_string(d));
    test::expect_packing_matches_padding(Device::cuda(d), kFloat64, 1e-12);
    test::expect_packing_matches_padding(Device::cuda(d), kFloat32, 2e-5);
  }
}
