// conv2d on the CPU: im2col with the batch folded into the columns, so each direction is an
// Eigen GEMM ([C_out, C_in*kH*kW] x [C_in*kH*kW, samples*H_out*W_out]) plus a cheap reshuffle
// to or from NCHW. This route takes every layer; most layers of the models here take faster
// ones (conv_route.h chooses per pass): the direct loops of conv_direct.h (strides 1 and 2,
// up to 1024 input taps, rows at least half a register wide: every forward of the tutorial
// CNN and the small ResNet except the strided 1 x 1 shortcuts, and the input and weight
// gradients where they win) and, for stride-1 layers that the direct loops decline, the
// shifted-copy GEMMs of conv_shifted.h.
//
// The batch is folded a few samples at a time: a chunk's columns are sized to stay in L2, so
// im2col writes them and Eigen's packing reads them back without a trip to memory (folding
// the whole batch at once measured about twice as slow at the tutorial's shapes). Threads
// take contiguous runs of chunks, each with its own buffers, and Eigen runs single-threaded
// inside them (the library is built with EIGEN_DONT_PARALLELIZE). Buffers live per thread and
// only grow, so a training step allocates nothing here.
#include <Eigen/Core>
#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "ember/core/checked_math.h"
#include "ember/core/dtype_dispatch.h"
#include "ember/core/storage.h"
#include "ember/core/threads.h"
#include "ember/kernels/cpu/conv/conv_buffers.h"
#include "ember/kernels/cpu/conv/conv_direct.h"
#include "ember/kernels/cpu/conv/conv_route.h"
#include "ember/kernels/cpu/conv/conv_shifted.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/parallel.h"

namespace ember {
namespace {

template <class T>
using RowMat = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <class T>
using ConstRowMat = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <class T>
using ConstColMat = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>>;

// Column-buffer elements per GEMM that keep im2col's output in L2 for Eigen's packing.
constexpr int64_t kColumnTarget = 64 * 1024;

// The output positions [o0, o1) whose input position o * stride - pad + k * dilation lies in
// [0, size), and that input position for o = 0 (off).
struct Span {
  int64_t o0, o1, off;
};

// The input distance between two consecutive valid output rows, stride * W. Only computed
// when there are two: a stride larger than the input (legal with padding) leaves one valid
// row, and stride * W could then overflow.
inline int64_t row_pitch(const Span& r, int64_t stride, int64_t W) {
  return r.o1 - r.o0 > 1 ? stride * W : 0;
}
Span valid_span(int64_t size, int64_t out, int64_t k, int64_t stride, int64_t pad, int64_t dilation) {
  Span s;
  s.off = k * dilation - pad;
  // ceil(-off / stride), written so that a huge stride cannot overflow the numerator.
  s.o0 = s.off >= 0 ? 0 : (-s.off - 1) / stride + 1;
  s.o1 = size - 1 - s.off < 0 ? 0 : std::min(out, (size - 1 - s.off) / stride + 1);
  s.o0 = std::min(s.o0, out);
  s.o1 = std::max(s.o1, s.o0);
  return s;
}

struct Geometry {
  int64_t N, C, H, W, Co, kh, kw, Ho, Wo;
  Conv2dParams p;
  int64_t K() const { return C * kh * kw; }
  int64_t P() const { return Ho * Wo; }
  Span rows(int64_t i) const { return valid_span(H, Ho, i, p.stride_h, p.pad_h, p.dilation_h); }
  Span cols(int64_t j) const { return valid_span(W, Wo, j, p.stride_w, p.pad_w, p.dilation_w); }
};

Geometry geometry(const Tensor& input, const Tensor& weight_or_grad_w, const Tensor& out,
                  const Conv2dParams& p) {
  return Geometry{input.size(0),
                  input.size(1),
                  input.size(2),
                  input.size(3),
                  weight_or_grad_w.size(0),
                  weight_or_grad_w.size(2),
                  weight_or_grad_w.size(3),
                  out.size(2),
                  out.size(3),
                  p};
}

// How the batch is cut: chunks of `chunk` samples (one GEMM each), grouped into `parts`
// (contiguous runs of chunks) that the pool's threads claim one at a time. Several parts per
// thread, so a thread that is slower (or lost its core) leaves its unclaimed parts to the
// others; one part on one thread. The weight gradient keeps one partial sum per part, added
// in part order, so a given thread count always gives the same bits.
struct Split {
  int64_t chunk, chunks, parts;
};

// Every pass calls this first, whatever its route. A sample's column buffer, [C_in * kH * kW,
// H_out * W_out], must be countable; the front-end has checked that H_out * W_out is.
Split split(const Geometry& g) {
  const int64_t per_sample = std::max<int64_t>(1, checked_mul(g.K(), g.P(), "conv2d"));
  Split s;
  s.chunk = std::clamp<int64_t>(kColumnTarget / per_sample, 1, std::max<int64_t>(g.N, 1));
  s.chunks = (g.N + s.chunk - 1) / s.chunk;
  const int threads = get_num_threads();
  s.parts = threads == 1 ? 1 : std::max<int64_t>(1, std::min<int64_t>(threads * kRangesPerThread, s.chunks));
  return s;
}

// Calls f(part, n0, nb) for every chunk of nb samples starting at n0; parts run in parallel.
template <class F>
void for_chunks(const Geometry& g, const Split& s, const F& f) {
  parallel_for(s.parts, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t part = lo; part < hi; ++part)
      for (int64_t c = part * s.chunks / s.parts; c < (part + 1) * s.chunks / s.parts; ++c) {
        const int64_t n0 = c * s.chunk;
        f(part, n0, std::min(s.chunk, g.N - n0));
      }
  });
}

