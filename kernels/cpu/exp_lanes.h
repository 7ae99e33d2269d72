#pragma once
// exp(-|x|) on V vectors of 8 floats at once, with exactly fn::exp_minus's operations
// (kernels/functors.h), so each lane gets the functor's bits. Each step of the polynomial is
// issued for every vector before the next step: a step is a fused multiply-add that waits 4
// cycles on the one before it, and two FMA pipes need about 8 such chains to stay busy.
// For GELU (gelu_lanes.h) and attention's softmax (cpu_attention.cpp). AVX2 + FMA builds only.
#include "ember/kernels/functors.h"

#if defined(__AVX2__) && EMBER_HOST_FMA
#include <immintrin.h>

#define EMBER_EXP_LANES 1

namespace ember::cpu::lanes {

// Horner's rule on V vectors at once: acc[v] = c[0], then acc[v] = fma(acc[v], x[v], c[i]) for
// each later coefficient in turn.
template <int V, int N>
inline void horner(__m256 (&acc)[V], const __m256 (&x)[V], const float (&c)[N]) {
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) acc[v] = _mm256_set1_ps(c[0]);
  for (int i = 1; i < N; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) acc[v] = _mm256_fmadd_ps(acc[v], x[v], _mm256_set1_ps(c[i]));
}

/// out[v] = fn::exp_minus(x[v]) lane by lane: exp(-|x|), |x| capped at 86.
template <int V>
inline void exp_minus(__m256 (&out)[V], const __m256 (&x)[V]) {
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff), max_mag = _mm256_set1_epi32(0x42ac0000);
  const __m256 log2e = _mm256_set1_ps(1.44269504088896341f), shift = _mm256_set1_ps(12582912.0f);
  const __m256 ln2_hi = _mm256_set1_ps(0.693145751953125f),
               ln2_lo = _mm256_set1_ps(1.42860682030941723212e-6f);
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 r[V], shifted[V];
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) {
    // |x| clamped to 86, its exponent split off by the 1.5 * 2^23 shift.
    const __m256i mag = _mm256_min_epu32(_mm256_and_si256(_mm256_castps_si256(x[v]), abs_mask), max_mag);
    const __m256 neg_t = _mm256_xor_ps(_mm256_castsi256_ps(mag), sign);
    shifted[v] = _mm256_fmadd_ps(neg_t, log2e, shift);
    const __m256 n = _mm256_sub_ps(shifted[v], shift);
    r[v] = _mm256_fnmadd_ps(n, ln2_lo, _mm256_fnmadd_ps(n, ln2_hi, neg_t));
  }
  horner(out, r, fn::kExpPoly);
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) {
    const __m256i scale = _mm256_slli_epi32(
        _mm256_sub_epi32(_mm256_castps_si256(shifted[v]), _mm256_set1_epi32(0x4b400000)), 23);
    out[v] = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(out[v]), scale));
  }
}

}  // namespace ember::cpu::lanes

#else
#define EMBER_EXP_LANES 0
#endif
