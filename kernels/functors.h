#pragma once
// Elementwise math, written once: the CPU loops and the CUDA kernels both call these.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ember/kernels/hd.h"

namespace ember::fn {

// Overloads for float and double so that device code picks the single-precision routine.
EMBER_HD_INLINE float m_exp(float x) { return ::expf(x); }
EMBER_HD_INLINE double m_exp(double x) { return ::exp(x); }
EMBER_HD_INLINE float m_log(float x) { return ::logf(x); }
EMBER_HD_INLINE double m_log(double x) { return ::log(x); }
EMBER_HD_INLINE float m_log1p(float x) { return ::log1pf(x); }
EMBER_HD_INLINE double m_log1p(double x) { return ::log1p(x); }
EMBER_HD_INLINE float m_sqrt(float x) { return ::sqrtf(x); }
EMBER_HD_INLINE double m_sqrt(double x) { return ::sqrt(x); }
EMBER_HD_INLINE float m_tanh(float x) { return ::tanhf(x); }
EMBER_HD_INLINE double m_tanh(double x) { return ::tanh(x); }
EMBER_HD_INLINE float m_erf(float x) { return ::erff(x); }
EMBER_HD_INLINE double m_erf(double x) { return ::erf(x); }
// GELU's normal CDF and density in float on the host, written so that the compiler
// vectorises them: libm's erff and expf are a call per element, a fifth of a BERT's inference
// and a tenth of its training step. Float compares and fmin/fmax keep NaN's rules, which the
// vectoriser treats as control flow, so clamps and selects work on the bits. CUDA's erff and
// expf are already fast: the device keeps them. Double keeps erf and exp. Accuracy:
// tests/kernels/gelu_math_test.cpp.
#if !defined(__CUDA_ARCH__)
// a * b + c with one rounding where the build's CPU has FMA (every x86-64-v3 CPU, the ISA Ember
// builds for at least): the polynomials below are chains of these, and a fused step is half
// the work of a multiply and an add. Without FMA, a multiply and an add (kernels/cpu/gelu_lanes.h
// makes the same choice, so its bits are the functor's in either build).
#if defined(__FMA__)
#define EMBER_HOST_FMA 1
#else
#define EMBER_HOST_FMA 0
#endif
EMBER_HD_ALWAYS_INLINE float mul_add(float a, float b, float c) {
#if EMBER_HOST_FMA
  return __builtin_fmaf(a, b, c);
#else
  return a * b + c;
#endif
}
// c (highest degree first) at x by Horner's rule with fused steps: acc = c[0], then acc =
// mul_add(acc, x, c[i]) for each later i. Unrolled at compile time: the polynomials below stay
// straight-line code, which the callers' loops vectorise.
template <int I = 1, int N>
EMBER_HD_ALWAYS_INLINE float horner(float x, const float (&c)[N], float acc) {
  if constexpr (I == N)
    return acc;
  else
    return horner<I + 1>(x, c, mul_add(acc, x, c[I]));
}
template <int N>
EMBER_HD_ALWAYS_INLINE float horner(float x, const float (&c)[N]) {
  return horner(x, c, c[0]);
}
EMBER_HD_ALWAYS_INLINE uint32_t float_bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
EMBER_HD_ALWAYS_INLINE float bits_float(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}
// exp(r) for |r| <= ln 2 / 2, highest degree first (Horner's rule): the degree-6 polynomial
// with the least relative error there, its two lowest coefficients held at 1. exp_minus is as
// accurate with it as with the degree-7 Taylor series it replaced (7.7e-8 worst relative error
// on [0, 86], float evaluation) and one fused multiply-add shorter. kernels/cpu/exp_lanes.h
// reads the same table.
constexpr float kExpPoly[7] = {0.0013814613f, 0.0083687101f, 0.041668389f, 0.16666521f,
                               0.49999994f,   1.0f,          1.0f};
// exp(-|m|), |m| capped at 86 (exp(-86) = 4e-38). m = n ln 2 + r with |r| <= ln 2 / 2; exp(r)
// by kExpPoly, 2^n put into the exponent bits. A NaN gives a number: the callers multiply by x,
// so NaN still gives NaN.
EMBER_HD_ALWAYS_INLINE float exp_minus(float m) {
  uint32_t mag = float_bits(m) & 0x7fffffffu;
  mag = mag < 0x42ac0000u ? mag : 0x42ac0000u;  // 86.0f
  const float t = bits_float(mag);
  constexpr float kLog2e = 1.44269504088896341f, kShift = 12582912.0f;  // 1.5 * 2^23: rounds
  const float shifted = mul_add(-t, kLog2e, kShift);
  const float n = shifted - kShift;  // round(-t / ln 2)
  // r = -t - n ln 2, ln 2 in a high part (exact times n) and a low one.
  const float r = mul_add(-n, 1.42860682030941723212e-6f, mul_add(-n, 0.693145751953125f, -t));
  const float e = horner(r, kExpPoly);
  return bits_float(float_bits(e) + ((float_bits(shifted) - 0x4b400000u) << 23));  // * 2^n
}
#endif

// Phi(x) = erfc(-x / sqrt 2) / 2. Float on the host: erfc(z) = t exp(-z^2 - P(t)), t =
// 1 / (1 + z / 2), P a degree-9 polynomial (Numerical Recipes' erfcc, relative error below
// 1.2e-7 for every z >= 0), so the tail of Phi keeps its relative accuracy where erf ~ -1
// would lose it. kHalfErfcPoly is P, highest degree first, its constant term less ln 2: exp
// then gives erfc / 2, Phi's tail, without a multiply by a half (gelu_lanes.h reads it too).
#if !defined(__CUDA_ARCH__)
constexpr float kHalfErfcPoly[10] = {0.17087277f, -0.82215223f,  1.48851587f, -1.13520398f,
                                     0.27886807f, -0.18628806f,  0.09678418f, 0.37409196f,
                                     1.00002368f, -1.9586594106f};  // -1.26551223 - ln 2
#endif
EMBER_HD_ALWAYS_INLINE float normal_cdf(float x) {
#if defined(__CUDA_ARCH__)
  return 0.5f * (1.0f + ::erff(x * 0.70710678118654752f));
#else
  const uint32_t bits = float_bits(x);
  const float z = bits_float(bits & 0x7fffffffu) * 0.70710678118654752f;
  const float t = 1.0f / (1.0f + 0.5f * z);
  const float p = horner(t, kHalfErfcPoly);
  const float tail = t * exp_minus(mul_add(z, z, -p));  // Phi(-|x|)
  // x < 0: the tail; x >= 0: 1 - the tail (selected on the sign bit, exactly).
  const float negative = static_cast<float>(bits >> 31);
  return negative * tail + (1.0f - negative) * (1.0f - tail);
#endif
}
EMBER_HD_INLINE double normal_cdf(double x) { return 0.5 * (1.0 + ::erf(x * 0.70710678118654752440)); }

// exp(-x^2 / 2), the normal density without its constant.
EMBER_HD_ALWAYS_INLINE float normal_density_exp(float x) {
#if defined(__CUDA_ARCH__)
  return ::expf(-0.5f * x * x);
#else
  return exp_minus(0.5f * x * x);
#endif
}
EMBER_HD_INLINE double normal_density_exp(double x) { return ::exp(-0.5 * x * x); }
EMBER_HD_INLINE float m_pow(float x, float y) { return ::powf(x, y); }
EMBER_HD_INLINE double m_pow(double x, double y) { return ::pow(x, y); }
EMBER_HD_INLINE float m_floor(float x) { return ::floorf(x); }
EMBER_HD_INLINE double m_floor(double x) { return ::floor(x); }
EMBER_HD_INLINE float m_fmod(float x, float y) { return ::fmodf(x, y); }
EMBER_HD_INLINE double m_fmod(double x, double y) { return ::fmod(x, y); }
template <class T>
EMBER_HD_INLINE T m_pow(T x, T y) {  // integers: repeated squaring
  if constexpr (std::is_signed<T>::value) {
    if (y < 0) return x == 1 ? T(1) : (x == -1 ? (y % 2 ? T(-1) : T(1)) : T(0));
  }
  T r = 1;
  while (y) {
    if (y & 1) r *= x;
    x *= x;
    y >>= 1;
  }
  return r;
}

// NaN propagates through maximum/minimum/relu/clamp, as in PyTorch.
template <class T>
EMBER_HD_INLINE bool is_nan(T x) {
  return x != x;
}

// Where an op's arguments are drawn when the tests exercise it from the op table (gradcheck,
// the mixed-device checks and CUDA parity: tests/support/op_catalog_elementwise.cpp): inside
// the op's domain, and where finite differences judge it. A functor without a kDomain member
// takes [-1, 1]; a binary functor's kRhs, where it has one, is its right operand's (kDomain
// then holds for the left).
struct Domain {
  double lo, hi;
};

// ---- unary ----
struct Neg {
  template <class T>
  EMBER_HD T operator()(T x) const {
    return -x;
  }
};
struct Exp {
  template <class T>
  EMBER_HD T operator()(T x) const {
    return m_exp(x);
  }
};
struct Log {
  static constexpr Domain kDomain{0.5, 2.0};
  template <class T>
  EMBER_HD T operator()(T x) const {
    return m_log(x);
  }
};
// log(1 + x), exact near 0 where log(1 + x) loses x's low bits to the sum.
struct Log1p {
  static constexpr Domain kDomain{-0.5, 2.0};
  template <class T>
  EMBER_HD T operator()(T x) const {
    return m_log1p(x);
  }
};
struct Sqrt {
  static constexpr Domain kDomain{0.5, 2.0};
  template <class T>
  EMBER_HD T operator()(T x) const {
    return m_sqrt(x);
  }
};
struct Abs {
  template <class T>
  EMBER_HD T operator()(T x) const {
    if constexpr (std::is_unsigned<T>::value)
      return x;
    else
      return x < T(0) ? -x : x;
  }
};
struct Relu {
  template <class T>
  EMBER_HD T operator()(T x) const {
    return (x > T(0) || is_nan(x)) ? x : T(0);
  }
};
struct Sigmoid {
  static constexpr Domain kDomain{-3.0, 3.0};
  // Written so that neither branch overflows: exp of a non-positive number only.
  template <class T>
  EMBER_HD T operator()(T x) const {
    if (x >= T(0)) return T(1) / (T(1) + m_exp(-x));
    const T e = m_exp(x);
    return e / (T(1) + e);
  }
};
struct Tanh {
  static constexpr Domain kDomain{-2.0, 2.0};
  template <class T>
  EMBER_HD T operator()(T x) const {
    return m_tanh(x);
  }
};
struct Sign {
  template <class T>
  EMBER_HD T operator()(T x) const {
    if constexpr (std::is_unsigned<T>::value)
      return T(x > T(0));
    else
      return T((T(0) < x) - (x < T(0)));
  }
};
struct Square {
  template <class T>
  EMBER_HD T operator()(T x) const {
    return x * x;
  }
};
// A NaN bound makes every element NaN, as in PyTorch (the comparisons alone would return x).
// Integer tensors never get one: the front-end rejects it.
template <class T>
struct Clamp {
  T lo, hi;
  EMBER_HD T operator()(T x) const {
    if (is_nan(lo)) return lo;
    if (is_nan(hi)) return hi;
    return is_nan(x) ? x : (x < lo ? lo : (x > hi ? hi : x));
  }
};
template <class T>
struct PowScalar {
  T p;
  EMBER_HD T operator()(T x) const { return p == T(2) ? x * x : m_pow(x, p); }
};
template <class T>
struct RPowScalar {
  T base;
  EMBER_HD T operator()(T x) const { return m_pow(base, x); }
};
struct Erf {
  static constexpr Domain kDomain{-2.0, 2.0};
  template <class T>
  EMBER_HD T operator()(T x) const {
    return m_erf(x);
  }
};
// 1 / sqrt(x), not CUDA's rsqrtf (2 ulp): the devices agree to rounding.
struct Rsqrt {
  static constexpr Domain kDomain{0.5, 2.0};
  template <class T>
  EMBER_HD T operator()(T x) const {
    return T(1) / m_sqrt(x);
  }
};
// GELU's constants: 1/sqrt(2 pi), sqrt(2/pi) and the tanh form's cubic coefficient.
constexpr double kGeluInvSqrt2Pi = 0.39894228040143267794;
constexpr double kGeluSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluCubic = 0.044715;
// x * Phi(x), Phi the standard normal CDF (approximate="none").
struct Gelu {
  template <class T>
  EMBER_HD_ALWAYS_INLINE T operator()(T x) const {
    return x * normal_cdf(x);
  }
};
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (approximate="tanh").
struct GeluTanh {
  template <class T>
  EMBER_HD T operator()(T x) const {
    const T inner = T(kGeluSqrt2OverPi) * (x + T(kGeluCubic) * x * x * x);
    return T(0.5) * x * (T(1) + m_tanh(inner));
  }
};
struct LogicalNot {
  template <class T>
  EMBER_HD bool operator()(T x) const {
    return !x;
  }
};

// ---- binary ----
struct Add {
  template <class T>
  EMBER_HD T operator()(T a, T b) const {
    return a + b;
  }
};
struct Sub {
  template <class T>
  EMBER_HD T operator()(T a, T b) const {
    return a - b;
  }
};
struct Mul {
  template <class T>
  EMBER_HD T operator()(T a, T b) const {
    return a * b;
  }
};
struct Div {
  static constexpr Domain kDomain{0.5, 2.0};
  template <class T>
  EMBER_HD T operator()(T a, T b) const {
    return a / b;
  }
};
// Python's a // b: the quotient rounded toward minus infinity.
struct FloorDivide {
  // A step function: its gradient is zero, and finite differences agree away from the steps
  // (random arguments land on one with probability ~0).
  static constexpr Domain kDomain{-3.0, 3.0}, kRhs{0.5, 2.0};
  template <class T>
  EMBER_HD T operator()(T a, T b) const {
    if constexpr (std::is_floating_point<T>::value) {
      // floor(a / b) can be one too high when a / b rounds up to an integer (1 // 0.1 is 9):
      // take the exact remainder first, as Python does.
      if (b == T(0)) return a / b;
      const T mod = m_fmod(a, b);
      T div = (a - mod) / b;
      if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
      if (div == T(0)) return a / b < T(0) ? T(-0.0) : T(0.0);  // a zero takes the quotient's sign
      const T floor_div = m_floor(div);
      return div - floor_div > T(0.5) ? floor_div + T(1) : floor_div;
    } else {
      // A kernel cannot raise: x // 0 is defined as 0. MIN // -1 wraps to MIN, as -MIN does
      // in two's complement, instead of trapping.
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1)) return static_cast<T>(T(0) - static_cast<std::make_unsigned_t<T>>(a));
        const T q = a / b;
        return (a % b != T(0) && ((a < T(0)) != (b < T(0)))) ? T(q - 1) : q;
      } else {
        return a / b;
      }
    }
  }
};
struct Pow {
  static constexpr Domain kDomain{0.5, 2.0};
  template <class T>
  EMBER_HD T operator()(T a, T b) const {
    return m_pow(a, b);
  }
};
struct Maximum {
  template <class T>
  EMBER_HD T operator()(T a, T b) const {
    return is_nan(a) ? a : (is_nan(b) ? b : (a > b ? a : b));
  }
};
struct Minimum {
  template <class T>
  EMBER_HD T operator()(T a, T b) const {
    return is_nan(a) ? a : (is_nan(b) ? b : (a < b ? a : b));
  }
};
struct Eq {
  template <class T>
  EMBER_HD bool operator()(T a, T b) const {
    return a == b;
  }
};
struct Ne {
  template <class T>
  EMBER_HD bool operator()(T a, T b) const {
    return a != b;
  }
};
struct Lt {
  template <class T>
  EMBER_HD bool operator()(T a, T b) const {
    return a < b;
  }
};
struct Le {
  template <class T>
  EMBER_HD bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct Gt {
  template <class T>
  EMBER_HD bool operator()(T a, T b) const {
    return a > b;
  }
};
struct Ge {
  template <class T>
  EMBER_HD bool operator()(T a, T b) const {
    return a >= b;
  }
};
// Gradients: (g, saved) -> grad of the input.
struct ReluBackward {
  template <class T>
  EMBER_HD T operator()(T g, T x) const {
    return x > T(0) ? g : T(0);
  }
};
struct SigmoidBackward {
  template <class T>
  EMBER_HD T operator()(T g, T y) const {
    return g * y * (T(1) - y);
  }
};
struct TanhBackward {
  template <class T>
  EMBER_HD T operator()(T g, T y) const {
    return g * (T(1) - y * y);
  }
};

// d/dx x Phi(x) = Phi(x) + x phi(x), phi the standard normal density.
struct GeluBackward {
  template <class T>
  EMBER_HD_ALWAYS_INLINE T operator()(T g, T x) const {
    const T cdf = normal_cdf(x);
    const T pdf = T(kGeluInvSqrt2Pi) * normal_density_exp(x);
    return g * (cdf + x * pdf);
  }
};
// d/dx 0.5 x (1 + tanh(u)), u = c (x + k x^3): 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) c (1 + 3 k x^2).
struct GeluTanhBackward {
  template <class T>
  EMBER_HD T operator()(T g, T x) const {
    const T x2 = x * x;
    const T th = m_tanh(T(kGeluSqrt2OverPi) * (x + T(kGeluCubic) * x2 * x));
    const T du = T(kGeluSqrt2OverPi) * (T(1) + T(3 * kGeluCubic) * x2);
    return g * (T(0.5) * (T(1) + th) + T(0.5) * x * (T(1) - th * th) * du);
  }
};

}  // namespace ember::fn
