#pragma once
// Parameter initialisation, as torch.nn.init: in place, without recording, drawing from
// ember's default Philox generator (core/generator.h).
#include <utility>

#include "ember/core/tensor.h"

namespace ember::nn::init {

enum class FanMode { FanIn, FanOut };
enum class Nonlinearity { Linear, ReLU, LeakyReLU, Tanh, Sigmoid };

/// (fan_in, fan_out) of a weight of 2 or more dims ([out, in, k...]); ValueError otherwise.
EMBER_API std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t);
/// The recommended gain of a nonlinearity (param: LeakyReLU's negative slope).
EMBER_API double calculate_gain(Nonlinearity nonlinearity, double param = 0.01);

/// Uniform on [low, high).
EMBER_API Tensor& uniform_(Tensor& t, double low = 0, double high = 1);
EMBER_API Tensor& normal_(Tensor& t, double mean = 0, double std = 1);
EMBER_API Tensor& constant_(Tensor& t, double value);
EMBER_API Tensor& zeros_(Tensor& t);
EMBER_API Tensor& ones_(Tensor& t);
/// Uniform on +-gain * sqrt(3 / fan), gain from nonlinearity and a (the LeakyReLU slope).
/// PyTorch's default layer init is a = sqrt(5), LeakyReLU: bound = 1 / sqrt(fan_in).
EMBER_API Tensor& kaiming_uniform_(Tensor& t, double a = 0, FanMode mode = FanMode::FanIn,
                                   Nonlinearity nonlinearity = Nonlinearity::LeakyReLU);
/// Normal with std gain / sqrt(fan).
EMBER_API Tensor& kaiming_normal_(Tensor& t, double a = 0, FanMode mode = FanMode::FanIn,
                                  Nonlinearity nonlinearity = Nonlinearity::LeakyReLU);
/// Uniform on +-gain * sqrt(6 / (fan_in + fan_out)).
EMBER_API Tensor& xavier_uniform_(Tensor& t, double gain = 1);
/// Normal with std gain * sqrt(2 / (fan_in + fan_out)).
EMBER_API Tensor& xavier_normal_(Tensor& t, double gain = 1);

}  // namespace ember::nn::init

namespace ember::nn::init {
/// PyTorch's Linear/Conv reset_parameters: kaiming_uniform_(weight, a = sqrt(5)), i.e.
/// bound 1 / sqrt(fan_in), and bias (when defined) uniform on +-1 / sqrt(fan_in).
EMBER_API void default_layer_init_(Tensor& weight, Tensor& bias);
}  // namespace ember::nn::init
