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

#include "ember/kernels/cpu/simd.h"

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

struct SpanMoments;
#if EMBER_SIMD_AVX2
namespace span_lanes {
template <int W, int G>
void add(SpanMoments* m, const float* const* x, int64_t len);
}  // namespace span_lanes
#endif

struct SpanMoments {
  double count = 0, mean = 0, m2 = 0;

  /// Adds x[0, len), len > 0.
  template <class T>
  void add(const T* x, int64_t len) {
#if EMBER_SIMD_AVX2
    if constexpr (std::is_same_v<T, float>) {
      const float* const xs[1] = {x};
      return span_lanes::add<8, 1>(this, xs, len);
    }
#endif
    // Divisions by S are multiplications by its reciprocal, computed before the sums arrive
    // (span_lanes::add likewise): a row of layer norm waited on a chain of five dependent
    // divisions, longer than its vector work at 128 wide.
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

#if EMBER_SIMD_AVX2
// Float spans in float lanes, both passes' sums in vectors: Eigen's reductions, one pass each
// and each ending in a horizontal sum and a scalar tail, took most of the time of a 128-wide
// row (BERT's layer norms). A span's sums are four accumulators of eight lanes, a block of 32
// floats adding one vector to each, the vectors of a last partial block to the first ones, then
// ((a0 + a1) + (a2 + a3)) summed as a tree: the order follows len alone. In 16-lane vectors the
// four are held as two, [0 | 1] and [2 | 3], a block adding one vector to each: the same sums.
namespace span_lanes {

/// The total of a span's accumulators, W lanes each (32 / W of them), in the order of four of
/// eight. (16 lanes through memory: GCC 12 at -Og warns of an uninitialised value inside every
/// intrinsic that would take the upper half out of the register.)
template <int W>
float total(const typename cpu::simd::Lanes<float, W>::V (&acc)[32 / W]) {
  using S8 = cpu::simd::Lanes<float, 8>;
  S8::V eights[4];
  if constexpr (W == 8) {
    for (int v = 0; v < 4; ++v) eights[v] = acc[v];
  } else {
    alignas(64) float lanes[32];
    for (int v = 0; v < 32 / W; ++v) cpu::simd::Lanes<float, W>::store(lanes + W * v, acc[v]);
    for (int v = 0; v < 4; ++v) eights[v] = S8::load(lanes + 8 * v);
  }
  return cpu::simd::tree_sum(S8::add(S8::add(eights[0], eights[1]), S8::add(eights[2], eights[3])));
}

/// m[g].add(x[g], len) for G float spans, their operations alternating, W lanes a vector (16:
/// whole 32-float blocks only, len % 32 == 0). Why interleaved: a 128-wide row of layer norm
/// waits on a chain of sums, horizontal sums and divisions longer than its vector work, which
/// the core overlaps across rows only when they are interleaved; and the 32 accumulators of
/// four spans fit AVX-512's registers only as 16-lane vectors. BERT's [48, 128] layer norm:
/// 2.50 -> 2.03 us a call, with a residual 3.0 -> 2.45.
template <int W, int G>
void add(SpanMoments* m, const float* const* x, int64_t len) {
  using S = cpu::simd::Lanes<float, W>;
  constexpr int K = 32 / W;  // accumulators a span
  const double S_len = static_cast<double>(len), inv_S = 1.0 / S_len;
  // (With 16 lanes len is whole blocks: the tails below then vanish from the code.)
  const int64_t blocks_end = W == 16 ? len : len - len % 32;
  typename S::V acc[G][K];
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g)
    for (int k = 0; k < K; ++k) acc[g][k] = S::zero();
  for (int64_t i = 0; i < blocks_end; i += 32)
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g)
      for (int k = 0; k < K; ++k) acc[g][k] = S::add(acc[g][k], S::load(x[g] + i + W * k));
  float centre[G];
  typename S::V c[G], sum[G][K], squares[G][K];
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) {
    int64_t i = blocks_end;
    for (int k = 0; i + W <= len; i += W, ++k) acc[g][k] = S::add(acc[g][k], S::load(x[g] + i));
    float span_sum = total<W>(acc[g]);
    for (; i < len; ++i) span_sum += x[g][i];
    centre[g] = SpanMoments::centre_of(span_sum, inv_S);
    c[g] = S::set1(centre[g]);
    for (int k = 0; k < K; ++k) sum[g][k] = squares[g][k] = S::zero();
  }
  for (int64_t i = 0; i < blocks_end; i += 32)
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g)
      for (int k = 0; k < K; ++k) {
        const typename S::V d = S::sub(S::load(x[g] + i + W * k), c[g]);
        sum[g][k] = S::add(sum[g][k], d);
        squares[g][k] = S::fmadd(d, d, squares[g][k]);
      }
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) {
    int64_t i = blocks_end;
    for (int k = 0; i + W <= len; i += W, ++k) {
      const typename S::V d = S::sub(S::load(x[g] + i), c[g]);
      sum[g][k] = S::add(sum[g][k], d);
      squares[g][k] = S::fmadd(d, d, squares[g][k]);
    }
    DeviationSums<float> out{total<W>(sum[g]), total<W>(squares[g])};
    for (; i < len; ++i) {
      const float d = x[g][i] - centre[g];
      out.sum += d;
      out.squares += d * d;
    }
    m[g].add_sums(S_len, inv_S, centre[g], out);
  }
}

}  // namespace span_lanes
#endif

/// m[g].add(x[g], len) for each g < G, with the same results: float spans of whole 32-float
/// blocks interleaved in 16-lane vectors where the build has AVX-512, one by one otherwise.
template <int G, class T>
void add_spans(SpanMoments (&m)[G], const T* const (&x)[G], int64_t len) {
#if EMBER_SIMD_AVX512
  if constexpr (std::is_same_v<T, float>)
    if (len % 32 == 0) return span_lanes::add<16, G>(m, x, len);
#endif
  for (int g = 0; g < G; ++g) m[g].add(x[g], len);
}

}  // namespace ember::cpu_detail
