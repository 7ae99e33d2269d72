#pragma once
// Views and in-place ops (PyTorch's view + in-place rule, docs/DESIGN.md): every view op
// remembers its root base; an in-place op through a view rewrites the base's history, and the
// views of that base make theirs anew from it. Internal: the op front-ends call these.
#include <memory>

#include "ember/core/export.h"
#include "ember/core/tensor.h"

namespace ember {

class Node;

namespace autograd {

/// Marks out, a new view sharing t's storage, as a view of t's root base.
EMBER_API void track_view(const Tensor& out, const Tensor& t);

/// Before op writes into t in place: ValueError when t has internal overlap; with grad mode
/// on, AutogradError for a leaf that requires grad, a view of one, or a view made under
/// NoGradGuard of a base that requires grad.
EMBER_API void check_inplace(const Tensor& t, const char* op);

/// After op wrote into t in place: fn computes t's new values from the op's inputs (null when
/// they depend on nothing that requires grad). A view's base gets a copy_slices node; any
/// other tensor takes fn. Does nothing with grad mode off or for a non-floating t.
EMBER_API void rebase_history(const Tensor& t, const char* op, std::shared_ptr<Node> fn);

/// Makes a view's history anew from its base when the base's history changed since the view's
/// was made (an in-place op through another view, or on the base itself).
EMBER_API void refresh_view_history(const Tensor& view);

/// True when two of t's elements share one memory location (a dim of size > 1 and stride 0).
EMBER_API bool has_internal_overlap(const Tensor& t);

}  // namespace autograd
}  // namespace ember
