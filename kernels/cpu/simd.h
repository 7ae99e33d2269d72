#pragma once
// The one SIMD layer of the CPU kernels (sgemm's and the bfloat16 GEMM's micro-kernels aside,
// which are written for their instructions): simd::Lanes<T, W>, the operations on one vector
// register of W lanes of T, each the same IEEE operation lane by lane at every width, so a
// kernel's bits depend on its order of operations and never on the register it runs in. A
// kernel is written once over Lanes (or one of its widths) and takes the widths the build has:
//   EMBER_SIMD_AVX2    AVX2 and FMA: 4 and 8 floats, 2 and 4 doubles, 4 uint64 (and
//                      Lanes<T, 1>);
//   EMBER_SIMD_AVX512  AVX-512F besides: 16 floats, 8 doubles.
// Lanes<T, 1> is the scalar model, with the same operations (the fused multiply-add fused where
// the build's CPU has FMA, as fn::mul_add). The operations are static functions over the
// intrinsics' own vector types: a vector type as a class template's argument loses its
// attributes, which GCC warns of, so the width is the argument, never the type.
#include <cstdint>
#include <cstring>

#include "ember/kernels/functors.h"

#if defined(__AVX2__) && EMBER_HOST_FMA
#include <immintrin.h>
#define EMBER_SIMD_AVX2 1
#else
#define EMBER_SIMD_AVX2 0
#endif
#if EMBER_SIMD_AVX2 && defined(__AVX512F__)
#define EMBER_SIMD_AVX512 1
#else
#define EMBER_SIMD_AVX512 0
#endif

