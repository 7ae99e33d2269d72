#pragma once
// A Scalar converted to a kernel's element type, from the C++ type it holds (bool, int64 or
// double) as kernels/cast.h converts: an integer scalar reaches an int64 kernel exactly.
// Host code only (the value is then bound into a functor).
#include "ember/core/scalar.h"
#include "ember/kernels/cast.h"

namespace ember {

template <class T>
T scalar_value(const Scalar& s) {
  return s.visit([](auto v) { return cast_value<T>(v); });
}

}  // namespace ember
