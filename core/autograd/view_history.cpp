#include "ember/core/autograd/view_history.h"

#include <utility>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/transfer.h"
#include "ember/core/tensor_impl_access.h"
#include "ember/extend/autograd_node.h"

namespace ember::autograd {
namespace {

using Access = detail::TensorImplAccess;

// Where a view's elements lie in its base's gradient: the base is contiguous, so a gradient
// of the base's shape has the base's layout, and the view's strides and offset (counted from
// the base's first element) pick the view's elements out of it.
struct ViewGeometry {
  Shape shape, strides;
  int64_t offset = 0;
  Shape base_shape;
};

ViewGeometry geometry_in_base(const Tensor& view, const Tensor& base) {
  return ViewGeometry{view.shape(), view.strides(), view.offset() - base.offset(), base.shape()};
}

// A base whose gradient can take its views' regions: contiguous (its layout is a fresh
// gradient's) and still holding the views' storage (set_data may have moved it).
bool can_place_views(const Tensor& base, const Tensor& view) {
  return base.is_contiguous() && Access::storage(base) == Access::storage(view);
}

Tensor region_of(const Tensor& base_grad, const ViewGeometry& g) {
  return detail::make_view(base_grad, g.shape, g.strides, base_grad.offset() + g.offset);
}

// The base's history after an in-place op through its view: the region's old values are gone
// (no gradient reaches them) and the region's gradient goes to the in-place op's node.
class CopySlices final : public Node {
 public:
  explicit CopySlices(ViewGeometry g) : Node("copy_slices"), g_(std::move(g)) {}
  std::vector<Tensor> backward(const Tensor& grad) override {
    Tensor base_grad = clone(grad);  // contiguous, and ours to zero
    Tensor region = region_of(base_grad, g_);
    Tensor view_grad = needs_grad(1) ? clone(region) : Tensor();
    if (!needs_grad(0)) return {Tensor(), view_grad};
    region.zero_();
    return {base_grad, view_grad};
  }

 private:
  ViewGeometry g_;
};

// A view's history made from its base's: the view's gradient lands in its region of a zero
// gradient for the base (an expanded dim's gradient summed first: its elements are one).
class ViewOfBase final : public Node {
 public:
  explicit ViewOfBase(ViewGeometry g) : Node("view_of_base"), g_(std::move(g)) {}
  std::vector<Tensor> backward(const Tensor& grad) override {
    Tensor g = grad;
    ViewGeometry r = g_;
    for (size_t d = 0; d < r.shape.size(); ++d)
      if (r.strides[d] == 0 && r.shape[d] > 1) {
        g = sum(g, {static_cast<int64_t>(d)}, /*keepdim=*/true);
        r.shape[d] = 1;
      }
    Tensor full = zeros(r.base_shape, TensorOptions(grad.dtype()).device(grad.device()));
    region_of(full, r).copy_(g);
    return {full};
  }

 private:
  ViewGeometry g_;
};

// A view whose base cannot take its region (not contiguous) after the base's history changed:
// refusing beats a wrong gradient.
class UnplaceableView final : public Node {
 public:
  UnplaceableView() : Node("view_of_base") {}
  std::vector<Tensor> backward(const Tensor&) override {
    raise<AutogradError>(
        "the gradient of a view cannot be computed: its base was modified in place and is not "
        "contiguous; make the base contiguous() before taking views of it");
  }
};

// The values of a tensor overwritten in place by values that need no gradient.
class Overwritten final : public Node {
 public:
  explicit Overwritten(const char* op) : Node(op) {}
  std::vector<Tensor> backward(const Tensor&) override { return {}; }
};

bool same_history(const std::weak_ptr<Node>& seen, const std::shared_ptr<Node>& now) {
  return !seen.owner_before(now) && !now.owner_before(seen);
}

// Gives view a history that goes through its base's present one.
void make_view_history(const Tensor& view, const Tensor& base) {
  Access::view_base_fn(view) = base.grad_fn();
  if (!base.requires_grad()) return;
  std::shared_ptr<Node> node;
  if (can_place_views(base, view))
    node = make_node<ViewOfBase>(geometry_in_base(view, base));
  else
    node = make_node<UnplaceableView>();
  node->add_edge(edge_of(base));
  Access::set_history(view, std::move(node), true);
}

}  // namespace

bool has_internal_overlap(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.stride(d) == 0 && t.size(d) > 1) return true;
  return false;
}

void track_view(const Tensor& out, const Tensor& t) {
  const std::shared_ptr<TensorImpl>& base = Access::view_base(t);
  const Tensor root = Access::wrap(base ? base : Access::impl(t));
  Access::view_base(out) = Access::impl(root);
  Access::view_base_fn(out) = root.grad_fn();
  Access::view_tracks_grad(out) = GradMode::is_enabled();
}

void refresh_view_history(const Tensor& view) {
  const std::shared_ptr<TensorImpl>& base_impl = Access::view_base(view);
  if (!base_impl || !Access::view_tracks_grad(view)) return;
  const Tensor base = Access::wrap(base_impl);
  if (same_history(Access::view_base_fn(view), base.grad_fn())) return;
  make_view_history(view, base);
}

void check_inplace(const Tensor& t, const char* op) {
  if (has_internal_overlap(t))
    raise<ValueError>(op, ": the tensor written in place has internal overlap (an expanded dim: several ",
                      "elements share one memory location); clone() it first");
  if (!GradMode::is_enabled()) return;
  if (t.is_leaf() && t.requires_grad())
    raise<AutogradError>("a leaf tensor that requires grad is used in an in-place operation (", op,
                         "); wrap the update in NoGradGuard");
  const std::shared_ptr<TensorImpl>& base_impl = Access::view_base(t);
  if (!base_impl) return;
  const Tensor base = Access::wrap(base_impl);
  if (base.is_leaf() && base.requires_grad())
    raise<AutogradError>("a view of a leaf tensor that requires grad is used in an in-place operation (", op,
                         "); wrap the update in NoGradGuard, or clone() the view first");
  if (!Access::view_tracks_grad(t) && base.requires_grad())
    raise<AutogradError>("a view made under NoGradGuard is modified in place (", op,
                         ") with grad mode on, and its base requires grad; modify it under NoGradGuard too");
}

void rebase_history(const Tensor& t, const char* op, std::shared_ptr<Node> fn) {
  if (!GradMode::is_enabled() || !is_floating(t.dtype())) return;
  const std::shared_ptr<TensorImpl>& base_impl = Access::view_base(t);
  if (!base_impl) {
    if (fn)
      Access::set_grad_fn(t, std::move(fn));
    else if (t.requires_grad())  // still requires grad (as PyTorch), with nothing behind it
      Access::set_grad_fn(t, make_node<Overwritten>(op));
    return;
  }
  const Tensor base = Access::wrap(base_impl);
  if (!fn && !base.requires_grad()) return;
  if (!can_place_views(base, t))
    raise<AutogradError>(op,
                         ": an in-place operation on a view needs its base's gradient, but the base is not ",
                         "contiguous; make the base contiguous() before taking the view");
  auto node = make_node<CopySlices>(geometry_in_base(t, base));
  node->add_edge(edge_of(base));
  const Shape shape = t.shape();
  node->add_edge(fn ? Edge{std::move(fn), shape} : Edge{nullptr, {}});
  Access::set_grad_fn(base, std::move(node));
  make_view_history(t, base);
}

}  // namespace ember::autograd
