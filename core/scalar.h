#pragma once
// A C++ number given to a tensor op: a bool, an integer or a floating value, kept as what it
// is, so that `t * 2` and `t * 0.5` can follow PyTorch's rule for Python numbers
// (docs/DESIGN.md, "Scalars"): the scalar's category (bool < integer < floating) decides
// whether the result is promoted. Integers are held as int64, so an integer scalar with an
// integer tensor stays exact (no trip through double).
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

#include "ember/core/dtype.h"
#include "ember/core/error.h"

namespace ember {

/// The category of a value: a scalar of a higher category than a tensor promotes it.
enum class ScalarKind : uint8_t { Bool = 0, Integer = 1, Floating = 2 };

class Scalar {
 public:
  Scalar(bool v) : kind_(ScalarKind::Bool), i_(v ? 1 : 0) {}  // NOLINT: implicit on purpose
  Scalar(float v) : kind_(ScalarKind::Floating), d_(v) {}     // NOLINT
  Scalar(double v) : kind_(ScalarKind::Floating), d_(v) {}    // NOLINT
  /// Every integer type but bool; an unsigned value above int64's maximum is a ValueError.
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(ScalarKind::Integer), i_(static_cast<int64_t>(v)) {  // NOLINT
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) {
      if (v > static_cast<T>(std::numeric_limits<int64_t>::max()))
        raise<ValueError>("scalar: ", static_cast<unsigned long long>(v), " does not fit int64");
    }
  }

  ScalarKind kind() const { return kind_; }
  bool is_bool() const { return kind_ == ScalarKind::Bool; }
  bool is_integral() const { return kind_ == ScalarKind::Integer; }
  bool is_floating_point() const { return kind_ == ScalarKind::Floating; }

  /// The value as a double (rounded for an integer beyond 2^53).
  double to_double() const { return kind_ == ScalarKind::Floating ? d_ : static_cast<double>(i_); }
  /// The integer held (bool as 0 or 1); only for a bool or integer scalar.
  int64_t to_int64() const { return i_; }
  /// Calls f with the value in its own C++ type: bool, int64_t or double.
  template <class F>
  decltype(auto) visit(F&& f) const {
    switch (kind_) {
      case ScalarKind::Bool:
        return f(i_ != 0);
      case ScalarKind::Integer:
        return f(i_);
      case ScalarKind::Floating:
        break;
    }
    return f(d_);
  }

 private:
  ScalarKind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

/// The category of a dtype: bool, integer (uint8, int32, int64) or floating.
constexpr ScalarKind kind_of(DType t) {
  return t == DType::Bool ? ScalarKind::Bool : is_floating(t) ? ScalarKind::Floating : ScalarKind::Integer;
}

/// The dtype of `tensor op scalar` (PyTorch's rule for a Python number with a tensor): the
/// tensor's dtype, unless the scalar's category is higher, which gives that category's
/// default dtype (int64 for an integer, float32 for a floating scalar).
constexpr DType result_type(DType tensor, ScalarKind scalar) {
  if (static_cast<int>(scalar) <= static_cast<int>(kind_of(tensor))) return tensor;
  return scalar == ScalarKind::Integer ? DType::Int64 : DType::Float32;
}

/// Prints the value as it is held (true, 3, 0.5).
inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.is_bool()) return os << (s.to_int64() ? "true" : "false");
  if (s.is_integral()) return os << s.to_int64();
  return os << s.to_double();
}

}  // namespace ember
