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

namespace ember::cpu_detail {

template <class T>
using Span = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <class T>
using ConstSpan = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

struct SpanMoments {
  double count = 0, mean = 0, m2 = 0;

  /// Adds x[0, len), len > 0.
  template <class T>
  void add(const T* x, int64_t len) {
    const double S = static_cast<double>(len);
    const ConstSpan<T> span(x, len);
    const T centre = static_cast<T>(static_cast<double>(span.sum()) / S);
    const double sum = static_cast<double>((span - centre).sum());
    const double span_m2 = static_cast<double>((span - centre).square().sum()) - sum * sum / S;
    const double span_mean = static_cast<double>(centre) + sum / S;
    const double total = count + S, delta = span_mean - mean;
    mean += delta * S / total;
    m2 += span_m2 + delta * delta * count * S / total;
    count = total;
  }
  /// The sum of squared deviations (never negative).
  double squared_deviations() const { return std::max(m2, 0.0); }
};

}  // namespace ember::cpu_detail
