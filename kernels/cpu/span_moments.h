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
#include <type_traits>

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
    const T centre = centre_of(span_sum(x, len), inv_S);
    add_sums(S, inv_S, centre, deviation_sums(x, len, centre));
  }
  /// A span's rough mean from its sum in T (inv_S = 1 / its length).
  template <class T>
  static T centre_of(T sum, double inv_S) {
    return static_cast<T>(static_cast<double>(sum) * inv_S);
  }
  /// Adds a span of S values (inv_S = 1 / S) by its deviation sums about centre.
  template <class T>
  void add_sums(double S, double inv_S, T centre, const DeviationSums<T>& d) {
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

#if EMBER_SPAN_LANES && defined(__AVX512F__)
#define EMBER_SPAN_GROUPS 1
namespace span_groups {

// A span's four accumulators of eight lanes (span_sum's and deviation_sums') held as two of
// sixteen, [0 | 1] and [2 | 3]: a block of 32 floats adds in one vector to each, as there one
// of eight to each of the four. Their total is span_lanes::total's of the four. (Through
// memory: GCC 12 at -Og warns of an uninitialised value inside every intrinsic that would take
// the upper half out of the register.)
inline float total(__m512 a01, __m512 a23) {
  alignas(64) float lanes[32];
  _mm512_store_ps(lanes, a01);
  _mm512_store_ps(lanes + 16, a23);
  const __m256 acc[4] = {_mm256_load_ps(lanes), _mm256_load_ps(lanes + 8), _mm256_load_ps(lanes + 16),
                         _mm256_load_ps(lanes + 24)};
  return span_lanes::total(acc);
}

/// m[g].add(x[g], len) for G float spans of whole 32-float blocks (len % 32 == 0): the G
/// spans' operations alternate, in 16-lane vectors, each span's sums in span_sum's and
/// deviation_sums' order. Why: a 128-wide row of layer norm waits on a chain of sums,
/// horizontal sums and divisions longer than its vector work, which the core overlaps across
/// rows only when they are interleaved; and the 32 accumulators of four spans fit AVX-512's
/// registers only as 16-lane vectors. BERT's [48, 128] layer norm: 2.50 -> 2.03 us a call, with
/// a residual 3.0 -> 2.45.
template <int G>
void add_blocks(SpanMoments (&m)[G], const float* const (&x)[G], int64_t len) {
  const double S = static_cast<double>(len), inv_S = 1.0 / S;
  __m512 lo[G], hi[G];  // accumulators [0 | 1] and [2 | 3]
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) lo[g] = hi[g] = _mm512_setzero_ps();
  for (int64_t i = 0; i < len; i += 32)
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
      lo[g] = _mm512_add_ps(lo[g], _mm512_loadu_ps(x[g] + i));
      hi[g] = _mm512_add_ps(hi[g], _mm512_loadu_ps(x[g] + i + 16));
    }
  float centre[G];
  __m512 c[G], sum_lo[G], sum_hi[G], sq_lo[G], sq_hi[G];
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) {
    centre[g] = SpanMoments::centre_of(total(lo[g], hi[g]), inv_S);
    c[g] = _mm512_set1_ps(centre[g]);
    sum_lo[g] = sum_hi[g] = sq_lo[g] = sq_hi[g] = _mm512_setzero_ps();
  }
  for (int64_t i = 0; i < len; i += 32)
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
      const __m512 d_lo = _mm512_sub_ps(_mm512_loadu_ps(x[g] + i), c[g]);
      const __m512 d_hi = _mm512_sub_ps(_mm512_loadu_ps(x[g] + i + 16), c[g]);
      sum_lo[g] = _mm512_add_ps(sum_lo[g], d_lo);
      sum_hi[g] = _mm512_add_ps(sum_hi[g], d_hi);
      sq_lo[g] = _mm512_fmadd_ps(d_lo, d_lo, sq_lo[g]);
      sq_hi[g] = _mm512_fmadd_ps(d_hi, d_hi, sq_hi[g]);
    }
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g)
    m[g].add_sums(S, inv_S, centre[g],
                  DeviationSums<float>{total(sum_lo[g], sum_hi[g]), total(sq_lo[g], sq_hi[g])});
}

}  // namespace span_groups
#else
#define EMBER_SPAN_GROUPS 0
#endif

/// m[g].add(x[g], len) for each g < G, with the same results: float spans of whole 32-float
/// blocks interleaved where the build has AVX-512 (span_groups::add_blocks), one by one
/// otherwise.
template <int G, class T>
void add_spans(SpanMoments (&m)[G], const T* const (&x)[G], int64_t len) {
#if EMBER_SPAN_GROUPS
  if constexpr (std::is_same_v<T, float>)
    if (len % 32 == 0) return span_groups::add_blocks(m, x, len);
#endif
  for (int g = 0; g < G; ++g) m[g].add(x[g], len);
}

}  // namespace ember::cpu_detail
