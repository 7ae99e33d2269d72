// Seeded draws on the CPU against golden bits committed in tests/golden/random_golden.inc
// (written by an -O0 build): uniform, integer, arange and dropout draws bit for bit, normal
// draws to within one float32 ulp. A build that contracts a * b + c into an FMA, or any other
// change to the numbers a seed gives, fails here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

#include "golden/random_cases.h"

using namespace ember;

namespace {

const std::map<std::string, std::vector<uint64_t>>& golden_bits() {
  static const std::map<std::string, std::vector<uint64_t>> bits = {
#include "golden/random_golden.inc"
  };
  return bits;
}

// Distance in float32 ulps between two finite floats of the same sign.
int64_t ulps_apart(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  return std::llabs(static_cast<int64_t>(ia) - static_cast<int64_t>(ib));
}

}  // namespace

TEST(RandomGolden, EveryCaseMatchesTheCommittedBits) {
  ASSERT_EQ(golden_bits().size(), golden::random_cases().size()) << "regenerate random_golden.inc";
  for (const golden::RandomCase& c : golden::random_cases()) {
    SCOPED_TRACE(c.name);
    manual_seed(golden::kGoldenSeed);
    const Tensor t = c.draw().contiguous();
    const std::vector<uint64_t>& want = golden_bits().at(c.name);
    ASSERT_EQ(static_cast<size_t>(t.numel()), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      if (t.dtype() == kFloat32) {
        const float got = t.data_ptr<float>()[i];
        float ref;
        const auto ref_bits = static_cast<uint32_t>(want[i]);
        std::memcpy(&ref, &ref_bits, 4);
        if (c.match == golden::Match::Exact) {
          EXPECT_EQ(got, ref) << "index " << i;
        } else {
          EXPECT_LE(ulps_apart(got, ref), 1) << "index " << i << ": " << got << " vs " << ref;
        }
      } else if (t.dtype() == kFloat64) {
        double ref;
        std::memcpy(&ref, &want[i], 8);
        EXPECT_EQ(t.data_ptr<double>()[i], ref) << "index " << i;
      } else {
        EXPECT_EQ(static_cast<uint64_t>(t.data_ptr<int64_t>()[i]), want[i]) << "index " << i;
      }
    }
  }
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
