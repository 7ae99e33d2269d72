#pragma once
// exp(-|x|) on V vectors of floats at once, with exactly fn::exp_minus's operations
// (kernels/functors.h), so each lane gets the functor's bits. Each step of the polynomial is
// issued for every vector before the next step: a step is a fused multiply-add that waits 4
// cycles on the one before it, and two FMA pipes need about 8 such chains to stay busy.
// For GELU (gelu_lanes.h) and attention's softmax (cpu_attention.cpp). AVX2 + FMA builds only;
// 16-lane vectors where the build has AVX-512.
#include <cstdint>

#include "ember/kernels/functors.h"

#if defined(__AVX2__) && EMBER_HOST_FMA
#include <immintrin.h>

#define EMBER_EXP_LANES 1

namespace ember::cpu::lanes {

// Lanes8 and Lanes16 below: the operations the lanes kernels use on one vector of floats (V)
// and of 32-bit integers (I), for AVX2's 8 lanes and AVX-512's 16, so that each kernel is
// written once. Each is the same IEEE operation lane by lane at either width, so the bits do
// not depend on it. Simd<Vec> picks the set for a vector type by overload (a vector type as a
// class template's argument loses its attributes, which GCC warns of). The operations both
// widths spell alike come from this one list, P the intrinsics' prefix and SI their integer
// vector's suffix.
#define EMBER_LANES_COMMON_OPS(P, SI)                                               \
  static V set1(float a) { return P##_set1_ps(a); }                                 \
  static I set1i(uint32_t a) { return P##_set1_epi32(static_cast<int32_t>(a)); }    \
  static V load(const float* p) { return P##_loadu_ps(p); }                         \
  static void store(float* p, V v) { P##_storeu_ps(p, v); }                         \
  static V add(V a, V b) { return P##_add_ps(a, b); }                               \
  static V sub(V a, V b) { return P##_sub_ps(a, b); }                               \
  static V mul(V a, V b) { return P##_mul_ps(a, b); }                               \
  static V div(V a, V b) { return P##_div_ps(a, b); }                               \
  static V fmadd(V a, V b, V c) { return P##_fmadd_ps(a, b, c); }   /* a * b + c */ \
  static V fmsub(V a, V b, V c) { return P##_fmsub_ps(a, b, c); }   /* a * b - c */ \
  static V fnmadd(V a, V b, V c) { return P##_fnmadd_ps(a, b, c); } /* c - a * b */ \
  static I bits(V v) { return P##_castps_##SI(v); }                                 \
  static V from_bits(I i) { return P##_cast##SI##_ps(i); }                          \
  static I and_bits(I a, I b) { return P##_and_##SI(a, b); }                        \
  static I xor_bits(I a, I b) { return P##_xor_##SI(a, b); }                        \
  static I add_i32(I a, I b) { return P##_add_epi32(a, b); }                        \
  static I sub_i32(I a, I b) { return P##_sub_epi32(a, b); }

struct Lanes8 {
  using V = __m256;
  using I = __m256i;
  static constexpr int kWidth = 8;
  EMBER_LANES_COMMON_OPS(_mm256, si256)
  static I min_u32(I a, I b) { return _mm256_min_epu32(a, b); }
  static I shift_left_23(I a) { return _mm256_slli_epi32(a, 23); }
  /// if_negative where x's sign bit is set, otherwise elsewhere.
  static V select_on_sign(V x, V if_negative, V otherwise) {
    return _mm256_blendv_ps(otherwise, if_negative, x);
  }
};

#if defined(__AVX512F__)
struct Lanes16 {
  using V = __m512;
  using I = __m512i;
  static constexpr int kWidth = 16;
  EMBER_LANES_COMMON_OPS(_mm512, si512)
  // (The zero-masked forms: the plain ones pass GCC 12 an undefined vector it warns of.)
  static I min_u32(I a, I b) { return _mm512_maskz_min_epu32(0xffff, a, b); }
  static I shift_left_23(I a) { return _mm512_maskz_slli_epi32(0xffff, a, 23); }
  static V select_on_sign(V x, V if_negative, V otherwise) {
    return _mm512_mask_blend_ps(_mm512_cmplt_epi32_mask(bits(x), _mm512_setzero_si512()), otherwise,
                                if_negative);
  }
};
#endif
#undef EMBER_LANES_COMMON_OPS

Lanes8 simd_of(__m256);
#if defined(__AVX512F__)
Lanes16 simd_of(__m512);
#endif
template <class Vec>
using Simd = decltype(simd_of(Vec()));

// Horner's rule on V vectors at once: acc[v] = c[0], then acc[v] = fma(acc[v], x[v], c[i]) for
// each later coefficient in turn.
template <class Vec, int V, int N>
inline void horner(Vec (&acc)[V], const Vec (&x)[V], const float (&c)[N]) {
  using S = Simd<Vec>;
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) acc[v] = S::set1(c[0]);
  for (int i = 1; i < N; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) acc[v] = S::fmadd(acc[v], x[v], S::set1(c[i]));
}

/// out[v] = fn::exp_minus(x[v]) lane by lane: exp(-|x|), |x| capped at 86.
template <class Vec, int V>
inline void exp_minus(Vec (&out)[V], const Vec (&x)[V]) {
  using S = Simd<Vec>;
  const auto abs_mask = S::set1i(0x7fffffffu), max_mag = S::set1i(0x42ac0000u), sign = S::set1i(0x80000000u);
  const Vec log2e = S::set1(1.44269504088896341f), shift = S::set1(12582912.0f);
  const Vec ln2_hi = S::set1(0.693145751953125f), ln2_lo = S::set1(1.42860682030941723212e-6f);
  Vec r[V], shifted[V];
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) {
    // |x| clamped to 86, its exponent split off by the 1.5 * 2^23 shift.
    const auto mag = S::min_u32(S::and_bits(S::bits(x[v]), abs_mask), max_mag);
    const Vec neg_t = S::from_bits(S::xor_bits(mag, sign));
    shifted[v] = S::fmadd(neg_t, log2e, shift);
    const Vec n = S::sub(shifted[v], shift);
    r[v] = S::fnmadd(n, ln2_lo, S::fnmadd(n, ln2_hi, neg_t));
  }
  horner(out, r, fn::kExpPoly);
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) {
    const auto scale = S::shift_left_23(S::sub_i32(S::bits(shifted[v]), S::set1i(0x4b400000u)));
    out[v] = S::from_bits(S::add_i32(S::bits(out[v]), scale));
  }
}

}  // namespace ember::cpu::lanes

#else
#define EMBER_EXP_LANES 0
#endif
