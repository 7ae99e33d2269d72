// conv2d on the CPU: im2col with the batch folded into the columns, so each direction is
// one Eigen GEMM ([C_out, C_in*kH*kW] x [C_in*kH*kW, N*H_out*W_out]) plus a cheap reshuffle
// to or from NCHW. The column and reshuffle buffers live per thread and only grow, so a
// training step allocates nothing here. Very large batches are cut into chunks to bound
// that memory.
#include <Eigen/Core>
#include <algorithm>
#include <cstring>
#include <vector>

#include "ember/core/threads.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/parallel.h"

namespace ember {
namespace {

template <class T>
using RowMat = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <class T>
using ConstRowMat =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <class T>
using ConstColMat = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>>;

// The most column-buffer elements one GEMM works on (64 MiB of float32); a batch whose
// columns would exceed it is processed a few samples at a time.
constexpr int64_t kMaxColumnElements = int64_t(16) << 20;

// Buffers that outlive the call: slot 0 holds columns, slot 1 the gradient in [C_out, N*P].
template <class T>
T* scratch(int slot, int64_t n) {
  thread_local std::vector<T> buffers[2];
  std::vector<T>& b = buffers[slot];
  if (static_cast<int64_t>(b.size()) < n) {
    b.clear();
    b.resize(static_cast<size_t>(n));
  }
  return b.data();
}

struct Geometry {
  int64_t N, C, H, W, Co, kh, kw, Ho, Wo;
  Conv2dParams p;
  int64_t K() const { return C * kh * kw; }
  int64_t P() const { return Ho * Wo; }
  // Samples per GEMM.
  int64_t chunk() const {
    const int64_t per_sample = std::max<int64_t>(1, K() * P());
    return std::clamp<int64_t>(kMaxColumnElements / per_sample, 1, std::max<int64_t>(N, 1));
  }
  // The output columns [ow0, ow1) whose input column ow * stride - pad + j * dilation is
  // inside the image, and that column's offset for ow = 0.
  void valid_cols(int64_t j, int64_t& ow0, int64_t& ow1, int64_t& off) const {
    off = j * p.dilation_w - p.pad_w;
    ow0 = off >= 0 ? 0 : (-off + p.stride_w - 1) / p.stride_w;
    ow1 = W - 1 - off < 0 ? 0 : std::min(Wo, (W - 1 - off) / p.stride_w + 1);
    ow0 = std::min(ow0, Wo);
    ow1 = std::max(ow1, ow0);
  }
};

Geometry geometry(const Tensor& input, const Tensor& weight_or_grad_w, const Tensor& out,
                  const Conv2dParams& p) {
  return Geometry{input.size(0), input.size(1), input.size(2), input.size(3),
                  weight_or_grad_w.size(0), weight_or_grad_w.size(2), weight_or_grad_w.size(3),
                  out.size(2), out.size(3), p};
}

// col[k, n * P + p] = x[n, c, oh * sh - ph + i * dh, ow * sw - pw + j * dw] (0 outside),
// k = (c * kh + i) * kw + j, for the nb samples starting at x.
template <class T>
void im2col(const T* x, T* col, const Geometry& g, int64_t nb) {
  const int64_t P = g.P(), NP = nb * P, HW = g.H * g.W, khw = g.kh * g.kw;
  parallel_for(g.K() * nb, std::max<int64_t>(1, 16384 / std::max<int64_t>(P, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t r = lo; r < hi; ++r) {
                   const int64_t k = r / nb, n = r % nb;
                   const int64_t c = k / khw, i = (k / g.kw) % g.kh, j = k % g.kw;
                   const T* plane = x + (n * g.C + c) * HW;
                   T* dst = col + k * NP + n * P;
                   int64_t ow0, ow1, off;
                   g.valid_cols(j, ow0, ow1, off);
                   for (int64_t oh = 0; oh < g.Ho; ++oh) {
                     T* d = dst + oh * g.Wo;
                     const int64_t ih = oh * g.p.stride_h - g.p.pad_h + i * g.p.dilation_h;
                     if (ih < 0 || ih >= g.H) {
                       std::fill(d, d + g.Wo, T(0));
                       continue;
                     }
                     const T* row = plane + ih * g.W;
                     std::fill(d, d + ow0, T(0));
                     if (g.p.stride_w == 1) {
                       std::memcpy(d + ow0, row + (ow0 + off), sizeof(T) * (ow1 - ow0));
                     } else {
                       for (int64_t ow = ow0; ow < ow1; ++ow) d[ow] = row[ow * g.p.stride_w + off];
                     }
                     std::fill(d + ow1, d + g.Wo, T(0));
                   }
                 }
               });
}

// The adjoint of im2col: grad_x[n, c, ...] = sum of the columns that read it, for nb samples.
template <class T>
void col2im(const T* col, T* gx, const Geometry& g, int64_t nb) {
  const int64_t P = g.P(), NP = nb * P, HW = g.H * g.W;
  parallel_for(nb * g.C, std::max<int64_t>(1, 16384 / std::max<int64_t>(HW * g.kh * g.kw, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t r = lo; r < hi; ++r) {
                   const int64_t n = r / g.C, c = r % g.C;
                   T* plane = gx + r * HW;
                   std::fill(plane, plane + HW, T(0));
                   for (int64_t i = 0; i < g.kh; ++i) {
                     for (int64_t j = 0; j < g.kw; ++j) {
                       const T* src = col + ((c * g.kh + i) * g.kw + j) * NP + n * P;
                       int64_t ow0, ow1, off;
                       g.valid_cols(j, ow0, ow1, off);
                       for (int64_t oh = 0; oh < g.Ho; ++oh) {
                         const int64_t ih = oh * g.p.stride_h - g.p.pad_h + i * g.p.dilation_h;
                         if (ih < 0 || ih >= g.H) continue;
                         T* row = plane + ih * g.W;
                         const T* s = src + oh * g.Wo;
                         if (g.p.stride_w == 1) {
                           for (int64_t ow = ow0; ow < ow1; ++ow) row[ow + off] += s[ow];
                         } else {
                           for (int64_t ow = ow0; ow < ow1; ++ow) row[ow * g.p.stride_w + off] += s[ow];
                         }
                       }
                     }
                   }
                 }
               });
}

// dst[co, n * P + p] = src[n, co, p] for nb samples (NCHW -> channel-major; skipped when
// dst is null), and the per-channel sums added into bias_grad (when given), in one pass.
template <class T>
void to_channel_major(const T* src, T* dst, int64_t nb, int64_t Co, int64_t P, T* bias_grad) {
  parallel_for(Co, std::max<int64_t>(1, 16384 / std::max<int64_t>(nb * P, 1)), [&](int64_t lo, int64_t hi) {
    for (int64_t co = lo; co < hi; ++co) {
      T sum = 0;
      for (int64_t n = 0; n < nb; ++n) {
        const T* s = src + (n * Co + co) * P;
        if (dst) std::memcpy(dst + co * nb * P + n * P, s, sizeof(T) * P);
        if (bias_grad) sum += Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(s, P).sum();
      }
      if (bias_grad) bias_grad[co] += sum;
    }
  });
}

void set_eigen_threads() { Eigen::setNbThreads(get_num_threads()); }

}  // namespace

void CpuBackend::conv2d(const Tensor& out, const Tensor& input, const Tensor& weight,
                        const Tensor& bias, const Conv2dParams& p) {
  set_eigen_threads();
  const Geometry g = geometry(input, weight, out, p);
  EMBER_DISPATCH_FLOATING(out.dtype(), "conv2d", [&] {
    using T = scalar_t;
    const T* x = static_cast<const T*>(input.raw_data());
    const T* w = static_cast<const T*>(weight.raw_data());
    const T* b = bias.defined() ? static_cast<const T*>(bias.raw_data()) : nullptr;
    T* o = static_cast<T*>(out.raw_data());
    const int64_t K = g.K(), P = g.P(), step = g.chunk();
    for (int64_t n0 = 0; n0 < g.N; n0 += step) {
      const int64_t nb = std::min(step, g.N - n0), NP = nb * P;
      T* on = o + n0 * g.Co * P;
      // With one sample the GEMM's [C_out, P] result is already NCHW.
      T* result = nb == 1 ? on : scratch<T>(1, g.Co * NP);
      RowMat<T> res(result, g.Co, NP);
      if (K == 0) {
        res.setZero();
      } else {
        T* col = scratch<T>(0, K * NP);
        im2col(x + n0 * g.C * g.H * g.W, col, g, nb);
        res.noalias() = ConstRowMat<T>(w, g.Co, K) * ConstRowMat<T>(col, K, NP);
      }
      parallel_for(nb * g.Co, std::max<int64_t>(1, 16384 / std::max<int64_t>(P, 1)),
                   [&](int64_t lo, int64_t hi) {
                     for (int64_t r = lo; r < hi; ++r) {
                       const int64_t n = r / g.Co, co = r % g.Co;
                       const T* s = result + co * NP + n * P;
                       T* d = on + r * P;
                       const T add = b ? b[co] : T(0);
                       if (s == d) {
                         if (b) for (int64_t i = 0; i < P; ++i) d[i] += add;
                       } else {
                         for (int64_t i = 0; i < P; ++i) d[i] = s[i] + add;
                       }
                     }
                   });
    }
  });
}

void CpuBackend::conv2d_backward_input(const Tensor& grad_input, const Tensor& grad_out,
                                       const Tensor& weight, const Conv2dParams& p) {
  set_eigen_threads();
  const Geometry g = geometry(grad_input, weight, grad_out, p);
  EMBER_DISPATCH_FLOATING(grad_input.dtype(), "conv2d_backward_input", [&] {
    using T = scalar_t;
    const T* go = static_cast<const T*>(grad_out.raw_data());
    const T* w = static_cast<const T*>(weight.raw_data());
    T* gi = static_cast<T*>(grad_input.raw_data());
    const int64_t K = g.K(), P = g.P(), step = g.chunk();
    if (K == 0) return;
    for (int64_t n0 = 0; n0 < g.N; n0 += step) {
      const int64_t nb = std::min(step, g.N - n0), NP = nb * P;
      const T* gon = go + n0 * g.Co * P;
      const T* gcm = gon;
      if (nb > 1) {
        T* buf = scratch<T>(1, g.Co * NP);
        to_channel_major(gon, buf, nb, g.Co, P, static_cast<T*>(nullptr));
        gcm = buf;
      }
      T* col = scratch<T>(0, K * NP);
      RowMat<T>(col, K, NP).noalias() =
          ConstColMat<T>(w, K, g.Co) * ConstRowMat<T>(gcm, g.Co, NP);
      col2im(col, gi + n0 * g.C * g.H * g.W, g, nb);
    }
  });
}

void CpuBackend::conv2d_backward_weight(const Tensor& grad_weight, const Tensor& grad_bias,
                                        const Tensor& grad_out, const Tensor& input,
                                        const Conv2dParams& p) {
  set_eigen_threads();
  const Geometry g = geometry(input, grad_weight, grad_out, p);
  EMBER_DISPATCH_FLOATING(grad_weight.dtype(), "conv2d_backward_weight", [&] {
    using T = scalar_t;
    const T* go = static_cast<const T*>(grad_out.raw_data());
    const T* x = static_cast<const T*>(input.raw_data());
    T* gw = static_cast<T*>(grad_weight.raw_data());
    T* gb = grad_bias.defined() ? static_cast<T*>(grad_bias.raw_data()) : nullptr;
    const int64_t K = g.K(), P = g.P(), step = g.chunk();
    RowMat<T> gwm(gw, g.Co, K);
    gwm.setZero();
    if (gb) std::fill(gb, gb + g.Co, T(0));
    for (int64_t n0 = 0; n0 < g.N; n0 += step) {
      const int64_t nb = std::min(step, g.N - n0), NP = nb * P;
      const T* gon = go + n0 * g.Co * P;
      // With one sample the NCHW gradient is already channel-major.
      T* buf = nb > 1 ? scratch<T>(1, g.Co * NP) : nullptr;
      if (buf || gb) to_channel_major(gon, buf, nb, g.Co, P, gb);
      const T* gcm = buf ? buf : gon;
      if (K == 0) continue;
      T* col = scratch<T>(0, K * NP);
      im2col(x + n0 * g.C * g.H * g.W, col, g, nb);
      // col viewed column-major is col^T [N*P, K].
      gwm.noalias() += ConstRowMat<T>(gcm, g.Co, NP) * ConstColMat<T>(col, NP, K);
    }
  });
}

}  // namespace ember
