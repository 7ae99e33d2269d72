#pragma once
// A Node of the backward graph: one per recorded op. It knows its inputs' edges, the tensors
// its gradient needs (saved with their version) and how to map the output's gradient to one
// gradient per input.
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/export.h"
#include "ember/core/tensor.h"

namespace ember {

class Node;

/// Where an input's gradient goes: its producer's node (null when it needs no gradient),
/// and the input's shape, so broadcast gradients can be summed back to it.
struct Edge {
  std::shared_ptr<Node> fn;
  Shape shape;
};

class EMBER_API Node {
 public:
  explicit Node(const char* name) : name_(name) {}
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// The op's name, as in error messages ("mul").
  const char* name() const { return name_; }
  /// One gradient per input (undefined where the input needs none) from the output's.
  virtual std::vector<Tensor> backward(const Tensor& grad_out) = 0;

  const std::vector<Edge>& next_edges() const { return next_; }
  void add_edge(Edge e) { next_.push_back(std::move(e)); }
  /// True when input i needs a gradient.
  bool needs_grad(size_t i) const { return i < next_.size() && next_[i].fn != nullptr; }

  /// Saves a tensor for backward, remembering its version.
  void save(const Tensor& t);
  /// The i-th saved tensor; AutogradError if it was modified in place since it was saved
  /// or the graph was freed.
  const Tensor& saved(size_t i) const;
  /// Frees saved tensors and edges (after a backward without retain_graph).
  virtual void release();
  bool released() const { return released_; }

 private:
  friend struct DeferredRelease;
  const char* name_;
  std::vector<Edge> next_;
  std::vector<Tensor> saved_;
  std::vector<uint64_t> saved_versions_;
  bool released_ = false;
  // Releasing a long chain node by node would recurse once per node (node -> edge -> node):
  // a node about to be destroyed is linked here instead, into a per-thread list that the
  // outermost release empties without allocating (core/autograd/node.cpp).
  std::shared_ptr<Node> deferred_next_;
};

/// Sums a gradient into a leaf's .grad, then runs the leaf's post-accumulate-grad hooks. It
/// belongs to the leaf, not to one graph: every graph that uses the leaf shares it, a backward
/// never releases it, and the sum is serialised for backwards running on several threads.
class EMBER_API AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(const Tensor& leaf);
  std::vector<Tensor> backward(const Tensor& grad_out) override;
  void release() override {}

 private:
  std::weak_ptr<TensorImpl> leaf_;
  std::mutex mutex_;
};

namespace autograd {
/// True when any input requires grad and grad mode is on: the op should record a node.
EMBER_API bool any_requires_grad(std::initializer_list<const Tensor*> inputs);
/// The edge an input feeds: its grad_fn, its leaf accumulator, or none.
EMBER_API Edge edge_of(const Tensor& t);
/// Connects node to the inputs and makes it output's grad_fn (output then requires grad).
EMBER_API void record(const Tensor& output, std::shared_ptr<Node> node,
                      std::initializer_list<const Tensor*> inputs);
EMBER_API void record(const Tensor& output, std::shared_ptr<Node> node, const std::vector<Tensor>& inputs);
/// Runs backward from root with the given gradient (see Tensor::backward).
EMBER_API void backward(const Tensor& root, const Tensor& grad, bool retain_graph);
/// make_shared for nodes: OutOfMemoryError, never std::bad_alloc, when memory runs out.
template <class T, class... Args>
std::shared_ptr<T> make_node(Args&&... args) {
  try {
    return std::make_shared<T>(std::forward<Args>(args)...);
  } catch (const std::bad_alloc&) {
    raise<OutOfMemoryError>("out of memory while recording the backward graph");
  }
}
/// Runs leaf's post-accumulate-grad hooks (AccumulateGrad, after the sum).
EMBER_API void run_post_accumulate_grad_hooks(const std::shared_ptr<TensorImpl>& leaf);
/// Sums grad over the dims that broadcasting expanded, to get back to shape.
EMBER_API Tensor sum_to(const Tensor& grad, const Shape& shape);
}  // namespace autograd

/// A node whose backward is a lambda: for ops whose gradient is a short expression.
class EMBER_API LambdaNode final : public Node {
 public:
  using Fn = std::vector<Tensor> (*)(LambdaNode& self, const Tensor& grad_out);
  LambdaNode(const char* name, Fn fn) : Node(name), fn_(fn) {}
  std::vector<Tensor> backward(const Tensor& grad_out) override { return fn_(*this, grad_out); }
  /// Scalars and shapes the gradient needs (saved tensors go through save()).
  std::vector<double> scalars;
  std::vector<Shape> shapes;
  std::vector<int64_t> ints;

 private:
  Fn fn_;
};

}  // namespace ember
