// Gradient clipping on the gradients' own devices: the norms are reductions there and the
// scale is a tensor, so clipping reads nothing back to the host (error_if_nonfinite aside).
#include "ember/nn/clip_grad.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/index.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/transfer.h"
#include "ember/extend/check.h"

namespace ember::nn::utils {
namespace {

// The gradients of the parameters that have one, grouped by device in order of first
// appearance (as PyTorch groups them), after checking every parameter.
std::vector<std::pair<Device, std::vector<Tensor>>> grads_by_device(const char* op,
                                                                    const std::vector<Tensor>& parameters) {
  check_defined(op, "parameters", parameters);
  std::vector<std::pair<Device, std::vector<Tensor>>> groups;
  for (const Tensor& p : parameters) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    size_t k = 0;
    while (k < groups.size() && !(groups[k].first == g.device())) ++k;
    if (k == groups.size()) groups.emplace_back(g.device(), std::vector<Tensor>{});
    groups[k].second.push_back(std::move(g));
  }
  return groups;
}

// The norm of order p of one tensor (of a vector of norms, too): a [] tensor on its device.
// An empty tensor's norm is 0 for every order.
Tensor vector_norm(const Tensor& t, double p) {
  if (t.numel() == 0) return zeros({}, TensorOptions().dtype(t.dtype()).device(t.device()));
  if (std::isinf(p)) return max(abs(t));
  if (p == 1) return sum(abs(t));
  if (p == 2) return sqrt(sum(square(t)));
  return pow(sum(pow(abs(t), p)), 1.0 / p);
}

// Python's repr of a float, as PyTorch's message prints norm_type: 2.0, inf, 1.5.
std::string float_repr(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e16) {
    std::snprintf(buf, sizeof buf, "%.1f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", v);
    for (int digits = 1; digits <= 17; ++digits) {  // the shortest form that reads back as v
      char shorter[64];
      std::snprintf(shorter, sizeof shorter, "%.*g", digits, v);
      if (std::strtod(shorter, nullptr) == v) return shorter;
    }
  }
  return buf;
}

}  // namespace

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  const char* op = "clip_grad_norm_";
  if (std::isnan(max_norm)) raise<ValueError>(op, ": max_norm must be a number, got nan");
  if (!(norm_type > 0)) raise<ValueError>(op, ": norm_type must be positive or inf, got ", norm_type);
  NoGradGuard no_grad;
  const auto groups = grads_by_device(op, parameters);
  if (groups.empty()) return zeros({});

  // The total's dtype: the gradients', float64 when any is float64 (PyTorch's promotion).
  DType dtype = kFloat32;
  for (const auto& [device, grads] : groups)
    for (const Tensor& g : grads)
      if (g.dtype() == kFloat64) dtype = kFloat64;
  const Device first = groups.front().first;
  std::vector<Tensor> device_norms;
  for (const auto& [device, grads] : groups) {
    std::vector<Tensor> norms;
    for (const Tensor& g : grads) norms.push_back(vector_norm(g, norm_type).to(dtype));
    device_norms.push_back(vector_norm(stack(norms), norm_type).to(first));
  }
  const Tensor total = vector_norm(stack(device_norms), norm_type);

  if (error_if_nonfinite && !std::isfinite(total.item<double>()))
    raise<ValueError>(
        "The total norm of order ", float_repr(norm_type),
        " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this "
        "error and scale the gradients by the non-finite norm anyway, set "
        "`error_if_nonfinite=False`");

  // Scaled even when the factor is 1, as PyTorch does: deciding would need a host read.
  const Tensor factor = clamp(rdiv(total + 1e-6, max_norm), -INFINITY, 1.0);
  for (const auto& [device, grads] : groups) {
    Tensor on_device = factor.to(device);
    for (const Tensor& g : grads) {
      Tensor target = g;
      mul_(target, g.dtype() == on_device.dtype() ? on_device : on_device.to(g.dtype()));
    }
  }
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  const char* op = "clip_grad_value_";
  if (!(clip_value >= 0)) raise<ValueError>(op, ": clip_value must be >= 0, got ", clip_value);
  NoGradGuard no_grad;
  for (const auto& [device, grads] : grads_by_device(op, parameters))
    for (const Tensor& g : grads) {
      Tensor target = g;
      clamp_(target, -clip_value, clip_value);
    }
}

}  // namespace ember::nn::utils