using cpu::copy_even;
using cpu::copy_run;
using cpu::copy_vec;
using cpu::kRunLanes;
using cpu::RunLanes;
using cpu::zero_run;

template <class T>
inline void add_vec(T* d, const T* s) {
  RunLanes<T>::store(d, RunLanes<T>::add(RunLanes<T>::load(d), RunLanes<T>::load(s)));
}

// rows x n block copy (Op::copy) or accumulation (Op::add) between row strides ds and ss.
// Output rows are often one or a few registers long (8 floats at the tutorial's second
// layer), so the shape of the inner loop is chosen once per block, not once per row.
enum class Op { copy, add };
template <Op op, class T>
void block(T* d, int64_t ds, const T* s, int64_t ss, int64_t rows, int64_t n) {
  constexpr int64_t V = kRunLanes<T>;
  auto vec = [](T* dv, const T* sv) {
    if constexpr (op == Op::copy)
      copy_vec(dv, sv);
    else
      add_vec(dv, sv);
  };
  if (n == V) {
    int64_t r = 0;
    for (; r + 2 <= rows; r += 2, d += 2 * ds, s += 2 * ss) vec(d, s), vec(d + ds, s + ss);
    if (r < rows) vec(d, s);
  } else if (n % V == 0) {
    for (int64_t r = 0; r < rows; ++r, d += ds, s += ss)
      for (int64_t i = 0; i < n; i += V) vec(d + i, s + i);
  } else if (op == Op::copy) {
    for (int64_t r = 0; r < rows; ++r, d += ds, s += ss) copy_run(d, s, n);
  } else {
    const int64_t whole = n - n % V;
    for (int64_t r = 0; r < rows; ++r, d += ds, s += ss) {
      for (int64_t i = 0; i < whole; i += V) vec(d + i, s + i);
      for (int64_t i = whole; i < n; ++i) d[i] += s[i];
    }
  }
}

template <class T>
using Run = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <class T>
using ConstRun = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Calls f(k, c, rows, cols) for every row k = (c * kh + i) * kw + j of the column matrix, with
// the valid output rows of kernel row i and columns of kernel column j. The spans are worked
// out once per kernel row and column, not per k: their divisions cost more than copying a
// small layer's row (the tutorial's conv2 has 250 column rows of 64 values per sample).
template <class F>
void for_each_row_of_columns(const Geometry& g, const F& f) {
  thread_local std::vector<Span> cols;
  cols.resize(static_cast<size_t>(g.kw));
  for (int64_t j = 0; j < g.kw; ++j) cols[j] = g.cols(j);
  for (int64_t c = 0, k = 0; c < g.C; ++c)
    for (int64_t i = 0; i < g.kh; ++i) {
      const Span r = g.rows(i);
      for (int64_t j = 0; j < g.kw; ++j, ++k) f(k, c, r, cols[j]);
    }
}

