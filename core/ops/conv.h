#pragma once
// 2-D convolution (NCHW input, [C_out, C_in, kH, kW] weight), as torch.nn.functional.conv2d
// with groups = 1.
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

/// A (height, width) pair; a single number means both.
struct IntPair {
  int64_t h, w;
  IntPair(int64_t v) : h(v), w(v) {}  // NOLINT: implicit, conv2d(x, w, b, 2)
  IntPair(int64_t h_, int64_t w_) : h(h_), w(w_) {}
};

/// A pair that may be left out: pooling's stride, unset meaning "the window's size"
/// (PyTorch's default). An explicit 0 stays 0, and so an error, instead of meaning "unset".
struct OptionalIntPair {
  std::optional<IntPair> value;
  OptionalIntPair() = default;
  OptionalIntPair(std::nullopt_t) {}                 // NOLINT: implicit
  OptionalIntPair(int64_t v) : value(IntPair(v)) {}  // NOLINT: implicit
  OptionalIntPair(int64_t h, int64_t w) : value(IntPair(h, w)) {}
  OptionalIntPair(IntPair p) : value(p) {}  // NOLINT: implicit
  /// The pair, or fallback when unset.
  IntPair value_or(IntPair fallback) const { return value ? *value : fallback; }
};

/// ShapeError for input channels that do not match the weight or a kernel larger than the
/// padded input; ValueError for stride or dilation < 1 or padding < 0. Messages name the op
/// and the shapes or values.
EMBER_API Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
                        IntPair stride = 1, IntPair padding = 0, IntPair dilation = 1);

}  // namespace ember
