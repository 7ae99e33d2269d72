#pragma once
// Shapes and strides (in elements), and the arithmetic on them shared by every op.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "ember/core/export.h"

namespace ember {

using Shape = std::vector<int64_t>;

/// "[2, 3]".
EMBER_API std::string shape_str(const Shape& s);
/// Prints shape_str(s): `std::cout << t.shape()` (found where `using namespace ember` is in
/// force, or called as ember::operator<<, since Shape is a std::vector).
EMBER_API std::ostream& operator<<(std::ostream& os, const Shape& s);
/// Product of the sizes (1 for a scalar); ValueError for a negative size or overflow.
EMBER_API int64_t numel_of(const Shape& s);
/// Row-major strides of a contiguous tensor of this shape.
EMBER_API Shape contiguous_strides(const Shape& s);
/// The broadcast of two shapes (numpy rules); ShapeError "cannot broadcast [2, 3] with [4, 3]".
EMBER_API Shape broadcast_shapes(const Shape& a, const Shape& b);
/// Wraps a possibly negative dim into [0, ndim); IndexError naming op when out of range
/// (always for ndim 0: a 0-d tensor has no dims).
EMBER_API int normalize_dim(int64_t dim, int64_t ndim, const char* op);
/// Checks sizes are >= 0; ValueError naming op otherwise.
EMBER_API void check_sizes(const Shape& s, const char* op);

}  // namespace ember