// col[k, n * P + p] = x[n, c, oh * sh - ph + i * dh, ow * sw - pw + j * dw] (0 outside),
// k = (c * kh + i) * kw + j, for the nb samples starting at x.
template <class T>
void im2col(const T* x, T* col, const Geometry& g, int64_t nb) {
  const int64_t P = g.P(), NP = nb * P, HW = g.H * g.W, sh = g.p.stride_h, sw = g.p.stride_w;
  for_each_row_of_columns(g, [&](int64_t k, int64_t c, const Span& r, const Span& q) {
    for (int64_t n = 0; n < nb; ++n) {
      const T* plane = x + (n * g.C + c) * HW;
      T* dst = col + k * NP + n * P;
      zero_run(dst, r.o0 * g.Wo);
      zero_run(dst + r.o1 * g.Wo, P - r.o1 * g.Wo);
      if (r.o1 == r.o0) continue;
      const T* src = plane + (r.o0 * sh + r.off) * g.W;
      const int64_t pitch = row_pitch(r, sh, g.W);
      if (sw == 1 && q.o0 == 0 && q.o1 == g.Wo) {
        block<Op::copy>(dst + r.o0 * g.Wo, g.Wo, src + q.off, pitch, r.o1 - r.o0, g.Wo);
      } else {
        for (int64_t oh = r.o0; oh < r.o1; ++oh) {
          T* d = dst + oh * g.Wo;
          const T* row = src + (oh - r.o0) * pitch;
          zero_run(d, q.o0);
          // With no valid column, q.off may lie far outside the row: not even formed.
          if (q.o1 > q.o0 && sw == 1)
            copy_run(d + q.o0, row + q.o0 + q.off, q.o1 - q.o0);
          else if (q.o1 > q.o0 && sw == 2)
            copy_even(d + q.o0, row + 2 * q.o0 + q.off, q.o1 - q.o0);
          else if (q.o1 > q.o0)
            for (int64_t ow = q.o0; ow < q.o1; ++ow) d[ow] = row[ow * sw + q.off];
          zero_run(d + q.o1, g.Wo - q.o1);
        }
      }
    }
  });
}

// The adjoint of im2col: grad_x[n, c, ...] = sum of the columns that read it, for nb samples.
template <class T>
void col2im(const T* col, T* gx, const Geometry& g, int64_t nb) {
  const int64_t P = g.P(), NP = nb * P, HW = g.H * g.W, sh = g.p.stride_h, sw = g.p.stride_w;
  std::fill(gx, gx + nb * g.C * HW, T(0));
  for_each_row_of_columns(g, [&](int64_t k, int64_t c, const Span& r, const Span& q) {
    for (int64_t n = 0; n < nb; ++n) {
      T* plane = gx + (n * g.C + c) * HW;
      const T* src = col + k * NP + n * P;
      if (r.o1 == r.o0 || q.o1 == q.o0) continue;
      T* row = plane + (r.o0 * sh + r.off) * g.W;
      const int64_t pitch = row_pitch(r, sh, g.W);
      if (sw == 1) {
        block<Op::add>(row + q.o0 + q.off, pitch, src + r.o0 * g.Wo + q.o0, g.Wo, r.o1 - r.o0, q.o1 - q.o0);
      } else {
        for (int64_t oh = r.o0; oh < r.o1; ++oh) {
          T* rr = row + (oh - r.o0) * pitch;
          for (int64_t ow = q.o0; ow < q.o1; ++ow) rr[ow * sw + q.off] += src[oh * g.Wo + ow];
        }
      }
    }
  });
}

// dst[co, n * P + p] = src[n, co, p] for nb samples (NCHW -> channel-major; skipped when dst
// is null), with the per-channel sums added into bias_grad (when given), in one pass.
template <class T>
void to_channel_major(const T* src, T* dst, int64_t nb, int64_t Co, int64_t P, T* bias_grad) {
  for (int64_t n = 0; n < nb; ++n)
    for (int64_t co = 0; co < Co; ++co) {
      const T* s = src + (n * Co + co) * P;
      if (dst) copy_run(dst + co * nb * P + n * P, s, P);
      if (bias_grad) bias_grad[co] += ConstRun<T>(s, P).sum();
    }
}

const void* data(const Tensor& t) { return t.defined() ? t.raw_data() : nullptr; }

}  // namespace

namespace cpu {

ConvRoute conv2d_route(ConvPass pass, DType dtype, int64_t C, int64_t H, int64_t W, int64_t Co, int64_t kh,
                       int64_t kw, int64_t Ho, int64_t Wo, const Conv2dParams& p) {
  auto direct = [&](auto zero) {
    using T = decltype(zero);
    switch (pass) {
      case ConvPass::forward:
        return conv2d_direct_fits<T>(C, H, W, kh, kw, Wo, p);
      case ConvPass::backward_input:
        return conv2d_direct_backward_input_fits<T>(C, H, W, Co, kh, kw, Ho, Wo, p);
      case ConvPass::backward_weight:
        return conv2d_direct_backward_weight_fits<T>(C, H, W, Co, kh, kw, Wo, p);
    }
    return false;
  };
  if (dtype == DType::Float32 ? direct(float()) : dtype == DType::Float64 && direct(double()))
    return ConvRoute::direct;
  if (conv2d_shifted_fits(pass, C, Co, H, W, kh, kw, p)) return ConvRoute::shifted;
  return ConvRoute::columns;
}

}  // namespace cpu

