// Fused optimizer steps: every parameter of a list updated in one call, element by element
// with the shared math of kernels/optim_math.h.
#include "ember/core/dtype_dispatch.h"
#include "ember/core/error.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/parallel.h"
#include "ember/kernels/optim_math.h"

namespace ember {
namespace {

// The front-end (nn optimizers) passes contiguous tensors of one shape per parameter; a
// violation is a programming error inside Ember, reported rather than trusted.
void check_slot(const char* op, const Tensor& p, const Tensor& t, const char* what) {
  if (!t.is_contiguous() || t.numel() != p.numel() || t.dtype() != p.dtype())
    raise<ValueError>(op, ": ", what, " must be contiguous, of the parameter's size and dtype");
}

}  // namespace

void CpuBackend::sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                          const std::vector<Tensor>& momentum, const SgdParams& o) {
  const bool use_buf = o.momentum != 0;
  if (grads.size() != params.size() || (use_buf && momentum.size() != params.size()))
    raise<ValueError>("sgd_step: expected one gradient", use_buf ? " and one momentum buffer" : "",
                      " per parameter");
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    if (!p.is_contiguous()) raise<ValueError>("sgd_step: parameters must be contiguous");
    check_slot("sgd_step", p, grads[i], "gradients");
    if (use_buf) check_slot("sgd_step", p, momentum[i], "momentum buffers");
    EMBER_DISPATCH_FLOATING(p.dtype(), "sgd_step", [&] {
      using T = scalar_t;
      T* w = p.data_ptr<T>();
      const T* g = grads[i].data_ptr<T>();
      T* buf = use_buf ? momentum[i].data_ptr<T>() : nullptr;
      parallel_for(p.numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
        for (int64_t j = lo; j < hi; ++j) fn::sgd_update(w[j], g[j], buf ? buf + j : nullptr, o);
      });
    });
  }
}

void CpuBackend::adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                           const std::vector<Tensor>& exp_avg, const std::vector<Tensor>& exp_avg_sq,
                           const AdamParams& o) {
  if (grads.size() != params.size() || exp_avg.size() != params.size() || exp_avg_sq.size() != params.size())
    raise<ValueError>("adam_step: expected one gradient and two moment buffers per parameter");
  if (o.step < 1) raise<ValueError>("adam_step: step must be >= 1, got ", o.step);
  const fn::AdamConstants c = fn::adam_constants(o);
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    if (!p.is_contiguous()) raise<ValueError>("adam_step: parameters must be contiguous");
    check_slot("adam_step", p, grads[i], "gradients");
    check_slot("adam_step", p, exp_avg[i], "exp_avg");
    check_slot("adam_step", p, exp_avg_sq[i], "exp_avg_sq");
    EMBER_DISPATCH_FLOATING(p.dtype(), "adam_step", [&] {
      using T = scalar_t;
      T* w = p.data_ptr<T>();
      const T* g = grads[i].data_ptr<T>();
      T* m = exp_avg[i].data_ptr<T>();
      T* v = exp_avg_sq[i].data_ptr<T>();
      parallel_for(p.numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
        for (int64_t j = lo; j < hi; ++j) fn::adam_update(w[j], g[j], m[j], v[j], o, c);
      });
    });
  }
}

}  // namespace ember
