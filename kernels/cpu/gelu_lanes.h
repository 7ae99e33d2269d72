#pragma once
// GELU (the erf form) on float, 64 values at a time, with exactly the operations of
// fn::Gelu's host path (kernels/functors.h: normal_cdf and exp_minus, their fused
// multiply-adds and nothing else contracted), so the bits are the functor's. Why: the
// functor's chain is about 40 dependent operations, longer than the core's floating-point
// scheduler can overlap from one loop iteration to the next, so the compiler's loop ran at a
// fifth of the core's rate; here each operation is issued for eight independent vectors in turn.
#include <cstdint>

#include "ember/kernels/functors.h"

#if defined(__AVX2__) && EMBER_HOST_FMA
#include <immintrin.h>
#endif

namespace ember::cpu {

#if defined(__AVX2__) && EMBER_HOST_FMA
namespace gelu_detail {

// Horner's rule on V vectors at once: acc[v] = c[0], then acc[v] = fma(acc[v], x[v], c[i]) for
// each later coefficient in turn, each step issued for every vector before the next step.
template <int V, int N>
inline void horner(__m256 (&acc)[V], const __m256 (&x)[V], const float (&c)[N]) {
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) acc[v] = _mm256_set1_ps(c[0]);
  for (int i = 1; i < N; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) acc[v] = _mm256_fmadd_ps(acc[v], x[v], _mm256_set1_ps(c[i]));
}

// out[i] = fn::Gelu{}(in[i]) for the 8 * V values from in, V vectors in flight: each step of
// the polynomials is a chain of dependent fused multiply-adds (4 cycles each), and two FMA
// pipes need 8 chains at once to be kept busy (8: 20 against 25 us for 24576 values at 4).
template <int V>
inline void block(float* out, const float* in) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff), max_mag = _mm256_set1_epi32(0x42ac0000);
  const __m256 log2e = _mm256_set1_ps(1.44269504088896341f), shift = _mm256_set1_ps(12582912.0f);
  const __m256 ln2_hi = _mm256_set1_ps(0.693145751953125f),
               ln2_lo = _mm256_set1_ps(1.42860682030941723212e-6f);
  const __m256 sign = _mm256_set1_ps(-0.0f);
  constexpr float kErfc[10] = {0.17087277f,  -0.82215223f, 1.48851587f, -1.13520398f, 0.27886807f,
                               -0.18628806f, 0.09678418f,  0.37409196f, 1.00002368f,  -1.26551223f};
  constexpr float kExp[8] = {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f};
  __m256 x[V], z[V], t[V], p[V], m[V], e[V], shifted[V];
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) {
    x[v] = _mm256_loadu_ps(in + 8 * v);
    z[v] = _mm256_mul_ps(_mm256_and_ps(x[v], _mm256_castsi256_ps(abs_mask)),
                         _mm256_set1_ps(0.70710678118654752f));
    t[v] = _mm256_div_ps(one, _mm256_add_ps(one, _mm256_mul_ps(half, z[v])));
  }
  horner(p, t, kErfc);  // the coefficients signed as in the functor
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) {
    // exp_minus(z * z - p): |m| clamped to 86, its exponent split off by the 1.5 * 2^23 shift.
    const __m256 mm = _mm256_fmsub_ps(z[v], z[v], p[v]);
    const __m256i mag = _mm256_min_epu32(_mm256_and_si256(_mm256_castps_si256(mm), abs_mask), max_mag);
    const __m256 neg_t = _mm256_xor_ps(_mm256_castsi256_ps(mag), sign);
    shifted[v] = _mm256_fmadd_ps(neg_t, log2e, shift);
    const __m256 nn = _mm256_sub_ps(shifted[v], shift);
    m[v] = _mm256_fnmadd_ps(nn, ln2_lo, _mm256_fnmadd_ps(nn, ln2_hi, neg_t));
  }
  horner(e, m, kExp);
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) {
    const __m256i scale = _mm256_slli_epi32(
        _mm256_sub_epi32(_mm256_castps_si256(shifted[v]), _mm256_set1_epi32(0x4b400000)), 23);
    const __m256 ex = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(e[v]), scale));
    const __m256 tail = _mm256_mul_ps(_mm256_mul_ps(half, t[v]), ex);
    const __m256 negative = _mm256_cvtepi32_ps(_mm256_srli_epi32(_mm256_castps_si256(x[v]), 31));
    const __m256 cdf = _mm256_add_ps(_mm256_mul_ps(negative, tail),
                                     _mm256_mul_ps(_mm256_sub_ps(one, negative), _mm256_sub_ps(one, tail)));
    _mm256_storeu_ps(out + 8 * v, _mm256_mul_ps(x[v], cdf));
  }
}

}  // namespace gelu_detail
#endif

/// out[i] = fn::Gelu{}(in[i]) for i < n, bit for bit.
inline void gelu_lanes(float* out, const float* in, int64_t n) {
  int64_t i = 0;
#if defined(__AVX2__) && EMBER_HOST_FMA
  for (; i + 64 <= n; i += 64) gelu_detail::block<8>(out + i, in + i);
  for (; i + 8 <= n; i += 8) gelu_detail::block<1>(out + i, in + i);
#endif
  const fn::Gelu gelu;
  for (; i < n; ++i) out[i] = gelu(in[i]);
}

}  // namespace ember::cpu
