// Pooling on the CPU: every (sample, channel) plane is independent, so planes are spread over
// threads and each backward writes only its own plane (no atomics). The common 2x2, stride 2
// max pool gets an unrolled path.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/parallel.h"
#include "ember/kernels/cpu/simd.h"

namespace ember {
namespace {

namespace simd = cpu::simd;

struct Planes {
  int64_t count, H, W, Ho, Wo;
};

Planes planes_of(const Tensor& input, const Tensor& out) {
  return Planes{input.size(0) * input.size(1), input.size(2), input.size(3), out.size(2), out.size(3)};
}

template <class F>
void for_planes(const Planes& g, int64_t work_per_plane, const F& f) {
  parallel_for(g.count, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(work_per_plane, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t r = lo; r < hi; ++r) f(r);
               });
}

// The window of output (oh, ow) clipped to the image: rows [h0, h1), columns [w0, w1).
struct Window {
  int64_t h0, h1, w0, w1;
};
inline Window window(const Pool2dParams& p, const Planes& g, int64_t oh, int64_t ow) {
  const int64_t hs = oh * p.stride_h - p.pad_h, ws = ow * p.stride_w - p.pad_w;
  return Window{std::max<int64_t>(hs, 0), std::min(hs + p.kernel_h, g.H), std::max<int64_t>(ws, 0),
                std::min(ws + p.kernel_w, g.W)};
}

// The common 2x2, stride 2 pool without padding (tutorial CNNs), which has a vectorised path.
bool is_two_by_two(const Pool2dParams& p, const Planes& g) {
  return p.kernel_h == 2 && p.kernel_w == 2 && p.stride_h == 2 && p.stride_w == 2 && p.pad_h == 0 &&
         p.pad_w == 0 && g.W < (int64_t(1) << 30);
}

// Calls f(o, cell) for every output position o of a plane and every input position (cell)
// inside o's clipped window.
template <class F>
void for_window_cells(const Pool2dParams& p, const Planes& g, const F& f) {
  for (int64_t oh = 0; oh < g.Ho; ++oh)
    for (int64_t ow = 0; ow < g.Wo; ++ow) {
      const Window win = window(p, g, oh, ow);
      for (int64_t h = win.h0; h < win.h1; ++h)
        for (int64_t w = win.w0; w < win.w1; ++w) f(oh * g.Wo + ow, h * g.W + w);
    }
}

// NaN wins, as in PyTorch: a NaN anywhere in the window is the maximum (the first one).
// v beats best when best is not NaN and v is greater or NaN. Written this way (not with
// isnan and ||) the compiler turns the 2x2 loop below into vector selects.
template <class T>
inline bool better(T v, T best) {
  return !(v <= best) && best == best;  // NOLINT: best == best is "best is not NaN"
}

// One output row of a 2x2, stride 2 max pool, one output at a time without branches.
template <class T>
void max_row_2x2(const T* __restrict r0, const T* __restrict r1, T* __restrict out, int64_t* __restrict idx,
                 int64_t Wo, int64_t W, int64_t base) {
  for (int64_t ow = 0; ow < Wo; ++ow) {
    const T a = r0[2 * ow], b = r0[2 * ow + 1], c = r1[2 * ow], d = r1[2 * ow + 1];
    T best = a;
    int64_t at = 0;
    if (better(b, best)) best = b, at = 1;
    if (better(c, best)) best = c, at = W;
    if (better(d, best)) best = d, at = W + 1;
    out[ow] = best;
    idx[ow] = base + 2 * ow + at;
  }
}

#if EMBER_SIMD_AVX2
// float rows, W outputs at a time: each row's 2W inputs are split into even and odd columns
// with one shuffle each, and the comparisons become vector selects. The compiler did not
// vectorise the loop above at all for the rows of the tutorial's pools (12 and 4 outputs
// wide, less than one AVX-512 register), and its NaN tests became branches that random
// data mispredicts: 15% of the tutorial's training step. A row is covered by chunks of 8,
// then one of 4, then a last chunk of 4 moved back to end at Wo (it recomputes the same
// outputs): 12 outputs are 8 + 4, 9 are 8 + 4 ending at 9. Rows narrower than 4, and every row
// in a build without AVX2, take the loop above.

// The vector form of better(): v > best or v is NaN, unless best is NaN already.
template <int W>
inline typename simd::Lanes<float, W>::M better_lanes(typename simd::Lanes<float, W>::V v,
                                                      typename simd::Lanes<float, W>::V best) {
  using S = simd::Lanes<float, W>;
  return S::mask_and(S::not_less_equal(v, best), S::is_number(best));
}

// W outputs of a row from 2W columns of rows r0 and r1; `first` is r0's flat index in the plane.
template <int W>
inline void max_chunk_2x2(const float* r0, const float* r1, float* out, int64_t* idx, int32_t cols,
                          int64_t first) {
  using S = simd::Lanes<float, W>;
  const typename S::V a0 = S::load(r0), a1 = S::load(r0 + W), c0 = S::load(r1), c1 = S::load(r1 + W);
  const typename S::V a = S::template every_other<0, 0>(a0, a1), b = S::template every_other<1, 1>(a0, a1);
  const typename S::V c = S::template every_other<0, 0>(c0, c1), d = S::template every_other<1, 1>(c0, c1);
  // at: the winner's offset from a, as in the loop above.
  typename S::V best = a;
  typename S::I at = S::set1i(0);
  auto consider = [&](typename S::V v, int32_t offset) {
    const typename S::M take = better_lanes<W>(v, best);
    best = S::select(take, v, best);
    at = S::select_bits(take, S::set1i(offset), at);
  };
  consider(b, 1);
  consider(c, cols);
  consider(d, cols + 1);
  S::store(out, best);
  // Each lane's a is two columns right of its predecessor's.
  S::store_widened(idx, S::add_i32(at, S::iota_i32(2)), first);
}

inline void max_row_2x2(const float* __restrict r0, const float* __restrict r1, float* __restrict out,
                        int64_t* __restrict idx, int64_t Wo, int64_t W, int64_t base) {
  if (Wo < 4) {
    max_row_2x2<float>(r0, r1, out, idx, Wo, W, base);
    return;
  }
  const auto cols = static_cast<int32_t>(W);
  auto chunk8 = [&](int64_t o) {
    max_chunk_2x2<8>(r0 + 2 * o, r1 + 2 * o, out + o, idx + o, cols, base + 2 * o);
  };
  auto chunk4 = [&](int64_t o) {
    max_chunk_2x2<4>(r0 + 2 * o, r1 + 2 * o, out + o, idx + o, cols, base + 2 * o);
  };
  int64_t ow = 0;
  for (; ow + 8 <= Wo; ow += 8) chunk8(ow);
  if (ow + 4 <= Wo) chunk4(ow), ow += 4;
  if (ow < Wo) chunk4(Wo - 4);
}
#endif

template <class T>
void max_plane_2x2(const T* x, T* o, int64_t* idx, const Planes& g) {
  for (int64_t oh = 0; oh < g.Ho; ++oh) {
    const T* r0 = x + 2 * oh * g.W;
    max_row_2x2(r0, r0 + g.W, o + oh * g.Wo, idx + oh * g.Wo, g.Wo, g.W, 2 * oh * g.W);
  }
}

template <class T>
void max_plane(const T* x, T* o, int64_t* idx, const Planes& g, const Pool2dParams& p) {
  for (int64_t oh = 0; oh < g.Ho; ++oh) {
    for (int64_t ow = 0; ow < g.Wo; ++ow) {
      const Window win = window(p, g, oh, ow);
      T best = -std::numeric_limits<T>::infinity();
      int64_t bi = win.h0 * g.W + win.w0;
      for (int64_t h = win.h0; h < win.h1; ++h) {
        for (int64_t w = win.w0; w < win.w1; ++w) {
          const T v = x[h * g.W + w];
          if (better(v, best)) best = v, bi = h * g.W + w;
        }
      }
      o[oh * g.Wo + ow] = best;
      idx[oh * g.Wo + ow] = bi;
    }
  }
}

}  // namespace

