#pragma once
// Checked conversion of one tensor element to a C++ value, for item<T>() and to_vector<T>().
// Internal to core (not installed). A cast between tensors keeps kernels/cast.h's defined
// saturating rule; a value handed to the caller's C++ variable must be the value itself, so
// one that does not fit the variable's type is a ValueError rather than INT_MIN or 300 -> 44.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ember/core/error.h"

namespace ember::detail {

/// The name of a C++ value type as messages print it (the dtype's name where there is one).
template <class T>
constexpr const char* value_type_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  if constexpr (std::is_same_v<T, uint8_t>) return "uint8";
  if constexpr (std::is_same_v<T, int>) return "int";
  if constexpr (std::is_same_v<T, int64_t>) return "int64";
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
}

/// Whether x has a value of type To: every value fits bool (nonzero is true) and double; a
/// finite value beyond float's range does not fit float (rounding is fine, infinities and NaN
/// are floats); an integer To holds x when x is not NaN and, truncated toward zero as
/// static_cast does, lies in [min(To), max(To)].
template <class To, class From>
bool value_fits(From x) {
  if constexpr (std::is_same_v<To, bool> || std::is_same_v<To, double>) {
    return true;
  } else if constexpr (std::is_same_v<To, float>) {
    if constexpr (std::is_same_v<From, double>)
      return !(std::isfinite(x) && std::fabs(x) > std::numeric_limits<float>::max());
    return true;  // float itself, or an integer (int64's range is far inside float's)
  } else if constexpr (std::is_floating_point_v<From>) {
    static_assert(std::is_integral_v<To> && sizeof(To) <= sizeof(int64_t), "int, int64 or uint8");
    // max(To) is not exact in float or double (double(INT64_MAX) rounds up to 2^63, which does
    // not fit), but max(To) + 1 = 2 * (max(To) / 2 + 1) is a power of two, exact in both.
    constexpr From kEnd = From(std::numeric_limits<To>::max() / 2 + 1) * From(2);
    constexpr From kMin = From(std::numeric_limits<To>::min());
    if (std::isnan(x)) return false;
    const From t = std::trunc(x);
    return t >= kMin && t < kEnd;
  } else if constexpr (std::is_signed_v<From>) {
    static_assert(std::is_integral_v<To> && sizeof(To) <= sizeof(int64_t), "int, int64 or uint8");
    const int64_t v = x;
    return v >= int64_t(std::numeric_limits<To>::min()) && v <= int64_t(std::numeric_limits<To>::max());
  } else {
    return uint64_t(x) <= uint64_t(std::numeric_limits<To>::max());
  }
}

/// static_cast<To>(x), or ValueError "<op>: value <x> does not fit <To>" when value_fits fails.
template <class To, class From>
To value_cast(From x, const char* op) {
  if (!value_fits<To>(x)) {
    if constexpr (std::is_floating_point_v<From>) {
      // NaN prints as "nan" whatever its sign bit (0 / 0 gives -nan on x86).
      if (std::isnan(x)) raise<ValueError>(op, ": value nan does not fit ", value_type_name<To>());
      raise<ValueError>(op, ": value ", x, " does not fit ", value_type_name<To>());
    } else {
      // Widened so that a uint8 prints as a number, not as a character.
      raise<ValueError>(op, ": value ", std::conditional_t<std::is_signed_v<From>, int64_t, uint64_t>(x),
                        " does not fit ", value_type_name<To>());
    }
  }
  return static_cast<To>(x);
}

}  // namespace ember::detail
