#include "ember/extend/autograd_node.h"

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/tensor_impl_access.h"

namespace ember {
// Destroying a long chain of nodes recursively (node -> edge -> node -> ...) would overflow the
// stack for a 100,000-op graph. A node's edges that hold the last reference to their node are
// linked into this per-thread list through the node's own deferred_next_, so releasing needs
// no allocation (an out-of-memory unwind destroys graphs too); only the outermost release
// empties it, one node at a time. A leaf's accumulator is never linked: it has no edges (its
// destruction cannot recurse), and other threads reach it through the leaf's weak slot.
struct DeferredRelease {
  std::shared_ptr<Node> head;
  bool draining = false;

  static void release_edges(std::vector<Edge>& edges) noexcept {
    DeferredRelease& q = instance();
    for (Edge& e : edges) {
      if (e.fn && e.fn.use_count() == 1 && !e.fn->next_.empty()) {
        e.fn->deferred_next_ = std::move(q.head);
        q.head = std::move(e.fn);
      }
    }
    edges.clear();  // the other edges only drop a shared reference, or a node without edges
    if (q.draining) return;
    q.draining = true;
    while (q.head) {
      std::shared_ptr<Node> n = std::move(q.head);
      q.head = std::move(n->deferred_next_);
      n.reset();  // its destructor links its own edges here
    }
    q.draining = false;
  }

 private:
  static DeferredRelease& instance() noexcept {
    thread_local DeferredRelease q;
    return q;
  }
};

Node::~Node() { DeferredRelease::release_edges(next_); }

void Node::save(const Tensor& t) {
  // Keep an alias without autograd history: saving an op's own output as-is would make a
  // cycle (output -> grad_fn -> saved output) that never frees. The alias shares storage,
  // so the version check still sees in-place changes.
  saved_.push_back(t.defined() ? t.detach() : t);
  saved_versions_.push_back(t.defined() ? t.version() : 0);
}

const Tensor& Node::saved(size_t i) const {
  if (released_)
    raise<AutogradError>("trying to backward through the graph a second time (at ", name_,
                         "): its saved tensors were freed by the first backward; pass "
                         "retain_graph = true to the first backward to keep them");
  const Tensor& t = saved_.at(i);
  if (t.defined() && t.version() != saved_versions_[i])
    raise<AutogradError>("a tensor saved for the backward of ", name_,
                         " was modified by an in-place operation (saved at version ", saved_versions_[i],
                         ", now version ", t.version(), ")");
  return t;
}

void Node::release() {
  released_ = true;
  saved_.clear();
  DeferredRelease::release_edges(next_);
}

AccumulateGrad::AccumulateGrad(const Tensor& leaf)
    : Node("accumulate_grad"), leaf_(detail::TensorImplAccess::impl(leaf)) {}

std::vector<Tensor> AccumulateGrad::backward(const Tensor& grad_out) {
  const std::shared_ptr<TensorImpl> leaf = leaf_.lock();
  if (!leaf) return {};
  {
    // Backwards on several threads may reach this leaf at once (PyTorch locks likewise).
    std::lock_guard<std::mutex> lock(mutex_);
    Tensor& grad = detail::TensorImplAccess::grad(*leaf);
    if (!grad.defined()) {
      grad = grad_out.clone();  // never alias a gradient another leaf may also receive
    } else {
      grad.add_(grad_out);
    }
  }
  autograd::run_post_accumulate_grad_hooks(leaf);
  return {};
}

namespace autograd {

bool any_requires_grad(std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor* t : inputs)
    if (t && t->defined() && t->requires_grad()) return true;
  return false;
}

Edge edge_of(const Tensor& t) {
  if (!t.defined() || !t.requires_grad()) return Edge{nullptr, {}};
  if (t.grad_fn()) return Edge{t.grad_fn(), t.shape()};
  // Forwards on several threads may share a leaf: its accumulator is made once.
  static std::mutex accumulator_mutex;
  std::lock_guard<std::mutex> lock(accumulator_mutex);
  std::weak_ptr<Node>& slot = detail::TensorImplAccess::grad_accumulator(t);
  std::shared_ptr<Node> acc = slot.lock();
  if (!acc) {
    acc = make_node<AccumulateGrad>(t);
    slot = acc;
  }
  return Edge{acc, t.shape()};
}

namespace {
// Only floating tensors carry gradients (docs/DESIGN.md): an integer or bool output gets no node.
void set_output_history(const Tensor& output, std::shared_ptr<Node> node) {
  if (is_floating(output.dtype())) detail::TensorImplAccess::set_grad_fn(output, std::move(node));
}
void add_edge(Node& node, Edge e) {
  try {
    node.add_edge(std::move(e));
  } catch (const std::bad_alloc&) {
    raise<OutOfMemoryError>("out of memory while recording the backward graph");
  }
}
}  // namespace

void record(const Tensor& output, std::shared_ptr<Node> node, std::initializer_list<const Tensor*> inputs) {
  for (const Tensor* t : inputs) add_edge(*node, t ? edge_of(*t) : Edge{nullptr, {}});
  set_output_history(output, std::move(node));
}

void record(const Tensor& output, std::shared_ptr<Node> node, const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs) add_edge(*node, edge_of(t));
  set_output_history(output, std::move(node));
}

Tensor sum_to(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d)
    if (d < lead || (shape[static_cast<size_t>(d - lead)] == 1 && grad.size(d) != 1)) dims.push_back(d);
  Tensor r = dims.empty() ? grad : sum(grad, dims, /*keepdim=*/true);
  return r.reshape(shape);
}

}  // namespace autograd
}  // namespace ember