namespace ember::cpu::simd {

template <class T, int W>
struct Lanes;

/// The scalar model: one lane.
template <class T>
struct Lanes<T, 1> {
  using V = T;
  static constexpr int kWidth = 1;
  static V set1(T a) { return a; }
  static V zero() { return T(0); }
  static V load(const T* p) { return *p; }
  static void store(T* p, V v) { *p = v; }
  static V add(V a, V b) { return a + b; }
  static V sub(V a, V b) { return a - b; }
  static V mul(V a, V b) { return a * b; }
  static V div(V a, V b) { return a / b; }
  /// a * b + c, one rounding where the CPU has FMA.
  static V fmadd(V a, V b, V c) {
#if EMBER_HOST_FMA
    if constexpr (sizeof(T) == sizeof(float))
      return __builtin_fmaf(a, b, c);
    else
      return __builtin_fma(a, b, c);
#else
    return a * b + c;
#endif
  }
};

#if EMBER_SIMD_AVX2
// The operations every width spells alike: P the intrinsics' prefix, S the element suffix (ps,
// pd).
#define EMBER_SIMD_COMMON_OPS(P, S)                                                  \
  static V set1(T a) { return P##_set1_##S(a); }                                     \
  static V zero() { return P##_setzero_##S(); }                                      \
  static V load(const T* p) { return P##_loadu_##S(p); }                             \
  static void store(T* p, V v) { P##_storeu_##S(p, v); }                             \
  static V add(V a, V b) { return P##_add_##S(a, b); }                               \
  static V sub(V a, V b) { return P##_sub_##S(a, b); }                               \
  static V mul(V a, V b) { return P##_mul_##S(a, b); }                               \
  static V div(V a, V b) { return P##_div_##S(a, b); }                               \
  static V max(V a, V b) { return P##_max_##S(a, b); }                               \
  static V fmadd(V a, V b, V c) { return P##_fmadd_##S(a, b, c); }   /* a * b + c */ \
  static V fmsub(V a, V b, V c) { return P##_fmsub_##S(a, b, c); }   /* a * b - c */ \
  static V fnmadd(V a, V b, V c) { return P##_fnmadd_##S(a, b, c); } /* c - a * b */

// A float width's types, its common operations, and those on the 32-bit integers of the same
// register (exp's exponent arithmetic): REG and IREG the float and integer vector types, SI the
// integer vector's suffix.
#define EMBER_SIMD_FLOAT_LANES(W, REG, IREG, P, SI)                              \
  using T = float;                                                               \
  using V = REG;                                                                 \
  using I = IREG;                                                                \
  static constexpr int kWidth = W;                                               \
  EMBER_SIMD_COMMON_OPS(P, ps)                                                   \
  static I set1i(uint32_t a) { return P##_set1_epi32(static_cast<int32_t>(a)); } \
  static I bits(V v) { return P##_castps_##SI(v); }                              \
  static V from_bits(I i) { return P##_cast##SI##_ps(i); }                       \
  static I and_bits(I a, I b) { return P##_and_##SI(a, b); }                     \
  static I xor_bits(I a, I b) { return P##_xor_##SI(a, b); }                     \
  static I add_i32(I a, I b) { return P##_add_epi32(a, b); }                     \
  static I sub_i32(I a, I b) { return P##_sub_epi32(a, b); }

// The lane masks of the 4- and 8-float widths (a mask: all ones where true) and the choices
// made on them, the integer lanes' included; P the intrinsics' prefix.
#define EMBER_SIMD_FLOAT_MASKS(P)                                             \
  using M = V;                                                                \
  static M no_mask() { return P##_setzero_ps(); }                             \
  /* Where a or b is NaN. */                                                  \
  static M unordered(V a, V b) { return P##_cmp_ps(a, b, _CMP_UNORD_Q); }     \
  /* Where v is not NaN. */                                                   \
  static M is_number(V v) { return P##_cmp_ps(v, v, _CMP_ORD_Q); }            \
  /* Where a < b is false (NaN included). */                                  \
  static M not_less(V a, V b) { return P##_cmp_ps(a, b, _CMP_NLT_UQ); }       \
  /* Where a <= b is false (NaN included). */                                 \
  static M not_less_equal(V a, V b) { return P##_cmp_ps(a, b, _CMP_NLE_UQ); } \
  static M mask_or(M a, M b) { return P##_or_ps(a, b); }                      \
  static M mask_and(M a, M b) { return P##_and_ps(a, b); }                    \
  static bool any(M m) { return P##_movemask_ps(m) != 0; }                    \
  /* v where m, +0 elsewhere. */                                              \
  static V keep(V v, M m) { return P##_and_ps(v, m); }                        \
  /* a where m, b elsewhere. */                                               \
  static V select(M m, V a, V b) { return P##_blendv_ps(b, a, m); }           \
  /* The integer lanes a where m, b elsewhere. */                             \
  static I select_bits(M m, I a, I b) { return bits(select(m, from_bits(a), from_bits(b))); }

// Two registers' lanes interleaved, for the 256-bit widths: S the element suffix (ps, pd).
#define EMBER_SIMD_ZIP_256(S)                                                                   \
  /* a0, b0, a1, b1, ...: the low halves of a and b interleaved. */                             \
  static V zip_low(V a, V b) {                                                                  \
    return _mm256_permute2f128_##S(_mm256_unpacklo_##S(a, b), _mm256_unpackhi_##S(a, b), 0x20); \
  }                                                                                             \
  /* The high halves of a and b interleaved. */                                                 \
  static V zip_high(V a, V b) {                                                                 \
    return _mm256_permute2f128_##S(_mm256_unpacklo_##S(a, b), _mm256_unpackhi_##S(a, b), 0x31); \
  }

// The widths with the common operations alone.
#define EMBER_SIMD_PLAIN_LANES(TYPE, W, REG, P, S) \
  template <>                                      \
  struct Lanes<TYPE, W> {                          \
    using T = TYPE;                                \
    using V = REG;                                 \
    static constexpr int kWidth = W;               \
    EMBER_SIMD_COMMON_OPS(P, S)                    \
  };
EMBER_SIMD_PLAIN_LANES(double, 2, __m128d, _mm, pd)
#if EMBER_SIMD_AVX512
EMBER_SIMD_PLAIN_LANES(double, 8, __m512d, _mm512, pd)
#endif

template <>
struct Lanes<float, 4> {
  EMBER_SIMD_FLOAT_LANES(4, __m128, __m128i, _mm, si128)
  EMBER_SIMD_FLOAT_MASKS(_mm)
  /// 0, step, 2 step, 3 step in the integer lanes.
  static I iota_i32(int32_t step) { return _mm_setr_epi32(0, step, 2 * step, 3 * step); }
  /// a's lanes A and A + 2, then b's lanes B and B + 2 (0: the even lanes, 1: the odd ones).
  template <int A, int B>
  static V every_other(V a, V b) {
    return _mm_shuffle_ps(a, b, _MM_SHUFFLE(B + 2, B, A + 2, A));
  }
  /// p[i] = base + the integer lane i, widened to 64 bits.
  static void store_widened(int64_t* p, I v, int64_t base) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                        _mm256_add_epi64(_mm256_cvtepi32_epi64(v), _mm256_set1_epi64x(base)));
  }
};

template <>
struct Lanes<double, 4> {
  using T = double;
  using V = __m256d;
  static constexpr int kWidth = 4;
  EMBER_SIMD_COMMON_OPS(_mm256, pd)
  EMBER_SIMD_ZIP_256(pd)
  /// a's lanes A and A + 2, then b's lanes B and B + 2 (0: the even lanes, 1: the odd ones).
  template <int A, int B>
  static V every_other(V a, V b) {
    return _mm256_permute4x64_pd(_mm256_shuffle_pd(a, b, A | B << 1 | A << 2 | B << 3),
                                 _MM_SHUFFLE(3, 1, 2, 0));
  }
};

template <>
struct Lanes<float, 8> {
  EMBER_SIMD_FLOAT_LANES(8, __m256, __m256i, _mm256, si256)
  EMBER_SIMD_FLOAT_MASKS(_mm256)
  EMBER_SIMD_ZIP_256(ps)
  static I min_u32(I a, I b) { return _mm256_min_epu32(a, b); }
  static I shift_left_23(I a) { return _mm256_slli_epi32(a, 23); }
  /// if_negative where x's sign bit is set, otherwise elsewhere.
  static V select_on_sign(V x, V if_negative, V otherwise) {
    return _mm256_blendv_ps(otherwise, if_negative, x);
  }
  /// 0, step, 2 step, ... 7 step in the integer lanes.
  static I iota_i32(int32_t step) {
    return _mm256_setr_epi32(0, step, 2 * step, 3 * step, 4 * step, 5 * step, 6 * step, 7 * step);
  }
  /// a's lanes A, A + 2, A + 4 and A + 6, then b's lanes B, ... B + 6 (0: the even lanes, 1: the
  /// odd ones). The in-half shuffle leaves the four pieces in the order (a, b | a, b).
  template <int A, int B>
  static V every_other(V a, V b) {
    const __m256d pieces = _mm256_castps_pd(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(B + 2, B, A + 2, A)));
    return _mm256_castpd_ps(_mm256_permute4x64_pd(pieces, _MM_SHUFFLE(3, 1, 2, 0)));
  }
  /// p[i] = base + the integer lane i, widened to 64 bits.
  static void store_widened(int64_t* p, I v, int64_t base) {
    Lanes<float, 4>::store_widened(p, _mm256_castsi256_si128(v), base);
    Lanes<float, 4>::store_widened(p + 4, _mm256_extracti128_si256(v, 1), base);
  }
};

/// 64-bit integer lanes (Philox's counters, a 32-bit word in each lane's low half, so that one
/// multiply gives whole 64-bit products and nothing crosses lanes).
template <>
struct Lanes<uint64_t, 4> {
  using T = uint64_t;
  using V = __m256i;
  static constexpr int kWidth = 4;
  static V set1(T a) { return _mm256_set1_epi64x(static_cast<long long>(a)); }
  static V zero() { return _mm256_setzero_si256(); }
  /// a, a + 1, a + 2, a + 3 (wrapping at 2^64).
  static V iota(T a) { return _mm256_add_epi64(set1(a), _mm256_setr_epi64x(0, 1, 2, 3)); }
  static void store(T* p, V v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static V and_bits(V a, V b) { return _mm256_and_si256(a, b); }
  static V xor_bits(V a, V b) { return _mm256_xor_si256(a, b); }
  static V shift_right_32(V a) { return _mm256_srli_epi64(a, 32); }
  /// The 64-bit products of a's and b's low 32-bit halves.
  static V mul_low32(V a, V b) { return _mm256_mul_epu32(a, b); }
};

#if EMBER_SIMD_AVX512
template <>
struct Lanes<float, 16> {
  EMBER_SIMD_FLOAT_LANES(16, __m512, __m512i, _mm512, si512)
  // (The zero-masked forms: the plain ones pass GCC 12 an undefined vector it warns of.)
  static I min_u32(I a, I b) { return _mm512_maskz_min_epu32(0xffff, a, b); }
  static I shift_left_23(I a) { return _mm512_maskz_slli_epi32(0xffff, a, 23); }
  static V select_on_sign(V x, V if_negative, V otherwise) {
    return _mm512_mask_blend_ps(_mm512_cmplt_epi32_mask(bits(x), _mm512_setzero_si512()), otherwise,
                                if_negative);
  }
};
#endif
#undef EMBER_SIMD_PLAIN_LANES
#undef EMBER_SIMD_ZIP_256
#undef EMBER_SIMD_FLOAT_MASKS
#undef EMBER_SIMD_FLOAT_LANES
#undef EMBER_SIMD_COMMON_OPS

/// ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7)), a tree of three shuffles: a loop over
/// the lanes is a chain of eight dependent steps, which a row of 48 attention scores waited on
/// twice.
inline float tree_sum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

/// The largest of the eight lanes (no NaN among them: the callers track NaN themselves; a
/// maximum is exact in any order).
inline float tree_max(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}
#endif  // EMBER_SIMD_AVX2

/// The widest register of T the build has (Lanes<T, 1> without AVX2).
#if EMBER_SIMD_AVX512
template <class T>
constexpr int kWidest = 64 / static_cast<int>(sizeof(T));
#elif EMBER_SIMD_AVX2
template <class T>
constexpr int kWidest = 32 / static_cast<int>(sizeof(T));
#else
template <class T>
constexpr int kWidest = 1;
#endif

/// v's lanes summed from lane 0 up, (((v0 + v1) + v2) + ...), through memory.
template <class T, int W>
T in_order_sum(typename Lanes<T, W>::V v) {
  T lanes[W];
  Lanes<T, W>::store(lanes, v);
  T total = T(0);
  for (int i = 0; i < W; ++i) total += lanes[i];
  return total;
}

}  // namespace ember::cpu::simd
