#pragma once
// Checks a case of random_cases.h, drawn on a device, against the committed golden bits:
// exactly, or to within one float32 ulp for normal draws (libm and CUDA's log/cos may differ
// by an ulp). Shared by the CPU test and the CUDA parity test.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "golden/random_cases.h"
#include "support/ulps.h"

namespace ember::golden {

inline const std::map<std::string, std::vector<uint64_t>>& golden_bits() {
  static const std::map<std::string, std::vector<uint64_t>> bits = {
#include "golden/random_golden.inc"
  };
  return bits;
}

using test::ulps_apart;

inline void expect_matches_golden(const RandomCase& c, Device device) {
  SCOPED_TRACE(c.name + " on " + device.str());
  manual_seed(kGoldenSeed);
  const Tensor t = c.draw(device).cpu().contiguous();
  const std::vector<uint64_t>& want = golden_bits().at(c.name);
  ASSERT_EQ(static_cast<size_t>(t.numel()), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (t.dtype() == kFloat32) {
      const float got = t.data_ptr<float>()[i];
      float ref;
      const auto ref_bits = static_cast<uint32_t>(want[i]);
      std::memcpy(&ref, &ref_bits, 4);
      if (c.match == Match::Exact) {
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

}  // namespace ember::golden
