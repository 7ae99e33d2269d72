#pragma once
// Division of a 32-bit unsigned dividend by a divisor known before the kernel runs, as a
// multiply-high and a shift instead of a hardware divide (tens of instructions on a GPU,
// twice that for 64 bits). The scheme is Granlund & Montgomery's, "Division by invariant
// integers using multiplication" (PLDI 1994), theorem 4.2 with N = 32, in the form of
// PyTorch's IntDivider<unsigned int>: for 2^(s-1) < d <= 2^s and
// magic = floor(2^32 * (2^s - d) / d) + 1, n / d = (mulhi(n, magic) + n) >> s for every
// n < 2^32. The sum needs 33 bits, so it is taken in 64 bits (PyTorch keeps it in 32 and
// therefore limits n to 2^31 - 1). Divisors run from 1 to 2^31 (s <= 31, magic < 2^32).
#include <cstdint>

#include "ember/core/error.h"
#include "ember/kernels/hd.h"

namespace ember {

constexpr uint32_t kMaxFastDivisor = uint32_t(1) << 31;

struct IntDivider {
  uint32_t divisor = 1;
  uint32_t magic = 1;  // with shift 0: (mulhi(n, 1) + n) >> 0 = n, division by one
  uint32_t shift = 0;

  IntDivider() = default;
  // Built on the host (where kernels' arguments are planned); ValueError outside [1, 2^31].
  explicit IntDivider(uint32_t d) : divisor(d) {
    if (d == 0 || d > kMaxFastDivisor) raise<ValueError>("IntDivider: divisor ", d, " is outside [1, 2^31]");
    while ((uint64_t(1) << shift) < d) ++shift;
    const uint64_t m = (uint64_t(1) << 32) * ((uint64_t(1) << shift) - d) / d + 1;
    magic = static_cast<uint32_t>(m);
  }

  EMBER_HD_INLINE uint32_t div(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    const uint32_t t = __umulhi(n, magic);
#else
    const uint32_t t = static_cast<uint32_t>((uint64_t(n) * magic) >> 32);
#endif
    return static_cast<uint32_t>((uint64_t(t) + n) >> shift);
  }

  EMBER_HD_INLINE uint32_t mod(uint32_t n) const { return n - div(n) * divisor; }
};

}  // namespace ember
