// max_pool2d and avg_pool2d: shared window checks, one backend call per direction. Max
// pooling keeps the argmax so its backward is a scatter.
#include "ember/core/ops/pool.h"

#include "ember/core/ops/window.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

namespace ember {
namespace {

struct Pool {
  Pool2dParams p;
  Shape out_shape;
};

Pool plan(const char* op, const Tensor& input, IntPair kernel, OptionalIntPair stride_or_unset,
          IntPair padding) {
  check_defined(op, {{"input", input}});
  check_floating(op, {"input", input});
  detail::check_image(op, input);
  detail::check_at_least(op, "kernel size", kernel, 1);
  const IntPair stride = stride_or_unset.value_or(kernel);
  detail::check_at_least(op, "stride", stride, 1);
  detail::check_at_least(op, "padding", padding, 0);
  if (padding.h > kernel.h / 2 || padding.w > kernel.w / 2)
    raise<ValueError>(op, ": padding must be at most half the kernel size, got padding ",
                      detail::pair_str(padding), " for kernel ", detail::pair_str(kernel));
  // A window over an empty plane would have no cell to take its value (or index) from.
  if (input.size(-2) == 0 || input.size(-1) == 0)
    raise<ShapeError>(op, ": input must have non-empty height and width, got shape ",
                      shape_str(input.shape()));
  detail::check_window_fits(op, "kernel", kernel, padding, input);
  Pool r;
  r.p.kernel_h = kernel.h, r.p.kernel_w = kernel.w;
  r.p.stride_h = stride.h, r.p.stride_w = stride.w;
  r.p.pad_h = padding.h, r.p.pad_w = padding.w;
  r.out_shape = input.shape();
  const int64_t Ho = detail::window_out(op, input.size(-2), kernel.h, stride.h, padding.h);
  const int64_t Wo = detail::window_out(op, input.size(-1), kernel.w, stride.w, padding.w);
  // Kernels count the cells of all windows of a plane (and avg_pool2d divides by kH * kW).
  checked_mul(checked_mul(Ho, Wo, op), checked_mul(kernel.h, kernel.w, op), op);
  r.out_shape[r.out_shape.size() - 2] = Ho;
  r.out_shape[r.out_shape.size() - 1] = Wo;
  return r;
}

// The backend sees 4-D contiguous tensors; a CHW input gets a batch dim of 1 (a view).
Tensor as_batch(const Tensor& t) { return (t.dim() == 3 ? t.unsqueeze(0) : t).contiguous(); }
Shape batch_shape(Shape s) {
  if (s.size() == 3) s.insert(s.begin(), 1);
  return s;
}

class MaxPool2dNode final : public Node {
 public:
  MaxPool2dNode(const char* name, const Pool2dParams& p) : Node(name), p_(p) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    const Tensor& x = saved(0);
    Tensor gi = detail::make_empty(x.shape(), x.dtype(), x.device());
    backend_for(x.device()).max_pool2d_backward(gi, g.contiguous(), x, saved(1), saved(2), p_);
    return {gi};
  }

 private:
  Pool2dParams p_;
};

ValuesIndices max_pool(const char* op, const Tensor& input, IntPair kernel, OptionalIntPair stride,
                       IntPair padding) {
  const Pool pool = plan(op, input, kernel, stride, padding);
  const Tensor x = as_batch(input);
  const Shape shape = batch_shape(pool.out_shape);
  Tensor out = detail::make_empty(shape, x.dtype(), x.device());
  Tensor indices = detail::make_empty(shape, kInt64, x.device());
  if (out.numel()) backend_for(x.device()).max_pool2d(out, indices, x, pool.p);
  if (autograd::any_requires_grad({&x})) {
    auto node = autograd::make_node<MaxPool2dNode>(op, pool.p);
    node->save(x);
    // A separate handle on out's storage: saving out itself would make out own its own node.
    node->save(detail::make_view(out, out.shape(), out.strides(), out.offset()));
    node->save(indices);
    autograd::record(out, node, {&x});
  }
  if (input.dim() == 3) return {out.squeeze(0), indices.squeeze(0)};
  return {out, indices};
}

class AvgPool2dNode final : public Node {
 public:
  AvgPool2dNode(const Pool2dParams& p, Shape in) : Node("avg_pool2d"), p_(p), in_(std::move(in)) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    Tensor gi = detail::make_empty(in_, g.dtype(), g.device());
    backend_for(g.device()).avg_pool2d_backward(gi, g.contiguous(), p_);
    return {gi};
  }

 private:
  Pool2dParams p_;
  Shape in_;
};

}  // namespace

Tensor max_pool2d(const Tensor& input, IntPair kernel, OptionalIntPair stride, IntPair padding) {
  return max_pool("max_pool2d", input, kernel, stride, padding).values;
}

ValuesIndices max_pool2d_with_indices(const Tensor& input, IntPair kernel, OptionalIntPair stride,
                                      IntPair padding) {
  return max_pool("max_pool2d_with_indices", input, kernel, stride, padding);
}

Tensor avg_pool2d(const Tensor& input, IntPair kernel, OptionalIntPair stride, IntPair padding) {
  const Pool pool = plan("avg_pool2d", input, kernel, stride, padding);
  const Tensor x = as_batch(input);
  Tensor out = detail::make_empty(batch_shape(pool.out_shape), x.dtype(), x.device());
  if (out.numel()) backend_for(x.device()).avg_pool2d(out, x, pool.p);
  if (autograd::any_requires_grad({&x})) {
    autograd::record(out, autograd::make_node<AvgPool2dNode>(pool.p, x.shape()), {&x});
  }
  return input.dim() == 3 ? out.squeeze(0) : out;
}

}  // namespace ember
