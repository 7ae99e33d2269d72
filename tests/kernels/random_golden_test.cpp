// Seeded draws on the CPU against golden bits committed in tests/golden/random_golden.inc
// (written by an -O0 build): uniform, integer, arange and dropout draws bit for bit, normal
// draws to within one float32 ulp. A build that contracts a * b + c into an FMA, or any other
// change to the numbers a seed gives, fails here. tests/cuda runs the same cases on CUDA.
#include "golden/random_golden.h"

using namespace ember;

TEST(RandomGolden, EveryCaseMatchesTheCommittedBits) {
  ASSERT_EQ(golden::golden_bits().size(), golden::random_cases().size()) << "regenerate random_golden.inc";
  for (const golden::RandomCase& c : golden::random_cases()) golden::expect_matches_golden(c, Device::cpu());
}

TEST(RandomGolden, DropoutMaskKeepsAboutSeventyPercentScaledByOneOverKeep) {
  // The golden mask itself is checked above; this pins what its values mean.
  manual_seed(golden::kGoldenSeed);
  const std::vector<float> v = dropout(ones({40}), 0.3, true).to_vector<float>();
  int kept = 0;
  for (float x : v) {
    if (x != 0) {
      EXPECT_EQ(x, static_cast<float>(1.0 / 0.7));
      ++kept;
    }
  }
  EXPECT_GT(kept, 20);
  EXPECT_LT(kept, 36);
}
