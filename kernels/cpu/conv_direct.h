#pragma once
// Direct convolution for thin layers (few input channels times kernel taps, as the tutorial's
// first layer: 1 channel, 5x5): each output row is computed a vector register at a time,
// the register summing every tap of every input channel before it is stored once.
//
// Why: with C_in * kH * kW this small, the im2col + GEMM route spends more time writing the
// column buffer and letting Eigen pack it again than multiplying (at batch 1, the embedding
// case, conv1's column buffer is 25 x 576 for a 10 x 25 weight). Stride 1 and dilation 1
// only; padding is applied by copying each sample into a zero-bordered plane first.
#include <cstdint>

#include "ember/core/op_kinds.h"

namespace ember::cpu {

/// Whether conv2d_direct serves a layer of T with C input channels of H x W, a kh x kw kernel
/// and Wo output columns, and serves it faster than the GEMM route.
template <class T>
bool conv2d_direct_fits(int64_t C, int64_t H, int64_t W, int64_t kh, int64_t kw, int64_t Wo,
                        const Conv2dParams& p);

/// out[N, Co, Ho, Wo] = conv(x[N, C, H, W], w[Co, C, kh, kw], padding of p) + b[Co] (b may be
/// null); samples run in parallel. Only for layers conv2d_direct_fits accepts.
template <class T>
void conv2d_direct(const T* x, const T* w, const T* b, T* out, int64_t N, int64_t C, int64_t H, int64_t W,
                   int64_t Co, int64_t kh, int64_t kw, int64_t Ho, int64_t Wo, const Conv2dParams& p);

/// Whether conv2d_direct_backward_weight serves such a layer (kernels 3 or 5 wide).
template <class T>
bool conv2d_direct_backward_weight_fits(int64_t C, int64_t H, int64_t W, int64_t kh, int64_t kw, int64_t Wo,
                                        const Conv2dParams& p);

/// gw[Co, C, kh, kw] (and gb[Co] when not null) = the gradients of conv2d_direct's weight and
/// bias given go[N, Co, Ho, Wo], without im2col's column buffer (for conv1, 25 copies of each
/// image). A given thread count always gives the same bits.
template <class T>
void conv2d_direct_backward_weight(const T* go, const T* x, T* gw, T* gb, int64_t N, int64_t C, int64_t H,
                                   int64_t W, int64_t Co, int64_t kh, int64_t kw, int64_t Ho, int64_t Wo,
                                   const Conv2dParams& p);

}  // namespace ember::cpu
