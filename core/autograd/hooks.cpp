#include "ember/core/autograd/hooks.h"

#include <algorithm>

#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/core/tensor_impl_access.h"
#include "ember/extend/autograd_node.h"

namespace ember {

HookHandle Tensor::register_post_accumulate_grad_hook(PostAccumulateGradHook hook) const {
  if (!defined()) raise<ValueError>("register_post_accumulate_grad_hook: called on an undefined tensor");
  if (!is_leaf() || !requires_grad())
    raise<AutogradError>(
        "register_post_accumulate_grad_hook: only a leaf tensor that requires grad has an "
        "accumulated gradient; this one ",
        is_leaf() ? "does not require grad" : "is not a leaf");
  if (!hook) raise<ValueError>("register_post_accumulate_grad_hook: the hook is empty");
  auto& list = detail::TensorImplAccess::post_accumulate_grad_hooks(*detail::TensorImplAccess::impl(*this));
  if (!list) list = std::make_shared<autograd::PostAccumulateGradHooks>();
  const uint64_t id = list->next_id++;
  list->hooks.emplace_back(id, std::move(hook));
  return HookHandle(list, id);
}

void HookHandle::remove() {
  auto list = list_.lock();
  if (!list) return;
  auto& hooks = list->hooks;
  hooks.erase(std::remove_if(hooks.begin(), hooks.end(), [this](const auto& h) { return h.first == id_; }),
              hooks.end());
  list_.reset();
}

namespace autograd {
namespace {
std::string hook_of(const Tensor& t) {
  return detail::concat("a post-accumulate-grad hook of ", t.name().empty() ? "a leaf" : t.name(),
                        " of shape ", shape_str(t.shape()));
}
}  // namespace

void run_post_accumulate_grad_hooks(const std::shared_ptr<TensorImpl>& leaf) {
  const std::shared_ptr<PostAccumulateGradHooks> list =
      detail::TensorImplAccess::post_accumulate_grad_hooks(*leaf);
  if (!list || list->hooks.empty()) return;
  // A hook may remove hooks, itself included: each registered now runs if still registered
  // when its turn comes; one added meanwhile waits for the next backward.
  std::vector<uint64_t> ids;
  ids.reserve(list->hooks.size());
  for (const auto& h : list->hooks) ids.push_back(h.first);
  const Tensor t = detail::TensorImplAccess::wrap(leaf);
  for (uint64_t id : ids) {
    auto it =
        std::find_if(list->hooks.begin(), list->hooks.end(), [id](const auto& h) { return h.first == id; });
    if (it == list->hooks.end()) continue;
    const PostAccumulateGradHook hook = it->second;  // a copy: the hook may remove itself
    try {
      hook(t);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      raise<AutogradError>(hook_of(t), " threw: ", e.what());
    } catch (...) {
      raise<AutogradError>(hook_of(t), " threw a non-standard exception");
    }
  }
}

}  // namespace autograd
}  // namespace ember
