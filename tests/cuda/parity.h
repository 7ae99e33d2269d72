#pragma once
// Comparing CUDA results with a CPU reference under docs/DESIGN.md's pinned tolerance: the
// reference is float64 computed from the same float32 inputs; a value passes when
// |x - ref| <= sqrt(K) * (1e-6 + 1e-5 * |ref|), K the number of elements reduced into it.
// Non-floating results, and results compared exactly, must match bit for bit (NaN = NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/kernels/cuda/cuda_backend.h"
#include "support/expect.h"
#include "support/ulps.h"

namespace ember::test {

/// Fills every block the CUDA allocator hands out with byte while it lives: 0xFF makes
/// float32 and float64 NaN, 0xA5 poisons integers, so an output a kernel forgets shows.
class PoisonGuard {
 public:
  explicit PoisonGuard(int byte) { cuda_detail::set_alloc_fill(byte); }
  ~PoisonGuard() { cuda_detail::set_alloc_fill(-1); }
  PoisonGuard(const PoisonGuard&) = delete;
  PoisonGuard& operator=(const PoisonGuard&) = delete;
};

/// The poison for outputs of dtype t.
inline int poison_for(DType t) { return is_floating(t) ? 0xFF : 0xA5; }

/// A host snapshot of a tensor: doubles for floating dtypes, exact integers otherwise
/// (bool and uint8 as their raw bytes, so a poisoned bool is not read as a bool).
struct HostValues {
  DType dtype = kFloat32;
  Shape shape;
  std::vector<double> f;
  std::vector<int64_t> i;
  size_t size() const { return is_floating(dtype) ? f.size() : i.size(); }
};

inline HostValues host_values(const Tensor& t) {
  HostValues h;
  h.dtype = t.dtype();
  h.shape = t.shape();
  Tensor c = t.cpu().contiguous();
  const size_t n = static_cast<size_t>(c.numel());
  if (is_floating(h.dtype)) {
    h.f = c.to_vector<double>();
  } else if (h.dtype == kInt64) {
    h.i.resize(n);
    std::memcpy(h.i.data(), c.raw_data(), n * sizeof(int64_t));
  } else {
    const auto* bytes = static_cast<const unsigned char*>(c.raw_data());
    h.i.assign(bytes, bytes + n);
  }
  return h;
}

inline std::string coords(const Shape& shape, size_t flat) {
  std::vector<int64_t> c(shape.size());
  auto rem = static_cast<int64_t>(flat);
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = shape[d] ? rem % shape[d] : 0;
    rem = shape[d] ? rem / shape[d] : 0;
  }
  std::ostringstream os;
  os << "[";
  for (size_t d = 0; d < c.size(); ++d) os << (d ? ", " : "") << c[d];
  os << "]";
  return os.str();
}

/// x against ref: per element K (k empty: K = 1), or exactly when exact is set (to within
/// ulps float32 ulps when ulps > 0). Reports the first mismatching index, both values, the
/// tolerance and how many elements differ.
inline ::testing::AssertionResult matches(const HostValues& x, const HostValues& ref,
                                          const std::vector<int64_t>& k, bool exact, const std::string& what,
                                          int ulps = 0) {
  if (x.shape != ref.shape)
    return ::testing::AssertionFailure()
           << what << ": shape " << shape_str(x.shape) << " vs reference " << shape_str(ref.shape);
  if (is_floating(x.dtype) != is_floating(ref.dtype) || (!is_floating(x.dtype) && x.dtype != ref.dtype))
    return ::testing::AssertionFailure()
           << what << ": dtype " << dtype_name(x.dtype) << " vs reference " << dtype_name(ref.dtype);
  size_t bad = 0, first = 0;
  double tol_first = 0;
  for (size_t e = 0; e < x.size(); ++e) {
    bool ok;
    double tol = 0;
    if (!is_floating(x.dtype)) {
      ok = x.i[e] == ref.i[e];
    } else {
      const double a = x.f[e], r = ref.f[e];
      const double kk = k.empty() ? 1.0 : static_cast<double>(std::max<int64_t>(1, k[e]));
      tol = exact ? 0.0 : parity_tolerance(kk, r);
      ok = (std::isnan(a) && std::isnan(r)) || (exact ? a == r : std::abs(a - r) <= tol) ||
           (exact && ulps > 0 && ulps_apart(static_cast<float>(a), static_cast<float>(r)) <= ulps);
    }
    if (!ok && bad++ == 0) {
      first = e;
      tol_first = tol;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure();
  failure << what << ": first mismatch at " << coords(x.shape, first) << " (flat " << first << "): ";
  if (is_floating(x.dtype)) {
    failure << std::setprecision(9) << "cuda " << x.f[first] << " vs reference " << ref.f[first]
            << (!exact     ? ""
                : ulps > 0 ? " (to within " + std::to_string(ulps) + " ulps)"
                           : " (compared exactly)")
            << ", tolerance " << tol_first << " (K=" << (k.empty() ? 1 : k[first]) << ")";
  } else {
    failure << "cuda " << x.i[first] << " vs reference " << ref.i[first];
  }
  return failure << "; " << bad << " of " << x.size() << " elements differ";
}

}  // namespace ember::test
