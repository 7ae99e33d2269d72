#include "ember/kernels/cpu/conv/conv_direct.h"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "ember/kernels/cpu/conv/conv_buffers.h"
#include "ember/kernels/cpu/parallel.h"
#include "ember/kernels/cpu/simd.h"

namespace ember::cpu {
namespace {
// Input channels times taps up to which the forward's direct route is taken: it beat the
// shifted-copy and im2col GEMMs on every layer of the small ResNet (up to 576: 64 channels,
// 3 x 3), and its weights then stay within L1 (8 output channels of 1024 floats per block).
constexpr int64_t kMaxTaps = 1024;
// Elements of one zero-bordered sample copy; a padding far beyond that takes the GEMM route,
// whose buffers obey the allocation limit. Every side is bounded first, so that no product
// overflows.
constexpr int64_t kMaxPaddedSample = int64_t{1} << 20;
constexpr int64_t kMaxStride = 2;

// The vector register of T the kernels use (kernels/cpu/simd.h): the widest, or (Half) one of
// half its width where there is one, 8 floats under AVX-512.
constexpr bool kHasHalfRegister = EMBER_SIMD_AVX2;
template <class T, bool Half>
using Register = simd::Lanes<T, Half && kHasHalfRegister ? simd::kWidest<T> / 2 : simd::kWidest<T>>;
// Whether there are 32 vector registers (AVX-512) rather than 16: the register blocks below
// are sized to what there is.
constexpr bool kHas32Registers = EMBER_SIMD_AVX512;
// Output row segments the forward computes at once: 2 x 8 accumulators need 32 registers.
constexpr int kSegments = kHas32Registers ? 2 : 1;
template <class T, bool Half>
constexpr int64_t kLanesOf = Register<T, Half>::kWidth;
template <class T>
constexpr int64_t kLanes = kLanesOf<T, false>;

// The sample as the forward reads it: zero-bordered to Hp x Wp and, for a column stride of 2,
// split into its even and odd columns (phases of Wq = ceil(Wp / 2) columns, one after the
// other), so that the inputs of consecutive output columns under one tap are consecutive
// in memory: one unaligned vector load. The input under tap (i, j) for output (oh, ow) of
// channel c is at c * channel() + tap(i, j) + oh * row_step() + ow.
struct Layout {
  int64_t sh, sw, Hp, Wp, Wq;
  Layout(int64_t H, int64_t W, const Conv2dParams& p)
      : sh(p.stride_h),
        sw(p.stride_w),
        Hp(H + 2 * p.pad_h),
        Wp(W + 2 * p.pad_w),
        Wq((W + 2 * p.pad_w + p.stride_w - 1) / p.stride_w) {}
  int64_t channel() const { return sw * Hp * Wq; }
  int64_t row_step() const { return sh * Wq; }
  int64_t tap(int64_t i, int64_t j) const { return (j % sw) * Hp * Wq + i * Wq + j / sw; }
};

// x[C, H, W] laid out as `l` says into xp; only what is not copied is zeroed.
template <class T>
void lay_out_sample(const T* x, T* xp, int64_t C, int64_t H, int64_t W, int64_t ph, int64_t pw,
                    const Layout& l) {
  if (l.sw == 1) {
    pad_sample(x, xp, C, H, W, ph, pw);
    return;
  }
  // Padded column w + pw of input column w lands in phase (w + pw) % 2 at (w + pw) / 2: the
  // input columns of one parity fill one phase, in order: phase q's rows are n values from
  // input column w0, at column at, zeros around them.
  for (int64_t q = 0; q < 2; ++q) {
    const int64_t w0 = std::min((pw + q) % 2, W), n = (W - w0 + 1) / 2, at = (w0 + pw) / 2;
    for (int64_t c = 0; c < C; ++c) {
      T* plane = xp + c * l.channel() + q * l.Hp * l.Wq;
      zero_run(plane, ph * l.Wq);
      for (int64_t h = 0; h < H; ++h) {
        T* row = plane + (h + ph) * l.Wq;
        zero_run(row, at);
        copy_even(row + at, x + (c * H + h) * W + w0, n);
        zero_run(row + at + n, l.Wq - at - n);
      }
      zero_run(plane + (H + ph) * l.Wq, (l.Hp - H - ph) * l.Wq);
    }
  }
}

// Output channels [co, co + NB) of R output row segments (the second x_step further in the
// input and o_step in the output): R * NB independent accumulators, so the multiply-adds do
// not wait on each other's latency, each input load shared by NB channels and each weight by
// R segments. x: the input of the first segment's first output (channel 0); o: that
// segment's output of channel 0; wp: the block's weights packed [c][tap][k], so that one
// tap's NB weights are adjacent.
template <int NB, int R, bool Half, class T>
void channels(const T* x, int64_t x_step, const T* wp, const T* b, T* o, int64_t o_step, int64_t co,
              int64_t C, int64_t channel, const int64_t* taps, int64_t ntaps, int64_t plane) {
  using S = Register<T, Half>;
  using P = typename S::V;
  P acc[R][NB];
  for (int k = 0; k < NB; ++k)
    for (int r = 0; r < R; ++r) acc[r][k] = S::set1(b ? b[co + k] : T(0));
  for (int64_t c = 0; c < C; ++c) {
    const T* xc = x + c * channel;
    for (int64_t t = 0; t < ntaps; ++t, wp += NB) {
      P v[R];
      for (int r = 0; r < R; ++r) v[r] = S::load(xc + taps[t] + r * x_step);
      for (int k = 0; k < NB; ++k) {
        const P w = S::set1(wp[k]);
        for (int r = 0; r < R; ++r) acc[r][k] = S::fmadd(w, v[r], acc[r][k]);
      }
    }
  }
  for (int k = 0; k < NB; ++k)
    for (int r = 0; r < R; ++r) S::store(o + r * o_step + (co + k) * plane, acc[r][k]);
}

// channels<NB, R> for NB = 1 .. kMaxBlock, indexed by NB - 1.
constexpr int64_t kMaxBlock = 8;
template <class T>
using ChannelBlock = void (*)(const T*, int64_t, const T*, const T*, T*, int64_t, int64_t, int64_t, int64_t,
                              const int64_t*, int64_t, int64_t);
template <int R, bool Half, class T>
constexpr ChannelBlock<T> kChannelBlocks[kMaxBlock] = {
    channels<1, R, Half, T>, channels<2, R, Half, T>, channels<3, R, Half, T>, channels<4, R, Half, T>,
    channels<5, R, Half, T>, channels<6, R, Half, T>, channels<7, R, Half, T>, channels<8, R, Half, T>};

// Output channels in as few blocks as there are multiples of kMaxBlock, of near-equal size:
// each block reads every input tap once, and its accumulators are its chains of dependent
// multiply-adds (C * kh * kw long), so conv1's 10 channels as 5 + 5 ran 30% faster than as
// 4 + 4 + 2. Block b is [block_start(b), block_start(b + 1)).
inline int64_t blocks_of(int64_t Co) { return (Co + kMaxBlock - 1) / kMaxBlock; }
inline int64_t block_start(int64_t Co, int64_t b) { return Co * b / blocks_of(Co); }

// The weights w[Co, C * taps] packed per block as channels() reads them: block [co, co + nb)
// at co * C * taps, [c][tap][k].
template <class T>
void pack_weights(const T* w, T* wp, int64_t Co, int64_t depth) {
  for (int64_t b = 0; b < blocks_of(Co); ++b) {
    const int64_t co = block_start(Co, b), nb = block_start(Co, b + 1) - co;
    for (int64_t t = 0; t < depth; ++t)
      for (int64_t k = 0; k < nb; ++k) wp[co * depth + t * nb + k] = w[(co + k) * depth + t];
  }
}

// One sample, laid out: xp -> o[Co, Ho, Wo], in registers of L lanes. Each output row is
// covered by segments of one register starting at 0, L, ...; the last one is moved back to
// end at Wo, overlapping its predecessor (it stores the same values there), so Wo >= L and no
// tail loop. The segments go two at a time where there are registers for 2 x 8 accumulators.
template <bool Half, class T>
void sample(const T* xp, const T* wp, const T* b, T* o, int64_t C, const Layout& l, const int64_t* taps,
            int64_t ntaps, int64_t Co, int64_t Ho, int64_t Wo) {
  constexpr int64_t L = kLanesOf<T, Half>;
  constexpr int R = kSegments;
  const int64_t plane = Ho * Wo, depth = C * ntaps, per_row = (Wo + L - 1) / L, segments = Ho * per_row;
  auto in = [&](int64_t s) { return s / per_row * l.row_step() + std::min(s % per_row * L, Wo - L); };
  auto out = [&](int64_t s) { return s / per_row * Wo + std::min(s % per_row * L, Wo - L); };
  for (int64_t s = 0; s < segments; s += R) {
    const bool pair = R == 2 && s + 1 < segments;
    const int64_t x_step = pair ? in(s + 1) - in(s) : 0, o_step = pair ? out(s + 1) - out(s) : 0;
    for (int64_t blk = 0; blk < blocks_of(Co); ++blk) {
      const int64_t co = block_start(Co, blk), nb = block_start(Co, blk + 1) - co;
      const auto f = pair ? kChannelBlocks<R, Half, T>[nb - 1] : kChannelBlocks<1, Half, T>[nb - 1];
      f(xp + in(s), x_step, wp + co * depth, b, o + out(s), o_step, co, C, l.channel(), taps, ntaps, plane);
    }
  }
}

bool strides_and_dilations_fit(const Conv2dParams& p) {
  return p.stride_h >= 1 && p.stride_h <= kMaxStride && p.stride_w >= 1 && p.stride_w <= kMaxStride &&
         p.dilation_h == 1 && p.dilation_w == 1;
}

// Whether the zero-bordered sample (with one more column, the odd phase's rounding) stays
// within kMaxPaddedSample; each factor is bounded before it is multiplied.
bool padded_sample_fits(int64_t C, int64_t H, int64_t W, const Conv2dParams& p) {
  for (int64_t v : {C, H, W, p.pad_h, p.pad_w})
    if (v < 0 || v > kMaxPaddedSample) return false;
  const int64_t rows = C * (H + 2 * p.pad_h);
  return rows <= kMaxPaddedSample && rows * (W + 2 * p.pad_w + 1) <= kMaxPaddedSample;
}

}  // namespace

template <class T>
bool conv2d_direct_fits(int64_t C, int64_t H, int64_t W, int64_t kh, int64_t kw, int64_t Wo,
                        const Conv2dParams& p) {
  for (int64_t v : {C, kh, kw})
    if (v < 0 || v > kMaxTaps) return false;
  // A strided 1 x 1 kernel (the small ResNet's shortcuts) reads every other input once: the
  // column route's subsampling copy and one GEMM were about twice as fast as the split copy
  // and this loop.
  const bool strided_one_tap = kh * kw == 1 && (p.stride_h != 1 || p.stride_w != 1);
  return strides_and_dilations_fit(p) && kh >= 1 && kw >= 1 && kh * kw <= kMaxTaps &&
         C * kh * kw <= kMaxTaps && !strided_one_tap && Wo >= kLanesOf<T, kHasHalfRegister> &&
         padded_sample_fits(C, H, W, p);
}

template <class T>
void conv2d_direct(const T* x, const T* w, const T* b, T* out, int64_t N, int64_t C, int64_t H, int64_t W,
                   int64_t Co, int64_t kh, int64_t kw, int64_t Ho, int64_t Wo, const Conv2dParams& p) {
  const Layout l(H, W, p);
  const bool copied = p.pad_h || p.pad_w || p.stride_w != 1;
  int64_t taps[kMaxTaps];
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j) taps[i * kw + j] = l.tap(i, j);
  T* wp = conv_scratch<T>(kConvWeights, Co * C * kh * kw);
  pack_weights(w, wp, Co, C * kh * kw);
  // Whole registers where the rows are at least one wide, half ones below (the small ResNet's
  // 8 x 8 layers under AVX-512).
  const auto run = Wo >= kLanes<T> ? sample<false, T> : sample<kHasHalfRegister, T>;
  parallel_for(N, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n) {
      const T* xn = x + n * C * H * W;
      if (copied) {
        T* xp = conv_scratch<T>(kConvColumns, C * l.channel());
        lay_out_sample(xn, xp, C, H, W, p.pad_h, p.pad_w, l);
        xn = xp;
      }
      run(xn, wp, b, out + n * Co * Ho * Wo, C, l, taps, kh * kw, Co, Ho, Wo);
    }
  });
}

