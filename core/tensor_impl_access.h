#pragma once
// Internal (not installed): core's and autograd's write access to the state behind a Tensor.
// Users, nn and data reach a tensor only through Tensor's methods and the op front-ends.
#include <cstdint>
#include <memory>
#include <utility>

#include "ember/core/tensor.h"
#include "ember/extend/tensor_impl.h"

namespace ember::detail {

struct TensorImplAccess {
  /// A new tensor (no autograd record) over storage, with the given geometry and dtype.
  static Tensor make(std::shared_ptr<Storage> storage, Shape shape, Shape strides, int64_t offset,
                     DType dtype) {
    auto impl = std::make_shared<TensorImpl>();
    impl->storage_ = std::move(storage);
    impl->shape_ = std::move(shape);
    impl->strides_ = std::move(strides);
    impl->offset_ = offset;
    impl->dtype_ = dtype;
    return Tensor(std::move(impl));
  }
  static const std::shared_ptr<TensorImpl>& impl(const Tensor& t) { return t.impl_; }
  static const std::shared_ptr<Storage>& storage(const Tensor& t) { return t.impl_->storage_; }
  /// dst takes src's storage, strides, offset and dtype; its shape and autograd state stay.
  static void share_data(const Tensor& dst, const Tensor& src) {
    TensorImpl& d = *dst.impl_;
    d.storage_ = src.impl_->storage_;
    d.strides_ = src.impl_->strides_;
    d.offset_ = src.impl_->offset_;
    d.dtype_ = src.impl_->dtype_;
  }
  /// Records fn as the node that computed t; null makes t a leaf that does not require grad.
  static void set_grad_fn(const Tensor& t, std::shared_ptr<Node> fn) {
    t.impl_->requires_grad_ = fn != nullptr;
    t.impl_->grad_fn_ = std::move(fn);
  }
  /// A leaf's AccumulateGrad (autograd makes it on first use and keeps it only weakly).
  static std::weak_ptr<Node>& grad_accumulator(const Tensor& t) { return t.impl_->grad_accumulator_; }
  /// The gradient slot of a leaf that an AccumulateGrad holds.
  static Tensor& grad(TensorImpl& leaf) { return leaf.grad_; }
  static std::shared_ptr<const ModuleTag> owner(const Tensor& t) { return t.impl_->owner_.lock(); }
  /// A handle of an existing tensor's state (autograd holds leaves weakly, by their state).
  static Tensor wrap(std::shared_ptr<TensorImpl> impl) { return Tensor(std::move(impl)); }
  /// A view's root base (null for a tensor that is not a view), the base's grad_fn when the
  /// view's history was last made, and whether the view was made with grad mode on.
  static std::shared_ptr<TensorImpl>& view_base(const Tensor& t) { return t.impl_->view_base_; }
  static std::weak_ptr<Node>& view_base_fn(const Tensor& t) { return t.impl_->view_base_fn_; }
  static bool& view_tracks_grad(const Tensor& t) { return t.impl_->view_tracks_grad_; }
  /// Sets t's grad_fn and requires_grad directly (a view's history made anew from its base).
  static void set_history(const Tensor& t, std::shared_ptr<Node> fn, bool requires_grad) {
    t.impl_->grad_fn_ = std::move(fn);
    t.impl_->requires_grad_ = requires_grad;
  }
  /// A leaf's post-accumulate-grad hooks (null until one is registered).
  static std::shared_ptr<autograd::PostAccumulateGradHooks>& post_accumulate_grad_hooks(TensorImpl& leaf) {
    return leaf.post_accumulate_grad_hooks_;
  }
};

}  // namespace ember::detail
