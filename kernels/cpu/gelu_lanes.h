#pragma once
// GELU (the erf form) on float, 64 values at a time (128 with AVX-512), with exactly the
// operations of fn::Gelu's host path (kernels/functors.h: normal_cdf and exp_minus, their
// fused multiply-adds and nothing else contracted), so the bits are the functor's. Why: the
// functor's chain is about 40 dependent operations, longer than the core's floating-point
// scheduler can overlap from one loop iteration to the next, so the compiler's loop ran at a
// fifth of the core's rate; here each operation is issued for eight independent vectors in turn.
#include <cstdint>

#include "ember/kernels/cpu/exp_lanes.h"
#include "ember/kernels/functors.h"

namespace ember::cpu {

#if EMBER_EXP_LANES
namespace gelu_detail {

// out[i] = fn::Gelu{}(in[i]) for the V vectors of values from in, V in flight (exp_lanes.h:
// for 8 lanes, 8 took 20 against 25 us at 4, for 24576 values).
template <int W, int V>
inline void block(float* out, const float* in) {
  using S = simd::Lanes<float, W>;
  using Vec = typename S::V;
  const Vec half = S::set1(0.5f), one = S::set1(1.0f);
  const auto abs_mask = S::set1i(0x7fffffffu);
  Vec x[V], z[V], t[V], p[V], mm[V], ex[V];
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) {
    x[v] = S::load(in + W * v);
    z[v] = S::mul(S::from_bits(S::and_bits(S::bits(x[v]), abs_mask)), S::set1(0.70710678118654752f));
    t[v] = S::div(one, S::add(one, S::mul(half, z[v])));
  }
  lanes::horner<S>(p, t, fn::kHalfErfcPoly);
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) mm[v] = S::fmsub(z[v], z[v], p[v]);
  lanes::exp_minus<S>(ex, mm);
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) {
    const Vec tail = S::mul(t[v], ex[v]);
    // The functor's negative * tail + (1 - negative) * (1 - tail), negative the sign bit as
    // 0 or 1, is exactly tail or 1 - tail (the other product is +0): a select on x's sign bit.
    const Vec cdf = S::select_on_sign(x[v], tail, S::sub(one, tail));
    S::store(out + W * v, S::mul(x[v], cdf));
  }
}

}  // namespace gelu_detail
#endif

/// out[i] = fn::Gelu{}(in[i]) for i < n, bit for bit.
inline void gelu_lanes(float* out, const float* in, int64_t n) {
  int64_t i = 0;
#if EMBER_EXP_LANES
#if EMBER_SIMD_AVX512
  // 16 lanes a vector: the same operations, issued half as often (on Zen 4, which runs them as
  // two 8-lane halves, 0.574 -> 0.505 ns a value).
  for (; i + 128 <= n; i += 128) gelu_detail::block<16, 8>(out + i, in + i);
  for (; i + 16 <= n; i += 16) gelu_detail::block<16, 1>(out + i, in + i);
#else
  for (; i + 64 <= n; i += 64) gelu_detail::block<8, 8>(out + i, in + i);
#endif
  for (; i + 8 <= n; i += 8) gelu_detail::block<8, 1>(out + i, in + i);
#endif
  const fn::Gelu gelu;
  for (; i < n; ++i) out[i] = gelu(in[i]);
}

}  // namespace ember::cpu
