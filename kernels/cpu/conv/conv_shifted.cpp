#include "ember/kernels/cpu/conv/conv_shifted.h"

#include <Eigen/Core>
#include <algorithm>

#include "ember/core/threads.h"
#include "ember/kernels/cpu/conv/conv_buffers.h"
#include "ember/kernels/cpu/parallel.h"

namespace ember::cpu {
namespace {

// Input channels below which a kernel row's GEMM (kw * C deep) is too thin to beat the column
// route.
constexpr int64_t kMinChannels = 8;
// Extra columns computed and dropped, in percent of the output, up to which the route wins:
// measured on the small ResNet, 32 x 32 (6%) and 16 x 16 (12%) win, 8 x 8 (22%) does not.
constexpr int64_t kMaxWastePercent = 15;
// Sizes past which the route is not considered (a padded sample stays a modest buffer, and no
// product below can overflow).
constexpr int64_t kMaxSide = int64_t{1} << 16;
constexpr int64_t kMaxPaddedSample = int64_t{1} << 24;

template <class T>
using RowMat = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <class T>
using ConstRowMat = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
// Rows of the padded sample: one per channel, Hp * Wp apart.
template <class T>
using ChannelRows = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0,
                               Eigen::OuterStride<>>;

// One direction's geometry: C channels of H x W in, padded to Hp x Wp, Co channels of Ho x Wo
// out, computed on the padded width as L positions.
struct Geometry {
  int64_t C, H, W, Co, kh, kw, ph, pw, Hp, Wp, Ho, Wo, L;
  int64_t plane() const { return Hp * Wp; }
  // Kernel row i's GEMM reads kw * C rows (row j * C + c), at i * Wp in each copy.
  int64_t depth() const { return kw * C; }
  bool padded() const { return ph != 0 || pw != 0; }
};

Geometry geometry(int64_t C, int64_t H, int64_t W, int64_t Co, int64_t kh, int64_t kw, int64_t ph,
                  int64_t pw) {
  // One GEMM per kernel row over kw copies. Folding every tap into one GEMM over kh * kw copies
  // (im2col on the padded width) measured 6% slower on the small ResNet's step, one GEMM per
  // tap over a single copy no faster.
  Geometry g{C, H, W, Co, kh, kw, ph, pw, H + 2 * ph, W + 2 * pw, 0, 0, 0};
  g.Ho = g.Hp - kh + 1;
  g.Wo = g.Wp - kw + 1;
  g.L = g.Ho > 0 && g.Wo > 0 ? (g.Ho - 1) * g.Wp + g.Wo : 0;
  return g;
}

// The geometry of the input gradient's convolution: grad_out in, kernel flipped, padding k-1-p.
Geometry input_gradient_geometry(int64_t C, int64_t H, int64_t W, int64_t Co, int64_t kh, int64_t kw,
                                 const Conv2dParams& p) {
  const int64_t Ho = H + 2 * p.pad_h - kh + 1, Wo = W + 2 * p.pad_w - kw + 1;
  return geometry(Co, Ho, Wo, C, kh, kw, kh - 1 - p.pad_h, kw - 1 - p.pad_w);
}

// The sample as the GEMMs read it: kw copies of the padded sample [C, Hp, Wp], copy j shifted
// left by j elements, so that the input under tap (i, j) of channel c at position l is row
// j * C + c, element i * Wp + l: one GEMM per kernel row, kw * C deep, all rows Hp * Wp apart.
// (Copy j's last j elements are never read.) The unpadded sample of a one-column kernel is read
// in place.
template <class T>
const T* shifted_copies(const T* x, const Geometry& g) {
  if (!g.padded() && g.kw == 1) return x;
  const int64_t n = g.C * g.plane();
  T* xs = conv_scratch<T>(kConvColumns, g.kw * n);
  if (g.padded())
    pad_sample(x, xs, g.C, g.H, g.W, g.ph, g.pw);
  else
    std::copy(x, x + n, xs);
  for (int64_t j = 1; j < g.kw; ++j) std::copy(xs + j, xs + n, xs + j * n);
  return xs;
}

template <class T>
ChannelRows<T> kernel_row(const T* xs, const Geometry& g, int64_t i) {
  return ChannelRows<T>(xs + i * g.Wp, g.depth(), g.L, Eigen::OuterStride<>(g.plane()));
}

// out[Co, Ho, Wo] (+ b) for one sample x[C, H, W]; rows[i] is the [Co, depth] weight of
// kernel row i, column j * C + c.
template <class T>
void forward_sample(const T* x, const T* rows, const T* b, T* out, const Geometry& g) {
  const T* xs = shifted_copies(x, g);
  T* res = conv_scratch<T>(kConvResult, g.Co * g.L);
  RowMat<T> r(res, g.Co, g.L);
  for (int64_t i = 0; i < g.kh; ++i) {
    const ConstRowMat<T> w(rows + i * g.Co * g.depth(), g.Co, g.depth());
    if (i == 0)
      r.noalias() = w * kernel_row(xs, g, i);
    else
      r.noalias() += w * kernel_row(xs, g, i);
  }
  for (int64_t co = 0; co < g.Co; ++co)
    for (int64_t oh = 0; oh < g.Ho; ++oh) {
      const T* src = res + co * g.L + oh * g.Wp;
      T* dst = out + (co * g.Ho + oh) * g.Wo;
      if (b)
        for (int64_t ow = 0; ow < g.Wo; ++ow) dst[ow] = src[ow] + b[co];
      else
        copy_run(dst, src, g.Wo);
    }
}

// All samples of a convolution in parallel, with the weights already split by kernel row.
template <class T>
void forward_all(const T* x, const T* rows, const T* b, T* out, int64_t N, const Geometry& g) {
  parallel_for(N, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n)
      forward_sample(x + n * g.C * g.H * g.W, rows, b, out + n * g.Co * g.Ho * g.Wo, g);
  });
}

}  // namespace

