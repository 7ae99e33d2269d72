#pragma once
// The helpers tests share: values against expected numbers or a reference tensor, the parity
// tolerance, exceptions by type and first line, and where the fixture files are.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

/// Every value of t (any device, any dtype) equals expected within tol, and the shape matches.
inline ::testing::AssertionResult values_near(const Tensor& t, const std::vector<double>& expected,
                                              const Shape& shape, double tol = 1e-6) {
  if (t.shape() != shape)
    return ::testing::AssertionFailure() << "shape " << shape_str(t.shape()) << " != " << shape_str(shape);
  const auto v = t.to_vector<double>();
  if (v.size() != expected.size())
    return ::testing::AssertionFailure() << v.size() << " values, expected " << expected.size();
  for (size_t i = 0; i < v.size(); ++i) {
    const bool both_nan = std::isnan(v[i]) && std::isnan(expected[i]);
    if (!both_nan && !(std::abs(v[i] - expected[i]) <= tol * (1 + std::abs(expected[i]))))
      return ::testing::AssertionFailure() << "index " << i << ": " << v[i] << " != " << expected[i];
  }
  return ::testing::AssertionSuccess();
}

/// The largest |a - b| over the elements of two tensors of one shape (any device, any dtype;
/// a failed expectation when the shapes differ). A NaN on one side only is infinitely far, so
/// a NaN never passes a bound; NaN on both sides agrees.
inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  const auto x = a.to_vector<double>(), y = b.to_vector<double>();
  if (x.size() != y.size()) return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i])) {
      if (std::isnan(x[i]) != std::isnan(y[i])) return std::numeric_limits<double>::infinity();
      continue;
    }
    worst = std::max(worst, std::abs(x[i] - y[i]));
  }
  return worst;
}

/// The parity tolerance of a value that k elements were reduced into (k >= 1) against its
/// reference ref: sqrt(k) * (1e-6 + 1e-5 |ref|) (docs/DESIGN.md): rounding grows with the
/// square root of the reduction's length.
inline double parity_tolerance(double k, double ref) { return std::sqrt(k) * (1e-6 + 1e-5 * std::abs(ref)); }

/// |a - b| <= atol + rtol |b| at every element (any devices and dtypes, one shape); NaN on both
/// sides agrees. The failure names the first element that is not, and how many are not.
inline ::testing::AssertionResult all_close(const Tensor& a, const Tensor& b, double atol, double rtol) {
  if (a.shape() != b.shape())
    return ::testing::AssertionFailure()
           << "shape " << shape_str(a.shape()) << " != " << shape_str(b.shape());
  const auto x = a.to_vector<double>(), y = b.to_vector<double>();
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const bool ok =
        (std::isnan(x[i]) && std::isnan(y[i])) || std::abs(x[i] - y[i]) <= atol + rtol * std::abs(y[i]);
    if (!ok && bad++ == 0) first = i;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << x.size() << " elements differ; the first, [" << first << "]: " << x[first]
         << " vs " << y[first] << " (atol " << atol << ", rtol " << rtol << ")";
}

/// A file or folder of tests/parity/fixtures: under $EMBER_SOURCE_DIR when set (a machine that
/// runs binaries built elsewhere, such as the GPU machine), else under this checkout.
std::string fixture_path(const std::string& name);

/// The first line of an exception's message.
inline std::string first_line(const std::exception& e) {
  std::string s = e.what();
  return s.substr(0, s.find('\n'));
}

}  // namespace ember::test

/// Runs stmt, expects exception type E whose message starts with prefix.
#define EXPECT_THROW_MSG(stmt, E, prefix)                                               \
  do {                                                                                  \
    bool ember_caught = false;                                                          \
    try {                                                                               \
      stmt;                                                                             \
    } catch (const E& ember_e) {                                                        \
      ember_caught = true;                                                              \
      EXPECT_EQ(std::string(ember_e.what()).rfind(prefix, 0), 0u)                       \
          << "message: " << ember_e.what() << "\nexpected to start with: " << (prefix); \
    } catch (const std::exception& ember_e) {                                           \
      ADD_FAILURE() << "wrong exception type; message: " << ember_e.what();             \
      ember_caught = true;                                                              \
    }                                                                                   \
    if (!ember_caught) ADD_FAILURE() << "no exception from " #stmt;                     \
  } while (0)

/// Runs stmt, expects exception type E whose whole first line equals line.
#define EXPECT_THROW_LINE(stmt, E, line)                                    \
  do {                                                                      \
    bool ember_caught = false;                                              \
    try {                                                                   \
      stmt;                                                                 \
    } catch (const E& ember_e) {                                            \
      ember_caught = true;                                                  \
      EXPECT_EQ(::ember::test::first_line(ember_e), std::string(line));     \
    } catch (const std::exception& ember_e) {                               \
      ADD_FAILURE() << "wrong exception type; message: " << ember_e.what(); \
      ember_caught = true;                                                  \
    }                                                                       \
    if (!ember_caught) ADD_FAILURE() << "no exception from " #stmt;         \
  } while (0)