namespace {

// The input gradient of a stride-2 layer, as four stride-1 convolutions: input rows h = 2a + u
// and columns w = 2b + v (phase (u, v)) receive only from the kernel rows i = u + ph (mod 2)
// and columns j = v + pw (mod 2), so each phase is a direct convolution of the output gradient
// with that sub-kernel, flipped and transposed, written to every other row and column. One
// zero-bordered copy of the output gradient serves all four, its border wide enough for each.
struct Phase {
  int64_t ri, rj;      // the first kernel row and column of the phase
  int64_t kh, kw;      // its sub-kernel: rows ri, ri + 2, ..., columns rj, rj + 2, ...
  int64_t oh, ow;      // the output gradient's row and column under (a, b) = (0, 0) and tap (0, 0)
  int64_t rows, cols;  // input rows and columns of the phase
};

struct StridedInputGradient {
  Phase phase[4];
  int64_t top = 0, bottom = 0, left = 0, right = 0;  // border of the output gradient's copy
  int64_t Hp = 0, Wp = 0;

  StridedInputGradient(int64_t H, int64_t W, int64_t kh, int64_t kw, int64_t Ho, int64_t Wo,
                       const Conv2dParams& p) {
    for (int u = 0; u < 2; ++u)
      for (int v = 0; v < 2; ++v) {
        Phase& f = phase[2 * u + v];
        f.ri = (u + p.pad_h) % 2;
        f.rj = (v + p.pad_w) % 2;
        f.kh = (kh - f.ri + 1) / 2;
        f.kw = (kw - f.rj + 1) / 2;
        // Flipped, sub-kernel row m reads kernel row ri + 2 (kh - 1 - m) and output row
        // a + (u + ph - ri) / 2 - (kh - 1) + m.
        f.oh = (u + p.pad_h - f.ri) / 2 - (f.kh - 1);
        f.ow = (v + p.pad_w - f.rj) / 2 - (f.kw - 1);
        f.rows = (H - u + 1) / 2;
        f.cols = (W - v + 1) / 2;
        top = std::max(top, -f.oh);
        left = std::max(left, -f.ow);
        bottom = std::max(bottom, f.oh + f.rows - 1 + f.kh - 1 - (Ho - 1));
        right = std::max(right, f.ow + f.cols - 1 + f.kw - 1 - (Wo - 1));
      }
    Hp = top + Ho + bottom;
    Wp = left + Wo + right;
  }
};

bool strided_input_gradient_fits(int64_t C, int64_t H, int64_t W, int64_t Co, int64_t kh, int64_t kw,
                                 int64_t Ho, int64_t Wo, const Conv2dParams& p, int64_t lanes) {
  if (p.stride_h != 2 || p.stride_w != 2 || p.dilation_h != 1 || p.dilation_w != 1) return false;
  for (int64_t v : {C, Co, H, W, Ho, Wo, kh, kw, p.pad_h, p.pad_w})
    if (v < 0 || v > kMaxTaps * kMaxTaps) return false;
  // Every phase has a tap in each direction and rows at least one register wide.
  if (kh < 2 || kw < 2 || H < 2 || W / 2 < lanes || Ho < 1 || Wo < 1) return false;
  const StridedInputGradient s(H, W, kh, kw, Ho, Wo, p);
  const int64_t sub_taps = ((kh + 1) / 2) * ((kw + 1) / 2);
  return Co * sub_taps <= kMaxTaps && s.Hp <= kMaxPaddedSample && s.Wp <= kMaxPaddedSample &&
         Co * s.Hp <= kMaxPaddedSample && Co * s.Hp * s.Wp <= kMaxPaddedSample;
}

template <class T>
void strided_input_gradient(const T* go, const T* w, T* gx, int64_t N, int64_t C, int64_t H, int64_t W,
                            int64_t Co, int64_t kh, int64_t kw, int64_t Ho, int64_t Wo,
                            const Conv2dParams& p) {
  const StridedInputGradient s(H, W, kh, kw, Ho, Wo, p);
  Conv2dParams unit;  // the copy's layout: stride 1, no padding of its own
  const Layout l(s.Hp, s.Wp, unit);
  // Per phase: its taps in the copy and its flipped, transposed sub-kernel
  // [C][Co][kh'][kw'] packed as channels() reads it, in one buffer each.
  std::vector<int64_t> taps(static_cast<size_t>(kh * kw));
  T* packed = conv_scratch<T>(kConvWeights, C * Co * kh * kw);
  T* sub = conv_scratch<T>(kConvResult, C * Co * kh * kw);
  int64_t tap_at[4], weight_at[4];
  for (int64_t k = 0, t0 = 0, w0 = 0; k < 4; ++k) {
    const Phase& f = s.phase[k];
    tap_at[k] = t0;
    weight_at[k] = w0;
    for (int64_t m = 0; m < f.kh; ++m)
      for (int64_t n = 0; n < f.kw; ++n) taps[t0 + m * f.kw + n] = l.tap(f.oh + s.top + m, f.ow + s.left + n);
    const int64_t ntaps = f.kh * f.kw;
    for (int64_t c = 0; c < C; ++c)
      for (int64_t co = 0; co < Co; ++co)
        for (int64_t m = 0; m < f.kh; ++m)
          for (int64_t n = 0; n < f.kw; ++n)
            sub[(c * Co + co) * ntaps + m * f.kw + n] =
                w[((co * C + c) * kh + f.ri + 2 * (f.kh - 1 - m)) * kw + f.rj + 2 * (f.kw - 1 - n)];
    pack_weights(sub, packed + w0, C, Co * ntaps);
    t0 += ntaps;
    w0 += C * Co * ntaps;
  }
  parallel_for(N, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n) {
      T* gop = conv_scratch<T>(kConvColumns, Co * s.Hp * s.Wp);
      pad_sample(go + n * Co * Ho * Wo, gop, Co, Ho, Wo, s.top, s.left, s.Hp, s.Wp);
      T* gxn = gx + n * C * H * W;
      // Phases (u, 0) and (u, 1) fill the even and odd columns of rows 2a + u: computed
      // side by side, then merged row by row (phase (u, 0) has one more column when W is odd).
      for (int64_t u = 0; u < 2; ++u) {
        const Phase &even = s.phase[2 * u], &odd = s.phase[2 * u + 1];
        T* out[2];
        out[0] = conv_scratch<T>(kConvResult, C * even.rows * (even.cols + odd.cols));
        out[1] = out[0] + C * even.rows * even.cols;
        for (int64_t v = 0; v < 2; ++v) {
          const Phase& f = s.phase[2 * u + v];
          const auto run = f.cols >= kLanes<T> ? sample<false, T> : sample<kHasHalfRegister, T>;
          run(gop, packed + weight_at[2 * u + v], static_cast<const T*>(nullptr), out[v], Co, l,
              taps.data() + tap_at[2 * u + v], f.kh * f.kw, C, f.rows, f.cols);
        }
        for (int64_t c = 0; c < C; ++c)
          for (int64_t a = 0; a < even.rows; ++a) {
            const T* e = out[0] + (c * even.rows + a) * even.cols;
            const T* o = out[1] + (c * even.rows + a) * odd.cols;
            T* dst = gxn + (c * H + 2 * a + u) * W;
            zip_run(dst, e, o, odd.cols);
            if (even.cols > odd.cols) dst[W - 1] = e[even.cols - 1];
          }
      }
    }
  });
}

}  // namespace

