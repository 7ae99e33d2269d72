#include "ember/core/checked_math.h"

namespace ember {

namespace detail {
void raise_overflow(const char* op, int64_t a, char sign, int64_t b) {
  raise<ValueError>(op, ": size overflow: ", a, ' ', sign, ' ', b, " does not fit in int64");
}
void raise_shape_overflow(const char* op, const Shape& s, size_t itemsize) {
  if (itemsize == 0)
    raise<ValueError>(op, ": shape ", shape_str(s), " is too large: int64 cannot count its elements");
  raise<ValueError>(op, ": shape ", shape_str(s), " is too large: its ", itemsize,
                    "-byte elements cannot be addressed with int64 byte offsets");
}
}  // namespace detail

int64_t checked_numel(const Shape& s, const char* op) {
  check_sizes(s, op);
  int64_t n = 1;
  for (int64_t d : s)
    if (__builtin_mul_overflow(n, d, &n)) detail::raise_shape_overflow(op, s, 0);
  return n;
}

int64_t checked_nbytes(const Shape& s, size_t itemsize, const char* op) {
  const int64_t n = checked_numel(s, op);
  int64_t extent = static_cast<int64_t>(itemsize);
  for (int64_t d : s)
    if (d > 1 && __builtin_mul_overflow(extent, d, &extent)) detail::raise_shape_overflow(op, s, itemsize);
  return n * static_cast<int64_t>(itemsize);
}

}  // namespace ember
