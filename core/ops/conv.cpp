// conv2d: validation, one backend call per direction, and a node that asks the backend for
// exactly the gradients its inputs need.
#include "ember/core/ops/conv.h"

#include "ember/core/ops/factory.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/window.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

namespace ember {
namespace {

class Conv2dNode final : public Node {
 public:
  explicit Conv2dNode(const Conv2dParams& p) : Node("conv2d"), p_(p) {}
  std::vector<Tensor> backward(const Tensor& g_in) override {
    const Tensor& x = saved(0);
    const Tensor& w = saved(1);
    // No output element means no gradient; the kernels' buffers are sized by the output's
    // spatial extent, which can be huge when the batch or C_out is 0.
    if (g_in.numel() == 0) {
      std::vector<Tensor> zero(3);
      if (needs_grad(0)) zero[0] = zeros_like(x);
      if (needs_grad(1)) zero[1] = zeros_like(w);
      if (needs_grad(2)) zero[2] = zeros({w.size(0)}, TensorOptions(w.dtype()).device(w.device()));
      return zero;
    }
    const Tensor g = g_in.contiguous();
    Backend& backend = backend_for(g.device());
    std::vector<Tensor> grads(3);
    if (needs_grad(0)) {
      grads[0] = detail::make_empty(x.shape(), x.dtype(), x.device());
      backend.conv2d_backward_input(grads[0], g, w, p_);
    }
    if (needs_grad(1)) {
      grads[1] = detail::make_empty(w.shape(), w.dtype(), w.device());
      if (needs_grad(2)) grads[2] = detail::make_empty({w.size(0)}, w.dtype(), w.device());
      backend.conv2d_backward_weight(grads[1], grads[2], g, x, p_);
    } else if (needs_grad(2)) {
      grads[2] = sum(g, {0, 2, 3});
    }
    return grads;
  }

 private:
  Conv2dParams p_;
};

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntPair stride, IntPair padding,
              IntPair dilation) {
  const char* op = "conv2d";
  check_defined(op, {{"input", input}, {"weight", weight}});
  check_same_device(op, {{"input", input}, {"weight", weight}, {"bias", bias}});
  check_same_dtype(op, {{"input", input}, {"weight", weight}, {"bias", bias}});
  check_floating(op, {"input", input});
  detail::check_image(op, input);
  check_ndim(op, {"weight", weight}, 4);
  detail::check_at_least(op, "stride", stride, 1);
  detail::check_at_least(op, "padding", padding, 0);
  detail::check_at_least(op, "dilation", dilation, 1);
  if (input.dim() == 3) return conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation).squeeze(0);

  const int64_t N = input.size(0), C = input.size(1), Co = weight.size(0);
  if (C != weight.size(1))
    raise<ShapeError>("shape mismatch in conv2d: input ", shape_str(input.shape()), " has ", C,
                      " channels but weight ", shape_str(weight.shape()), " expects ", weight.size(1));
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != Co))
    raise<ShapeError>("shape mismatch in conv2d: bias ", shape_str(bias.shape()), " does not match weight ",
                      shape_str(weight.shape()));
  if (weight.size(2) == 0 || weight.size(3) == 0)
    raise<ShapeError>("conv2d: the kernel of weight ", shape_str(weight.shape()),
                      " is empty; kernel sizes must be >= 1");
  const IntPair extent = detail::dilated(op, IntPair(weight.size(2), weight.size(3)), dilation);
  detail::check_window_fits(op, "dilated kernel", extent, padding, input, &weight);

  Conv2dParams p;
  p.stride_h = stride.h, p.stride_w = stride.w;
  p.pad_h = padding.h, p.pad_w = padding.w;
  p.dilation_h = dilation.h, p.dilation_w = dilation.w;
  const int64_t Ho = detail::window_out(op, input.size(2), extent.h, stride.h, padding.h);
  const int64_t Wo = detail::window_out(op, input.size(3), extent.w, stride.w, padding.w);
  // The output plane must be countable on every device, even when N or C_out is 0 (the
  // error then names H_out and W_out); the CPU backend checks its own column buffer.
  checked_mul(Ho, Wo, op);
  const Tensor x = input.contiguous(), w = weight.contiguous();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  Tensor out = detail::make_empty({N, Co, Ho, Wo}, x.dtype(), x.device(), op);
  if (out.numel()) backend_for(x.device()).conv2d(out, x, w, b, p);
  if (autograd::any_requires_grad({&x, &w, &b})) {
    auto node = autograd::make_node<Conv2dNode>(p);
    node->save(x);
    node->save(w);
    autograd::record(out, node, {&x, &w, &b});
  }
  return out;
}

}  // namespace ember