template <class T>
bool conv2d_direct_backward_input_fits(int64_t C, int64_t H, int64_t W, int64_t Co, int64_t kh, int64_t kw,
                                       int64_t Ho, int64_t Wo, const Conv2dParams& p) {
  if (C <= 0) return false;  // nothing to compute
  if (p.stride_h == 2 || p.stride_w == 2)
    return strided_input_gradient_fits(C, H, W, Co, kh, kw, Ho, Wo, p, kLanesOf<T, kHasHalfRegister>);
  if (p.stride_h != 1 || p.stride_w != 1 || p.pad_h > kh - 1 || p.pad_w > kw - 1) return false;
  Conv2dParams transposed = p;
  transposed.pad_h = kh - 1 - p.pad_h;
  transposed.pad_w = kw - 1 - p.pad_w;
  // The transposed convolution also multiplies the zeros of its padding k - 1 - p, which the
  // column route skips: a layer padded less than that (the tutorial's conv2, unpadded 5 x 5 on
  // 12 x 12: 2.25 times the work) stays there.
  return conv2d_direct_fits<T>(Co, Ho, Wo, kh, kw, W, transposed) && H * W * 100 <= Ho * Wo * 115;
}

template <class T>
void conv2d_direct_backward_input(const T* go, const T* w, T* gx, int64_t N, int64_t C, int64_t H, int64_t W,
                                  int64_t Co, int64_t kh, int64_t kw, int64_t Ho, int64_t Wo,
                                  const Conv2dParams& p) {
  if (p.stride_h == 2) {
    strided_input_gradient(go, w, gx, N, C, H, W, Co, kh, kw, Ho, Wo, p);
    return;
  }
  // The kernel flipped in both directions, input and output channels swapped:
  // flipped[c][co][i][j] = w[co][c][kh - 1 - i][kw - 1 - j].
  const int64_t taps = kh * kw;
  T* flipped = conv_scratch<T>(kConvResult, C * Co * taps);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t co = 0; co < Co; ++co)
      for (int64_t t = 0; t < taps; ++t)
        flipped[(c * Co + co) * taps + t] = w[(co * C + c) * taps + taps - 1 - t];
  Conv2dParams transposed = p;
  transposed.pad_h = kh - 1 - p.pad_h;
  transposed.pad_w = kw - 1 - p.pad_w;
  conv2d_direct(go, flipped, static_cast<const T*>(nullptr), gx, N, Co, Ho, Wo, C, kh, kw, H, W, transposed);
}

