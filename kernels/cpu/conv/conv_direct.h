#pragma once
// Direct convolution: each output row is computed a vector register at a time, the register
// summing every tap of every input channel for up to 8 output channels at once before it is
// stored once; the sample is first copied zero-bordered (and, for a column stride of 2, split
// into even and odd columns so that a tap's inputs are consecutive again).
//
// Why: the im2col + GEMM route writes C_in * kH * kW values per output position and has
// Eigen pack them again; for thin layers (the tutorial's conv1: 1 channel, 5 x 5) that is most
// of its time, and on the small ResNet's 3 x 3 layers of 16-64 channels the direct loop ran
// at 73-78 GFLOP/s against 57-62 for the shifted-copy GEMMs and less for im2col (one core,
// AVX-512). The input gradient is the same loop over the output gradient with the kernel
// flipped and transposed: for stride 1 one convolution, for stride 2 four (one per parity of
// the input row and column, each with the kernel taps of that parity). Strides 1 and 2,
// dilation 1.
#include <cstdint>

#include "ember/extend/op_kinds.h"

namespace ember::cpu {

/// Whether conv2d_direct serves a layer of T with C input channels of H x W, a kh x kw kernel
/// and Wo output columns, and serves it faster than the GEMM routes.
template <class T>
bool conv2d_direct_fits(int64_t C, int64_t H, int64_t W, int64_t kh, int64_t kw, int64_t Wo,
                        const Conv2dParams& p);

/// out[N, Co, Ho, Wo] = conv(x[N, C, H, W], w[Co, C, kh, kw], padding of p) + b[Co] (b may be
/// null); samples run in parallel. Only for layers conv2d_direct_fits accepts.
template <class T>
void conv2d_direct(const T* x, const T* w, const T* b, T* out, int64_t N, int64_t C, int64_t H, int64_t W,
                   int64_t Co, int64_t kh, int64_t kw, int64_t Ho, int64_t Wo, const Conv2dParams& p);

/// Whether conv2d_direct_backward_input serves the input gradient of a layer with C input
/// channels of H x W, Co output channels of Ho x Wo and a kh x kw kernel (stride 1 and not
/// much more work than the forward, or stride 2).
template <class T>
bool conv2d_direct_backward_input_fits(int64_t C, int64_t H, int64_t W, int64_t Co, int64_t kh, int64_t kw,
                                       int64_t Ho, int64_t Wo, const Conv2dParams& p);

/// gx[N, C, H, W] = the gradient of a convolution's output with respect to its input, given
/// go[N, Co, Ho, Wo] and w[Co, C, kh, kw]: direct convolutions of go with the kernel flipped
/// and transposed. Only for layers the _fits function accepts.
template <class T>
void conv2d_direct_backward_input(const T* go, const T* w, T* gx, int64_t N, int64_t C, int64_t H, int64_t W,
                                  int64_t Co, int64_t kh, int64_t kw, int64_t Ho, int64_t Wo,
                                  const Conv2dParams& p);

/// Whether conv2d_direct_backward_weight serves such a layer with Co output channels, and
/// serves it faster than the GEMM routes.
template <class T>
bool conv2d_direct_backward_weight_fits(int64_t C, int64_t H, int64_t W, int64_t Co, int64_t kh, int64_t kw,
                                        int64_t Wo, const Conv2dParams& p);

/// gw[Co, C, kh, kw] (and gb[Co] when not null) = the gradients of conv2d_direct's weight and
/// bias given go[N, Co, Ho, Wo], without im2col's column buffer (for conv1, 25 copies of each
/// image). A given thread count always gives the same bits.
template <class T>
void conv2d_direct_backward_weight(const T* go, const T* x, T* gw, T* gb, int64_t N, int64_t C, int64_t H,
                                   int64_t W, int64_t Co, int64_t kh, int64_t kw, int64_t Ho, int64_t Wo,
                                   const Conv2dParams& p);

}  // namespace ember::cpu
