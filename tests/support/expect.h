#pragma once
// Assertion helpers: values against expected numbers, exceptions by type and first line.
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