namespace {

// The weight gradient has two loops. Thin layers (few input channels times taps, as the
// tutorial's conv1: 1 x 5 x 5 for 10 output channels) put output positions in the register
// lanes and reduce them at the end; wider layers put output channels in the lanes, reading
// the output gradient transposed to [position][channel] and broadcasting each input value,
// so that nothing is reduced across lanes (the reduction per tap and channel cost more than
// the multiply-adds on the small ResNet's 8 x 8 layers).
constexpr int64_t kMaxThinWeightTaps = 32;

// Thin: register blocks of NB output channels times G taps of one input channel, NB * G
// accumulators, each grad_out load shared by G taps and each input load by NB channels.
// Wide: register blocks of V registers of output channels times G inputs (input channel and
// tap pairs), V * G accumulators. Both sized to the vector registers there are: with 32
// (AVX-512) thin 2 x 9, wide 24 accumulators; with 16, thin 2 x 6, wide 12.
constexpr int kThinTapGroup = kHas32Registers ? 9 : 6;
constexpr int kThinChannelGroup = 2;
constexpr int kWideAccumulators = kHas32Registers ? 24 : 12;
constexpr int kWideMaxRegisters = kHas32Registers ? 3 : 2;

// acc[k * depth + t] += sum over output positions of g[k * plane + position] times the input
// under tap t (xc + taps[t], laid out as Layout says), for k < NB and t < G, over one sample.
// Rows are summed a register at a time, a remainder below one register one value at a time.
template <int NB, int G, bool Half, class T>
void thin_weight_taps(const T* g, const T* xc, T* acc, int64_t depth, const int64_t* taps, int64_t row_step,
                      int64_t Ho, int64_t Wo) {
  using S = Register<T, Half>;
  using P = typename S::V;
  constexpr int64_t L = kLanesOf<T, Half>;
  const int64_t plane = Ho * Wo, whole = Wo - Wo % L;
  P sum[NB][G];
  T rest[NB][G] = {};
  for (int k = 0; k < NB; ++k)
    for (int t = 0; t < G; ++t) sum[k][t] = S::set1(T(0));
  int64_t tap[G];  // held in registers across the loops, not reloaded per position
  for (int t = 0; t < G; ++t) tap[t] = taps[t];
  for (int64_t oh = 0; oh < Ho; ++oh) {
    const T* xr = xc + oh * row_step;
    const T* gr = g + oh * Wo;
    for (int64_t ow = 0; ow < whole; ow += L) {
      P gv[NB];
      for (int k = 0; k < NB; ++k) gv[k] = S::load(gr + k * plane + ow);
      for (int t = 0; t < G; ++t) {
        const P xv = S::load(xr + tap[t] + ow);
        for (int k = 0; k < NB; ++k) sum[k][t] = S::fmadd(gv[k], xv, sum[k][t]);
      }
    }
    for (int64_t ow = whole; ow < Wo; ++ow)
      for (int k = 0; k < NB; ++k)
        for (int t = 0; t < G; ++t) rest[k][t] += gr[k * plane + ow] * xr[tap[t] + ow];
  }
  for (int k = 0; k < NB; ++k)
    for (int t = 0; t < G; ++t)
      acc[k * depth + t] += simd::in_order_sum<T, S::kWidth>(sum[k][t]) + rest[k][t];
}

template <class T>
using ThinWeightTaps = void (*)(const T*, const T*, T*, int64_t, const int64_t*, int64_t, int64_t, int64_t);
template <int NB, bool Half, class T, int... G>
constexpr std::array<ThinWeightTaps<T>, sizeof...(G)> thin_weight_row(std::integer_sequence<int, G...>) {
  return {thin_weight_taps<NB, G + 1, Half, T>...};
}
// [NB - 1][G - 1]
template <bool Half, class T>
constexpr std::array<ThinWeightTaps<T>, kThinTapGroup> kThinWeightTaps[kThinChannelGroup] = {
    thin_weight_row<1, Half, T>(std::make_integer_sequence<int, kThinTapGroup>()),
    thin_weight_row<2, Half, T>(std::make_integer_sequence<int, kThinTapGroup>())};

// One laid-out sample's weight gradient, added into acc[Co, C * ntaps].
template <bool Half, class T>
void thin_weight_sample(const T* g, const T* xl, T* acc, int64_t C, const Layout& l, const int64_t* taps,
                        int64_t kh, int64_t ntaps, int64_t Co, int64_t Ho, int64_t Wo) {
  const int64_t depth = C * ntaps, plane = Ho * Wo;
  // A channel's taps in one group where they fit (the stem's 3 x 3), otherwise a kernel row
  // at a time (conv1's 5 x 5 as five groups of 5 ran 15% faster than as 9 + 9 + 7).
  const int64_t group = ntaps <= kThinTapGroup ? ntaps : std::min<int64_t>(kThinTapGroup, ntaps / kh);
  for (int64_t co = 0; co < Co; co += kThinChannelGroup) {
    const int64_t nb = std::min<int64_t>(kThinChannelGroup, Co - co);
    for (int64_t c = 0; c < C; ++c)
      for (int64_t t = 0; t < ntaps; t += group) {
        const int64_t gt = std::min<int64_t>(group, ntaps - t);
        kThinWeightTaps<Half, T>[nb - 1][gt - 1](g + co * plane, xl + c * l.channel(),
                                                 acc + co * depth + c * ntaps + t, depth, taps + t,
                                                 l.row_step(), Ho, Wo);
      }
  }
}

// acc[d * Cp + v * L + lane] += sum over output positions of gt[position * Cp + v * L + lane]
// times the input at xl + offs[d] + position's offset, for d < G and v < V, over one sample.
template <int V, int G, bool Half, class T>
void wide_weight_inputs(const T* gt, int64_t Cp, const T* xl, const int64_t* offs, T* acc, int64_t row_step,
                        int64_t Ho, int64_t Wo) {
  using S = Register<T, Half>;
  using P = typename S::V;
  constexpr int64_t L = kLanesOf<T, Half>;
  P sum[G][V];
  for (int d = 0; d < G; ++d)
    for (int v = 0; v < V; ++v) sum[d][v] = S::set1(T(0));
  for (int64_t oh = 0; oh < Ho; ++oh) {
    const T* xr = xl + oh * row_step;
    const T* gr = gt + oh * Wo * Cp;
    for (int64_t ow = 0; ow < Wo; ++ow, gr += Cp) {
      P gv[V];
      for (int v = 0; v < V; ++v) gv[v] = S::load(gr + v * L);
      for (int d = 0; d < G; ++d) {
        const P xv = S::set1(xr[offs[d] + ow]);
        for (int v = 0; v < V; ++v) sum[d][v] = S::fmadd(gv[v], xv, sum[d][v]);
      }
    }
  }
  for (int d = 0; d < G; ++d)
    for (int v = 0; v < V; ++v)
      S::store(acc + d * Cp + v * L, S::add(S::load(acc + d * Cp + v * L), sum[d][v]));
}

template <class T>
using WideWeightInputs = void (*)(const T*, int64_t, const T*, const int64_t*, T*, int64_t, int64_t, int64_t);
template <int V, bool Half, class T, int... G>
constexpr std::array<WideWeightInputs<T>, sizeof...(G)> wide_weight_row(std::integer_sequence<int, G...>) {
  return {wide_weight_inputs<V, G + 1, Half, T>...};
}
// wide_weight_inputs<V, G> for G = 1 .. kWideAccumulators / V, indexed by G - 1.
template <int V, bool Half, class T>
constexpr auto kWideWeightInputs =
    wide_weight_row<V, Half, T>(std::make_integer_sequence<int, kWideAccumulators / V>());

template <bool Half, class T>
WideWeightInputs<T> wide_weight_kernel(int V, int64_t g) {
  if constexpr (kWideMaxRegisters >= 3)
    if (V == 3) return kWideWeightInputs<3, Half, T>[g - 1];
  return V == 2 ? kWideWeightInputs<2, Half, T>[g - 1] : kWideWeightInputs<1, Half, T>[g - 1];
}

// One laid-out sample's weight gradient, added into acc[depth][Cp]; offs[d] is input d's
// offset in the laid-out sample (channel and tap), gt the output gradient as [position][Cp],
// Cp a multiple of the register's lanes.
template <bool Half, class T>
void wide_weight_sample(const T* gt, int64_t Cp, const T* xl, const int64_t* offs, int64_t depth, T* acc,
                        int64_t row_step, int64_t Ho, int64_t Wo) {
  constexpr int64_t L = kLanesOf<T, Half>;
  // The registers of channels in near-equal chunks of at most kWideMaxRegisters (4 as 2 + 2,
  // not 3 + 1: a chunk of one register was 10% slower over the small ResNet's 64 channels).
  const int64_t registers = Cp / L, chunks = (registers + kWideMaxRegisters - 1) / kWideMaxRegisters;
  for (int64_t k = 0; k < chunks; ++k) {
    const int64_t co = registers * k / chunks * L;
    const int V = static_cast<int>(registers * (k + 1) / chunks - registers * k / chunks);
    const int64_t group = kWideAccumulators / V;
    for (int64_t d = 0; d < depth; d += group) {
      const int64_t g = std::min(group, depth - d);
      wide_weight_kernel<Half, T>(V, g)(gt + co, Cp, xl, offs + d, acc + d * Cp + co, row_step, Ho, Wo);
    }
  }
}

bool thin_weight(int64_t C, int64_t kh, int64_t kw) { return C * kh * kw <= kMaxThinWeightTaps; }

// Whether the wide weight gradient takes half registers for Co output channels: under AVX-512
// (whose half register, 8 floats, multiplies as fast per value on the cores here) where they
// pad the channels less (the tutorial's conv2: 20 as 24, not 32) or where whole ones would
// leave each broadcast input one multiply-add (16 channels: two registers of 8).
template <class T>
bool wide_half(int64_t Co) {
  constexpr int64_t L = kLanes<T>, H = kLanesOf<T, true>;
  return kHas32Registers && ((Co + H - 1) / H * H < (Co + L - 1) / L * L || Co <= L);
}

// The registers of output channels the wide weight gradient holds for Co.
template <class T>
int64_t wide_registers(int64_t Co) {
  const int64_t lanes = wide_half<T>(Co) ? kLanesOf<T, kHasHalfRegister> : kLanes<T>;
  return (Co + lanes - 1) / lanes;
}

}  // namespace

