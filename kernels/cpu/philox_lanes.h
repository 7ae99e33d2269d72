#pragma once
// Philox draws for four consecutive counters at once on the CPU, with AVX2: each 32-bit word
// sits in the low half of a 64-bit lane, so one vpmuludq gives four whole 64-bit products and
// nothing crosses lanes. The words are philox::draw's (tests/kernels/philox_test.cpp checks
// them); four counters cost about what one does scalar (dropout's masks were a tenth of the
// BERT step). Without AVX2, four scalar draws.
#include <cmath>
#include <cstdint>

#include "ember/kernels/philox.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

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
#if defined(__AVX2__)
  const __m256i low = _mm256_set1_epi64x(0xFFFFFFFFll);
  const __m256i c =
      _mm256_add_epi64(_mm256_set1_epi64x(static_cast<long long>(counter)), _mm256_setr_epi64x(0, 1, 2, 3));
  __m256i c0 = _mm256_and_si256(c, low), c1 = _mm256_srli_epi64(c, 32);
  __m256i c2 = _mm256_setzero_si256(), c3 = _mm256_setzero_si256();
  const __m256i m0 = _mm256_set1_epi64x(0xD2511F53ll), m1 = _mm256_set1_epi64x(0xCD9E8D57ll);
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const __m256i p0 = _mm256_mul_epu32(c0, m0), p1 = _mm256_mul_epu32(c2, m1);
    const __m256i n0 =
        _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), c1), _mm256_set1_epi64x(k0));
    const __m256i n2 =
        _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), c3), _mm256_set1_epi64x(k1));
    c1 = _mm256_and_si256(p1, low);
    c3 = _mm256_and_si256(p0, low);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  alignas(32) uint64_t out[4][4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(out[0]), c0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(out[1]), c1);
  _mm256_store_si256(reinterpret_cast<__m256i*>(out[2]), c2);
  _mm256_store_si256(reinterpret_cast<__m256i*>(out[3]), c3);
  for (int l = 0; l < 4; ++l)
    for (int j = 0; j < 4; ++j) w[l].w[j] = static_cast<uint32_t>(out[j][l]);
#else
  for (uint64_t l = 0; l < 4; ++l) w[l] = draw(counter + l, key);
#endif
}

}  // namespace ember::philox
