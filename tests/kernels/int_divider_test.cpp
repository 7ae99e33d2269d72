// IntDivider (kernels/int_divider.h) against the hardware's / and %: every dividend below
// 2^16 for small divisors, the edges of its domain (divisors 1 to 2^31, dividends 0 to
// 2^32 - 1), and random pairs. The CUDA kernels' OffsetCalculator divides with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "ember/kernels/int_divider.h"

using namespace ember;

namespace {

constexpr uint32_t kMaxU32 = UINT32_MAX;

// n's quotient and remainder against the hardware's.
::testing::AssertionResult divides(const IntDivider& d, uint32_t n) {
  const uint32_t q = d.div(n), r = d.mod(n);
  if (q == n / d.divisor && r == n % d.divisor) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << n << " / " << d.divisor << ": got " << q << " rem " << r
                                       << ", want " << n / d.divisor << " rem " << n % d.divisor;
}

// Dividends where rounding goes wrong first: around 0, around multiples of d (just below
// the next quotient) and at the top of the 32-bit range.
std::vector<uint32_t> edge_dividends(uint32_t d) {
  std::vector<uint32_t> n = {0,           1,           2,           d - 1,       d,      0x7FFFFFFEu,
                             0x7FFFFFFFu, 0x80000000u, 0x80000001u, kMaxU32 - 1, kMaxU32};
  if (d < kMaxU32 / 2) n.insert(n.end(), {d + 1, 2 * d - 1, 2 * d, 2 * d + 1});
  const uint32_t top = kMaxU32 / d * d;  // the largest multiple of d
  n.insert(n.end(), {top, top - 1, top - d, top - d + 1, top - 1 - d});
  for (uint32_t q : {3u, 1000u, 65535u, 65536u})
    if (uint64_t(q) * d <= kMaxU32) n.insert(n.end(), {q * d - 1, q * d, q * d + 1});
  return n;
}

}  // namespace

TEST(IntDivider, EveryDividendBelow65536ForDivisorsUpTo1000) {
  for (uint32_t d = 1; d <= 1000; ++d) {
    const IntDivider div(d);
    for (uint32_t n = 0; n < 65536; ++n) ASSERT_TRUE(divides(div, n));
  }
}

TEST(IntDivider, EdgeDivisorsAndDividends) {
  std::vector<uint32_t> divisors = {
      1, 2, 3, 5, 7, 10, 641, 6700417, 0x7FFFFFFFu, 0x80000000u, 0x7FFFFFFEu, 0x55555555u, 0x40000001u};
  for (int s = 0; s <= 31; ++s) {
    const uint32_t p = uint32_t(1) << s;
    divisors.insert(divisors.end(), {p, p - 1 > 0 ? p - 1 : 1, p + 1 <= kMaxFastDivisor ? p + 1 : p});
  }
  for (uint32_t d : divisors) {
    const IntDivider div(d);
    for (uint32_t n : edge_dividends(d)) EXPECT_TRUE(divides(div, n));
  }
}

TEST(IntDivider, RandomDivisorsAndDividends) {
  std::mt19937_64 rng(20240614);
  std::uniform_int_distribution<uint32_t> any(0, kMaxU32);
  for (int i = 0; i < 200000; ++i) {
    // Divisors of every magnitude: a random bit length, then a random value of that length.
    const int bits = 1 + static_cast<int>(rng() % 31);
    const uint32_t d = std::max<uint32_t>(1, static_cast<uint32_t>(rng() >> (64 - bits)));
    ASSERT_TRUE(divides(IntDivider(d), any(rng)));
  }
}

TEST(IntDivider, PowersOfTwoAreShifts) {
  // magic 1 and shift s: the quotient is n >> s for every n, checked on all top-range values.
  for (int s = 0; s <= 31; ++s) {
    const IntDivider div(uint32_t(1) << s);
    EXPECT_EQ(div.shift, static_cast<uint32_t>(s));
    for (uint32_t n = kMaxU32 - 4096; n != 0; ++n) ASSERT_EQ(div.div(n), n >> s) << s;
  }
}

TEST(IntDivider, RejectsDivisorsOutsideItsRange) {
  auto make = [](uint32_t d) { return IntDivider(d).divisor; };
  EXPECT_THROW(make(0), ValueError);
  EXPECT_THROW(make(kMaxFastDivisor + 1), ValueError);
  EXPECT_THROW(make(kMaxU32), ValueError);
  EXPECT_EQ(make(kMaxFastDivisor), kMaxFastDivisor);
}
