#pragma once
// Element types: the DType enum, sizes, names and the C++ type of each.
#include <cstddef>
#include <cstdint>
#include <ostream>

#include "ember/core/export.h"

namespace ember {

// Int32 is last so that the earlier enumerators keep their values.
enum class DType : uint8_t { Float32, Float64, Int64, UInt8, Bool, Int32 };

constexpr DType kFloat32 = DType::Float32;
constexpr DType kFloat64 = DType::Float64;
constexpr DType kInt64 = DType::Int64;
constexpr DType kUInt8 = DType::UInt8;
constexpr DType kBool = DType::Bool;
/// Token ids and masks as many tokenizers give them; indexing ops accept them as indices.
constexpr DType kInt32 = DType::Int32;

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
    case DType::Int32:
      return 4;
  }
  return 0;
}
constexpr bool is_floating(DType t) { return t == DType::Float32 || t == DType::Float64; }
/// "float32", "float64", "int64", "uint8", "bool", "int32".
EMBER_API const char* dtype_name(DType t);
EMBER_API std::ostream& operator<<(std::ostream& os, DType t);

/// The dtype of a C++ element type: float, double, int64_t, int32_t (int), uint8_t or bool.
template <class T>
struct dtype_of {
  // Reached by from_vector, data_ptr or item of another type (std::string, a nested vector):
  // one readable line instead of an incomplete-type error.
  static_assert(sizeof(T) == 0,
                "Ember tensors hold float, double, int64_t, int32_t, uint8_t or bool: for text use "
                "data::BertTokenizer (token ids), for numbers written as text data::parse_values");
};
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
struct dtype_of<int32_t> {
  static constexpr DType value = DType::Int32;
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
