#pragma once
// Elementwise math, written once: the CPU loops and the CUDA kernels both call these.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ember/kernels/hd.h"

namespace ember::fn {

// Overloads for float and double so that device code picks the single-precision routine.
EMBER_HD_INLINE float m_exp(float x) { return ::expf(x); }
EMBER_HD_INLINE double m_exp(double x) { return ::exp(x); }
EMBER_HD_INLINE float m_log(float x) { return ::logf(x); }
EMBER_HD_INLINE double m_log(double x) { return ::log(x); }
EMBER_HD_INLINE float m_sqrt(float x) { return ::sqrtf(x); }
EMBER_HD_INLINE double m_sqrt(double x) { return ::sqrt(x); }
EMBER_HD_INLINE float m_tanh(float x) { return ::tanhf(x); }
EMBER_HD_INLINE double m_tanh(double x) { return ::tanh(x); }
EMBER_HD_INLINE float m_erf(float x) { return ::erff(x); }
EMBER_HD_INLINE double m_erf(double x) { return ::erf(x); }
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
  template <class T>
  EMBER_HD T operator()(T x) const {
    return m_log(x);
  }
};
struct Sqrt {
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
  // Written so that neither branch overflows: exp of a non-positive number only.
  template <class T>
  EMBER_HD T operator()(T x) const {
    if (x >= T(0)) return T(1) / (T(1) + m_exp(-x));
    const T e = m_exp(x);
    return e / (T(1) + e);
  }
};
struct Tanh {
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
  template <class T>
  EMBER_HD T operator()(T x) const {
    return m_erf(x);
  }
};
// 1 / sqrt(x), not CUDA's rsqrtf (2 ulp): the devices agree to rounding.
struct Rsqrt {
  template <class T>
  EMBER_HD T operator()(T x) const {
    return T(1) / m_sqrt(x);
  }
};
// GELU's constants: 1/sqrt(2), 1/sqrt(2 pi), sqrt(2/pi) and the tanh form's cubic coefficient.
constexpr double kGeluInvSqrt2 = 0.70710678118654752440;
constexpr double kGeluInvSqrt2Pi = 0.39894228040143267794;
constexpr double kGeluSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluCubic = 0.044715;
// x * Phi(x), Phi the standard normal CDF (approximate="none").
struct Gelu {
  template <class T>
  EMBER_HD T operator()(T x) const {
    return x * T(0.5) * (T(1) + m_erf(x * T(kGeluInvSqrt2)));
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
  template <class T>
  EMBER_HD T operator()(T a, T b) const {
    return a / b;
  }
};
// Python's a // b: the quotient rounded toward minus infinity.
struct FloorDivide {
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
  EMBER_HD T operator()(T g, T x) const {
    const T cdf = T(0.5) * (T(1) + m_erf(x * T(kGeluInvSqrt2)));
    const T pdf = T(kGeluInvSqrt2Pi) * m_exp(T(-0.5) * x * x);
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
