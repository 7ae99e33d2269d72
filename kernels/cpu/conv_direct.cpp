#include "ember/kernels/cpu/conv_direct.h"

#include <Eigen/Core>
#include <algorithm>
#include <vector>

#include "ember/kernels/cpu/conv_buffers.h"
#include "ember/kernels/cpu/parallel.h"

namespace ember::cpu {
namespace {
// Input channels times taps up to which the direct route wins (measured at the tutorial's
// conv1, 25, and the small ResNet's stem, 27; the GEMM route wins from a few hundred).
constexpr int64_t kMaxTaps = 32;
// Elements of one zero-bordered sample copy; a padding far beyond that takes the GEMM route,
// whose buffers obey the allocation limit.
constexpr int64_t kMaxPaddedSample = int64_t{1} << 20;

template <class T>
using Packet = typename Eigen::internal::packet_traits<T>::type;
template <class T>
constexpr int64_t kLanes = Eigen::internal::unpacket_traits<Packet<T>>::size;

// Output channels [co, co + NB) of one output row segment: NB independent accumulators, so
// the multiply-adds do not wait on each other's latency, sharing each input load.
// x: the input at the segment's first tap (channel 0, row oh, its first column); o: the
// output segment of channel 0.
template <int NB, class T>
void channels(const T* x, const T* w, const T* b, T* o, int64_t co, int64_t C, int64_t Hp, int64_t Wp,
              int64_t kh, int64_t kw, int64_t plane) {
  namespace ei = Eigen::internal;
  using P = Packet<T>;
  const int64_t taps = C * kh * kw;
  P acc[NB];
  for (int k = 0; k < NB; ++k) acc[k] = ei::pset1<P>(b ? b[co + k] : T(0));
  const T* wt = w + co * taps;
  for (int64_t c = 0; c < C; ++c)
    for (int64_t i = 0; i < kh; ++i) {
      const T* row = x + (c * Hp + i) * Wp;
      for (int64_t j = 0; j < kw; ++j, ++wt) {
        const P v = ei::ploadu<P>(row + j);
        for (int k = 0; k < NB; ++k) acc[k] = ei::pmadd(ei::pset1<P>(wt[k * taps]), v, acc[k]);
      }
    }
  for (int k = 0; k < NB; ++k) ei::pstoreu(o + (co + k) * plane, acc[k]);
}

// channels<NB> for NB = 1 .. kMaxBlock, indexed by NB - 1.
constexpr int64_t kMaxBlock = 8;
template <class T>
using ChannelBlock = void (*)(const T*, const T*, const T*, T*, int64_t, int64_t, int64_t, int64_t, int64_t,
                              int64_t, int64_t);
template <class T>
constexpr ChannelBlock<T> kChannelBlocks[kMaxBlock] = {channels<1, T>, channels<2, T>, channels<3, T>,
                                                       channels<4, T>, channels<5, T>, channels<6, T>,
                                                       channels<7, T>, channels<8, T>};

// One sample, already padded: xp[C, Hp, Wp] -> o[Co, Ho, Wo]. Each output row is covered by
// registers starting at 0, kLanes, ...; the last one is moved back to end at Wo, overlapping
// its predecessor (it stores the same values there), so Wo >= kLanes and no tail loop.
template <class T>
void sample(const T* xp, const T* w, const T* b, T* o, int64_t C, int64_t Hp, int64_t Wp, int64_t Co,
            int64_t kh, int64_t kw, int64_t Ho, int64_t Wo) {
  constexpr int64_t L = kLanes<T>;
  const int64_t plane = Ho * Wo;
  // Output channels in as few blocks as there are multiples of kMaxBlock, of near-equal size:
  // each block reads every input tap once, and its accumulators are its chains of dependent
  // multiply-adds (C * kh * kw long), so conv1's 10 channels as 5 + 5 ran 30% faster than as
  // 4 + 4 + 2.
  const int64_t blocks = (Co + kMaxBlock - 1) / kMaxBlock;
  for (int64_t oh = 0; oh < Ho; ++oh)
    for (int64_t ow = 0; ow < Wo; ow += L) {
      const int64_t col = std::min(ow, Wo - L);
      const T* x = xp + oh * Wp + col;
      T* out = o + oh * Wo + col;
      for (int64_t blk = 0; blk < blocks; ++blk) {
        const int64_t co = Co * blk / blocks, nb = Co * (blk + 1) / blocks - co;
        kChannelBlocks<T>[nb - 1](x, w, b, out, co, C, Hp, Wp, kh, kw, plane);
      }
    }
}

}  // namespace

template <class T>
bool conv2d_direct_fits(int64_t C, int64_t H, int64_t W, int64_t kh, int64_t kw, int64_t Wo,
                        const Conv2dParams& p) {
  const bool padded = p.pad_h || p.pad_w;
  return p.stride_h == 1 && p.stride_w == 1 && p.dilation_h == 1 && p.dilation_w == 1 &&
         C * kh * kw <= kMaxTaps && Wo >= kLanes<T> &&
         (!padded || C * (H + 2 * p.pad_h) * (W + 2 * p.pad_w) <= kMaxPaddedSample);
}

template <class T>
void conv2d_direct(const T* x, const T* w, const T* b, T* out, int64_t N, int64_t C, int64_t H, int64_t W,
                   int64_t Co, int64_t kh, int64_t kw, int64_t Ho, int64_t Wo, const Conv2dParams& p) {
  const int64_t pad_h = p.pad_h, pad_w = p.pad_w;
  const int64_t Hp = H + 2 * pad_h, Wp = W + 2 * pad_w;
  parallel_for(N, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n) {
      const T* xn = x + n * C * H * W;
      if (pad_h || pad_w) {
        T* xp = conv_scratch<T>(kConvColumns, C * Hp * Wp);
        pad_sample(xn, xp, C, H, W, pad_h, pad_w);
        xn = xp;
      }
      sample(xn, w, b, out + n * Co * Ho * Wo, C, Hp, Wp, Co, kh, kw, Ho, Wo);
    }
  });
}

