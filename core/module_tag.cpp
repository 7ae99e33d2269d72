#include "ember/core/module_tag.h"

#include <utility>

namespace ember {
namespace {
// Moved modules alive now: a tag adds itself once when first moved and leaves when destroyed.
std::atomic<int64_t> g_alive_moved{0};
}  // namespace

ModuleTag::ModuleTag(std::string type_name) : type_name_(std::move(type_name)) {}

ModuleTag::~ModuleTag() {
  if (moved_.load()) g_alive_moved.fetch_sub(1);
}

void ModuleTag::set_parent_once(const std::shared_ptr<const ModuleTag>& parent, const std::string& name) {
  std::lock_guard<std::mutex> lock(parent_mutex_);
  if (!parent_.expired()) return;
  parent_ = parent;
  name_in_parent_ = name;
}

template <class Visit>
const ModuleTag* ModuleTag::walk_up(Visit visit) const {
  std::shared_ptr<const ModuleTag> held;  // keeps cur alive while its parent is read
  const ModuleTag* cur = this;
  for (;;) {
    std::shared_ptr<const ModuleTag> up;
    {
      std::lock_guard<std::mutex> lock(cur->parent_mutex_);
      up = cur->parent_.lock();
      if (up) visit(*up, cur->name_in_parent_);
    }
    if (!up) return cur;  // no cycles: register_module refuses them
    held = std::move(up);
    cur = held.get();
  }
}

std::string ModuleTag::root_type_name() const {
  return walk_up([](const ModuleTag&, const std::string&) {})->type_name_;
}

std::string ModuleTag::path() const {
  std::string path;
  walk_up([&](const ModuleTag&, const std::string& name) { path = path.empty() ? name : name + "." + path; });
  return path;
}

void ModuleTag::mark_moved() {
  if (!moved_.exchange(true)) g_alive_moved.fetch_add(1);
  walk_up([](const ModuleTag& parent, const std::string&) { parent.part_moved_.store(true); });
}

bool ModuleTag::root_partly_moved() const {
  const ModuleTag* root = walk_up([](const ModuleTag&, const std::string&) {});
  return !root->moved() && root->part_moved_.load();
}

bool ModuleTag::any_alive_moved() { return g_alive_moved.load() > 0; }

}  // namespace ember
