// The backward engine: an iterative topological sort (no recursion, so a 100,000-op chain
// is fine), then the nodes in reverse order with recording off.
#include <functional>
#include <unordered_map>
#include <vector>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/autograd/hooks.h"
#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/factory.h"
#include "ember/extend/autograd_node.h"

namespace ember::autograd {
namespace {

// The callbacks of the backward passes running on this thread, innermost last (a hook may
// itself run a backward).
thread_local std::vector<std::vector<std::function<void()>>*> t_callbacks;

struct CallbackScope {
  explicit CallbackScope(std::vector<std::function<void()>>* list) { t_callbacks.push_back(list); }
  ~CallbackScope() { t_callbacks.pop_back(); }
  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;
};

}  // namespace

void queue_callback(std::function<void()> fn) {
  if (t_callbacks.empty()) raise<AutogradError>("queue_callback: no backward is running on this thread");
  if (!fn) raise<ValueError>("queue_callback: the callback is empty");
  t_callbacks.back()->push_back(std::move(fn));
}

namespace {
void run_backward(const Tensor& root, const Tensor& grad_in, bool retain_graph);
}  // namespace

void backward(const Tensor& root, const Tensor& grad_in, bool retain_graph) {
  if (!root.defined()) detail::raise_undefined("backward");
  try {
    run_backward(root, grad_in, retain_graph);
  } catch (const std::bad_alloc&) {
    raise<OutOfMemoryError>("out of memory during backward");
  }
}

namespace {
void run_backward(const Tensor& root, const Tensor& grad_in, bool retain_graph) {
  if (!root.requires_grad())
    raise<AutogradError>("backward: the tensor does not require grad and has no grad_fn");
  Tensor grad = grad_in;
  if (!grad.defined()) {
    if (root.numel() != 1)
      raise<AutogradError>(
          "backward: grad can be implicitly created only for scalar outputs; "
          "this tensor has shape ",
          shape_str(root.shape()));
    grad = ones_like(root);
  } else {
    if (grad.shape() != root.shape())
      raise<AutogradError>("backward: the gradient has shape ", shape_str(grad.shape()),
                           " but the tensor has shape ", shape_str(root.shape()));
    if (grad.dtype() != root.dtype())
      raise<AutogradError>("backward: the gradient has dtype ", dtype_name(grad.dtype()),
                           " but the tensor has dtype ", dtype_name(root.dtype()));
    if (grad.device() != root.device())
      raise<AutogradError>("backward: the gradient is on ", grad.device().str(), " but the tensor is on ",
                           root.device().str());
  }
  std::shared_ptr<Node> start = edge_of(root).fn;
  if (start->released())
    raise<AutogradError>("trying to backward through the graph a second time (at ", start->name(),
                         "): it was freed by the first backward; pass retain_graph = true to "
                         "the first backward to keep it");

  // Count, for every reachable node, how many edges point at it.
  std::unordered_map<Node*, int> deps;
  std::vector<Node*> stack{start.get()};
  deps[start.get()] = 0;
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges()) {
      if (!e.fn) continue;
      auto it = deps.find(e.fn.get());
      if (it == deps.end()) {
        deps.emplace(e.fn.get(), 1);
        stack.push_back(e.fn.get());
      } else {
        ++it->second;
      }
    }
  }

  NoGradGuard no_grad;
  std::vector<std::function<void()>> callbacks;
  CallbackScope scope(&callbacks);
  std::unordered_map<Node*, Tensor> pending;
  pending[start.get()] = grad;
  // Keep nodes alive while they run even if release() drops the last edge to them.
  std::vector<std::shared_ptr<Node>> ready{start};
  while (!ready.empty()) {
    std::shared_ptr<Node> node = std::move(ready.back());
    ready.pop_back();
    Tensor g;
    if (auto it = pending.find(node.get()); it != pending.end()) {
      g = std::move(it->second);
      pending.erase(it);
    }
    if (node->released())
      raise<AutogradError>("trying to backward through the graph a second time (at ", node->name(),
                           "): it was freed by the first backward; pass "
                           "retain_graph = true to the first backward to keep it");
    // A node reached by no gradient still runs its bookkeeping, so its inputs' counts drop.
    std::vector<Tensor> grads = g.defined() ? node->backward(g) : std::vector<Tensor>{};
    const auto& edges = node->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.fn) continue;
      Node* next = e.fn.get();
      if (i < grads.size() && grads[i].defined()) {
        Tensor gi = sum_to(grads[i], e.shape);
        auto it = pending.find(next);
        if (it == pending.end())
          pending.emplace(next, std::move(gi));
        else
          it->second = it->second + gi;
      }
      if (--deps[next] == 0) ready.push_back(e.fn);
    }
    if (!retain_graph) node->release();
  }
  // Indexed: a callback may queue another, which reallocates the list.
  for (size_t i = 0; i < callbacks.size(); ++i) {
    const std::function<void()> fn = std::move(callbacks[i]);
    try {
      fn();
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      raise<AutogradError>("a callback queued during backward threw: ", e.what());
    } catch (...) {
      raise<AutogradError>("a callback queued during backward threw a non-standard exception");
    }
  }
}
}  // namespace

}  // namespace ember::autograd
