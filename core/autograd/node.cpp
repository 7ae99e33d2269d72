#include "ember/core/autograd/node.h"

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/tensor_impl_access.h"

namespace ember {
namespace {
// Destroying a long chain of nodes recursively (node -> saved tensor -> its grad_fn -> ...)
// would overflow the stack for a 100,000-op graph. Each node hands what it owns to this
// per-thread queue, and only the outermost destructor empties it, one item at a time.
struct DeferredRelease {
  std::vector<std::shared_ptr<Node>> nodes;
  std::vector<Tensor> tensors;
  bool draining = false;
};
thread_local DeferredRelease t_deferred;
}  // namespace

Node::~Node() {
  auto& q = t_deferred;
  for (auto& e : next_)
    if (e.fn) q.nodes.push_back(std::move(e.fn));
  for (auto& t : saved_)
    if (t.defined()) q.tensors.push_back(std::move(t));
  if (q.draining) return;
  q.draining = true;
  while (!q.nodes.empty() || !q.tensors.empty()) {
    if (!q.nodes.empty()) {
      std::shared_ptr<Node> n = std::move(q.nodes.back());
      q.nodes.pop_back();
      n.reset();
    } else {
      Tensor t = std::move(q.tensors.back());
      q.tensors.pop_back();
    }
  }
  q.draining = false;
}

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
  next_.clear();
}

AccumulateGrad::AccumulateGrad(const Tensor& leaf)
    : Node("accumulate_grad"), leaf_(detail::TensorImplAccess::impl(leaf)) {}

std::vector<Tensor> AccumulateGrad::backward(const Tensor& grad_out) {
  const std::shared_ptr<TensorImpl> leaf = leaf_.lock();
  if (!leaf) return {};
  Tensor& grad = detail::TensorImplAccess::grad(*leaf);
  if (!grad.defined()) {
    grad = grad_out.clone();  // never alias a gradient another leaf may also receive
  } else {
    grad.add_(grad_out);
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
  std::weak_ptr<Node>& slot = detail::TensorImplAccess::grad_accumulator(t);
  std::shared_ptr<Node> acc = slot.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    slot = acc;
  }
  return Edge{acc, t.shape()};
}

void record(const Tensor& output, std::shared_ptr<Node> node, std::initializer_list<const Tensor*> inputs) {
  for (const Tensor* t : inputs) node->add_edge(t ? edge_of(*t) : Edge{nullptr, {}});
  detail::TensorImplAccess::set_grad_fn(output, std::move(node));
}

void record(const Tensor& output, std::shared_ptr<Node> node, const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs) node->add_edge(edge_of(t));
  detail::TensorImplAccess::set_grad_fn(output, std::move(node));
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
