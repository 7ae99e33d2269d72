#pragma once
// Overflow-checked arithmetic for sizes, strides, offsets, byte counts and window extents.
// Every size that comes from a caller or a file goes through here before it is multiplied,
// added or used to allocate: a wrapped product would allocate a small buffer and then write
// a large one. Overflow is a typed error naming the op and the operands.
#include <cstddef>
#include <cstdint>

#include "ember/core/error.h"
#include "ember/core/export.h"
#include "ember/core/shape.h"

namespace ember {

namespace detail {
[[noreturn]] EMBER_API void raise_overflow(const char* op, int64_t a, char sign, int64_t b);
[[noreturn]] EMBER_API void raise_shape_overflow(const char* op, const Shape& s, size_t itemsize);
}  // namespace detail

/// a * b; ValueError "<op>: size overflow: a * b does not fit in int64" when it does not.
inline int64_t checked_mul(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) detail::raise_overflow(op, a, '*', b);
  return r;
}

/// a + b; ValueError "<op>: size overflow: a + b does not fit in int64" when it does not.
inline int64_t checked_add(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) detail::raise_overflow(op, a, '+', b);
  return r;
}

/// a - b; ValueError "<op>: size overflow: a - b does not fit in int64" when it does not.
inline int64_t checked_sub(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) detail::raise_overflow(op, a, '-', b);
  return r;
}

/// The number of elements of s. ValueError "<op>: negative size in shape [..]" for a
/// negative size, or "<op>: shape [..] is too large ..." when the count overflows.
EMBER_API int64_t checked_numel(const Shape& s, const char* op);

/// The bytes of a contiguous tensor of shape s with elements of itemsize bytes, after the
/// checks of checked_numel. The product of the non-zero sizes times itemsize must fit in
/// int64 as well, even when a zero size makes the tensor empty: that product is the largest
/// byte stride a view of it can have, and [0, 2^62] of float32 would wrap it.
EMBER_API int64_t checked_nbytes(const Shape& s, size_t itemsize, const char* op);

}  // namespace ember
