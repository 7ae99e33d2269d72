#pragma once
// Sliding-window geometry shared by conv2d and the pools: argument checks with the pinned
// messages and the output size arithmetic.
#include <cstdint>

#include "ember/core/checked_math.h"
#include "ember/core/error.h"
#include "ember/core/ops/conv.h"
#include "ember/core/tensor.h"

namespace ember::detail {

/// "[h, w]", as shapes print.
inline std::string pair_str(IntPair v) { return concat("[", v.h, ", ", v.w, "]"); }

/// ValueError "<op>: <what> must be >= <min>, got [h, w]".
inline void check_at_least(const char* op, const char* what, IntPair v, int64_t min) {
  if (v.h < min || v.w < min) raise<ValueError>(op, ": ", what, " must be >= ", min, ", got ", pair_str(v));
}

/// ShapeError unless input is 3-D (CHW) or 4-D (NCHW).
inline void check_image(const char* op, const Tensor& input) {
  if (input.dim() != 3 && input.dim() != 4)
    raise<ShapeError>(op, ": input must be 3-D (CHW) or 4-D (NCHW), got shape ", shape_str(input.shape()));
}

/// size + 2 * pad, checked: padding comes from the caller and can be anything >= 0.
inline int64_t padded(const char* op, int64_t size, int64_t pad) {
  return checked_add(size, checked_mul(pad, 2, op), op);
}

/// The extent of a kernel of size k with dilation d, (k - 1) * d + 1, checked.
inline IntPair dilated(const char* op, IntPair k, IntPair d) {
  return IntPair(checked_add(checked_mul(k.h - 1, d.h, op), 1, op),
                 checked_add(checked_mul(k.w - 1, d.w, op), 1, op));
}

/// Output extent of a window of `extent` (already dilated) sliding over `size` padded by `pad`
/// on both sides; 0 when the window does not fit.
inline int64_t window_out(const char* op, int64_t size, int64_t extent, int64_t stride, int64_t pad) {
  const int64_t room = padded(op, size, pad) - extent;
  return room < 0 ? 0 : room / stride + 1;
}

/// ShapeError "<op>: the <kind> [kh, kw] is larger than the padded input [H, W] (input <shape>)"
/// (with ", weight <shape>" when weight is given) when a window of extent (kh, kw) does not fit
/// in the padded input. The message is only built when raised: this runs on every call.
inline void check_window_fits(const char* op, const char* kind, IntPair extent, IntPair pad,
                              const Tensor& input, const Tensor* weight = nullptr) {
  const int64_t H = padded(op, input.size(-2), pad.h), W = padded(op, input.size(-1), pad.w);
  if (extent.h > H || extent.w > W)
    raise<ShapeError>(op, ": the ", kind, " ", pair_str(extent), " is larger than the padded input [", H,
                      ", ", W, "] (input ", shape_str(input.shape()),
                      weight ? ", weight " + shape_str(weight->shape()) : std::string(), ")");
}

}  // namespace ember::detail