void CpuBackend::max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input,
                            const Pool2dParams& p) {
  const Planes g = planes_of(input, out);
  const bool two_by_two = is_two_by_two(p, g);
  EMBER_DISPATCH_FLOATING(input.dtype(), "max_pool2d", [&] {
    using T = scalar_t;
    const T* x = static_cast<const T*>(input.raw_data());
    T* o = static_cast<T*>(out.raw_data());
    int64_t* idx = static_cast<int64_t*>(indices.raw_data());
    const int64_t HW = g.H * g.W, P = g.Ho * g.Wo;
    for_planes(g, P * p.kernel_h * p.kernel_w, [&](int64_t r) {
      if (two_by_two)
        max_plane_2x2(x + r * HW, o + r * P, idx + r * P, g);
      else
        max_plane(x + r * HW, o + r * P, idx + r * P, g, p);
    });
  });
}

void CpuBackend::max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor&,
                                     const Tensor&, const Tensor& indices, const Pool2dParams&) {
  const Planes g = planes_of(grad_input, grad_out);
  EMBER_DISPATCH_FLOATING(grad_input.dtype(), "max_pool2d_backward", [&] {
    using T = scalar_t;
    const T* go = static_cast<const T*>(grad_out.raw_data());
    const int64_t* idx = static_cast<const int64_t*>(indices.raw_data());
    T* gi = static_cast<T*>(grad_input.raw_data());
    const int64_t HW = g.H * g.W, P = g.Ho * g.Wo;
    for_planes(g, HW + P, [&](int64_t r) {
      T* plane = gi + r * HW;
      const T* gp = go + r * P;
      const int64_t* ip = idx + r * P;
      std::fill(plane, plane + HW, T(0));
      for (int64_t i = 0; i < P; ++i) plane[ip[i]] += gp[i];
    });
  });
}