namespace {
cpu::ConvRoute route(cpu::ConvPass pass, const Tensor& t, const Geometry& g) {
  return cpu::conv2d_route(pass, t.dtype(), g.C, g.H, g.W, g.Co, g.kh, g.kw, g.Ho, g.Wo, g.p);
}
}  // namespace

void CpuBackend::conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const Conv2dParams& p) {
  cpu::ConvScratchScope scratch;  // its buffers stay valid until this call returns
  const Geometry g = geometry(input, weight, out, p);
  const Split s = split(g);
  EMBER_DISPATCH_FLOATING(out.dtype(), "conv2d", [&] {
    using T = scalar_t;
    const T* x = static_cast<const T*>(input.raw_data());
    const T* w = static_cast<const T*>(weight.raw_data());
    const T* b = static_cast<const T*>(data(bias));
    T* o = static_cast<T*>(out.raw_data());
    const cpu::ConvRoute r = route(cpu::ConvPass::forward, out, g);
    if (r == cpu::ConvRoute::direct) {
      cpu::conv2d_direct(x, w, b, o, g.N, g.C, g.H, g.W, g.Co, g.kh, g.kw, g.Ho, g.Wo, p);
      return;
    }
    if (r == cpu::ConvRoute::shifted) {
      cpu::conv2d_shifted(x, w, b, o, g.N, g.C, g.H, g.W, g.Co, g.kh, g.kw, p);
      return;
    }
    const int64_t K = g.K(), P = g.P();
    for_chunks(g, s, [&](int64_t, int64_t n0, int64_t nb) {
      const int64_t NP = nb * P;
      T* on = o + n0 * g.Co * P;
      // With one sample the GEMM's [C_out, P] result is already NCHW.
      T* result = nb == 1 ? on : cpu::conv_scratch<T>(cpu::kConvResult, g.Co * NP);
      RowMat<T> res(result, g.Co, NP);
      if (K == 0) {
        res.setZero();
      } else {
        T* col = cpu::conv_scratch<T>(cpu::kConvColumns, K * NP);
        im2col(x + n0 * g.C * g.H * g.W, col, g, nb);
        res.noalias() = ConstRowMat<T>(w, g.Co, K) * ConstRowMat<T>(col, K, NP);
      }
      for (int64_t n = 0; n < nb; ++n)
        for (int64_t co = 0; co < g.Co; ++co) {
          const T* src = result + co * NP + n * P;
          T* dst = on + (n * g.Co + co) * P;
          if (b)
            Run<T>(dst, P) = ConstRun<T>(src, P) + b[co];
          else if (src != dst)
            copy_run(dst, src, P);
        }
    });
  });
}

void CpuBackend::conv2d_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                                       const Conv2dParams& p) {
  cpu::ConvScratchScope scratch;  // its buffers stay valid until this call returns
  const Geometry g = geometry(grad_input, weight, grad_out, p);
  const Split s = split(g);
  EMBER_DISPATCH_FLOATING(grad_input.dtype(), "conv2d_backward_input", [&] {
    using T = scalar_t;
    const T* go = static_cast<const T*>(grad_out.raw_data());
    const T* w = static_cast<const T*>(weight.raw_data());
    T* gi = static_cast<T*>(grad_input.raw_data());
    const int64_t K = g.K(), P = g.P();
    if (K == 0) return;
    const cpu::ConvRoute r = route(cpu::ConvPass::backward_input, grad_input, g);
    if (r == cpu::ConvRoute::direct) {
      cpu::conv2d_direct_backward_input(go, w, gi, g.N, g.C, g.H, g.W, g.Co, g.kh, g.kw, g.Ho, g.Wo, p);
      return;
    }
    if (r == cpu::ConvRoute::shifted) {
      cpu::conv2d_shifted_backward_input(go, w, gi, g.N, g.C, g.H, g.W, g.Co, g.kh, g.kw, p);
      return;
    }
    for_chunks(g, s, [&](int64_t, int64_t n0, int64_t nb) {
      const int64_t NP = nb * P;
      const T* gon = go + n0 * g.Co * P;
      // With one sample the NCHW gradient is already channel-major.
      T* buf = nb > 1 ? cpu::conv_scratch<T>(cpu::kConvResult, g.Co * NP) : nullptr;
      if (buf) to_channel_major(gon, buf, nb, g.Co, P, static_cast<T*>(nullptr));
      T* col = cpu::conv_scratch<T>(cpu::kConvColumns, K * NP);
      RowMat<T>(col, K, NP).noalias() =
          ConstColMat<T>(w, K, g.Co) * ConstRowMat<T>(buf ? buf : gon, g.Co, NP);
      col2im(col, gi + n0 * g.C * g.H * g.W, g, nb);
    });
  });
}

