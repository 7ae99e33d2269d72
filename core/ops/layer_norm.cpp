// layer_norm: the input seen as [rows, cols] (cols the product of normalized_shape), one
// backend call per direction; the statistics of each row are saved for the fused backward.
#include <algorithm>
#include <string>

#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/norm.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

namespace ember {
namespace {

class LayerNormNode final : public Node {
 public:
  LayerNormNode() : Node("layer_norm") {}
  std::vector<Tensor> backward(const Tensor& g) override {
    const Tensor& x = saved(0);
    const Tensor& w = saved(1);
    const Tensor& mean = saved(2);
    const Tensor& rstd = saved(3);
    const Shape row = {x.size(1)};
    std::vector<Tensor> grads(3);
    if (needs_grad(0)) grads[0] = detail::make_empty(x.shape(), x.dtype(), x.device());
    if (needs_grad(1)) grads[1] = detail::make_empty(row, x.dtype(), x.device());
    if (needs_grad(2)) grads[2] = detail::make_empty(row, x.dtype(), x.device());
    backend_for(x.device())
        .layer_norm_backward(grads[0], grads[1], grads[2], g.contiguous(), x, w, mean, rstd);
    return grads;
  }
};

// "[*, 3, 4]": the input shapes normalized_shape accepts, as PyTorch's message writes them.
std::string trailing_str(const Shape& normalized_shape) {
  const std::string s = shape_str(normalized_shape);
  return "[*, " + s.substr(1);
}

void check_affine(const char* name, const Tensor& t, const Shape& normalized_shape) {
  if (t.defined() && t.shape() != normalized_shape)
    raise<ShapeError>("shape mismatch in layer_norm: ", name, " ", shape_str(t.shape()),
                      " does not match normalized_shape ", shape_str(normalized_shape));
}

// No rows, or rows of no elements: nothing to normalise. Written with ops, so autograd gives
// weight and bias zero gradients (sums over no elements) and the input an empty one.
Tensor empty_layer_norm(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  Tensor out = input.clone();
  if (weight.defined()) out = out * weight;
  if (bias.defined()) out = out + bias;
  return out;
}

}  // namespace

namespace {

// layer_norm's checks, with PyTorch's messages; add_layer_norm makes them on its input.
void check_layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight,
                      const Tensor& bias, double eps) {
  const char* op = "layer_norm";
  check_defined(op, {{"input", input}});
  check_same_device(op, {{"input", input}, {"weight", weight}, {"bias", bias}});
  check_floating(op, {"input", input});
  check_same_dtype(op, {{"input", input}, {"weight", weight}, {"bias", bias}});
  if (normalized_shape.empty())
    raise<ValueError>("layer_norm: normalized_shape must have at least one dim, got []");
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  bool fits = input.dim() >= k;
  for (int64_t d = 0; fits && d < k; ++d) fits = input.size(input.dim() - k + d) == normalized_shape[d];
  if (!fits)
    raise<ShapeError>("shape mismatch in layer_norm: given normalized_shape=", shape_str(normalized_shape),
                      ", expected input with shape ", trailing_str(normalized_shape),
                      ", but got input of size ", shape_str(input.shape()));
  check_affine("weight", weight, normalized_shape);
  check_affine("bias", bias, normalized_shape);
  if (!(eps >= 0)) raise<ValueError>("layer_norm: expected eps >= 0, got eps=", eps);
}

// Whether a and b are equal once their leading ones are dropped.
bool same_but_leading_ones(const Shape& a, const Shape& b) {
  auto first = [](const Shape& s) {
    return std::find_if(s.begin(), s.end(), [](int64_t n) { return n != 1; });
  };
  return std::equal(first(a), a.end(), first(b), b.end());
}

// layer_norm of a checked, non-empty input, plus residual where that is defined (then of
// input's dtype and numel, its values in input's order, both contiguous, and autograd
// recording nothing).
Tensor normalize(const Tensor& input, const Tensor& residual, const Shape& normalized_shape,
                 const Tensor& weight, const Tensor& bias, double eps) {
  // Non-empty: every size is positive and their product (numel) fits, so no overflow here.
  int64_t cols = 1;
  for (int64_t n : normalized_shape) cols *= n;
  const int64_t rows = input.numel() / cols;
  // The operands as the backends take them, [rows, cols] and [cols], without a view where they
  // are so already (a 2-D input; the affine parameters of a 1-D normalized_shape): each view
  // costs its shape, strides and tensor object.
  auto as = [](const Tensor& t, const Shape& shape) {
    return !t.defined()                              ? Tensor()
           : t.shape() == shape && t.is_contiguous() ? t
                                                     : t.contiguous().reshape(shape);
  };
  const Tensor w = as(weight, {cols}), b = as(bias, {cols});
  // A contiguous input that autograd does not record goes to the backend in its own shape
  // (it reads any rank as [rows, cols]), and its result is made in that shape: no view of either.
  const bool record = autograd::any_requires_grad({&input, &w, &b});
  const Tensor x = !record && input.is_contiguous() ? input : as(input, {rows, cols});
  Tensor out = detail::make_empty(x.shape(), x.dtype(), x.device());
  Tensor mean = detail::make_empty({rows}, kFloat64, x.device());
  Tensor rstd = detail::make_empty({rows}, kFloat64, x.device());
  if (residual.defined())
    backend_for(x.device()).add_layer_norm(out, mean, rstd, x, residual, w, b, eps);
  else
    backend_for(x.device()).layer_norm(out, mean, rstd, x, w, b, eps);
  if (record) {
    auto node = autograd::make_node<LayerNormNode>();
    node->save(x);
    node->save(w);
    node->save(mean);
    node->save(rstd);
    autograd::record(out, node, {&x, &w, &b});
  }
  // out is x's shape: the input's, or [rows, cols], which is the input's only for a 2-D input
  // normalized over its last dim (over both, a [2, 2] input's is [1, 4]).
  return x.shape() == input.shape() ? out : out.reshape(input.shape());
}

}  // namespace

Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  check_layer_norm(input, normalized_shape, weight, bias, eps);
  if (input.numel() == 0) return empty_layer_norm(input, weight, bias);
  return normalize(input, Tensor(), normalized_shape, weight, bias, eps);
}

Tensor add_layer_norm(const Tensor& input, const Tensor& residual, const Shape& normalized_shape,
                      const Tensor& weight, const Tensor& bias, double eps) {
  const char* op = "add_layer_norm";
  check_defined(op, {{"input", input}, {"residual", residual}});
  check_same_device(op, {{"input", input}, {"residual", residual}, {"weight", weight}, {"bias", bias}});
  // One pass over both only where it changes nothing else: the residual's values in input's
  // order (its shape, but for leading ones on either, such as BERT's [L, H] positions added to
  // a [1, L, H] batch of one), no autograd (whose graph would need the sum), contiguous rows.
  // Otherwise the two ops, exactly.
  const bool fused = same_but_leading_ones(residual.shape(), input.shape()) &&
                     residual.dim() <= input.dim() && residual.dtype() == input.dtype() &&
                     input.numel() > 0 && input.is_contiguous() && residual.is_contiguous() &&
                     !autograd::any_requires_grad({&input, &residual, &weight, &bias});
  if (!fused) return layer_norm(input + residual, normalized_shape, weight, bias, eps);
  check_layer_norm(input, normalized_shape, weight, bias, eps);
  return normalize(input, residual, normalized_shape, weight, bias, eps);
}

}  // namespace ember
