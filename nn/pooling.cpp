#include "ember/nn/pooling.h"

#include "ember/core/ops/pool.h"

namespace ember::nn {
namespace {
// PyTorch prints a square window as one number.
std::string pair_or_int(IntPair p) { return p.h == p.w ? std::to_string(p.h) : detail::py_pair(p.h, p.w); }
}  // namespace

Pool2d::Pool2d(const char* type_name, IntPair k, OptionalIntPair s, IntPair p)
    : Module(type_name), kernel_size(k), stride(s.value_or(k)), padding(p) {}

std::string Pool2d::window_repr() const {
  return "kernel_size=" + pair_or_int(kernel_size) + ", stride=" + pair_or_int(stride) +
         ", padding=" + pair_or_int(padding);
}

Tensor MaxPool2d::forward(const Tensor& input) { return max_pool2d(input, kernel_size, stride, padding); }
std::string MaxPool2d::extra_repr() const { return window_repr() + ", dilation=1, ceil_mode=False"; }

Tensor AvgPool2d::forward(const Tensor& input) { return avg_pool2d(input, kernel_size, stride, padding); }
std::string AvgPool2d::extra_repr() const { return window_repr(); }

}  // namespace ember::nn
