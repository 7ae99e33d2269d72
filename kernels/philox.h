#pragma once
// Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"): a
// counter-based generator, so element i of a draw is a pure function of (seed, counter)
// and every device produces the same numbers. Shared by the CPU and CUDA backends.
#include <cmath>
#include <cstdint>

#include "ember/extend/op_kinds.h"
#include "ember/kernels/hd.h"

namespace ember::philox {

struct Words {
  uint32_t w[4];
};

EMBER_HD_INLINE void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}

/// The four 32-bit words for a 64-bit counter under a 64-bit key.
EMBER_HD_INLINE Words draw(uint64_t counter, uint64_t key) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(0xD2511F53u, c0, hi0, lo0);
    mulhilo(0xCD9E8D57u, c2, hi1, lo1);
    const uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return Words{{c0, c1, c2, c3}};
}

/// A uniform number in [0, 1) from one word (24 bits, exact in float32).
EMBER_HD_INLINE double uniform01(uint32_t w) { return (w >> 8) * (1.0 / 16777216.0); }

/// Element j (0..3) of the four that one counter value gives, for each RandomKind.
/// Normal pairs words (0,1) and (2,3) through Box-Muller, computed in double so that both
/// devices round to the same float.
EMBER_HD_INLINE double uniform_from(const Words& r, unsigned j) { return uniform01(r.w[j]); }
EMBER_HD_INLINE double normal_from(const Words& r, unsigned j) {
  const unsigned pair = j / 2 * 2;
  const double u1 = (static_cast<double>(r.w[pair]) + 1.0) * (1.0 / 4294967296.0);  // (0, 1]
  const double u2 = static_cast<double>(r.w[pair + 1]) * (1.0 / 4294967296.0);
  const double radius = ::sqrt(-2.0 * ::log(u1));
  const double angle = 6.283185307179586476925 * u2;
  return (j % 2 == 0) ? radius * ::cos(angle) : radius * ::sin(angle);
}
/// An integer in [0, range) for range >= 1 (range < 2^32).
EMBER_HD_INLINE uint64_t integer_from(const Words& r, unsigned j, uint64_t range) { return r.w[j] % range; }

/// Element i of a draw that starts at counter offset: element i uses counter offset + i / 4.
EMBER_HD_INLINE double uniform_at(uint64_t i, uint64_t seed, uint64_t offset) {
  return uniform_from(draw(offset + i / 4, seed), static_cast<unsigned>(i % 4));
}
EMBER_HD_INLINE double normal_at(uint64_t i, uint64_t seed, uint64_t offset) {
  return normal_from(draw(offset + i / 4, seed), static_cast<unsigned>(i % 4));
}
EMBER_HD_INLINE uint64_t integer_at(uint64_t i, uint64_t seed, uint64_t offset, uint64_t range) {
  return integer_from(draw(offset + i / 4, seed), static_cast<unsigned>(i % 4), range);
}

/// The a a draw of kind uses for output type T: a Bernoulli draw compares with a rounded to T,
/// as comparing T's uniform draws with a T scalar does (dropout's masks kept their bits when
/// the comparison moved into the draw).
template <class T>
EMBER_HD_INLINE double bernoulli_threshold(RandomKind kind, double a) {
  return kind == RandomKind::Bernoulli ? static_cast<double>(static_cast<T>(a)) : a;
}

/// x + y * z with two roundings and no fused multiply-add, so that the CPU and CUDA
/// compilers produce the same bits.
EMBER_HD_INLINE double add_mul_unfused(double x, double y, double z) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(x, __dmul_rn(y, z));
#else
  return x + y * z;
#endif
}

/// The value of element j of a counter's words for a draw of kind (Integer: range = b - a;
/// Bernoulli: a as bernoulli_threshold gives it).
EMBER_HD_INLINE double value_from(RandomKind kind, double a, double b, uint64_t range, const Words& r,
                                  unsigned j) {
  switch (kind) {
    case RandomKind::Uniform:
      return add_mul_unfused(a, b - a, uniform_from(r, j));
    case RandomKind::Normal:
      return add_mul_unfused(a, b, normal_from(r, j));
    case RandomKind::Bernoulli:
      return uniform_from(r, j) < a ? b : 0.0;
    default:
      return a + static_cast<double>(integer_from(r, j, range));
  }
}

}  // namespace ember::philox
