#pragma once
// Philox draws for four consecutive counters at once on the CPU, with AVX2 (kernels/cpu/simd.h's
// 64-bit lanes): each 32-bit word sits in the low half of a 64-bit lane, so one vpmuludq gives
// four whole 64-bit products and nothing crosses lanes. The words are philox::draw's
// (tests/kernels/philox_test.cpp checks them); four counters cost about what one does scalar
// (dropout's masks were a tenth of the BERT step). Without AVX2, four scalar draws.
#include <cmath>
#include <cstdint>

#include "ember/kernels/cpu/simd.h"
#include "ember/kernels/philox.h"

namespace ember::philox {

/// A Bernoulli draw's comparison uniform01(w) < threshold as one on integers, (w >> 8) < the
/// result: the uniform is k / 2^24, below t exactly when k < ceil(t 2^24) (the scaling by 2^24
/// is exact). NaN keeps nothing, as the comparison would.
inline uint32_t bernoulli_integer_threshold(double threshold) {
  const double x = threshold * 16777216.0;
  if (!(x > 0)) return 0;
  if (x >= 16777216.0) return 16777216u;
  return static_cast<uint32_t>(std::ceil(x));
}

/// w[l] = draw(counter + l, key) for l = 0..3 (the counter wraps at 2^64, as draw's does).
inline void draw4(uint64_t counter, uint64_t key, Words (&w)[4]) {
#if EMBER_SIMD_AVX2
  using S = cpu::simd::Lanes<uint64_t, 4>;
  const S::V low = S::set1(0xFFFFFFFFu);
  const S::V c = S::iota(counter);
  S::V c0 = S::and_bits(c, low), c1 = S::shift_right_32(c);
  S::V c2 = S::zero(), c3 = S::zero();
  const S::V m0 = S::set1(0xD2511F53u), m1 = S::set1(0xCD9E8D57u);
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const S::V p0 = S::mul_low32(c0, m0), p1 = S::mul_low32(c2, m1);
    const S::V n0 = S::xor_bits(S::xor_bits(S::shift_right_32(p1), c1), S::set1(k0));
    const S::V n2 = S::xor_bits(S::xor_bits(S::shift_right_32(p0), c3), S::set1(k1));
    c1 = S::and_bits(p1, low);
    c3 = S::and_bits(p0, low);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  uint64_t out[4][4];
  S::store(out[0], c0);
  S::store(out[1], c1);
  S::store(out[2], c2);
  S::store(out[3], c3);
  for (int l = 0; l < 4; ++l)
    for (int j = 0; j < 4; ++j) w[l].w[j] = static_cast<uint32_t>(out[j][l]);
#else
  for (uint64_t l = 0; l < 4; ++l) w[l] = draw(counter + l, key);
#endif
}

}  // namespace ember::philox