namespace {

// The weight gradient's registers: 8 floats (4 doubles) also where AVX-512 is enabled, so that
// conv1's 24-wide rows are three whole registers (rows are summed, so a register cannot be
// moved back to overlap its predecessor as the forward does; the rest goes one at a time).
template <class T>
struct GradPacket {
  using type = typename Eigen::internal::packet_traits<T>::type;
};
#ifdef EIGEN_VECTORIZE_AVX512
template <>
struct GradPacket<float> {
  using type = Eigen::internal::Packet8f;
};
template <>
struct GradPacket<double> {
  using type = Eigen::internal::Packet4d;
};
#endif

// gw[co0 + k][c][i][j] += sum over output positions of g[co0 + k] times the input under tap
// (i, j), for k < NB and one sample: NB * KW accumulators per (c, i), each input load shared
// by NB channels and each grad_out load by KW taps.
template <int NB, int KW, class T>
void weight_block(const T* g, const T* xp, T* gw, int64_t co0, int64_t C, int64_t Hp, int64_t Wp, int64_t kh,
                  int64_t Ho, int64_t Wo) {
  namespace ei = Eigen::internal;
  using P = typename GradPacket<T>::type;
  constexpr int64_t L = sizeof(P) / sizeof(T);
  const int64_t plane = Ho * Wo, whole = Wo - Wo % L;
  for (int64_t c = 0; c < C; ++c)
    for (int64_t i = 0; i < kh; ++i) {
      P acc[NB][KW];
      T rest[NB][KW] = {};
      for (int k = 0; k < NB; ++k)
        for (int j = 0; j < KW; ++j) acc[k][j] = ei::pset1<P>(T(0));
      for (int64_t oh = 0; oh < Ho; ++oh) {
        const T* xr = xp + (c * Hp + oh + i) * Wp;
        const T* gr = g + co0 * plane + oh * Wo;
        for (int64_t ow = 0; ow < whole; ow += L) {
          P gv[NB];
          for (int k = 0; k < NB; ++k) gv[k] = ei::ploadu<P>(gr + k * plane + ow);
          for (int j = 0; j < KW; ++j) {
            const P xv = ei::ploadu<P>(xr + ow + j);
            for (int k = 0; k < NB; ++k) acc[k][j] = ei::pmadd(gv[k], xv, acc[k][j]);
          }
        }
        for (int64_t ow = whole; ow < Wo; ++ow)
          for (int k = 0; k < NB; ++k)
            for (int j = 0; j < KW; ++j) rest[k][j] += gr[k * plane + ow] * xr[ow + j];
      }
      for (int k = 0; k < NB; ++k)
        for (int j = 0; j < KW; ++j)
          gw[((co0 + k) * C + c) * kh * KW + i * KW + j] += ei::predux(acc[k][j]) + rest[k][j];
    }
}

// One sample's weight gradient, output channels two at a time.
template <int KW, class T>
void weight_sample(const T* g, const T* xp, T* gw, int64_t C, int64_t Hp, int64_t Wp, int64_t Co, int64_t kh,
                   int64_t Ho, int64_t Wo) {
  int64_t co = 0;
  for (; co + 2 <= Co; co += 2) weight_block<2, KW>(g, xp, gw, co, C, Hp, Wp, kh, Ho, Wo);
  if (co < Co) weight_block<1, KW>(g, xp, gw, co, C, Hp, Wp, kh, Ho, Wo);
}

}  // namespace