bool conv2d_shifted_fits(ConvPass pass, int64_t C, int64_t Co, int64_t H, int64_t W, int64_t kh, int64_t kw,
                         const Conv2dParams& p) {
  if (p.stride_h != 1 || p.stride_w != 1 || p.dilation_h != 1 || p.dilation_w != 1) return false;
  for (int64_t v : {C, Co, H, W, kh, kw, p.pad_h, p.pad_w})
    if (v < 0 || v > kMaxSide) return false;
  if (pass == ConvPass::backward_input && (p.pad_h > kh - 1 || p.pad_w > kw - 1)) return false;
  const Geometry g = pass == ConvPass::backward_input ? input_gradient_geometry(C, H, W, Co, kh, kw, p)
                                                      : geometry(C, H, W, Co, kh, kw, p.pad_h, p.pad_w);
  // Each factor is bounded first, so that the product cannot overflow (an empty batch can
  // carry any channel count and size).
  for (int64_t v : {g.C, g.Co, g.H, g.W, g.Ho, g.Wo})
    if (v <= 0) return false;  // nothing to compute (an empty output, or an input gradient of one)
  if (g.plane() > kMaxPaddedSample || g.depth() > kMaxPaddedSample ||
      g.depth() * g.plane() > kMaxPaddedSample)
    return false;
  // The weight gradient's GEMMs are as deep as the output is large; the others only as deep
  // as the channels read.
  if (pass != ConvPass::backward_weight && g.C < kMinChannels) return false;
  // Positions computed against those the forward convolution computes: the input gradient
  // also multiplies the zeros of its padding k - 1 - p, which the column route skips, so a
  // layer padded less than k - 1 - p (as the tutorial's conv2, unpadded 5x5 on 12x12: 2.25
  // times the work) stays there.
  const int64_t useful = pass == ConvPass::backward_input ? g.H * g.W : g.Ho * g.Wo;
  return g.L * 100 <= useful * (100 + kMaxWastePercent);
}

template <class T>
void conv2d_shifted(const T* x, const T* w, const T* b, T* out, int64_t N, int64_t C, int64_t H, int64_t W,
                    int64_t Co, int64_t kh, int64_t kw, const Conv2dParams& p) {
  const Geometry g = geometry(C, H, W, Co, kh, kw, p.pad_h, p.pad_w);
  // rows[i][co][j * C + c] = w[co][c][i][j]
  T* rows = conv_scratch<T>(kConvWeights, kh * kw * Co * C);
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t co = 0; co < Co; ++co)
      for (int64_t j = 0; j < kw; ++j)
        for (int64_t c = 0; c < C; ++c)
          rows[(i * Co + co) * g.depth() + j * C + c] = w[(co * C + c) * kh * kw + i * kw + j];
  forward_all(x, rows, b, out, N, g);
}

