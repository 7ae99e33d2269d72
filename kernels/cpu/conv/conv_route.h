#pragma once
// Which CPU route conv2d takes for one pass of a layer. cpu_conv.cpp dispatches on it, and the
// tests ask it which route their shapes exercise (exported for them; not an installed header).
#include <cstdint>

#include "ember/core/dtype.h"
#include "ember/core/export.h"
#include "ember/extend/op_kinds.h"

namespace ember::cpu {

enum class ConvPass { forward, backward_input, backward_weight };

/// direct: conv_direct.h; shifted: conv_shifted.h; columns: im2col (col2im) and one GEMM per
/// chunk of samples, in cpu_conv.cpp, which takes every layer.
enum class ConvRoute { direct, shifted, columns };

/// The route for `pass` of a float or double layer with C input channels of H x W, Co output
/// channels of Ho x Wo and a kh x kw kernel.
EMBER_API ConvRoute conv2d_route(ConvPass pass, DType dtype, int64_t C, int64_t H, int64_t W, int64_t Co,
                                 int64_t kh, int64_t kw, int64_t Ho, int64_t Wo, const Conv2dParams& p);

}  // namespace ember::cpu
