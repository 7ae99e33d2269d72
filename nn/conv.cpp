#include "ember/nn/conv.h"

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/nn/init.h"

namespace ember::nn {

Conv2d::Conv2d(int64_t in, int64_t out, IntPair k, IntPair s, IntPair p, IntPair d, bool with_bias)
    : Module("Conv2d"),
      in_channels(in),
      out_channels(out),
      kernel_size(k),
      stride(s),
      padding(p),
      dilation(d) {
  if (in < 1 || out < 1 || k.h < 1 || k.w < 1)
    raise<ValueError>("Conv2d: channels and kernel size must be >= 1, got in_channels=", in,
                      " out_channels=", out, " kernel_size=", detail::py_pair(k.h, k.w));
  if (s.h < 1 || s.w < 1 || d.h < 1 || d.w < 1 || p.h < 0 || p.w < 0)
    raise<ValueError>("Conv2d: stride ", detail::py_pair(s.h, s.w), " and dilation ",
                      detail::py_pair(d.h, d.w), " must be >= 1 and padding ", detail::py_pair(p.h, p.w),
                      " >= 0");
  weight = register_parameter("weight", empty({out, in, k.h, k.w}));
  if (with_bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Conv2d::reset_parameters() { init::default_layer_init_(weight, bias); }

Tensor Conv2d::forward(const Tensor& input) { return conv2d(input, weight, bias, stride, padding, dilation); }

std::string Conv2d::extra_repr() const {
  std::string s = ember::detail::concat(in_channels, ", ", out_channels,
                                        ", kernel_size=", detail::py_pair(kernel_size.h, kernel_size.w),
                                        ", stride=", detail::py_pair(stride.h, stride.w));
  if (padding.h != 0 || padding.w != 0) s += ", padding=" + detail::py_pair(padding.h, padding.w);
  if (dilation.h != 1 || dilation.w != 1) s += ", dilation=" + detail::py_pair(dilation.h, dilation.w);
  if (!bias.defined()) s += ", bias=False";
  return s;
}

}  // namespace ember::nn