template <class T>
void conv2d_shifted_backward_input(const T* go, const T* w, T* gx, int64_t N, int64_t C, int64_t H, int64_t W,
                                   int64_t Co, int64_t kh, int64_t kw, const Conv2dParams& p) {
  const Geometry g = input_gradient_geometry(C, H, W, Co, kh, kw, p);
  // The kernel flipped in both directions, input and output channels swapped:
  // rows[i][c][j * Co + co] = w[co][c][kh - 1 - i][kw - 1 - j].
  T* rows = conv_scratch<T>(kConvWeights, kh * kw * C * Co);
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t j = 0; j < kw; ++j)
        for (int64_t co = 0; co < Co; ++co)
          rows[(i * C + c) * g.depth() + j * Co + co] =
              w[(co * C + c) * kh * kw + kh * kw - 1 - (i * kw + j)];
  forward_all(go, rows, static_cast<const T*>(nullptr), gx, N, g);
}

template <class T>
void conv2d_shifted_backward_weight(const T* go, const T* x, T* gw, T* gb, int64_t N, int64_t C, int64_t H,
                                    int64_t W, int64_t Co, int64_t kh, int64_t kw, const Conv2dParams& p) {
  const Geometry g = geometry(C, H, W, Co, kh, kw, p.pad_h, p.pad_w);
  const int64_t weights = kh * Co * kw * C;
  // Summed laid out [kernel row][Co][depth], then the bias.
  const T* sum = sum_over_samples<T>(N, weights + Co, [&](int64_t n, T* acc) {
    const T* xs = shifted_copies(x + n * C * H * W, g);
    // grad_out spread onto the padded width, zeros in the dropped columns.
    T* gp = conv_scratch<T>(kConvResult, Co * g.L);
    const T* gon = go + n * Co * g.Ho * g.Wo;
    for (int64_t co = 0; co < Co; ++co) {
      for (int64_t oh = 0; oh < g.Ho; ++oh) {
        T* dst = gp + co * g.L + oh * g.Wp;
        copy_run(dst, gon + (co * g.Ho + oh) * g.Wo, g.Wo);
        if (oh + 1 < g.Ho) zero_run(dst + g.Wo, g.Wp - g.Wo);
      }
      if (gb)
        acc[weights + co] +=
            Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(gon + co * g.Ho * g.Wo, g.Ho * g.Wo).sum();
    }
    const ConstRowMat<T> grad(gp, Co, g.L);
    for (int64_t i = 0; i < kh; ++i)
      RowMat<T>(acc + i * Co * g.depth(), Co, g.depth()).noalias() += grad * kernel_row(xs, g, i).transpose();
  });
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t co = 0; co < Co; ++co)
      for (int64_t j = 0; j < kw; ++j)
        for (int64_t c = 0; c < C; ++c)
          gw[(co * C + c) * kh * kw + i * kw + j] = sum[(i * Co + co) * g.depth() + j * C + c];
  if (gb) std::copy(sum + weights, sum + weights + Co, gb);
}

#define EMBER_CONV_SHIFTED(T)                                                                                \
  template void conv2d_shifted<T>(const T*, const T*, const T*, T*, int64_t, int64_t, int64_t, int64_t,      \
                                  int64_t, int64_t, int64_t, const Conv2dParams&);                           \
  template void conv2d_shifted_backward_input<T>(const T*, const T*, T*, int64_t, int64_t, int64_t, int64_t, \
                                                 int64_t, int64_t, int64_t, const Conv2dParams&);            \
  template void conv2d_shifted_backward_weight<T>(const T*, const T*, T*, T*, int64_t, int64_t, int64_t,     \
                                                  int64_t, int64_t, int64_t, int64_t, const Conv2dParams&);
EMBER_CONV_SHIFTED(float)
EMBER_CONV_SHIFTED(double)
#undef EMBER_CONV_SHIFTED

}  // namespace ember::cpu
