#pragma once
// exp(-|x|) on V vectors of floats at once, with exactly fn::exp_minus's operations
// (kernels/functors.h), so each lane gets the functor's bits. Each step of the polynomial is
// issued for every vector before the next step: a step is a fused multiply-add that waits 4
// cycles on the one before it, and two FMA pipes need about 8 such chains to stay busy.
// For GELU (gelu_lanes.h) and attention's softmax (cpu_attention.cpp), over kernels/cpu/simd.h's
// float lanes of 8 or 16. AVX2 + FMA builds only.
#include <cstdint>

#include "ember/kernels/cpu/simd.h"
#include "ember/kernels/functors.h"

#if EMBER_SIMD_AVX2
#define EMBER_EXP_LANES 1

namespace ember::cpu::lanes {

// Horner's rule on V vectors at once: acc[v] = c[0], then acc[v] = fma(acc[v], x[v], c[i]) for
// each later coefficient in turn.
template <class S, int V, int N>
inline void horner(typename S::V (&acc)[V], const typename S::V (&x)[V], const float (&c)[N]) {
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) acc[v] = S::set1(c[0]);
  for (int i = 1; i < N; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) acc[v] = S::fmadd(acc[v], x[v], S::set1(c[i]));
}

/// out[v] = fn::exp_minus(x[v]) lane by lane: exp(-|x|), |x| capped at 86. S: a float
/// simd::Lanes of 8 or 16.
template <class S, int V>
inline void exp_minus(typename S::V (&out)[V], const typename S::V (&x)[V]) {
  using Vec = typename S::V;
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
  horner<S>(out, r, fn::kExpPoly);
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