void CpuBackend::conv2d_backward_weight(const Tensor& grad_weight, const Tensor& grad_bias,
                                        const Tensor& grad_out, const Tensor& input, const Conv2dParams& p) {
  cpu::ConvScratchScope scratch;  // its buffers stay valid until this call returns
  const Geometry g = geometry(input, grad_weight, grad_out, p);
  const Split s = split(g);
  EMBER_DISPATCH_FLOATING(grad_weight.dtype(), "conv2d_backward_weight", [&] {
    using T = scalar_t;
    const T* go = static_cast<const T*>(grad_out.raw_data());
    const T* x = static_cast<const T*>(input.raw_data());
    const bool with_bias = grad_bias.defined();
    const cpu::ConvRoute r = route(cpu::ConvPass::backward_weight, grad_weight, g);
    if (r == cpu::ConvRoute::direct) {
      cpu::conv2d_direct_backward_weight(go, x, static_cast<T*>(grad_weight.raw_data()),
                                         with_bias ? static_cast<T*>(grad_bias.raw_data()) : nullptr, g.N,
                                         g.C, g.H, g.W, g.Co, g.kh, g.kw, g.Ho, g.Wo, p);
      return;
    }
    if (r == cpu::ConvRoute::shifted) {
      cpu::conv2d_shifted_backward_weight(go, x, static_cast<T*>(grad_weight.raw_data()),
                                          with_bias ? static_cast<T*>(grad_bias.raw_data()) : nullptr, g.N,
                                          g.C, g.H, g.W, g.Co, g.kh, g.kw, p);
      return;
    }
    const int64_t K = g.K(), P = g.P(), stride = g.Co * K + g.Co;
    // Part 0 sums into the outputs; the others into partials added in part order afterwards,
    // so a given thread count always gives the same bits.
    T* partials = s.parts > 1 ? cpu::conv_scratch<T>(cpu::kConvPartials, (s.parts - 1) * stride) : nullptr;
    auto weight_acc = [&](int64_t part) {
      return part == 0 ? static_cast<T*>(grad_weight.raw_data()) : partials + (part - 1) * stride;
    };
    auto bias_acc = [&](int64_t part) {
      if (!with_bias) return static_cast<T*>(nullptr);
      return part == 0 ? static_cast<T*>(grad_bias.raw_data()) : partials + (part - 1) * stride + g.Co * K;
    };
    for (int64_t part = 0; part < s.parts; ++part) {
      std::fill(weight_acc(part), weight_acc(part) + g.Co * K, T(0));
      if (with_bias) std::fill(bias_acc(part), bias_acc(part) + g.Co, T(0));
    }
    for_chunks(g, s, [&](int64_t part, int64_t n0, int64_t nb) {
      const int64_t NP = nb * P;
      const T* gon = go + n0 * g.Co * P;
      T* buf = nb > 1 ? cpu::conv_scratch<T>(cpu::kConvResult, g.Co * NP) : nullptr;
      if (buf || with_bias) to_channel_major(gon, buf, nb, g.Co, P, bias_acc(part));
      if (K == 0) return;
      T* col = cpu::conv_scratch<T>(cpu::kConvColumns, K * NP);
      im2col(x + n0 * g.C * g.H * g.W, col, g, nb);
      // col viewed column-major is col^T [samples * P, K].
      RowMat<T>(weight_acc(part), g.Co, K).noalias() +=
          ConstRowMat<T>(buf ? buf : gon, g.Co, NP) * ConstColMat<T>(col, NP, K);
    });
    for (int64_t part = 1; part < s.parts; ++part) {
      RowMat<T>(weight_acc(0), g.Co, K) += RowMat<T>(weight_acc(part), g.Co, K);
      if (with_bias) RowMat<T>(bias_acc(0), 1, g.Co) += RowMat<T>(bias_acc(part), 1, g.Co);
    }
  });
}

}  // namespace ember
