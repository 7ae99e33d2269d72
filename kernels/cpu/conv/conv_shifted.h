#pragma once
// Stride-1 convolution as one GEMM per kernel row, reading shifted copies of the zero-bordered
// input instead of a column buffer.
//
// Why: with stride 1 and the sample padded to Hp x Wp, the input under tap (i, j) for the
// output laid out on the padded width, position l = oh * Wp + ow, is xp[c, l + i * Wp + j]:
// for each tap a [C, L] matrix with row stride Hp * Wp, a plain strided view. With kw copies
// of the padded sample, copy j shifted by j, kernel row i is one [kw * C, L] view, so
//   out[Co, L] = sum over kernel rows of W_row[Co, kw * C] * xs_row[kw * C, L]
// needs no im2col (which wrote, and Eigen's packing then reread, C * kh * kw values per output
// position, element by element at the borders: a fifth of the small ResNet's step, against
// kw plain copies of the sample here). The price is the Wp - Wo columns
// between output rows, computed and dropped: L = (Ho - 1) * Wp + Wo against Ho * Wo, taken
// only where that waste is small. The input gradient is the same convolution of the output
// gradient with the kernel flipped and transposed and padding k - 1 - p, and the weight
// gradient per kernel row is grad_out[Co, L] * xs_row[kw * C, L]^T, grad_out spread onto the padded width
// with zeros between rows. Samples run in parallel; within a sample Eigen stays single-threaded.
#include <cstdint>

#include "ember/extend/op_kinds.h"
#include "ember/kernels/cpu/conv/conv_route.h"

namespace ember::cpu {

/// Whether the shifted-copy route serves a layer with C input and Co output channels, an H x W
/// input and a kh x kw kernel in the given direction, and serves it faster than im2col.
bool conv2d_shifted_fits(ConvPass pass, int64_t C, int64_t Co, int64_t H, int64_t W, int64_t kh, int64_t kw,
                         const Conv2dParams& p);

/// out[N, Co, Ho, Wo] = conv(x[N, C, H, W], w[Co, C, kh, kw], padding of p) + b[Co] (b may be null).
template <class T>
void conv2d_shifted(const T* x, const T* w, const T* b, T* out, int64_t N, int64_t C, int64_t H, int64_t W,
                    int64_t Co, int64_t kh, int64_t kw, const Conv2dParams& p);

/// gx[N, C, H, W] = the gradient of conv2d_shifted's output with respect to x, given go.
template <class T>
void conv2d_shifted_backward_input(const T* go, const T* w, T* gx, int64_t N, int64_t C, int64_t H, int64_t W,
                                   int64_t Co, int64_t kh, int64_t kw, const Conv2dParams& p);

/// gw[Co, C, kh, kw] (and gb[Co] when not null) = the gradients of the weight and bias given go.
/// A given thread count always gives the same bits.
template <class T>
void conv2d_shifted_backward_weight(const T* go, const T* x, T* gw, T* gb, int64_t N, int64_t C, int64_t H,
                                    int64_t W, int64_t Co, int64_t kh, int64_t kw, const Conv2dParams& p);

}  // namespace ember::cpu
