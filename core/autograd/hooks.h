#pragma once
// Hooks on autograd's leaves: a post-accumulate-grad hook runs right after backward has summed
// a leaf's gradient into its .grad (torch.Tensor.register_post_accumulate_grad_hook). A
// data-parallel wrapper uses it to start averaging a gradient while backward goes on.
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "ember/core/export.h"

namespace ember {

class Tensor;

/// A hook's argument is the leaf itself; its .grad holds this backward's accumulated gradient.
using PostAccumulateGradHook = std::function<void(const Tensor&)>;

namespace autograd {
/// A leaf's hooks in registration order, each with the id its handle removes it by.
struct PostAccumulateGradHooks {
  std::vector<std::pair<uint64_t, PostAccumulateGradHook>> hooks;
  uint64_t next_id = 0;
};
}  // namespace autograd

/// Removes the hook it was returned for (torch.utils.hooks.RemovableHandle). Letting the handle
/// go does not remove the hook; remove() twice, or after the tensor is gone, does nothing.
class EMBER_API HookHandle {
 public:
  HookHandle() = default;
  HookHandle(std::weak_ptr<autograd::PostAccumulateGradHooks> list, uint64_t id)
      : list_(std::move(list)), id_(id) {}
  /// Unregisters the hook; a backward already running it finishes that call.
  void remove();

 private:
  std::weak_ptr<autograd::PostAccumulateGradHooks> list_;
  uint64_t id_ = 0;
};

namespace autograd {
/// Queues fn to run once the innermost backward now running has run all its nodes, before it
/// returns (recording off; torch's Variable._execution_engine.queue_callback). Callbacks run
/// in the order queued, and one may queue another. A backward that throws drops its queued
/// callbacks. AutogradError when no backward is running on this thread.
EMBER_API void queue_callback(std::function<void()> fn);
}  // namespace autograd

}  // namespace ember
