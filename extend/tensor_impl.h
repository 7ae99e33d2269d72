#pragma once
// TensorImpl's definition, in the extension set: users see it only as a forward declaration
// (core/tensor.h). Its fields stay private; Tensor's methods read them, and core and autograd
// write them through detail::TensorImplAccess (core/tensor_impl_access.h, not installed).
#include <cstdint>
#include <memory>
#include <string>

#include "ember/core/autograd/hooks.h"
#include "ember/core/dtype.h"
#include "ember/core/export.h"
#include "ember/core/shape.h"
#include "ember/core/storage.h"
#include "ember/core/tensor.h"

namespace ember {

/// The state behind a Tensor handle.
class EMBER_API TensorImpl {
 private:
  friend class Tensor;
  friend struct detail::TensorImplAccess;

  std::shared_ptr<Storage> storage_;
  Shape shape_;
  Shape strides_;
  int64_t offset_ = 0;
  DType dtype_ = DType::Float32;
  bool requires_grad_ = false;
  Tensor grad_;
  std::shared_ptr<Node> grad_fn_;         // null for leaves
  std::weak_ptr<Node> grad_accumulator_;  // leaves: the node that sums into grad
  std::string name_;                      // set by Module registration
  std::weak_ptr<const ModuleTag> owner_;  // the registering module, for device hints
  std::shared_ptr<autograd::PostAccumulateGradHooks> post_accumulate_grad_hooks_;  // leaves, or null
  // Views made by the view ops (core/autograd/view_history.h): the root base, and the base's
  // grad_fn when this view's history was last made from it. An in-place op through a view
  // gives the base a new grad_fn; the view's history is then made anew from the base.
  std::shared_ptr<TensorImpl> view_base_;
  std::weak_ptr<Node> view_base_fn_;
  bool view_tracks_grad_ = false;  // made with grad mode on
};

}  // namespace ember