void CpuBackend::avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& p) {
  const Planes g = planes_of(input, out);
  EMBER_DISPATCH_FLOATING(input.dtype(), "avg_pool2d", [&] {
    using T = scalar_t;
    const T* x = static_cast<const T*>(input.raw_data());
    T* o = static_cast<T*>(out.raw_data());
    const int64_t HW = g.H * g.W, P = g.Ho * g.Wo;
    const T scale = T(1) / static_cast<T>(p.kernel_h * p.kernel_w);
    for_planes(g, P * p.kernel_h * p.kernel_w, [&](int64_t r) {
      const T* xp = x + r * HW;
      T* op = o + r * P;
      std::fill(op, op + P, T(0));
      for_window_cells(p, g, [&](int64_t i, int64_t cell) { op[i] += xp[cell]; });
      for (int64_t i = 0; i < P; ++i) op[i] *= scale;
    });
  });
}

void CpuBackend::avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out,
                                     const Pool2dParams& p) {
  const Planes g = planes_of(grad_input, grad_out);
  EMBER_DISPATCH_FLOATING(grad_input.dtype(), "avg_pool2d_backward", [&] {
    using T = scalar_t;
    const T* go = static_cast<const T*>(grad_out.raw_data());
    T* gi = static_cast<T*>(grad_input.raw_data());
    const int64_t HW = g.H * g.W, P = g.Ho * g.Wo;
    const T scale = T(1) / static_cast<T>(p.kernel_h * p.kernel_w);
    for_planes(g, HW + P * p.kernel_h * p.kernel_w, [&](int64_t r) {
      T* plane = gi + r * HW;
      std::fill(plane, plane + HW, T(0));
      const T* gp = go + r * P;
      for_window_cells(p, g, [&](int64_t i, int64_t cell) { plane[cell] += gp[i] * scale; });
    });
  });
}

}  // namespace ember
