#pragma once
// The sum and the maximum of a vector's eight floats, as a tree of three shuffles: a loop
// over the lanes is a chain of eight dependent steps, which a row of 48 attention scores
// waited on twice. The sum's order is fixed (so its bits are); a maximum is exact in any
// order. AVX2 builds only.
#if defined(__AVX2__)
#include <immintrin.h>

#define EMBER_HORIZONTAL_LANES 1

namespace ember::cpu::lanes {

/// ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7)).
inline float horizontal_sum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

/// The largest of the eight (no NaN among them: the callers track NaN themselves).
inline float horizontal_max(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}

}  // namespace ember::cpu::lanes

#else
#define EMBER_HORIZONTAL_LANES 0
#endif
