#pragma once
// Per-element optimizer updates, written once for the CPU loops and the CUDA kernels. The
// arithmetic follows torch.optim's (PyTorch 1.13) order of operations in the parameter's
// dtype, so float32 results track PyTorch's closely.
#include "ember/extend/op_kinds.h"
#include "ember/kernels/functors.h"

namespace ember::fn {

/// One SGD element: p, its gradient g and (when momentum != 0) its momentum buffer buf.
template <class T>
EMBER_HD_INLINE void sgd_update(T& p, T g, T* buf, const SgdParams& o) {
  T d = g;
  if (o.weight_decay != 0) d = d + T(o.weight_decay) * p;
  if (o.momentum != 0) {
    // The first step starts the buffer at the gradient itself (no dampening), as PyTorch.
    *buf = o.first_step ? d : *buf * T(o.momentum) + T(1 - o.dampening) * d;
    d = o.nesterov ? d + T(o.momentum) * *buf : *buf;
  }
  p = p + T(-o.lr) * d;
}

/// Host-side constants of one Adam step (bias corrections depend on the step only).
struct AdamConstants {
  double step_size;              // lr / (1 - beta1^step)
  double bias_correction2_sqrt;  // sqrt(1 - beta2^step)
};

EMBER_HD_INLINE AdamConstants adam_constants(const AdamParams& o) {
  const double t = static_cast<double>(o.step);
  return {o.lr / (1 - m_pow(o.beta1, t)), m_sqrt(1 - m_pow(o.beta2, t))};
}

/// One Adam / AdamW element: p, gradient g, first and second moments m and v.
template <class T>
EMBER_HD_INLINE void adam_update(T& p, T g, T& m, T& v, const AdamParams& o, const AdamConstants& c) {
  if (o.weight_decay != 0) {
    if (o.decoupled_weight_decay)
      p = p * T(1 - o.lr * o.weight_decay);
    else
      g = g + T(o.weight_decay) * p;
  }
  m = m * T(o.beta1) + T(1 - o.beta1) * g;
  v = v * T(o.beta2) + T(1 - o.beta2) * (g * g);
  const T denom = m_sqrt(v) / T(c.bias_correction2_sqrt) + T(o.eps);
  p = p + T(-c.step_size) * (m / denom);
}

}  // namespace ember::fn
