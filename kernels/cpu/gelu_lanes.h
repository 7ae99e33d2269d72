#pragma once
// GELU (the erf form) on float, 64 values at a time, with exactly the operations of
// fn::Gelu's host path (kernels/functors.h: normal_cdf and exp_minus, their fused
// multiply-adds and nothing else contracted), so the bits are the functor's. Why: the
// functor's chain is about 40 dependent operations, longer than the core's floating-point
// scheduler can overlap from one loop iteration to the next, so the compiler's loop ran at a
// fifth of the core's rate; here each operation is issued for eight independent vectors in turn.
#include <cstdint>

#include "ember/kernels/cpu/exp_lanes.h"
#include "ember/kernels/functors.h"

namespace ember::cpu {

#if EMBER_EXP_LANES
namespace gelu_detail {

// out[i] = fn::Gelu{}(in[i]) for the 8 * V values from in, V vectors in flight (exp_lanes.h:
// 8 took 20 against 25 us at 4, for 24576 values).
template <int V>
inline void block(float* out, const float* in) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  __m256 x[V], z[V], t[V], p[V], mm[V], ex[V];
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) {
    x[v] = _mm256_loadu_ps(in + 8 * v);
    z[v] = _mm256_mul_ps(_mm256_and_ps(x[v], abs_mask), _mm256_set1_ps(0.70710678118654752f));
    t[v] = _mm256_div_ps(one, _mm256_add_ps(one, _mm256_mul_ps(half, z[v])));
  }
  lanes::horner(p, t, fn::kHalfErfcPoly);
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) mm[v] = _mm256_fmsub_ps(z[v], z[v], p[v]);
  lanes::exp_minus(ex, mm);
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) {
    const __m256 tail = _mm256_mul_ps(t[v], ex[v]);
    // The functor's negative * tail + (1 - negative) * (1 - tail), negative the sign bit as
    // 0 or 1, is exactly tail or 1 - tail (the other product is +0): a select on x's sign bit.
    const __m256 cdf = _mm256_blendv_ps(_mm256_sub_ps(one, tail), tail, x[v]);
    _mm256_storeu_ps(out + 8 * v, _mm256_mul_ps(x[v], cdf));
  }
}

}  // namespace gelu_detail
#endif

/// out[i] = fn::Gelu{}(in[i]) for i < n, bit for bit.
inline void gelu_lanes(float* out, const float* in, int64_t n) {
  int64_t i = 0;
#if EMBER_EXP_LANES
  for (; i + 64 <= n; i += 64) gelu_detail::block<8>(out + i, in + i);
  for (; i + 8 <= n; i += 8) gelu_detail::block<1>(out + i, in + i);
#endif
  const fn::Gelu gelu;
  for (; i < n; ++i) out[i] = gelu(in[i]);
}

}  // namespace ember::cpu
