#include "ember/nn/init.h"

#include <cmath>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/transfer.h"

namespace ember::nn::init {
namespace {
void check_floating_tensor(const Tensor& t, const char* op) {
  if (!t.defined()) raise<ValueError>(op, ": the tensor is undefined");
  if (!is_floating(t.dtype()))
    raise<DTypeError>(op, ": needs a float32 or float64 tensor, got ", dtype_name(t.dtype()));
}
double fan(const Tensor& t, FanMode mode) {
  const auto [in, out] = calculate_fan_in_and_fan_out(t);
  return static_cast<double>(mode == FanMode::FanIn ? in : out);
}
}  // namespace

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  if (!t.defined() || t.dim() < 2)
    raise<ValueError>("fan in and fan out need a tensor of 2 or more dims, got ",
                      t.defined() ? shape_str(t.shape()) : "an undefined tensor");
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

double calculate_gain(Nonlinearity nonlinearity, double param) {
  switch (nonlinearity) {
    case Nonlinearity::Linear:
    case Nonlinearity::Sigmoid:
      return 1;
    case Nonlinearity::Tanh:
      return 5.0 / 3.0;
    case Nonlinearity::ReLU:
      return std::sqrt(2.0);
    case Nonlinearity::LeakyReLU:
      return std::sqrt(2.0 / (1 + param * param));
  }
  return 1;
}

Tensor& uniform_(Tensor& t, double low, double high) {
  check_floating_tensor(t, "uniform_");
  if (t.numel() == 0) return t;  // nothing to draw (an empty layer)
  NoGradGuard no_grad;
  return ember::uniform_(t, low, high);
}

Tensor& normal_(Tensor& t, double mean, double std) {
  check_floating_tensor(t, "normal_");
  if (t.numel() == 0) return t;
  NoGradGuard no_grad;
  return ember::normal_(t, mean, std);
}

Tensor& constant_(Tensor& t, double value) {
  if (!t.defined()) raise<ValueError>("constant_: the tensor is undefined");
  NoGradGuard no_grad;
  return ember::fill_(t, value);
}
Tensor& zeros_(Tensor& t) { return constant_(t, 0); }
Tensor& ones_(Tensor& t) { return constant_(t, 1); }

Tensor& kaiming_uniform_(Tensor& t, double a, FanMode mode, Nonlinearity nonlinearity) {
  check_floating_tensor(t, "kaiming_uniform_");
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(fan(t, mode));
  const double bound = std::sqrt(3.0) * std;
  return init::uniform_(t, -bound, bound);
}

Tensor& kaiming_normal_(Tensor& t, double a, FanMode mode, Nonlinearity nonlinearity) {
  check_floating_tensor(t, "kaiming_normal_");
  return init::normal_(t, 0, calculate_gain(nonlinearity, a) / std::sqrt(fan(t, mode)));
}

Tensor& xavier_uniform_(Tensor& t, double gain) {
  check_floating_tensor(t, "xavier_uniform_");
  const auto [in, out] = calculate_fan_in_and_fan_out(t);
  const double bound = gain * std::sqrt(6.0 / static_cast<double>(in + out));
  return init::uniform_(t, -bound, bound);
}

Tensor& xavier_normal_(Tensor& t, double gain) {
  check_floating_tensor(t, "xavier_normal_");
  const auto [in, out] = calculate_fan_in_and_fan_out(t);
  return init::normal_(t, 0, gain * std::sqrt(2.0 / static_cast<double>(in + out)));
}

}  // namespace ember::nn::init

namespace ember::nn::init {
void default_layer_init_(Tensor& weight, Tensor& bias) {
  kaiming_uniform_(weight, std::sqrt(5.0));
  if (!bias.defined()) return;
  const int64_t fan_in = calculate_fan_in_and_fan_out(weight).first;
  const double bound = fan_in > 0 ? 1 / std::sqrt(static_cast<double>(fan_in)) : 0;
  init::uniform_(bias, -bound, bound);
}
}  // namespace ember::nn::init