template <class T>
bool conv2d_direct_backward_weight_fits(int64_t C, int64_t H, int64_t W, int64_t kh, int64_t kw, int64_t Wo,
                                        const Conv2dParams& p) {
  return (kw == 3 || kw == 5) && conv2d_direct_fits<T>(C, H, W, kh, kw, Wo, p);
}

template <class T>
void conv2d_direct_backward_weight(const T* go, const T* x, T* gw, T* gb, int64_t N, int64_t C, int64_t H,
                                   int64_t W, int64_t Co, int64_t kh, int64_t kw, int64_t Ho, int64_t Wo,
                                   const Conv2dParams& p) {
  const int64_t pad_h = p.pad_h, pad_w = p.pad_w;
  const int64_t Hp = H + 2 * pad_h, Wp = W + 2 * pad_w, weights = Co * C * kh * kw;
  const T* sum = sum_over_samples<T>(N, weights + Co, [&](int64_t n, T* acc) {
    const T* xn = x + n * C * H * W;
    if (pad_h || pad_w) {
      T* xp = conv_scratch<T>(kConvColumns, C * Hp * Wp);
      pad_sample(xn, xp, C, H, W, pad_h, pad_w);
      xn = xp;
    }
    const T* gn = go + n * Co * Ho * Wo;
    if (kw == 3)
      weight_sample<3>(gn, xn, acc, C, Hp, Wp, Co, kh, Ho, Wo);
    else
      weight_sample<5>(gn, xn, acc, C, Hp, Wp, Co, kh, Ho, Wo);
    if (gb)
      for (int64_t co = 0; co < Co; ++co)
        acc[weights + co] +=
            Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(gn + co * Ho * Wo, Ho * Wo).sum();
  });
  std::copy(sum, sum + weights, gw);
  if (gb) std::copy(sum + weights, sum + weights + Co, gb);
}

#define EMBER_CONV_DIRECT(T)                                                                                \
  template bool conv2d_direct_fits<T>(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,                 \
                                      const Conv2dParams&);                                                 \
  template void conv2d_direct<T>(const T*, const T*, const T*, T*, int64_t, int64_t, int64_t, int64_t,      \
                                 int64_t, int64_t, int64_t, int64_t, int64_t, const Conv2dParams&);         \
  template bool conv2d_direct_backward_weight_fits<T>(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, \
                                                      const Conv2dParams&);                                 \
  template void conv2d_direct_backward_weight<T>(const T*, const T*, T*, T*, int64_t, int64_t, int64_t,     \
                                                 int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,      \
                                                 const Conv2dParams&);
EMBER_CONV_DIRECT(float)
EMBER_CONV_DIRECT(double)
#undef EMBER_CONV_DIRECT

}  // namespace ember::cpu
