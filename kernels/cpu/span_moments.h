#pragma once
// Mean and variance of values read once, span by span (batch norm's channels, layer norm's
// rows). Per span, a rough mean c from its float sum, then the sums of x - c and of its
// squares, which are small and so lose nothing to a large common offset: the span's mean is
// c + sum / S, its squared deviations sum2 - sum^2 / S. The spans merge in double (Chan, Golub
// and LeVeque's pairwise update). One read from memory instead of two, and no squares summed
// about a distant mean.
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include "ember/kernels/cpu/horizontal_lanes.h"
#define EMBER_SPAN_LANES 1
#else
#define EMBER_SPAN_LANES 0
#endif

namespace ember::cpu_detail {

template <class T>
using Span = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <class T>
using ConstSpan = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

/// A span's sums in T: of x - centre and of its squares.
template <class T>
struct DeviationSums {
  T sum, squares;
};

/// Sum of x[0, len) in T.
template <class T>
T span_sum(const T* x, int64_t len) {
  return ConstSpan<T>(x, len).sum();
}

/// DeviationSums of x[0, len) about centre.
template <class T>
DeviationSums<T> deviation_sums(const T* x, int64_t len, T centre) {
  const ConstSpan<T> span(x, len);
  return {(span - centre).sum(), (span - centre).square().sum()};
}

#if EMBER_SPAN_LANES
// Float with eight lanes and four accumulators, both deviation sums in one pass: Eigen's
// reductions, one pass each and each ending in a horizontal sum and a scalar tail, took most
// of the time of a 128-wide row (BERT's layer norms). The order of the sums follows len alone.
namespace span_lanes {

inline float total(const __m256 (&acc)[4]) {
  return cpu::lanes::horizontal_sum(
      _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
}

}  // namespace span_lanes

template <>
inline float span_sum<float>(const float* x, int64_t len) {
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  int64_t i = 0;
  for (; i + 32 <= len; i += 32)
    for (int v = 0; v < 4; ++v) acc[v] = _mm256_add_ps(acc[v], _mm256_loadu_ps(x + i + 8 * v));
  for (int v = 0; i + 8 <= len; i += 8, ++v) acc[v] = _mm256_add_ps(acc[v], _mm256_loadu_ps(x + i));
  float sum = span_lanes::total(acc);
  for (; i < len; ++i) sum += x[i];
  return sum;
}

template <>
inline DeviationSums<float> deviation_sums<float>(const float* x, int64_t len, float centre) {
  const __m256 c = _mm256_set1_ps(centre);
  __m256 sum[4], squares[4];
  for (int v = 0; v < 4; ++v) sum[v] = squares[v] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= len; i += 32)
    for (int v = 0; v < 4; ++v) {
      const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i + 8 * v), c);
      sum[v] = _mm256_add_ps(sum[v], d);
      squares[v] = _mm256_fmadd_ps(d, d, squares[v]);
    }
  for (int v = 0; i + 8 <= len; i += 8, ++v) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), c);
    sum[v] = _mm256_add_ps(sum[v], d);
    squares[v] = _mm256_fmadd_ps(d, d, squares[v]);
  }
  DeviationSums<float> out{span_lanes::total(sum), span_lanes::total(squares)};
  for (; i < len; ++i) {
    const float d = x[i] - centre;
    out.sum += d;
    out.squares += d * d;
  }
  return out;
}
#endif

struct SpanMoments {
  double count = 0, mean = 0, m2 = 0;

  /// Adds x[0, len), len > 0.
  template <class T>
  void add(const T* x, int64_t len) {
    // Divisions by S are multiplications by its reciprocal, computed before the sums arrive:
    // a row of layer norm waited on a chain of five dependent divisions, longer than its
    // vector work at 128 wide.
    const double S = static_cast<double>(len), inv_S = 1.0 / S;
    const T centre = static_cast<T>(static_cast<double>(span_sum(x, len)) * inv_S);
    const DeviationSums<T> d = deviation_sums(x, len, centre);
    const double sum = static_cast<double>(d.sum);
    const double span_m2 = static_cast<double>(d.squares) - sum * sum * inv_S;
    const double span_mean = static_cast<double>(centre) + sum * inv_S;
    if (count == 0) {  // the first span: the merge below would only round its mean again
      count = S;
      mean = span_mean;
      m2 = span_m2;
      return;
    }
    const double total = count + S, delta = span_mean - mean;
    mean += delta * S / total;
    m2 += span_m2 + delta * delta * count * S / total;
    count = total;
  }
  /// The sum of squared deviations (never negative).
  double squared_deviations() const { return std::max(m2, 0.0); }
};

}  // namespace ember::cpu_detail
