#pragma once
// Element types, and the dispatch macros that turn a runtime DType into a C++ type.
#include <cstddef>
#include <cstdint>
#include <ostream>

#include "ember/core/error.h"
#include "ember/core/export.h"

namespace ember {

enum class DType : uint8_t { Float32, Float64, Int64, UInt8, Bool };

constexpr DType kFloat32 = DType::Float32;
constexpr DType kFloat64 = DType::Float64;
constexpr DType kInt64 = DType::Int64;
constexpr DType kUInt8 = DType::UInt8;
constexpr DType kBool = DType::Bool;

/// Bytes per element.
constexpr size_t itemsize(DType t) {
  switch (t) {
    case DType::Float32:
      return 4;
    case DType::Float64:
      return 8;
    case DType::Int64:
      return 8;
    case DType::UInt8:
      return 1;
    case DType::Bool:
      return 1;
  }
  return 0;
}
constexpr bool is_floating(DType t) { return t == DType::Float32 || t == DType::Float64; }
/// "float32", "float64", "int64", "uint8", "bool".
EMBER_API const char* dtype_name(DType t);
EMBER_API std::ostream& operator<<(std::ostream& os, DType t);

template <class T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::Float32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::Float64;
};
template <>
struct dtype_of<int64_t> {
  static constexpr DType value = DType::Int64;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr DType value = DType::UInt8;
};
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::Bool;
};

}  // namespace ember

// EMBER_DISPATCH_*(dtype, op_name, [&] { ... scalar_t ... }): runs the lambda with scalar_t
// bound to the C++ type of dtype; an unsupported dtype throws DTypeError naming the op.
#define EMBER_DTYPE_CASE(enum_value, type, ...) \
  case ::ember::DType::enum_value: {            \
    using scalar_t = type;                      \
    return __VA_ARGS__();                       \
  }

#define EMBER_DISPATCH_FLOATING(dtype, op_name, ...)                             \
  [&] {                                                                          \
    switch (dtype) {                                                             \
      EMBER_DTYPE_CASE(Float32, float, __VA_ARGS__)                              \
      EMBER_DTYPE_CASE(Float64, double, __VA_ARGS__)                             \
      default:                                                                   \
        ::ember::raise<::ember::DTypeError>(op_name, " does not support dtype ", \
                                            ::ember::dtype_name(dtype));         \
    }                                                                            \
  }()

#define EMBER_DISPATCH_NUMERIC(dtype, op_name, ...)                              \
  [&] {                                                                          \
    switch (dtype) {                                                             \
      EMBER_DTYPE_CASE(Float32, float, __VA_ARGS__)                              \
      EMBER_DTYPE_CASE(Float64, double, __VA_ARGS__)                             \
      EMBER_DTYPE_CASE(Int64, int64_t, __VA_ARGS__)                              \
      EMBER_DTYPE_CASE(UInt8, uint8_t, __VA_ARGS__)                              \
      default:                                                                   \
        ::ember::raise<::ember::DTypeError>(op_name, " does not support dtype ", \
                                            ::ember::dtype_name(dtype));         \
    }                                                                            \
  }()

#define EMBER_DISPATCH_ALL(dtype, op_name, ...)                      \
  [&] {                                                              \
    switch (dtype) {                                                 \
      EMBER_DTYPE_CASE(Float32, float, __VA_ARGS__)                  \
      EMBER_DTYPE_CASE(Float64, double, __VA_ARGS__)                 \
      EMBER_DTYPE_CASE(Int64, int64_t, __VA_ARGS__)                  \
      EMBER_DTYPE_CASE(UInt8, uint8_t, __VA_ARGS__)                  \
      EMBER_DTYPE_CASE(Bool, bool, __VA_ARGS__)                      \
    }                                                                \
    ::ember::raise<::ember::DTypeError>(op_name, ": unknown dtype"); \
  }()
