#pragma once
// Internal (not installed): the dispatch macros that turn a runtime DType into a C++ type, for
// core's and the backends' sources.
#include <cstdint>

#include "ember/core/dtype.h"
#include "ember/core/error.h"

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
      EMBER_DTYPE_CASE(Int32, int32_t, __VA_ARGS__)                              \
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
      EMBER_DTYPE_CASE(Int32, int32_t, __VA_ARGS__)                  \
      EMBER_DTYPE_CASE(UInt8, uint8_t, __VA_ARGS__)                  \
      EMBER_DTYPE_CASE(Bool, bool, __VA_ARGS__)                      \
    }                                                                \
    ::ember::raise<::ember::DTypeError>(op_name, ": unknown dtype"); \
  }()