template <class T>
bool conv2d_direct_backward_weight_fits(int64_t C, int64_t H, int64_t W, int64_t Co, int64_t kh, int64_t kw,
                                        int64_t Wo, const Conv2dParams& p) {
  // Wide needs two registers of output channels: with one (the small ResNet's 16-channel
  // layers) each broadcast input feeds a single multiply-add, and the shifted-copy GEMM was
  // faster (5.96 against 6.59 ms per batch of 64 at 32 x 32).
  return conv2d_direct_fits<T>(C, H, W, kh, kw, Wo, p) &&
         (thin_weight(C, kh, kw) || wide_registers<T>(Co) >= 2);
}

template <class T>
void conv2d_direct_backward_weight(const T* go, const T* x, T* gw, T* gb, int64_t N, int64_t C, int64_t H,
                                   int64_t W, int64_t Co, int64_t kh, int64_t kw, int64_t Ho, int64_t Wo,
                                   const Conv2dParams& p) {
  const Layout l(H, W, p);
  const bool copied = p.pad_h || p.pad_w || p.stride_w != 1;
  const int64_t ntaps = kh * kw, depth = C * ntaps, plane = Ho * Wo, weights = Co * depth;
  int64_t taps[kMaxTaps];
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j) taps[i * kw + j] = l.tap(i, j);
  const bool thin = thin_weight(C, kh, kw);
  // Wide: every input's offset (channel and tap), and the output channels padded to whole
  // registers, Cp; the accumulators are [depth][Cp].
  int64_t offs[kMaxTaps];
  if (!thin)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t t = 0; t < ntaps; ++t) offs[c * ntaps + t] = c * l.channel() + taps[t];
  const bool half = wide_half<T>(Co);
  const int64_t Cp = wide_registers<T>(Co) * (half ? kLanesOf<T, kHasHalfRegister> : kLanes<T>);
  const int64_t summed = thin ? weights : depth * Cp;
  // Thin: whole registers where rows are a multiple of one, otherwise half ones (conv1's 24-wide
  // rows: three of 8 floats under AVX-512 rather than one of 16 and 8 values one at a time).
  const auto thin_run =
      Wo % kLanes<T> == 0 ? thin_weight_sample<false, T> : thin_weight_sample<kHasHalfRegister, T>;
  const T* sum = sum_over_samples<T>(N, summed + Co, [&](int64_t n, T* acc) {
    const T* xn = x + n * C * H * W;
    if (copied) {
      T* xp = conv_scratch<T>(kConvColumns, C * l.channel());
      lay_out_sample(xn, xp, C, H, W, p.pad_h, p.pad_w, l);
      xn = xp;
    }
    const T* gn = go + n * Co * plane;
    if (thin) {
      thin_run(gn, xn, acc, C, l, taps, kh, ntaps, Co, Ho, Wo);
    } else {
      T* gt = conv_scratch<T>(kConvResult, plane * Cp);
      for (int64_t q = 0; q < plane; ++q) {
        for (int64_t co = 0; co < Co; ++co) gt[q * Cp + co] = gn[co * plane + q];
        for (int64_t co = Co; co < Cp; ++co) gt[q * Cp + co] = T(0);
      }
      (half ? wide_weight_sample<kHasHalfRegister, T>
            : wide_weight_sample<false, T>)(gt, Cp, xn, offs, depth, acc, l.row_step(), Ho, Wo);
    }
    if (gb)
      for (int64_t co = 0; co < Co; ++co)
        acc[summed + co] +=
            Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(gn + co * plane, plane).sum();
  });
  if (thin)
    std::copy(sum, sum + weights, gw);
  else
    for (int64_t co = 0; co < Co; ++co)
      for (int64_t d = 0; d < depth; ++d) gw[co * depth + d] = sum[d * Cp + co];
  if (gb) std::copy(sum + summed, sum + summed + Co, gb);
}

