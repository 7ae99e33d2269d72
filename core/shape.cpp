#include "ember/core/shape.h"

#include <sstream>

#include "ember/core/checked_math.h"
#include "ember/core/error.h"

namespace ember {

std::string shape_str(const Shape& s) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << ']';
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << shape_str(s); }

int64_t numel_of(const Shape& s) { return checked_numel(s, "numel"); }

Shape contiguous_strides(const Shape& s) {
  Shape st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    if (s[i] > 1) acc = checked_mul(acc, s[i], "contiguous_strides");
  }
  return st;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      raise<ShapeError>("cannot broadcast ", shape_str(a), " with ", shape_str(b));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int normalize_dim(int64_t dim, int64_t ndim, const char* op) {
  // A 0-d tensor has no dim to name: callers that accept dim 0 or -1 on a scalar (as
  // PyTorch's softmax or squeeze do) handle that case before they get here.
  if (ndim == 0) raise<IndexError>(op, ": dim ", dim, " is out of range for a 0-d tensor (it has no dims)");
  const int64_t lo = -ndim, hi = ndim - 1;
  if (dim < lo || dim > hi)
    raise<IndexError>(op, ": dim ", dim, " is out of range for a tensor of ", ndim, " dimension",
                      ndim == 1 ? "" : "s", " (expected [", lo, ", ", hi, "])");
  return static_cast<int>(dim < 0 ? dim + ndim : dim);
}

void check_sizes(const Shape& s, const char* op) {
  for (int64_t d : s)
    if (d < 0) raise<ValueError>(op, ": negative size in shape ", shape_str(s));
}

}  // namespace ember
