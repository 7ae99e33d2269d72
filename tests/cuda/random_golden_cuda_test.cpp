// The CPU's golden random draws (tests/golden) drawn on every CUDA device: the same seed
// gives the same uniform, integer, arange and dropout values bit for bit, and normal values
// to within one float32 ulp, on the CPU and on CUDA.
#include "golden/random_golden.h"
#include "gpu_required.h"

using namespace ember;

TEST(CudaRandomGolden, EveryCaseMatchesTheCpuGoldenBitsOnEveryDevice) {
  EMBER_REQUIRE_GPU();
  for (int d = 0; d < cuda::device_count(); ++d)
    for (const golden::RandomCase& c : golden::random_cases())
      golden::expect_matches_golden(c, Device::cuda(d));
}