#define EMBER_CONV_DIRECT(T)                                                                                \
  template bool conv2d_direct_fits<T>(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,                 \
                                      const Conv2dParams&);                                                 \
  template void conv2d_direct<T>(const T*, const T*, const T*, T*, int64_t, int64_t, int64_t, int64_t,      \
                                 int64_t, int64_t, int64_t, int64_t, int64_t, const Conv2dParams&);         \
  template bool conv2d_direct_backward_input_fits<T>(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,  \
                                                     int64_t, int64_t, const Conv2dParams&);                \
  template void conv2d_direct_backward_input<T>(const T*, const T*, T*, int64_t, int64_t, int64_t, int64_t, \
                                                int64_t, int64_t, int64_t, int64_t, int64_t,                \
                                                const Conv2dParams&);                                       \
  template bool conv2d_direct_backward_weight_fits<T>(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, \
                                                      int64_t, const Conv2dParams&);                        \
  template void conv2d_direct_backward_weight<T>(const T*, const T*, T*, T*, int64_t, int64_t, int64_t,     \
                                                 int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,      \
                                                 const Conv2dParams&);
EMBER_CONV_DIRECT(float)
EMBER_CONV_DIRECT(double)
#undef EMBER_CONV_DIRECT

}  // namespace ember::cpu
