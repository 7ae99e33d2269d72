// softmax, log_softmax and the fused class losses on contiguous [N, C] rows (Eigen arrays,
// so exp and log are vectorised).
#include <Eigen/Core>
#include <cmath>

#include "ember/core/dtype_dispatch.h"
#include "ember/core/error.h"
#include "ember/kernels/class_loss_smoothing.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/parallel.h"

namespace ember {
namespace {

template <class T>
using Row = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <class T>
using ConstRow = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

template <class Body>
void for_rows(int64_t rows, int64_t cols, const Body& body) {
  parallel_for(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(cols, 1)), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) body(r);
  });
}

// log(sum(exp(x))) computed from the row maximum, so it never overflows.
template <class T>
T logsumexp(const ConstRow<T>& x) {
  const T m = x.maxCoeff();
  if (!std::isfinite(m)) return m;
  return m + std::log((x - m).exp().sum());
}

void check_target(int64_t t, int64_t classes, const char* op) {
  if (t < 0 || t >= classes)
    raise<IndexError>(op, ": target ", t, " is out of range for ", classes,
                      " classes (expected 0 <= target < ", classes, ")");
}

}  // namespace

void CpuBackend::softmax(const Tensor& out, const Tensor& in, bool log) {
  const int64_t C = in.size(-1), R = C ? in.numel() / C : 0;
  EMBER_DISPATCH_FLOATING(in.dtype(), "softmax", [&] {
    using T = scalar_t;
    const T* x = static_cast<const T*>(in.raw_data());
    T* y = static_cast<T*>(out.raw_data());
    for_rows(R, C, [&](int64_t r) {
      ConstRow<T> xr(x + r * C, C);
      Row<T> yr(y + r * C, C);
      if (log) {
        yr = xr - logsumexp(xr);
      } else {
        yr = (xr - xr.maxCoeff()).exp();
        yr /= yr.sum();
      }
    });
  });
}

void CpuBackend::softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out,
                                  bool log) {
  const int64_t C = out.size(-1), R = C ? out.numel() / C : 0;
  EMBER_DISPATCH_FLOATING(out.dtype(), "softmax_backward", [&] {
    using T = scalar_t;
    const T* g = static_cast<const T*>(grad_out.raw_data());
    const T* y = static_cast<const T*>(out.raw_data());
    T* gi = static_cast<T*>(grad_in.raw_data());
    for_rows(R, C, [&](int64_t r) {
      ConstRow<T> gr(g + r * C, C), yr(y + r * C, C);
      Row<T> o(gi + r * C, C);
      if (log)
        o = gr - yr.exp() * gr.sum();
      else
        o = yr * (gr - (gr * yr).sum());
    });
  });
}

void CpuBackend::class_loss(const Tensor& losses, const Tensor& valid, const Tensor& input,
                            const Tensor& target, const ClassLossParams& p, const char* op) {
  const int64_t N = input.size(0), C = input.size(1);
  const int64_t* t = static_cast<const int64_t*>(target.raw_data());
  for (int64_t n = 0; n < N; ++n)
    if (t[n] != p.ignore_index) check_target(t[n], C, op);
  EMBER_DISPATCH_FLOATING(input.dtype(), op, [&] {
    using T = scalar_t;
    const T* x = static_cast<const T*>(input.raw_data());
    T* l = static_cast<T*>(losses.raw_data());
    T* v = valid.defined() ? static_cast<T*>(valid.raw_data()) : nullptr;
    const SmoothingFactors<T> s(p, C);
    for_rows(N, C, [&](int64_t n) {
      const bool ignored = t[n] == p.ignore_index;
      if (v) v[n] = ignored ? T(0) : T(1);
      if (ignored) {
        l[n] = 0;
        return;
      }
      const T picked = x[n * C + t[n]];
      if (p.input_is_log_prob) {
        l[n] = -picked;
        return;
      }
      ConstRow<T> xr(x + n * C, C);
      const T lse = logsumexp(xr);
      l[n] = s.on ? s.keep * (lse - picked) + s.spread * (lse - xr).sum() : lse - picked;
    });
  });
}

void CpuBackend::class_loss_backward(const Tensor& grad_input, const Tensor& grad_losses, const Tensor& input,
                                     const Tensor& target, const ClassLossParams& p, const char* op) {
  const int64_t N = input.size(0), C = input.size(1);
  const int64_t* t = static_cast<const int64_t*>(target.raw_data());
  for (int64_t n = 0; n < N; ++n)
    if (t[n] != p.ignore_index) check_target(t[n], C, op);
  EMBER_DISPATCH_FLOATING(input.dtype(), op, [&] {
    using T = scalar_t;
    const T* x = static_cast<const T*>(input.raw_data());
    const T* g = static_cast<const T*>(grad_losses.raw_data());
    T* gi = static_cast<T*>(grad_input.raw_data());
    const SmoothingFactors<T> s(p, C);
    for_rows(N, C, [&](int64_t n) {
      Row<T> o(gi + n * C, C);
      if (t[n] == p.ignore_index) {
        o.setZero();
        return;
      }
      if (p.input_is_log_prob) {
        o.setZero();
        o[t[n]] -= g[n];
        return;
      }
      ConstRow<T> xr(x + n * C, C);
      o = (xr - logsumexp(xr)).exp() * g[n];
      if (s.on) {
        o -= g[n] * s.spread;
        o[t[n]] -= g[n] * s.keep;
      } else {
        o[t[n]] -= g[n];
      }
    });
  });
}

}  // namespace ember
